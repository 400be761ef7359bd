// Package snapshot makes and restores the state-sync snapshots Ember
// serves to CometBFT: the state of one block (every account, storage slot
// and contract code of its trie) with the chain data of the 256 blocks up
// to it (BLOCKHASH reaches that far back), cut into chunks.
//
// A snapshot is a stream of RLP records, blocks first (oldest first), then
// the state in trie order: an account, its storage slots, its code the
// first time that code is seen. Chunks end at record boundaries, so each
// chunk decodes on its own; CometBFT applies them in order, and the restorer
// feeds the records to the store's importer as they come. The metadata
// CometBFT carries beside the snapshot holds the format version, the state
// root and the SHA-256 of every chunk; the snapshot hash is the SHA-256 of
// the metadata.
package snapshot

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"
)

// Format is the snapshot format this code writes and restores.
const Format uint32 = 1

// RecentBlocks is how many blocks up to the snapshot height a snapshot
// carries: the BLOCKHASH window.
const RecentBlocks = 256

// chunkTarget is the size at which a chunk is closed after a record:
// well under the 16 MiB CometBFT's p2p messages carry, and small enough
// that its chunk fetchers (four by default) fetch from several peers at
// once and a bad chunk costs little to fetch again. Tests make it smaller.
var chunkTarget = 1 << 20

// Record kinds.
const (
	kindBlock   uint8 = 1 // A header, B body, C receipts, D CometBFT hash
	kindAccount uint8 = 2 // A account hash, B leaf value
	kindStorage uint8 = 3 // A slot hash, B leaf value
	kindCode    uint8 = 4 // A code hash, B code
)

// record is one item of the stream.
type record struct {
	Kind       uint8
	A, B, C, D []byte
}

// Metadata is what CometBFT carries as the snapshot's metadata.
type Metadata struct {
	Version uint32
	Height  uint64
	Root    common.Hash   // state root at Height: the AppHash
	Chunks  []common.Hash // SHA-256 of each chunk
}

// Encode is the metadata's bytes. A struct of fixed-size fields always
// encodes, so the error is dropped.
func (m *Metadata) Encode() []byte {
	b, _ := rlp.EncodeToBytes(m)
	return b
}

// hashOf is the snapshot hash of encoded metadata.
func hashOf(raw []byte) []byte {
	h := sha256.Sum256(raw)
	return h[:]
}

// ErrInvalid marks a snapshot that is malformed or does not match what
// was trusted: another snapshot may do.
var ErrInvalid = errors.New("invalid snapshot")

// DecodeMetadata decodes and checks metadata against the snapshot's hash,
// height and format as CometBFT offered them.
func DecodeMetadata(raw, hash []byte, height uint64, format, chunks uint32) (*Metadata, error) {
	if format != Format {
		return nil, fmt.Errorf("%w: format %d, this node restores format %d", ErrInvalid, format, Format)
	}
	m := new(Metadata)
	if err := rlp.DecodeBytes(raw, m); err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrInvalid, err)
	}
	switch {
	case !bytes.Equal(hashOf(raw), hash):
		return nil, fmt.Errorf("%w: metadata does not hash to the snapshot hash", ErrInvalid)
	case m.Version != Format:
		return nil, fmt.Errorf("%w: metadata version %d", ErrInvalid, m.Version)
	case m.Height != height:
		return nil, fmt.Errorf("%w: metadata height %d, offered as %d", ErrInvalid, m.Height, height)
	case len(m.Chunks) == 0 || len(m.Chunks) != int(chunks):
		return nil, fmt.Errorf("%w: %d chunk hashes for %d chunks", ErrInvalid, len(m.Chunks), chunks)
	}
	return m, nil
}

// chunker cuts the record stream into chunks.
type chunker struct {
	buf  bytes.Buffer
	emit func(chunk []byte) error
}

func (c *chunker) add(r record) error {
	if err := rlp.Encode(&c.buf, &r); err != nil {
		return err
	}
	if c.buf.Len() >= chunkTarget {
		return c.flush()
	}
	return nil
}

func (c *chunker) flush() error {
	if c.buf.Len() == 0 {
		return nil
	}
	err := c.emit(c.buf.Bytes())
	c.buf.Reset()
	return err
}

// decodeChunk calls fn with each record of a chunk.
func decodeChunk(chunk []byte, fn func(record) error) error {
	s := rlp.NewStream(bytes.NewReader(chunk), uint64(len(chunk)))
	for {
		var r record
		if err := s.Decode(&r); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%w: chunk record: %v", ErrInvalid, err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}
