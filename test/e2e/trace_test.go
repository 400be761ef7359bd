package e2e

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/contracts"
)

// callFrame is callTracer's output.
type callFrame struct {
	Type         string          `json:"type"`
	From         common.Address  `json:"from"`
	To           *common.Address `json:"to"`
	Value        *hexutil.Big    `json:"value"`
	Gas          hexutil.Uint64  `json:"gas"`
	GasUsed      hexutil.Uint64  `json:"gasUsed"`
	Input        hexutil.Bytes   `json:"input"`
	Output       hexutil.Bytes   `json:"output"`
	Error        string          `json:"error"`
	RevertReason string          `json:"revertReason"`
	Calls        []callFrame     `json:"calls"`
	Logs         []struct {
		Address common.Address `json:"address"`
		Topics  []common.Hash  `json:"topics"`
		Data    hexutil.Bytes  `json:"data"`
	} `json:"logs"`
}

// traceFixture is a Tracee contract and two runs of it in one block.
type traceFixture struct {
	tracee     common.Address
	sender     common.Address
	first, tx  *types.Transaction // run(7), then run(8) in the same block
	receipt    *types.Receipt     // of tx
	treeABI    *contracts.Contract
	childABI   *contracts.Contract
	blockNum   *big.Int
	firstCount uint64 // counter after run(7)
}

// buildTraceFixture deploys a Tracee and runs it twice in one block: with
// automine off the two transactions wait in the pool until evm_mine puts
// them in one block. (Sent with automine on, CometBFT proposes as soon as
// the first is admitted, so whether the second joins it is a race.)
func buildTraceFixture(t *testing.T, n *Node) *traceFixture {
	f := &traceFixture{treeABI: contracts.MustLoad("Tracee"), childABI: contracts.MustLoad("Child"), sender: devKeys[4].Address}
	deploy, _ := f.treeABI.DeployData()
	d := n.WaitReceipt(t, n.send(t, devKeys[4].Private, txOpts{Data: deploy, Gas: 3_000_000}).Hash())
	f.tracee = d.ContractAddress
	var null any
	mustCall(t, n, &null, "evm_setAutomine", false)
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), f.sender)
	txs := n.signTxs(t, 2, func(i int) txOpts {
		in, _ := f.treeABI.ABI.Pack("run", big.NewInt(int64(7+i)))
		return txOpts{Nonce: ptr(nonce + uint64(i)), To: &f.tracee, Value: big.NewInt(10), Data: in, Gas: 1_000_000}
	})
	n.sendBatch(t, txs)
	mustCall(t, n, &null, "evm_mine")
	mustCall(t, n, &null, "evm_setAutomine", true)
	r0, r1 := n.WaitReceipt(t, txs[0].Hash()), n.WaitReceipt(t, txs[1].Hash())
	if r0.Status != 1 || r1.Status != 1 {
		t.Fatalf("Tracee.run failed: %d %d", r0.Status, r1.Status)
	}
	if r0.BlockNumber.Cmp(r1.BlockNumber) != 0 {
		t.Fatalf("the two runs landed in blocks %v and %v after evm_mine, want one", r0.BlockNumber, r1.BlockNumber)
	}
	f.first, f.tx, f.receipt, f.blockNum = txs[0], txs[1], r1, r1.BlockNumber
	f.firstCount = 2*7 + 4
	return f
}

