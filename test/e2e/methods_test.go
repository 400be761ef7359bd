package e2e

import (
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestHeaderReceiptsUnclesAndNodeMethods checks eth_getHeaderBy*,
// eth_getBlockReceipts, the uncle methods, eth_syncing, eth_accounts and
// eth_coinbase against the block and receipt methods.
func TestHeaderReceiptsUnclesAndNodeMethods(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	to := common.HexToAddress("0x00000000000000000000000000000000000000cd")
	var txs []common.Hash
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), devKeys[4].Address)
	var batchTxs = n.signTxs(t, 3, func(i int) txOpts {
		return txOpts{Nonce: ptr(nonce + uint64(i)), To: &to, Value: ether(1)}
	})
	n.sendBatch(t, batchTxs)
	for _, tx := range batchTxs {
		txs = append(txs, tx.Hash())
	}
	last := n.WaitReceipt(t, txs[2])
	num := hexutil.EncodeBig(last.BlockNumber)

	var block, header, byHash map[string]any
	mustCall(t, n, &block, "eth_getBlockByNumber", num, false)
	mustCall(t, n, &header, "eth_getHeaderByNumber", num)
	mustCall(t, n, &byHash, "eth_getHeaderByHash", block["hash"])
	txCount := len(block["transactions"].([]any))
	for _, k := range []string{"size", "transactions", "uncles", "withdrawals"} {
		delete(block, k)
	}
	if !reflect.DeepEqual(header, block) || !reflect.DeepEqual(byHash, block) {
		t.Fatalf("header %v\nby hash %v\nblock %v", header, byHash, block)
	}

	var receipts []map[string]any
	mustCall(t, n, &receipts, "eth_getBlockReceipts", num)
	if len(receipts) != txCount {
		t.Fatalf("%d receipts for %d transactions", len(receipts), txCount)
	}
	for i, r := range receipts {
		var one map[string]any
		mustCall(t, n, &one, "eth_getTransactionReceipt", r["transactionHash"])
		if !reflect.DeepEqual(one, r) {
			t.Fatalf("receipt %d from the block %v, alone %v", i, r, one)
		}
	}
	var byBlockHash []map[string]any
	mustCall(t, n, &byBlockHash, "eth_getBlockReceipts", block["hash"])
	if len(receipts) == 0 || !reflect.DeepEqual(byBlockHash, receipts) {
		t.Fatalf("%d receipts by number, %d by hash", len(receipts), len(byBlockHash))
	}

	var raw json.RawMessage
	for _, c := range []struct {
		method string
		args   []any
		want   string
	}{
		{"eth_getUncleCountByBlockNumber", []any{num}, `"0x0"`},
		{"eth_getUncleCountByBlockHash", []any{block["hash"]}, `"0x0"`},
		{"eth_getUncleCountByBlockNumber", []any{"0xffffff"}, `null`},
		{"eth_getUncleByBlockNumberAndIndex", []any{num, "0x0"}, `null`},
		{"eth_getUncleByBlockHashAndIndex", []any{block["hash"], "0x0"}, `null`},
		{"eth_getHeaderByNumber", []any{"0xffffff"}, `null`},
		{"eth_getBlockReceipts", []any{"0xffffff"}, `null`},
		{"eth_syncing", nil, `false`},
		{"eth_accounts", nil, devAccountsJSON()},
		{"eth_coinbase", nil, `"` + block["miner"].(string) + `"`},
		{"eth_protocolVersion", nil, `"0x44"`},
	} {
		mustCall(t, n, &raw, c.method, c.args...)
		if string(raw) != c.want {
			t.Errorf("%s%v = %s, want %s", c.method, c.args, raw, c.want)
		}
	}
}

// devAccountsJSON is eth_accounts on `emberd dev`: the prefunded keys, in
// order, lowercase hex as go-ethereum encodes addresses.
func devAccountsJSON() string {
	addrs := make([]string, len(devKeys))
	for i, k := range devKeys {
		addrs[i] = `"` + strings.ToLower(k.Address.Hex()) + `"`
	}
	return "[" + strings.Join(addrs, ",") + "]"
}

