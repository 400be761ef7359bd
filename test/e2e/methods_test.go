package e2e

import (
	"encoding/json"
	"errors"
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
		{"eth_accounts", nil, `[]`},
		{"eth_coinbase", nil, `"` + block["miner"].(string) + `"`},
		{"eth_protocolVersion", nil, `"0x44"`},
	} {
		mustCall(t, n, &raw, c.method, c.args...)
		if string(raw) != c.want {
			t.Errorf("%s%v = %s, want %s", c.method, c.args, raw, c.want)
		}
	}
}

// TestBlobBaseFee checks that eth_blobBaseFee says the chain has no blob fee
// market instead of a number wallets would build unusable blob txs with.
func TestBlobBaseFee(t *testing.T) {
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
