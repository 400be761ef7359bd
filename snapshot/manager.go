package snapshot

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/emberchain/ember/store"
)

// Info describes one stored snapshot as CometBFT lists it.
type Info struct {
	Height   uint64
	Format   uint32
	Chunks   uint32
	Hash     []byte
	Metadata []byte
	Bytes    int64 // size of the chunks; set by Create only
}

// Manager keeps the snapshots of one node in a directory: DIR/<height>/
// holds the chunk files and, written last, the metadata. A snapshot is
// made in DIR/<height>.tmp and renamed when complete, so a process killed
// while making one leaves only a .tmp directory, which Open removes.
type Manager struct {
	dir  string
	keep int // snapshots kept; older ones are deleted after a new one is made
	log  *slog.Logger

	mu     sync.Mutex // one snapshot made at a time; guards cancel
	busy   bool
	height uint64 // of the snapshot being made, when busy
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

const (
	metadataFile = "metadata"
	tmpSuffix    = ".tmp"
)

// Open opens (creating) the snapshot directory, keeping the keep most
// recent snapshots, and removes partial ones.
func Open(dir string, keep int, log *slog.Logger) (*Manager, error) {
	if keep < 1 {
		return nil, fmt.Errorf("snapshot-keep-recent must be at least 1, got %d", keep)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), tmpSuffix) {
			log.Info("removing partial snapshot", "dir", e.Name())
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return nil, err
			}
		}
	}
	return &Manager{dir: dir, keep: keep, log: log}, nil
}

// List returns the complete snapshots, newest first.
func (m *Manager) List() ([]Info, error) {
	heights, err := m.heights()
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(heights))
	for _, h := range heights {
		raw, err := os.ReadFile(filepath.Join(m.path(h), metadataFile))
		if err != nil {
			return nil, err
		}
		md := new(Metadata)
		if err := rlp.DecodeBytes(raw, md); err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", h, err)
		}
		out = append(out, Info{Height: h, Format: Format, Chunks: uint32(len(md.Chunks)), Hash: hashOf(raw), Metadata: raw})
	}
	return out, nil
}

// heights lists the complete snapshots' heights, newest first.
func (m *Manager) heights() ([]uint64, error) {
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return nil, err
	}
	var hs []uint64
	for _, e := range entries {
		h, err := strconv.ParseUint(e.Name(), 10, 64)
		if err != nil || !e.IsDir() {
			continue
		}
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i] > hs[j] })
	return hs, nil
}

func (m *Manager) path(height uint64) string {
	return filepath.Join(m.dir, strconv.FormatUint(height, 10))
}

func chunkName(i int) string { return fmt.Sprintf("%06d", i) }

// Chunk returns one chunk of a stored snapshot.
func (m *Manager) Chunk(height uint64, format, index uint32) ([]byte, error) {
	if format != Format {
		return nil, fmt.Errorf("no snapshot of format %d", format)
	}
	b, err := os.ReadFile(filepath.Join(m.path(height), chunkName(int(index))))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no chunk %d of a snapshot at height %d", index, height)
	}
	return b, err
}

// Source is what a snapshot is made from: the node's store.
type Source interface {
	HeaderByNumber(number uint64) *types.Header
	ExportChain(head, n uint64) ([]store.ChainBlock, error)
	ExportState(ctx context.Context, root common.Hash, v store.StateVisitor) error
}

// CreateAsync makes a snapshot at height in the background unless one is
// being made already (then it is skipped: the next interval makes one).
// It reads only the state and blocks at and below height, which the store
// keeps unchanged, so block production goes on meanwhile.
func (m *Manager) CreateAsync(src Source, height uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := os.Stat(m.path(height)); err == nil {
		return // made before a restart whose handshake replayed this block
	}
	if m.busy {
		m.log.Info("snapshot skipped: the previous one is still being made", "height", height)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.busy, m.height, m.cancel = true, height, cancel
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.log.Info("making snapshot", "height", height)
		info, err := m.Create(ctx, src, height)
		switch {
		case err != nil && ctx.Err() == nil:
			m.log.Error("snapshot failed", "height", height, "err", err)
		case err == nil:
			m.log.Info("snapshot made", "height", height, "chunks", info.Chunks, "bytes", info.Bytes)
		}
		m.mu.Lock()
		m.busy, m.cancel = false, nil
		m.mu.Unlock()
		cancel()
	}()
}

