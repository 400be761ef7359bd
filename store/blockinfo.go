package store

import "encoding/binary"

// blockInfoPrefix + number (uint64 BE) -> the app's encoding of what
// CometBFT's FinalizeBlock said about the block besides its transactions
// (proposer, last-commit votes, evidence): a replay of the block for a
// tracer must begin it with the same, and CometBFT may have pruned it.
var blockInfoPrefix = []byte("ember-binfo")

func blockInfoKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte{}, blockInfoPrefix...), number)
}

// WriteBlockInfo records enc for block number. The app writes it before
// the block's CommitBlock: a crash in between leaves a record CometBFT's
// replay of the block writes again, identical.
func (s *Store) WriteBlockInfo(number uint64, enc []byte) error {
	return s.db.Put(blockInfoKey(number), enc)
}

// BlockInfo is what WriteBlockInfo recorded for block number; nil when
// nothing was (a block committed by a version that did not record it).
func (s *Store) BlockInfo(number uint64) ([]byte, error) {
	ok, err := s.db.Has(blockInfoKey(number))
	if err != nil || !ok {
		return nil, err
	}
	return s.db.Get(blockInfoKey(number))
}
