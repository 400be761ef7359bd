package api

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// fakeNatives are the fake chain's native transactions: Bob's bank send to
// Alice beside block 8's EVM transaction, and Alice's delegation to the
// miner's validator in block 9, which failed. They leave the balances the
// EVM rows tell alone, so the other answers do not depend on them.
func fakeNatives() []explorer.NativeTx {
	send, del := etherOf(3), etherOf(2)
	return []explorer.NativeTx{
		{Hash: hashOf("native", 8), BlockNumber: 8, BlockHash: hashOf("block", 8), Position: 1, Time: fakeTimeBase + 16,
			Sender: fakeBob, Sequence: 4, Fee: gweiOf(2_100_000), BurntFee: gweiOf(7 * 100_000), Value: send,
			GasWanted: 200_000, GasUsed: 100_000, Memo: "rent",
			Msgs: []explorer.NativeMsg{{Type: "/cosmos.bank.v1beta1.MsgSend", To: &fakeAlice, Amount: send}}},
		{Hash: hashOf("native", 9), BlockNumber: 9, BlockHash: hashOf("block", 9), Position: 0, Time: fakeTimeBase + 18,
			Sender: fakeAlice, Sequence: 9, Fee: gweiOf(2_100_000), BurntFee: gweiOf(7 * 150_000), Value: del,
			GasWanted: 300_000, GasUsed: 150_000, Code: 3, Codespace: "staking",
			Log:  "failed to execute message; message index: 0: validator does not exist",
			Msgs: []explorer.NativeMsg{{Type: "/cosmos.staking.v1beta1.MsgDelegate", Validator: &fakeMiner, Amount: del}}},
	}
}

func (s *fakeStore) NativeTx(_ context.Context, h common.Hash) (*explorer.NativeTx, error) {
	for _, t := range fakeNatives() {
		if t.Hash == h {
			return &t, nil
		}
	}
	return nil, explorer.ErrNotFound
}

func (s *fakeStore) BlockNativeTxs(_ context.Context, n uint64, from int, limit int) ([]explorer.NativeTx, error) {
	var out []explorer.NativeTx
	for _, t := range fakeNatives() {
		if t.BlockNumber == n && t.Position >= from && len(out) < limit {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *fakeStore) AddressNativeTxs(_ context.Context, a common.Address, after explorer.NativeCursor, limit int) ([]explorer.NativeTx, error) {
	all := fakeNatives()
	var out []explorer.NativeTx
	for i := len(all) - 1; i >= 0 && len(out) < limit; i-- {
		t := all[i]
		past := after.Set && (t.BlockNumber > after.BlockNumber || t.BlockNumber == after.BlockNumber && t.Position >= after.Position)
		named := false
		for _, x := range t.Addresses() {
			named = named || x == a
		}
		if named && !past {
			out = append(out, t)
		}
	}
	return out, nil
}

// BlockByCometHash: the fake chain's blocks have no CometBFT hashes.
func (s *fakeStore) BlockByCometHash(context.Context, common.Hash) (*explorer.Block, error) {
	return nil, explorer.ErrNotFound
}

func (s *fakeStore) NativeTxs(_ context.Context, after explorer.NativeCursor, limit int) ([]explorer.NativeTx, error) {
	all := fakeNatives()
	var out []explorer.NativeTx
	for i := len(all) - 1; i >= 0 && len(out) < limit; i-- {
		t := all[i]
		if !after.Set || t.BlockNumber < after.BlockNumber || t.BlockNumber == after.BlockNumber && t.Position < after.Position {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *fakeStore) NativeTxCount(context.Context) (uint64, error) {
	return uint64(len(fakeNatives())), nil
}
