package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
)

// The log index is written with each block, in the block's batch:
//
//	ember-lr + pos             -> the log (address, topics, data, tx hash, tx index)
//	ember-la + address + pos   -> nothing
//	ember-lt + i + topic + pos -> nothing (topic at position i, 0..3)
//
// where pos is the block number (8 bytes) and the block-wide log index (4
// bytes), big-endian, so keys sort in chain order. A query walks only the
// keys of the addresses and topics it names, intersecting them position by
// position; it never decodes a receipt.
var (
	logPrefix        = []byte("ember-lr")
	logAddressPrefix = []byte("ember-la")
	logTopicPrefix   = []byte("ember-lt")
)

const posLen = 12

type logPos [posLen]byte

func makePos(block uint64, index uint32) logPos {
	var p logPos
	binary.BigEndian.PutUint64(p[:8], block)
	binary.BigEndian.PutUint32(p[8:], index)
	return p
}

func (p logPos) block() uint64 { return binary.BigEndian.Uint64(p[:8]) }
func (p logPos) index() uint32 { return binary.BigEndian.Uint32(p[8:]) }

// next is the position right after p.
func (p logPos) next() (logPos, bool) {
	for i := posLen - 1; i >= 0; i-- {
		p[i]++
		if p[i] != 0 {
			return p, true
		}
	}
	return p, false
}

