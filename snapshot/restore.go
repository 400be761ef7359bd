package snapshot

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/emberchain/ember/store"
)

// ErrChunkHash is a chunk whose SHA-256 is not the one the metadata lists:
// fetch it again, from another peer.
var ErrChunkHash = errors.New("chunk hash mismatch")

// Restorer rebuilds a store from the chunks of one snapshot, applied in
// order. Nothing it writes is visible until the last chunk: then the state
// root is checked against the trusted app hash and the blocks are written
// with the new head in one batch. A restore cut short (a crash, a rejected
// snapshot) leaves only unreferenced trie nodes; the next one starts over.
type Restorer struct {
	st      *store.Store
	md      *Metadata
	appHash common.Hash
	next    int                // index of the next chunk
	blocks  []store.ChainBlock // held until the state is complete
	state   *store.StateImport
	inState bool // the blocks are done
}

// NewRestorer starts restoring the snapshot with metadata md (checked by
// DecodeMetadata) whose state root CometBFT's light client verified as
// appHash.
func NewRestorer(st *store.Store, md *Metadata, appHash []byte) (*Restorer, error) {
	if !bytes.Equal(md.Root[:], appHash) {
		return nil, fmt.Errorf("%w: state root %x, the verified app hash is %x", ErrInvalid, md.Root, appHash)
	}
	return &Restorer{st: st, md: md, appHash: common.BytesToHash(appHash), state: st.NewStateImport()}, nil
}

// Height is the snapshot height.
func (r *Restorer) Height() uint64 { return r.md.Height }

// Apply applies chunk index; done is true after the last one, when the store
// serves from the snapshot height. An error wrapping ErrChunkHash asks for
// the chunk again; ErrInvalid condemns the snapshot.
func (r *Restorer) Apply(index uint32, chunk []byte) (done bool, err error) {
	if int(index) != r.next {
		return false, fmt.Errorf("chunk %d applied, %d expected", index, r.next)
	}
	if sha256.Sum256(chunk) != r.md.Chunks[index] {
		return false, fmt.Errorf("%w: chunk %d", ErrChunkHash, index)
	}
	if err := decodeChunk(chunk, r.apply); err != nil {
		return false, err
	}
	r.next++
	if r.next < len(r.md.Chunks) {
		return false, nil
	}
	return true, r.finish()
}

func (r *Restorer) apply(rec record) error {
	if rec.Kind == kindBlock {
		return r.addBlock(rec)
	}
	if !r.inState {
		if err := r.checkBlocks(); err != nil {
			return err
		}
		r.inState = true
	}
	var err error
	switch rec.Kind {
	case kindAccount:
		err = r.state.Account(common.BytesToHash(rec.A), rec.B)
	case kindStorage:
		err = r.state.Storage(common.BytesToHash(rec.A), rec.B)
	case kindCode:
		err = r.state.Code(common.BytesToHash(rec.A), rec.B)
	default:
		return fmt.Errorf("%w: record kind %d", ErrInvalid, rec.Kind)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

func (r *Restorer) addBlock(rec record) error {
	if r.inState {
		return fmt.Errorf("%w: block record after the state", ErrInvalid)
	}
	if len(r.blocks) == RecentBlocks {
		return fmt.Errorf("%w: more than %d blocks", ErrInvalid, RecentBlocks)
	}
	r.blocks = append(r.blocks, store.ChainBlock{Header: rec.A, Body: rec.B, Receipts: rec.C, Comet: rec.D})
	return nil
}

// checkBlocks checks, before any state is imported, that the last block is
// the one at the snapshot height with the trusted state root (ImportChain
// checks that each block is its successor's parent).
func (r *Restorer) checkBlocks() error {
	if len(r.blocks) == 0 {
		return fmt.Errorf("%w: no blocks", ErrInvalid)
	}
	head := new(types.Header)
	if err := rlp.DecodeBytes(r.blocks[len(r.blocks)-1].Header, head); err != nil {
		return fmt.Errorf("%w: head header: %v", ErrInvalid, err)
	}
	if head.Number.Uint64() != r.md.Height || head.Root != r.appHash {
		return fmt.Errorf("%w: head block %d with state root %x, not block %d with %x", ErrInvalid, head.Number, head.Root, r.md.Height, r.appHash)
	}
	if want := min(r.md.Height+1, RecentBlocks); uint64(len(r.blocks)) != want {
		return fmt.Errorf("%w: %d blocks, %d expected", ErrInvalid, len(r.blocks), want)
	}
	return nil
}

func (r *Restorer) finish() error {
	if !r.inState {
		return fmt.Errorf("%w: no state", ErrInvalid)
	}
	root, err := r.state.Finish()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if root != r.appHash {
		return fmt.Errorf("%w: the restored state root is %x, the verified app hash %x", ErrInvalid, root, r.appHash)
	}
	if err := r.st.ImportChain(r.blocks, root); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}
