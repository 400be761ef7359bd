package evm_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/evm"
)

type noHeaders struct{}

func (noHeaders) GetHeader(common.Hash, uint64) *types.Header { return nil }

// TestCallRecorder runs one block: a Tracee deploy, Tracee.run (a tree of
// eight frames), a plain transfer and a transaction the block rejects (bad
// nonce). The recorder keeps one list per included transaction, empty for
// the deploy and the transfer, and Tracee's frames in depth-first order with
// their trace addresses.
func TestCallRecorder(t *testing.T) {
	cfg := evm.ChainConfig(big.NewInt(4242))
	key, _ := crypto.GenerateKey()
	sender := crypto.PubkeyToAddress(key.PublicKey)
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	st.SetBalance(sender, uint256.NewInt(1e18), tracing.BalanceChangeUnspecified)
	header := &types.Header{Number: big.NewInt(1), GasLimit: 30_000_000, BaseFee: big.NewInt(1e9), Time: 1, Difficulty: new(big.Int),
		Coinbase: common.HexToAddress("0xc0ffee")}
	signer := evm.Signer(cfg, header.Number, header.Time)
	tracee := contracts.MustLoad("Tracee")
	run, _ := tracee.ABI.Pack("run", big.NewInt(7))
	traceeAddr := crypto.CreateAddress(sender, 0)
	to := common.HexToAddress("0xbeef")
	sign := func(k *ecdsa.PrivateKey, nonce uint64, to *common.Address, value int64, data []byte) *types.Transaction {
		tx, err := types.SignNewTx(k, signer, &types.DynamicFeeTx{ChainID: cfg.ChainID, Nonce: nonce, GasTipCap: big.NewInt(1),
			GasFeeCap: big.NewInt(2e9), Gas: 3_000_000, To: to, Value: big.NewInt(value), Data: data})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	txs := types.Transactions{
		sign(key, 0, nil, 0, tracee.Bytecode),
		sign(key, 1, &traceeAddr, 10, run),
		sign(key, 2, &to, 5, nil),
		sign(key, 9, &to, 5, nil), // nonce too high: rejected
	}
	hooks := &tracing.Hooks{}
	rec := evm.NewCallRecorder()
	rec.Hook(hooks)
	x := evm.NewExecutor(context.Background(), cfg, header, noHeaders{}, st, hooks)
	var last evm.TxOutcome
	for _, tx := range txs {
		last = x.ApplyTx(tx)
	}
	res := x.Finish()
	if len(res.Txs) != 3 || last.Rejected == nil {
		t.Fatalf("%d txs included, last rejected: %v", len(res.Txs), last.Rejected)
	}
	for i, r := range res.Receipts {
		if r.Status != 1 {
			t.Fatalf("tx %d failed", i)
		}
	}
	frames := rec.Frames()
	if len(frames) != 3 || len(frames[0]) != 0 || len(frames[2]) != 0 {
		t.Fatalf("frames per tx: %d lists, deploy %d, transfer %d", len(frames), len(frames[0]), len(frames[2]))
	}
	childA := crypto.CreateAddress(traceeAddr, 1)
	want := []struct {
		op    vm.OpCode
		from  common.Address
		to    common.Address
		value int64
		addr  string
		err   string
	}{
		{vm.CREATE, traceeAddr, childA, 1, "[0]", ""},
		{vm.CREATE2, traceeAddr, common.Address{}, 0, "[1]", ""},
		{vm.CALL, traceeAddr, childA, 0, "[2]", ""},
		{vm.STATICCALL, traceeAddr, common.Address{}, 0, "[3]", ""},
		{vm.DELEGATECALL, traceeAddr, common.Address{}, 10, "[4]", ""},
		{vm.STATICCALL, traceeAddr, childA, 0, "[5]", "execution reverted"},
		{vm.CALL, traceeAddr, childA, 0, "[6]", ""},
		{vm.SELFDESTRUCT, childA, sender, 1, "[6 0]", ""},
	}
	got := frames[1]
	if len(got) != len(want) {
		t.Fatalf("%d frames, want %d", len(got), len(want))
	}
	for i, w := range want {
		f := got[i]
		if vm.OpCode(f.Type) != w.op || f.From != w.from || (w.to != (common.Address{}) && f.To != w.to) ||
			f.Value.Int64() != w.value || fmt.Sprint(f.TraceAddress) != w.addr || f.Error != w.err || f.Gas == 0 && w.op != vm.SELFDESTRUCT {
			t.Fatalf("frame %d = %s %s→%s value %s addr %v err %q gas %d, want %+v", i, vm.OpCode(f.Type), f.From.Hex(), f.To.Hex(),
				f.Value, f.TraceAddress, f.Error, f.Gas, w)
		}
	}
	// The reverted frame keeps its revert data: Error(string) "child says no".
	if len(got[5].Output) < 4 || common.Bytes2Hex(got[5].Output[:4]) != "08c379a0" {
		t.Fatalf("revert output %x", got[5].Output)
	}
}