func (n *Node) trace(t *testing.T, out any, method string, args ...any) {
	t.Helper()
	if err := n.RPC.Call(out, method, args...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// TestTraceTransaction checks the callTracer, prestateTracer, 4byteTracer,
// a JavaScript tracer and the struct logger on a transaction that creates
// (CREATE, CREATE2), calls, static-calls, delegate-calls, catches a
// reverting sub-call and self-destructs, placed after another transaction
// touching the same storage in its block.
func TestTraceTransaction(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	f := buildTraceFixture(t, n)
	word32 := func(v uint64) hexutil.Bytes { return word(v) }
	childA := crypto.CreateAddress(f.tracee, 3) // Tracee's nonce: 1 at creation, +2 per run
	salt := common.BigToHash(big.NewInt(8))
	childB := crypto.CreateAddress2(f.tracee, salt, crypto.Keccak256(append(append([]byte{}, f.childABI.Bytecode...), word(9)...)))

	t.Run("callTracer", func(t *testing.T) {
		var top callFrame
		n.trace(t, &top, "debug_traceTransaction", f.tx.Hash(), map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}})
		runIn, _ := f.treeABI.ABI.Pack("run", big.NewInt(8))
		if top.Type != "CALL" || top.From != f.sender || *top.To != f.tracee || top.Value.ToInt().Int64() != 10 ||
			hexutil.Encode(top.Input) != hexutil.Encode(runIn) || hexutil.Encode(top.Output) != hexutil.Encode(word32(2*8+4)) ||
			uint64(top.GasUsed) != f.receipt.GasUsed || uint64(top.Gas) != f.tx.Gas() {
			t.Fatalf("top frame: %+v (receipt gas %d)", top, f.receipt.GasUsed)
		}
		setIn, _ := f.childABI.ABI.Pack("set", big.NewInt(10))
		delegateIn, _ := f.childABI.ABI.Pack("set", big.NewInt(11))
		valueIn, _ := f.childABI.ABI.Pack("value")
		failIn, _ := f.childABI.ABI.Pack("fail")
		dieIn, _ := f.childABI.ABI.Pack("die", f.sender)
		want := []struct {
			typ   string
			to    common.Address
			value int64
			input []byte
			out   []byte
			err   string
		}{
			{"CREATE", childA, 1, nil, f.childABI.DeployedBytecode, ""},
			{"CREATE2", childB, 0, nil, f.childABI.DeployedBytecode, ""},
			{"CALL", childA, 0, setIn, nil, ""},
			{"STATICCALL", childB, -1, valueIn, word32(9), ""},
			{"DELEGATECALL", childB, 10, delegateIn, nil, ""},             // a delegate call shows the value it carries on
			{"STATICCALL", childA, -1, failIn, nil, "execution reverted"}, // fail() is pure
			{"CALL", childA, 0, dieIn, nil, ""},
		}
		if len(top.Calls) != len(want) {
			t.Fatalf("%d sub-calls, want %d: %+v", len(top.Calls), len(want), top.Calls)
		}
		var sum uint64
		for i, w := range want {
			c := top.Calls[i]
			sum += uint64(c.GasUsed)
			if c.Type != w.typ || c.From != f.tracee || c.To == nil || *c.To != w.to || c.Error != w.err {
				t.Errorf("call %d = %s %s->%v err %q, want %s to %s err %q", i, c.Type, c.From, c.To, c.Error, w.typ, w.to, w.err)
			}
			if w.value >= 0 && (c.Value == nil || c.Value.ToInt().Int64() != w.value) || w.value < 0 && c.Value != nil {
				t.Errorf("call %d value %v, want %d", i, c.Value, w.value)
			}
			if w.input != nil && hexutil.Encode(c.Input) != hexutil.Encode(w.input) {
				t.Errorf("call %d input %x, want %x", i, c.Input, w.input)
			}
			if hexutil.Encode(c.Output) != hexutil.Encode(w.out) && w.err == "" {
				t.Errorf("call %d output %x, want %x", i, c.Output, w.out)
			}
			if c.GasUsed == 0 || c.GasUsed > c.Gas {
				t.Errorf("call %d gas %d used %d", i, c.Gas, c.GasUsed)
			}
		}
		if top.Calls[5].RevertReason != "child says no" {
			t.Errorf("revert reason %q", top.Calls[5].RevertReason)
		}
		die := top.Calls[6]
		if len(die.Calls) != 1 || die.Calls[0].Type != "SELFDESTRUCT" || *die.Calls[0].To != f.sender || die.Calls[0].Value.ToInt().Int64() != 1 {
			t.Errorf("selfdestruct frame: %+v", die.Calls)
		}
		if sum >= uint64(top.GasUsed) {
			t.Errorf("sub-calls used %d gas of the top frame's %d", sum, top.GasUsed)
		}
		doneTopic := f.treeABI.ABI.Events["Done"].ID
		if len(top.Logs) != 1 || top.Logs[0].Address != f.tracee || top.Logs[0].Topics[0] != doneTopic || top.Logs[0].Topics[1] != common.BigToHash(big.NewInt(8)) {
			t.Errorf("logs: %+v", top.Logs)
		}
		var only callFrame
		n.trace(t, &only, "debug_traceTransaction", f.tx.Hash(), map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"onlyTopCall": true}})
		if len(only.Calls) != 0 || only.GasUsed != top.GasUsed {
			t.Errorf("onlyTopCall: %d calls, gas %d", len(only.Calls), only.GasUsed)
		}
	})

	t.Run("prestateTracer diffMode", func(t *testing.T) {
		type account struct {
			Balance *hexutil.Big                `json:"balance"`
			Nonce   uint64                      `json:"nonce"`
			Code    hexutil.Bytes               `json:"code"`
			Storage map[common.Hash]common.Hash `json:"storage"`
		}
		var diff struct {
			Pre  map[common.Address]account `json:"pre"`
			Post map[common.Address]account `json:"post"`
		}
		n.trace(t, &diff, "debug_traceTransaction", f.tx.Hash(), map[string]any{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}})
		slot0 := common.Hash{}
		// The earlier tx of the block left counter = 18; this one leaves 20.
		if got := diff.Pre[f.tracee].Storage[slot0]; got != common.BigToHash(big.NewInt(int64(f.firstCount))) {
			t.Errorf("Tracee counter before = %s, want %d", got, f.firstCount)
		}
		if got := diff.Post[f.tracee].Storage[slot0]; got != common.BigToHash(big.NewInt(20)) {
			t.Errorf("Tracee counter after = %s, want 20", got)
		}
		if pre, post := diff.Pre[f.tracee].Nonce, diff.Post[f.tracee].Nonce; pre != 3 || post != 5 {
			t.Errorf("Tracee nonce %d -> %d, want 3 -> 5", pre, post)
		}
		// The sender pays value 10 and gas, and gets child a's 1 wei back.
		price := f.receipt.EffectiveGasPrice
		paid := new(big.Int).Sub(diff.Pre[f.sender].Balance.ToInt(), diff.Post[f.sender].Balance.ToInt())
		wantPaid := new(big.Int).Add(new(big.Int).Mul(price, new(big.Int).SetUint64(f.receipt.GasUsed)), big.NewInt(9))
		if paid.Cmp(wantPaid) != 0 || diff.Post[f.sender].Nonce != f.tx.Nonce()+1 {
			t.Errorf("sender paid %s, want %s; nonce %d", paid, wantPaid, diff.Post[f.sender].Nonce)
		}
		if b, ok := diff.Post[childB]; !ok || hexutil.Encode(b.Code) != hexutil.Encode(f.childABI.DeployedBytecode) || b.Storage[slot0] != common.BigToHash(big.NewInt(9)) || b.Nonce != 1 {
			t.Errorf("child b post: %+v", b)
		}
		if _, ok := diff.Post[childA]; ok {
			t.Errorf("self-destructed child a is in post: %+v", diff.Post[childA])
		}
	})

	t.Run("JavaScript tracer counts what the struct logger logs", func(t *testing.T) {
		var count int
		js := `{n: 0, step: function(log, db) { this.n++ }, fault: function(log, db) {}, result: function(ctx, db) { return this.n }}`
		n.trace(t, &count, "debug_traceTransaction", f.tx.Hash(), map[string]any{"tracer": js})
		var structLogs struct {
			Gas         uint64            `json:"gas"`
			Failed      bool              `json:"failed"`
			ReturnValue string            `json:"returnValue"`
			StructLogs  []json.RawMessage `json:"structLogs"`
		}
		n.trace(t, &structLogs, "debug_traceTransaction", f.tx.Hash(), map[string]any{"disableStack": true, "disableStorage": true})
		if count == 0 || count != len(structLogs.StructLogs) || structLogs.Gas != f.receipt.GasUsed || structLogs.Failed {
			t.Fatalf("JS tracer counted %d steps, struct logger %d (gas %d, receipt %d)", count, len(structLogs.StructLogs), structLogs.Gas, f.receipt.GasUsed)
		}
		// "limit" bounds the output size in bytes (go-ethereum 1.17): the
		// first step is logged, then the output is over 5 bytes.
		var limited struct{ StructLogs []json.RawMessage }
		n.trace(t, &limited, "debug_traceTransaction", f.tx.Hash(), map[string]any{"limit": 5})
		if len(limited.StructLogs) != 1 {
			t.Fatalf("limit 5: %d logs", len(limited.StructLogs))
		}
	})

	t.Run("4byteTracer", func(t *testing.T) {
		var counts map[string]int
		n.trace(t, &counts, "debug_traceTransaction", f.tx.Hash(), map[string]any{"tracer": "4byteTracer"})
		sel := func(c *contracts.Contract, m string) string { return hexutil.Encode(c.ABI.Methods[m].ID) }
		want := map[string]int{
			sel(f.treeABI, "run") + "-32": 1, sel(f.childABI, "set") + "-32": 2, sel(f.childABI, "value") + "-0": 1,
			sel(f.childABI, "fail") + "-0": 1, sel(f.childABI, "die") + "-32": 1,
		}
		if len(counts) != len(want) {
			t.Fatalf("4byte = %v, want %v", counts, want)
		}
		for k, v := range want {
			if counts[k] != v {
				t.Errorf("4byte[%s] = %d, want %d", k, counts[k], v)
			}
		}
	})

	t.Run("traceBlockByNumber and ByHash", func(t *testing.T) {
		cfg := map[string]any{"tracer": "callTracer"}
		var byNum, byHash []struct {
			TxHash common.Hash     `json:"txHash"`
			Result json.RawMessage `json:"result"`
		}
		n.trace(t, &byNum, "debug_traceBlockByNumber", hexutil.EncodeBig(f.blockNum), cfg)
		n.trace(t, &byHash, "debug_traceBlockByHash", f.receipt.BlockHash, cfg)
		if len(byNum) != 2 || byNum[0].TxHash != f.first.Hash() || byNum[1].TxHash != f.tx.Hash() {
			t.Fatalf("block trace: %+v", byNum)
		}
		for i, tx := range []*types.Transaction{f.first, f.tx} {
			var one json.RawMessage
			n.trace(t, &one, "debug_traceTransaction", tx.Hash(), cfg)
			if string(one) != string(byNum[i].Result) || string(one) != string(byHash[i].Result) {
				t.Errorf("tx %d: block trace differs from the transaction trace", i)
			}
		}
	})

	t.Run("traceCall with overrides", func(t *testing.T) {
		var frame callFrame
		in, _ := f.treeABI.ABI.Pack("counter")
		ov := map[string]any{"stateOverrides": map[string]any{f.tracee.Hex(): map[string]any{"stateDiff": map[string]string{"0x" + strings.Repeat("0", 64): common.BigToHash(big.NewInt(1234)).Hex()}}}, "tracer": "callTracer"}
		n.trace(t, &frame, "debug_traceCall", map[string]any{"to": f.tracee, "input": hexutil.Bytes(in)}, "latest", ov)
		if hexutil.Encode(frame.Output) != hexutil.Encode(word32(1234)) || frame.Type != "CALL" {
			t.Fatalf("traceCall with override: %+v", frame)
		}
		n.trace(t, &frame, "debug_traceCall", map[string]any{"to": f.tracee, "input": hexutil.Bytes(in)}, hexutil.EncodeBig(f.blockNum), map[string]any{"tracer": "callTracer"})
		if hexutil.Encode(frame.Output) != hexutil.Encode(word32(20)) {
			t.Fatalf("traceCall at the block: %x", frame.Output)
		}
	})

	t.Run("errors", func(t *testing.T) {
		var out json.RawMessage
		for _, c := range []struct {
			method string
			args   []any
			code   int
			msg    string
		}{
			{"debug_traceTransaction", []any{common.Hash{1}}, -32000, "transaction not found"},
			{"debug_traceBlockByNumber", []any{"0x0"}, -32000, "genesis is not traceable"},
			{"debug_traceBlockByNumber", []any{"0xffffff"}, -32000, "block #16777215 not found"},
			{"debug_traceTransaction", []any{f.tx.Hash(), map[string]any{"tracer": "nopeTracer"}}, -32000, "ReferenceError: nopeTracer is not defined"}, // not a built-in name: JavaScript
			{"debug_traceTransaction", []any{f.tx.Hash(), map[string]any{"timeout": "soon"}}, -32602, `invalid timeout "soon"`},
			{"debug_traceTransaction", []any{f.tx.Hash(), map[string]any{"timeout": "300ms",
				"tracer": `{step: function() { while (true) {} }, fault: function() {}, result: function() { return 1 }}`}}, -32000, "execution timeout"},
			{"debug_getRawBlock", []any{"0xffffff"}, -32000, "block #16777215 not found"},
		} {
			err := n.RPC.Call(&out, c.method, c.args...)
			var re rpc.Error
			if !errors.As(err, &re) || re.ErrorCode() != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s%v = %v, want %d %q", c.method, c.args, err, c.code, c.msg)
			}
		}
	})

	t.Run("raw getters", func(t *testing.T) {
		var raw hexutil.Bytes
		n.trace(t, &raw, "debug_getRawTransaction", f.tx.Hash())
		if enc, _ := f.tx.MarshalBinary(); hexutil.Encode(raw) != hexutil.Encode(enc) {
			t.Errorf("raw tx %x, want %x", raw, enc)
		}
		var null json.RawMessage
		n.trace(t, &null, "debug_getRawTransaction", common.Hash{1})
		if string(null) != "null" {
			t.Errorf("unknown raw tx = %s", null)
		}
		n.trace(t, &raw, "debug_getRawHeader", hexutil.EncodeBig(f.blockNum))
		if crypto.Keccak256Hash(raw) != f.receipt.BlockHash {
			t.Errorf("raw header hashes to %s, block is %s", crypto.Keccak256Hash(raw), f.receipt.BlockHash)
		}
		n.trace(t, &raw, "debug_getRawBlock", f.receipt.BlockHash)
		var block types.Block
		if err := rlp.DecodeBytes(raw, &block); err != nil || block.Hash() != f.receipt.BlockHash || len(block.Transactions()) != 2 || block.Transactions()[1].Hash() != f.tx.Hash() {
			t.Errorf("raw block: %v", err)
		}
		var receipts []hexutil.Bytes
		n.trace(t, &receipts, "debug_getRawReceipts", hexutil.EncodeBig(f.blockNum))
		var r types.Receipt
		if len(receipts) != 2 || r.UnmarshalBinary(receipts[1]) != nil || r.CumulativeGasUsed != f.receipt.CumulativeGasUsed || len(r.Logs) != len(f.receipt.Logs) || r.Bloom != f.receipt.Bloom {
			t.Errorf("raw receipts: %d, %+v", len(receipts), r)
		}
	})
}

// TestDebugNamespaceOff checks that debug_ methods are unknown unless the
// namespace is enabled.
func TestDebugNamespaceOff(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--json-rpc.api", "eth,net,web3")
	var out json.RawMessage
	err := n.RPC.Call(&out, "debug_traceBlockByNumber", "0x1")
	var re rpc.Error
	if !errors.As(err, &re) || re.ErrorCode() != -32601 {
		t.Fatalf("debug with the namespace off: %v", err)
	}
}
