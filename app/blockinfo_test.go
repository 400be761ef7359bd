package app

import (
	"reflect"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/module"
)

// TestBlockInfoRecord: what FinalizeBlock stores decodes to the same block
// info, times before 1970 included.
func TestBlockInfoRecord(t *testing.T) {
	info := &module.BlockInfo{
		Proposer: common.Address{1},
		Votes:    []module.Vote{{Validator: common.Address{2}, Power: 10, Signed: true}, {Validator: common.Address{3}, Power: 7}},
		Misbehavior: []module.Misbehavior{
			{DuplicateVote: true, Validator: common.Address{3}, Power: 7, Height: 5, Time: time.Unix(1_700_000_000, 42).UTC(), TotalVotingPower: 17},
			{Validator: common.Address{2}, Power: 10, Height: 1, Time: time.Unix(-5, 0).UTC(), TotalVotingPower: 17},
		},
	}
	enc, err := encodeBlockInfo(info)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeBlockInfo(enc)
	if err != nil || !reflect.DeepEqual(got, info) {
		t.Fatalf("decoded %+v (%v), want %+v", got, err, info)
	}
	if _, err := decodeBlockInfo(enc[:len(enc)-1]); err == nil {
		t.Fatal("a truncated record decoded")
	}
}