// Making is the height of the snapshot being made, if one is: its state
// must stay readable (a pruning node holds it) until it is done.
func (m *Manager) Making() (uint64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.height, m.busy
}

// Close stops a snapshot being made and waits for it.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.cancel != nil {
		m.cancel()
	}
	m.mu.Unlock()
	m.wg.Wait()
}

// Create makes the snapshot at height and deletes the oldest beyond keep.
func (m *Manager) Create(ctx context.Context, src Source, height uint64) (*Info, error) {
	header := src.HeaderByNumber(height)
	if header == nil {
		return nil, fmt.Errorf("no block %d", height)
	}
	final := m.path(height)
	if _, err := os.Stat(final); err == nil {
		return nil, fmt.Errorf("a snapshot at height %d exists", height)
	}
	tmp := final + tmpSuffix
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	md, size, err := writeChunks(ctx, src, header.Number.Uint64(), header.Root, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	raw := md.Encode()
	if err := writeFileSync(filepath.Join(tmp, metadataFile), raw); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := syncDir(m.dir); err != nil {
		return nil, err
	}
	m.prune()
	return &Info{Height: height, Format: Format, Chunks: uint32(len(md.Chunks)), Hash: hashOf(raw), Metadata: raw, Bytes: size}, nil
}

// writeChunks writes the chunk files of the snapshot at height into dir.
func writeChunks(ctx context.Context, src Source, height uint64, root common.Hash, dir string) (*Metadata, int64, error) {
	md := &Metadata{Version: Format, Height: height, Root: root}
	var size int64
	c := &chunker{emit: func(chunk []byte) error {
		md.Chunks = append(md.Chunks, sha256.Sum256(chunk))
		size += int64(len(chunk))
		return writeFileSync(filepath.Join(dir, chunkName(len(md.Chunks)-1)), chunk)
	}}
	blocks, err := src.ExportChain(height, RecentBlocks)
	if err != nil {
		return nil, 0, err
	}
	for _, b := range blocks {
		if err := c.add(record{Kind: kindBlock, A: b.Header, B: b.Body, C: b.Receipts, D: b.Comet}); err != nil {
			return nil, 0, err
		}
	}
	if err := src.ExportState(ctx, root, stateWriter{c}); err != nil {
		return nil, 0, err
	}
	if err := c.flush(); err != nil {
		return nil, 0, err
	}
	return md, size, nil
}

// stateWriter turns the store's export into records.
type stateWriter struct{ c *chunker }

func (w stateWriter) Account(hash common.Hash, value []byte) error {
	return w.c.add(record{Kind: kindAccount, A: hash[:], B: value})
}

func (w stateWriter) Storage(slot common.Hash, value []byte) error {
	return w.c.add(record{Kind: kindStorage, A: slot[:], B: value})
}

func (w stateWriter) Code(hash common.Hash, code []byte) error {
	return w.c.add(record{Kind: kindCode, A: hash[:], B: code})
}

// prune deletes the snapshots beyond the keep most recent.
func (m *Manager) prune() {
	hs, err := m.heights()
	if err != nil {
		m.log.Error("list snapshots", "err", err)
		return
	}
	for i := m.keep; i < len(hs); i++ {
		if err := os.RemoveAll(m.path(hs[i])); err != nil {
			m.log.Error("delete snapshot", "height", hs[i], "err", err)
		}
	}
}

func writeFileSync(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
