package api

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
)

// fakeTracer answers the call tree of block 7's transaction (the token
// forwarding value to Bob, then a call that ran out of gas, and a creation
// that self-destructed), and the state around block 4's token transfer.
type fakeTracer struct{}

// fakeNotEnough is the data block 5's failed call reverts with: the fake
// token's custom error NotEnough(1, 5).
var fakeNotEnough = append(crypto.Keccak256([]byte("NotEnough(uint256,uint256)"))[:4],
	append(common.LeftPadBytes([]byte{1}, 32), common.LeftPadBytes([]byte{5}, 32)...)...)

func (fakeTracer) CallTrace(_ context.Context, hash common.Hash) (*explorer.CallTrace, error) {
	if hash == hashOf("tx", 5) {
		return &explorer.CallTrace{Type: "CALL", From: fakeAlice, To: &fakeToken, Gas: 21000, GasUsed: 21000,
			Input: common.FromHex("0xdeadbeef"), Output: fakeNotEnough, Error: "execution reverted"}, nil
	}
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

func (fakeTracer) StateAround(_ context.Context, hash common.Hash, calls []explorer.StateCall) (*explorer.TxState, error) {
	if hash != hashOf("tx", 4) {
		return nil, explorer.ErrCannotTrace
	}
	// The token's name and symbol as ABI strings, no decimals() (a failed
	// call), its supply, then the holders' balances before and after.
	str := func(s string) []byte {
		return append(append(common.LeftPadBytes([]byte{32}, 32), common.LeftPadBytes(big.NewInt(int64(len(s))).Bytes(), 32)...),
			common.RightPadBytes([]byte(s), 32)...)
	}
	word := func(v *big.Int) []byte { return common.LeftPadBytes(v.Bytes(), 32) }
	before, after := make([][]byte, len(calls)), make([][]byte, len(calls))
	for i := range calls {
		switch i {
		case 0:
			before[i], after[i] = str("Fake Token"), str("Fake Token")
		case 1:
			before[i], after[i] = str("FAKE"), str("FAKE")
		case 2:
		case 3:
			before[i], after[i] = word(etherOf(1000)), word(etherOf(1000))
		default:
			before[i], after[i] = word(etherOf(int64(10*i))), word(etherOf(int64(10*i+5)))
		}
	}
	return &explorer.TxState{Miner: fakeMiner, Before: before, After: after, Coins: []explorer.CoinState{
		{Address: fakeAlice, Before: etherOf(100), After: etherOf(99)},
		{Address: fakeBob, Before: etherOf(7), After: etherOf(7)},
		{Address: fakeMiner, Before: etherOf(1), After: etherOf(1)},
	}}, nil
}
