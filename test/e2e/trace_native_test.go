package e2e

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/native"
)

// TestTraceBlockWithNativeTx traces a block holding a native MsgSend and,
// after it, an EVM transfer of the same sender to the same recipient: the
// prestateTracer's diff of the EVM transaction must start from the state the
// native transaction left (the sender's nonce and balance, the recipient's
// credit), not from the parent's state, and end at the block's state.
func TestTraceBlockWithNativeTx(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	key, from := devKeys[6].Private, devKeys[6].Address
	signer := types.LatestSignerForChainID(big.NewInt(31337))
	nativeAmount, evmValue := big.NewInt(1_000_000_007), big.NewInt(3_000_000_011)

	// Both must land in one block: with automine off, CheckTx holds each in
	// the app's pool (code 10, "held") until evm_mine puts them in one block,
	// in nonce order.
	to := common.BigToAddress(big.NewInt(0xC0FFEE00))
	num, seq := nativeAccount(t, n, from)
	natRaw, natFee := signNativeWith(t, key, native.SignOptions{ChainID: devChainID, AccountNumber: num, Sequence: seq}, nativeB.Send(from, to, nativeAmount))
	evmTx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(31337), Nonce: seq + 1,
		GasTipCap: big.NewInt(1), GasFeeCap: gasPrice, Gas: 21_000, To: &to, Value: evmValue})
	if err != nil {
		t.Fatal(err)
	}
	evmRaw, _ := evmTx.MarshalBinary()
	var null any
	mustCall(t, n, &null, "evm_setAutomine", false)
	var natHash []byte
	for i, raw := range [][]byte{natRaw, evmRaw} {
		res, err := n.cometClient(t).BroadcastTxSync(ctx(t), raw)
		if err != nil || res.Code != 10 {
			t.Fatalf("broadcast_tx_sync of tx %d with automine off: %+v, %v; want code 10 (held)", i, res, err)
		}
		if i == 0 {
			natHash = res.Hash
		}
	}
	mustCall(t, n, &null, "evm_mine")
	mustCall(t, n, &null, "evm_setAutomine", true)
	natRes := waitCometTx(t, n, natHash)
	if r := n.WaitReceipt(t, evmTx.Hash()); natRes.TxResult.Code != 0 || r.Status != 1 {
		t.Fatalf("native code %d (%s), EVM status %d", natRes.TxResult.Code, natRes.TxResult.Log, r.Status)
	} else if natRes.Height != r.BlockNumber.Int64() {
		t.Fatalf("native tx in block %d, EVM tx in block %d after evm_mine, want one", natRes.Height, r.BlockNumber)
	}
	height := natRes.Height
	receipt := n.WaitReceipt(t, evmTx.Hash())
	block := big.NewInt(height)
	parent := big.NewInt(height - 1)
	balance := func(addr common.Address, at *big.Int) *big.Int {
		b, err := n.Eth.BalanceAt(ctx(t), addr, at)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	nonce := func(addr common.Address, at *big.Int) uint64 {
		v, err := n.Eth.NonceAt(ctx(t), addr, at)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	type account struct {
		Balance *hexutil.Big `json:"balance"`
		Nonce   uint64       `json:"nonce"`
	}
	type diff struct {
		Pre  map[common.Address]account `json:"pre"`
		Post map[common.Address]account `json:"post"`
	}
	var traces []struct {
		TxHash common.Hash `json:"txHash"`
		Result diff        `json:"result"`
	}
	n.trace(t, &traces, "debug_traceBlockByNumber", hexutil.EncodeBig(block), map[string]any{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}})
	if len(traces) != 1 || traces[0].TxHash != evmTx.Hash() {
		t.Fatalf("block %d traces: %+v, want one for %s", height, traces, evmTx.Hash())
	}
	d := traces[0].Result

	// Before the EVM tx: the parent's state changed by the native tx.
	wantPre := map[common.Address]account{
		from: {Balance: (*hexutil.Big)(sub(balance(from, parent), nativeAmount, natFee)), Nonce: nonce(from, parent) + 1},
		to:   {Balance: (*hexutil.Big)(add(balance(to, parent), nativeAmount))},
	}
	// After it: the block's state.
	wantPost := map[common.Address]account{
		from: {Balance: (*hexutil.Big)(balance(from, block)), Nonce: nonce(from, block)},
		to:   {Balance: (*hexutil.Big)(balance(to, block))},
	}
	for addr, want := range wantPre {
		if got := d.Pre[addr]; got.Balance == nil || got.Balance.ToInt().Cmp(want.Balance.ToInt()) != 0 || got.Nonce != want.Nonce {
			t.Errorf("pre %s: balance %v nonce %d, want %v nonce %d", addr, got.Balance, got.Nonce, want.Balance, want.Nonce)
		}
	}
	for addr, want := range wantPost {
		got := d.Post[addr]
		if got.Balance == nil || got.Balance.ToInt().Cmp(want.Balance.ToInt()) != 0 {
			t.Errorf("post %s: balance %v, want %v", addr, got.Balance, want.Balance)
		}
	}
	if got := d.Post[from].Nonce; got != wantPost[from].Nonce {
		t.Errorf("post %s nonce %d, want %d", from, got, wantPost[from].Nonce)
	}
	// The EVM tx's own effect, to the wei: value and gas from the sender.
	gasCost := new(big.Int).Mul(receipt.EffectiveGasPrice, new(big.Int).SetUint64(receipt.GasUsed))
	if paid := sub(d.Pre[from].Balance.ToInt(), d.Post[from].Balance.ToInt()); paid.Cmp(add(evmValue, gasCost)) != 0 {
		t.Errorf("sender paid %v in the EVM tx, want %v", paid, add(evmValue, gasCost))
	}

	// debug_traceTransaction agrees with the block trace.
	var single diff
	n.trace(t, &single, "debug_traceTransaction", evmTx.Hash(), map[string]any{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}})
	if fmt.Sprint(single) != fmt.Sprint(d) {
		t.Errorf("debug_traceTransaction %+v\ndiffers from the block trace %+v", single, d)
	}
}
