package app

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/emberchain/ember/module"
)

// blockInfoRecord is the stored form of a module.BlockInfo, which the app
// keeps with every block so that a replay begins it as FinalizeBlock did:
// distribution's allocation reads the votes and the proposer, slashing the
// evidence.
type blockInfoRecord struct {
	Proposer    common.Address
	Votes       []voteRecord
	Misbehavior []misbehaviorRecord
}

type voteRecord struct {
	Validator common.Address
	Power     uint64
	Signed    bool
}

type misbehaviorRecord struct {
	DuplicateVote    bool
	Validator        common.Address
	Power            uint64
	Height           uint64
	TimeUnixNano     uint64 // two's complement of a time before 1970
	TotalVotingPower uint64
}

func encodeBlockInfo(info *module.BlockInfo) ([]byte, error) {
	r := blockInfoRecord{Proposer: info.Proposer}
	for _, v := range info.Votes {
		r.Votes = append(r.Votes, voteRecord{Validator: v.Validator, Power: uint64(v.Power), Signed: v.Signed})
	}
	for _, m := range info.Misbehavior {
		r.Misbehavior = append(r.Misbehavior, misbehaviorRecord{DuplicateVote: m.DuplicateVote, Validator: m.Validator,
			Power: uint64(m.Power), Height: uint64(m.Height), TimeUnixNano: uint64(m.Time.UnixNano()), TotalVotingPower: uint64(m.TotalVotingPower)})
	}
	return rlp.EncodeToBytes(&r)
}

func decodeBlockInfo(enc []byte) (*module.BlockInfo, error) {
	var r blockInfoRecord
	if err := rlp.DecodeBytes(enc, &r); err != nil {
		return nil, err
	}
	info := &module.BlockInfo{Proposer: r.Proposer}
	for _, v := range r.Votes {
		info.Votes = append(info.Votes, module.Vote{Validator: v.Validator, Power: int64(v.Power), Signed: v.Signed})
	}
	for _, m := range r.Misbehavior {
		info.Misbehavior = append(info.Misbehavior, module.Misbehavior{DuplicateVote: m.DuplicateVote, Validator: m.Validator,
			Power: int64(m.Power), Height: int64(m.Height), Time: time.Unix(0, int64(m.TimeUnixNano)).UTC(), TotalVotingPower: int64(m.TotalVotingPower)})
	}
	return info, nil
}

// storedBlockInfo is the block info recorded with block number; an empty
// one for a block recorded without it.
func (a *App) storedBlockInfo(number uint64) (*module.BlockInfo, error) {
	enc, err := a.store.BlockInfo(number)
	if err != nil {
		return nil, fmt.Errorf("block info of block %d: %w", number, err)
	}
	if enc == nil {
		return &module.BlockInfo{}, nil
	}
	info, err := decodeBlockInfo(enc)
	if err != nil {
		return nil, fmt.Errorf("decode block info of block %d: %w", number, err)
	}
	return info, nil
}