// TestStorageValuesAndBaseFee checks eth_getStorageValues against
// eth_getStorageAt at two heights, its bounds, and eth_baseFee against the
// base fee the next block gets.
func TestStorageValuesAndBaseFee(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	key := devKeys[3]
	d := n.WaitReceipt(t, n.send(t, key.Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())}).Hash())
	r := n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &d.ContractAddress, Data: word(42), Gas: 100_000}).Hash())

	var vals map[common.Address][]hexutil.Bytes
	req := map[common.Address][]string{d.ContractAddress: {"0x0", "0x1"}, key.Address: {}}
	mustCall(t, n, &vals, "eth_getStorageValues", req, hexutil.EncodeBig(r.BlockNumber))
	got := vals[d.ContractAddress]
	if len(vals) != 2 || len(vals[key.Address]) != 0 || len(got) != 2 ||
		hexutil.Encode(got[0]) != hexutil.Encode(word(42)) || hexutil.Encode(got[1]) != hexutil.Encode(make([]byte, 32)) {
		t.Fatalf("eth_getStorageValues at %d = %v", r.BlockNumber, vals)
	}
	mustCall(t, n, &vals, "eth_getStorageValues", req, hexutil.EncodeBig(d.BlockNumber))
	if hexutil.Encode(vals[d.ContractAddress][0]) != hexutil.Encode(make([]byte, 32)) {
		t.Fatalf("eth_getStorageValues before the write = %v", vals)
	}
	many := make([]string, 1025)
	for i := range many {
		many[i] = hexutil.EncodeUint64(uint64(i))
	}
	for _, c := range []struct {
		req  any
		code int
		msg  string
	}{
		{map[string][]string{}, -32602, "empty request"},
		{map[common.Address][]string{key.Address: many}, -38026, "too many slots (max 1024)"},
		{map[common.Address][]string{key.Address: {"0xzz"}}, -32602, "invalid argument 0"},
	} {
		err := n.RPC.Call(&vals, "eth_getStorageValues", c.req)
		var re interface{ ErrorCode() int }
		if !errors.As(err, &re) || re.ErrorCode() != c.code || !strings.HasPrefix(err.Error(), c.msg) {
			t.Errorf("eth_getStorageValues(%.60v) = %v, want %d %q", c.req, err, c.code, c.msg)
		}
	}

	// eth_baseFee is the base fee block head+1 gets (read head on both sides
	// so no block slips in between).
	var baseFee hexutil.Big
	var before, after hexutil.Uint64
	for {
		mustCall(t, n, &before, "eth_blockNumber")
		mustCall(t, n, &baseFee, "eth_baseFee")
		if mustCall(t, n, &after, "eth_blockNumber"); before == after {
			break
		}
	}
	n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &key.Address, Value: big.NewInt(1)}).Hash())
	h, err := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(uint64(before)+1))
	if err != nil {
		t.Fatal(err)
	}
	if h.BaseFee.Cmp(baseFee.ToInt()) != 0 {
		t.Fatalf("eth_baseFee at head %d = %s; block %d has base fee %s", before, baseFee.ToInt(), h.Number, h.BaseFee)
	}
}

// TestBlobBaseFee checks that eth_blobBaseFee says the chain has no blob fee
// market instead of a number wallets would build unusable blob txs with.
func TestBlobBaseFee(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	var out json.RawMessage
	err := n.RPC.Call(&out, "eth_blobBaseFee")
	var re interface{ ErrorCode() int }
	if !errors.As(err, &re) || re.ErrorCode() != -32000 || !strings.HasPrefix(err.Error(), "blob transactions are not supported on this chain") {
		t.Fatalf("eth_blobBaseFee = %s, %v", out, err)
	}
}

func mustCall(t *testing.T, n *Node, out any, method string, args ...any) {
	t.Helper()
	if err := n.RPC.Call(out, method, args...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// TestEstimateGas checks geth's estimator: a plain transfer costs 21000, a
// deployment without "to" is estimated, and estimate-then-send succeeds.
func TestEstimateGas(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	key := devKeys[7]
	var gas hexutil.Uint64
	mustCall(t, n, &gas, "eth_estimateGas", map[string]any{"from": key.Address, "to": common.HexToAddress("0x1234"), "value": "0x1"})
	if gas != 21000 {
		t.Fatalf("transfer estimate %d, want 21000", gas)
	}
	code := hexutil.Bytes(deployCode(emitterRuntime()))
	mustCall(t, n, &gas, "eth_estimateGas", map[string]any{"from": key.Address, "input": code})
	tx := n.send(t, key.Private, txOpts{Gas: uint64(gas), Data: code})
	if r := n.WaitReceipt(t, tx.Hash()); r.Status != 1 || r.GasUsed > uint64(gas) {
		t.Fatalf("deploy with estimated gas %d: status %d, used %d", gas, r.Status, r.GasUsed)
	}
	// A call that reverts whatever the gas gets code 3 with the reason.
	var out json.RawMessage
	err := n.RPC.Call(&out, "eth_estimateGas", map[string]any{"from": key.Address, "to": crypto.CreateAddress(key.Address, tx.Nonce()), "input": hexutil.Bytes(word(0))})
	if err == nil || err.Error() != "execution reverted: zero value" {
		t.Fatalf("reverting estimate: %v", err)
	}
}