// storedLog is a log as the index keeps it; the block number, block hash and
// log index come from its key and the canonical header.
type storedLog struct {
	Address common.Address
	Topics  []common.Hash
	Data    []byte
	TxHash  common.Hash
	TxIndex uint64
}

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// writeLogIndex indexes every log of a block's receipts.
func writeLogIndex(w ethdb.KeyValueWriter, number uint64, receipts types.Receipts) error {
	index := uint32(0)
	for txIndex, r := range receipts {
		for _, l := range r.Logs {
			pos := makePos(number, index)
			index++
			enc, err := rlp.EncodeToBytes(&storedLog{Address: l.Address, Topics: l.Topics, Data: l.Data, TxHash: r.TxHash, TxIndex: uint64(txIndex)})
			if err != nil {
				return err
			}
			if err := w.Put(join(logPrefix, pos[:]), enc); err != nil {
				return err
			}
			if err := w.Put(join(logAddressPrefix, l.Address[:], pos[:]), nil); err != nil {
				return err
			}
			for i, topic := range l.Topics {
				if err := w.Put(join(logTopicPrefix, []byte{byte(i)}, topic[:], pos[:]), nil); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// LogQuery selects logs: blocks From..To (inclusive), emitted by any of
// Addresses (none = any), with Topics[i] matching topic i (an empty list =
// any; several = any of them). Limit > 0 bounds the result: one log more
// is an error.
type LogQuery struct {
	From, To  uint64
	Addresses []common.Address
	Topics    [][]common.Hash
	Limit     int
}

// LimitError says a query matched more logs than its limit.
type LimitError struct{ Limit int }

func (e *LimitError) Error() string {
	return fmt.Sprintf("query returned more than %d results", e.Limit)
}

// Logs returns the logs q selects, in chain order, with every field filled.
func (s *Store) Logs(ctx context.Context, q LogQuery) ([]*types.Log, error) {
	if head := s.Head(); head == nil || q.From > q.To {
		return nil, nil
	} else if q.To > head.Number.Uint64() {
		q.To = head.Number.Uint64()
	}
	from, to := makePos(q.From, 0), makePos(q.To, ^uint32(0))
	var dims []cursor
	if len(q.Addresses) > 0 {
		var u union
		for _, a := range q.Addresses {
			u = append(u, s.newKeyCursor(join(logAddressPrefix, a[:]), to))
		}
		dims = append(dims, u)
	}
	for i, topics := range q.Topics {
		if len(topics) == 0 {
			continue
		}
		var u union
		for _, t := range topics {
			u = append(u, s.newKeyCursor(join(logTopicPrefix, []byte{byte(i)}, t[:]), to))
		}
		dims = append(dims, u)
	}
	var all *keyCursor // with no criteria, the records themselves are walked
	if len(dims) == 0 {
		all = s.newKeyCursor(logPrefix, to)
		dims = append(dims, all)
	}
	defer func() {
		for _, d := range dims {
			d.release()
		}
	}()

	var (
		out     []*types.Log
		blocks  = map[uint64]blockRef{}
		records = &recordReader{s: s, to: to}
	)
	defer records.release()
	err := intersect(dims, from, func(p logPos) (err error) {
		if len(out)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if q.Limit > 0 && len(out) == q.Limit {
			return &LimitError{Limit: q.Limit}
		}
		var enc []byte
		if all != nil {
			enc = all.value() // the cursor stands on p
		} else if enc, err = records.read(p); err != nil {
			return err
		}
		l, err := s.decodeLog(enc, p, blocks)
		if err != nil {
			return err
		}
		// Topic positions beyond the log's topics cannot match.
		if len(q.Topics) > len(l.Topics) {
			for _, ts := range q.Topics[len(l.Topics):] {
				if len(ts) > 0 {
					return nil
				}
			}
		}
		out = append(out, l)
		return nil
	})
	return out, err
}

// blockRef is what a log needs of its block.
type blockRef struct {
	hash common.Hash
	time uint64
}

// blockRef returns the canonical hash and time of a block, cached: blocks
// are final once committed, so the cache never goes stale.
func (s *Store) blockRef(number uint64) (blockRef, bool) {
	if b, ok := s.refs.Get(number); ok {
		return b, true
	}
	h := s.HeaderByNumber(number)
	if h == nil {
		return blockRef{}, false
	}
	b := blockRef{hash: h.Hash(), time: h.Time}
	s.refs.Add(number, b)
	return b, true
}

// recordReader reads log records at increasing positions: a run of
// consecutive positions through an iterator (one step each), an isolated
// one with a point lookup (cheaper than opening an iterator there).
type recordReader struct {
	s    *Store
	to   logPos
	cur  *keyCursor
	last logPos
	any  bool
}

func (r *recordReader) read(p logPos) ([]byte, error) {
	if r.cur != nil && r.cur.stepTo(p) {
		r.last, r.any = p, true
		return r.cur.value(), nil
	}
	if next, _ := r.last.next(); r.any && next == p {
		// A run begins: walk it with an iterator.
		r.release()
		r.cur = r.s.newKeyCursor(logPrefix, r.to)
		if q, ok := r.cur.seek(p); ok && q == p {
			r.last = p
			return r.cur.value(), nil
		}
	} else if enc, err := r.s.db.Get(join(logPrefix, p[:])); err == nil {
		r.last, r.any = p, true
		return enc, nil
	}
	return nil, fmt.Errorf("log index: missing log at block %d index %d", p.block(), p.index())
}

func (r *recordReader) release() {
	if r.cur != nil {
		r.cur.release()
		r.cur = nil
	}
}

// decodeLog builds the log stored at p from its record, with its block's
// hash and time from the canonical header, remembered in blocks.
func (s *Store) decodeLog(enc []byte, p logPos, blocks map[uint64]blockRef) (*types.Log, error) {
	var sl storedLog
	if err := rlp.DecodeBytes(enc, &sl); err != nil {
		return nil, fmt.Errorf("log index: corrupt log at block %d index %d: %w", p.block(), p.index(), err)
	}
	number := p.block()
	b, ok := blocks[number]
	if !ok {
		if b, ok = s.blockRef(number); !ok {
			return nil, fmt.Errorf("log index: no header for block %d", number)
		}
		blocks[number] = b
	}
	return &types.Log{
		Address: sl.Address, Topics: sl.Topics, Data: sl.Data,
		BlockNumber: number, BlockHash: b.hash, BlockTimestamp: b.time,
		TxHash: sl.TxHash, TxIndex: uint(sl.TxIndex), Index: uint(p.index()),
	}, nil
}
