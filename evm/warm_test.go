package evm_test

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/evm"
)

// balanceGasProbe is EVM code that, for each address, measures the gas of
// PUSH20 addr; BALANCE; POP; GAS (107 when addr is warm, 2607 when cold)
// and returns the figures as 32-byte words. First it calls child and ignores
// the outcome.
func balanceGasProbe(child common.Address, addrs []common.Address) []byte {
	code := []byte{byte(vm.PUSH1), 0, byte(vm.PUSH1), 0, byte(vm.PUSH1), 0, byte(vm.PUSH1), 0, byte(vm.PUSH1), 0,
		byte(vm.PUSH20)}
	code = append(code, child.Bytes()...)
	code = append(code, byte(vm.GAS), byte(vm.CALL), byte(vm.POP))
	for i, a := range addrs {
		code = append(code, byte(vm.GAS), byte(vm.PUSH20))
		code = append(code, a.Bytes()...)
		code = append(code, byte(vm.BALANCE), byte(vm.POP), byte(vm.GAS), byte(vm.SWAP1), byte(vm.SUB),
			byte(vm.PUSH2), byte(i*32>>8), byte(i*32), byte(vm.MSTORE))
	}
	n := len(addrs) * 32
	return append(code, byte(vm.PUSH2), byte(n>>8), byte(n), byte(vm.PUSH1), 0, byte(vm.RETURN))
}

// TestCallWarmsLikeGeth: evm.Call keeps the fork's precompiles warm by rule
// instead of in the access list (evm/warm.go). Every address a message can
// meet costs what it costs on go-ethereum's own StateDB: precompiles, the
// sender, the recipient, the coinbase and the tx's access list warm; other
// addresses cold the first time, also after a reverted frame touched them.
func TestCallWarmsLikeGeth(t *testing.T) {
	cfg := evm.ChainConfig(big.NewInt(4242))
	header := &types.Header{Number: big.NewInt(1), GasLimit: 30_000_000, BaseFee: big.NewInt(1e9), Time: 1,
		Difficulty: new(big.Int), Coinbase: common.HexToAddress("0xc0ffee")}
	precompiles := vm.ActivePrecompiles(evm.Rules(cfg, header.Number, header.Time))
	if len(precompiles) < 17 {
		t.Fatalf("%d precompiles active; the test expects Prague's 17", len(precompiles))
	}
	sender, probe, child := common.HexToAddress("0x5e4d"), common.HexToAddress("0x9b0b"), common.HexToAddress("0xc41d")
	touchedInRevert, listed, other := common.HexToAddress("0xdead"), common.HexToAddress("0xcafe"), common.HexToAddress("0xbeef")

	type want struct {
		addr common.Address
		gas  uint64
	}
	var wants []want
	for _, p := range precompiles {
		wants = append(wants, want{p, 107})
	}
	wants = append(wants,
		want{other, 2607}, want{other, 107}, // cold, then warm
		want{touchedInRevert, 2607}, // the child's access was reverted
		want{listed, 107}, want{sender, 107}, want{probe, 107}, want{header.Coinbase, 107},
	)
	addrs := make([]common.Address, len(wants))
	for i, w := range wants {
		addrs[i] = w.addr
	}
	// child: BALANCE(0xdead), BALANCE(a precompile), then REVERT.
	childCode := append([]byte{byte(vm.PUSH20)}, touchedInRevert.Bytes()...)
	childCode = append(childCode, byte(vm.BALANCE), byte(vm.POP), byte(vm.PUSH1), 4, byte(vm.BALANCE), byte(vm.POP),
		byte(vm.PUSH1), 0, byte(vm.PUSH1), 0, byte(vm.REVERT))

	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	st.SetBalance(sender, uint256.NewInt(1e18), tracing.BalanceChangeUnspecified)
	st.SetCode(probe, balanceGasProbe(child, addrs), tracing.CodeChangeUnspecified)
	st.SetCode(child, childCode, tracing.CodeChangeUnspecified)
	st.Finalise(evm.Rules(cfg, header.Number, header.Time))

	msg := &core.Message{From: sender, To: &probe, Value: new(uint256.Int), GasLimit: 1_000_000,
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int), BlobGasFeeCap: new(uint256.Int),
		AccessList: types.AccessList{{Address: listed}, {Address: precompiles[3], StorageKeys: []common.Hash{{1}}}}}
	msg = msg.SkipNonceCheck().SkipEOACheck()

	got, err := evm.Call(context.Background(), cfg, evm.BlockContext(cfg, header, noHeaders{}), st.Copy(), msg, evm.CallOptions{})
	if err != nil || got.Err != nil {
		t.Fatalf("evm.Call: %v, %v", err, got.Err)
	}
	for i, w := range wants {
		if g := new(big.Int).SetBytes(got.ReturnData[i*32 : (i+1)*32]).Uint64(); g != w.gas {
			t.Errorf("BALANCE(%s) cost %d gas, want %d", w.addr, g, w.gas)
		}
	}

	// go-ethereum's own StateDB, same message: the same bytes and gas.
	blockCtx := evm.BlockContext(cfg, header, noHeaders{})
	blockCtx.BaseFee = new(big.Int)
	plain := vm.NewEVM(blockCtx, st.Copy(), cfg, vm.Config{NoBaseFee: true})
	ref, err := core.ApplyMessage(plain, msg, core.NewGasPool(msg.GasLimit))
	if err != nil || ref.Err != nil {
		t.Fatalf("go-ethereum: %v, %v", err, ref.Err)
	}
	if !bytes.Equal(got.ReturnData, ref.ReturnData) || got.UsedGas != ref.UsedGas {
		t.Fatalf("evm.Call used %d gas, go-ethereum %d; returns equal: %v", got.UsedGas, ref.UsedGas, bytes.Equal(got.ReturnData, ref.ReturnData))
	}
}
