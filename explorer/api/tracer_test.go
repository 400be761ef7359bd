package api

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
)

// fakeTracer answers the call tree of block 7's transaction (the token
// forwarding value to Bob, then a call that ran out of gas, and a creation
// that self-destructed) and cannot rerun transactions for state changes.
type fakeTracer struct{}

func (fakeTracer) CallTrace(_ context.Context, hash common.Hash) (*explorer.CallTrace, error) {
	if hash != hashOf("tx", 7) {
		return nil, explorer.ErrNotFound
	}
	child := common.HexToAddress("0x3333333333333333333333333333333333333333")
	return &explorer.CallTrace{Type: "CALL", From: fakeAlice, To: &fakeToken, Value: (*hexutil.Big)(big.NewInt(7)), Gas: 21000,
		GasUsed: 21000, Input: common.FromHex("0x12345678"), Calls: []explorer.CallTrace{
			{Type: "CALL", From: fakeToken, To: &fakeBob, Value: (*hexutil.Big)(big.NewInt(7)), Gas: 2300, Input: []byte{}},
			{Type: "STATICCALL", From: fakeToken, To: &fakeAlice, Gas: 2300, GasUsed: 2300, Input: []byte{0x01}, Error: "out of gas"},
			{Type: "CREATE2", From: fakeToken, To: &child, Gas: 9000, GasUsed: 5000, Input: []byte{0x60}, Output: []byte{0x00},
				Calls: []explorer.CallTrace{{Type: "SELFDESTRUCT", From: child, To: &fakeBob, Input: []byte{}}}},
		}}, nil
}

func (fakeTracer) StateAround(context.Context, common.Hash, []explorer.StateCall) (*explorer.TxState, error) {
	return nil, explorer.ErrCannotTrace
}
