package e2e

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestAnvilImpersonation sends from an account the node holds no key for
// after anvil_impersonateAccount: the value moves to the wei, the receipt,
// the transaction (by the hash eth_sendTransaction answered), the block,
// CometBFT's tx_search and the explorer show the impersonated sender, and
// its nonce moves by one per transaction. Stopping refuses the next send;
// auto-impersonation sends from any address.
func TestAnvilImpersonation(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	whale := common.HexToAddress("0x000000000000000000000000000000000000beef")
	to := common.HexToAddress("0x00000000000000000000000000000000000000b2")
	var null any
	mustCall(t, n, &null, "anvil_setBalance", whale, hexutil.EncodeBig(ether(10)))
	mustCall(t, n, &null, "anvil_impersonateAccount", whale)
	// The hook that wires impersonation in is not a method anyone can call
	// (with null it turned impersonation off).
	err := n.RPC.Call(&null, "eth_setImpersonator", nil)
	if re, ok := err.(interface{ ErrorCode() int }); !ok || re.ErrorCode() != -32601 {
		t.Fatalf("eth_setImpersonator: %v, want -32601", err)
	}

	value := big.NewInt(1234)
	var hash common.Hash
	mustCall(t, n, &hash, "eth_sendTransaction", map[string]any{"from": whale, "to": to, "value": hexutil.EncodeBig(value)})
	r, err := n.Eth.TransactionReceipt(ctx(t), hash)
	if err != nil {
		t.Fatalf("receipt of %s (no wait: the call returns once its block is committed): %v", hash.Hex(), err)
	}
	var rpcReceipt struct {
		From common.Address `json:"from"`
		To   common.Address `json:"to"`
	}
	mustCall(t, n, &rpcReceipt, "eth_getTransactionReceipt", hash)
	if r.Status != 1 || r.TxHash != hash || r.GasUsed != 21000 || rpcReceipt.From != whale || rpcReceipt.To != to {
		t.Fatalf("receipt status %d hash %s gas %d from %s to %s", r.Status, r.TxHash.Hex(), r.GasUsed, rpcReceipt.From.Hex(), rpcReceipt.To.Hex())
	}
	fee := new(big.Int).Mul(big.NewInt(21000), r.EffectiveGasPrice)
	want := new(big.Int).Sub(ether(10), fee)
	want.Sub(want, value)
	if got := n.balance(t, whale); got.Cmp(want) != 0 {
		t.Fatalf("impersonated balance %v, want %v", got, want)
	}
	if got := n.balance(t, to); got.Cmp(value) != 0 {
		t.Fatalf("recipient balance %v, want %v", got, value)
	}
	var nonce hexutil.Uint64
	mustCall(t, n, &nonce, "eth_getTransactionCount", whale, "latest")
	if nonce != 1 {
		t.Fatalf("impersonated nonce %d, want 1", nonce)
	}

	// The transaction by its hash, in its block, and its bytes: the fake
	// signature (r = the sender, s = 1) hashes to the hash answered.
	var tx struct {
		Hash  common.Hash    `json:"hash"`
		From  common.Address `json:"from"`
		R     hexutil.Big    `json:"r"`
		S     hexutil.Big    `json:"s"`
		Nonce hexutil.Uint64 `json:"nonce"`
	}
	mustCall(t, n, &tx, "eth_getTransactionByHash", hash)
	if tx.Hash != hash || tx.From != whale || tx.R.ToInt().Cmp(new(big.Int).SetBytes(whale[:])) != 0 || tx.S.ToInt().Int64() != 1 || tx.Nonce != 0 {
		t.Fatalf("transaction %+v", tx)
	}
	// go-ethereum's client parses it (its signature sanity check passes)
	// and hashes its fields to the hash answered.
	if gtx, _, err := n.Eth.TransactionByHash(ctx(t), hash); err != nil || gtx.Hash() != hash {
		t.Fatalf("ethclient: %v, %v", gtx, err)
	}
	var raw hexutil.Bytes
	mustCall(t, n, &raw, "debug_getRawTransaction", hash)
	if crypto.Keccak256Hash(raw) != hash {
		t.Fatalf("raw transaction hashes to %s, not %s", crypto.Keccak256Hash(raw).Hex(), hash.Hex())
	}
	var call struct {
		From  common.Address `json:"from"`
		Value hexutil.Big    `json:"value"`
	}
	mustCall(t, n, &call, "debug_traceTransaction", hash, map[string]any{"tracer": "callTracer"})
	if call.From != whale || call.Value.ToInt().Cmp(value) != 0 {
		t.Fatalf("callTracer frame %+v", call)
	}
	var block struct {
		Transactions []struct {
			Hash common.Hash    `json:"hash"`
			From common.Address `json:"from"`
		} `json:"transactions"`
	}
	mustCall(t, n, &block, "eth_getBlockByNumber", hexutil.EncodeBig(r.BlockNumber), true)
	if len(block.Transactions) != 1 || block.Transactions[0].Hash != hash || block.Transactions[0].From != whale {
		t.Fatalf("block %v transactions %+v", r.BlockNumber, block.Transactions)
	}
	var search struct {
		TotalCount string `json:"total_count"`
		Txs        []struct {
			TxResult struct {
				Events []struct {
					Type       string `json:"type"`
					Attributes []struct{ Key, Value string }
				} `json:"events"`
			} `json:"tx_result"`
		} `json:"txs"`
	}
	n.CometGet(t, "/tx_search", map[string][]string{"query": {`"ethereum_tx.ethereumTxHash='` + hash.Hex() + `'"`}}, &search)
	if search.TotalCount != "1" || !hasAttr(search.Txs[0].TxResult.Events, "ethereum", "sender", strings.ToLower(whale.Hex())) {
		t.Fatalf("tx_search %+v", search)
	}
	n.waitIndexed(t, r.BlockNumber.Uint64())
	status, body := n.explorerGet(t, "/api/v2/transactions/"+hash.Hex())
	var etx struct {
		From struct {
			Hash string `json:"hash"`
		} `json:"from"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &etx); status != 200 || err != nil || !strings.EqualFold(etx.From.Hash, whale.Hex()) || etx.Value != "1234" {
		t.Fatalf("explorer transaction: %d %s", status, body)
	}

	// A contract creation: its address derives from the impersonated sender.
	code := "0x600a600c600039600a6000f3602a60005260206000f3" // deploys code returning 42
	mustCall(t, n, &hash, "eth_sendTransaction", map[string]any{"from": whale, "data": code, "gas": "0x30000"})
	r, err = n.Eth.TransactionReceipt(ctx(t), hash)
	if err != nil || r.Status != 1 || r.ContractAddress != crypto.CreateAddress(whale, 1) {
		t.Fatalf("creation receipt %+v, %v; want contract %s", r, err, crypto.CreateAddress(whale, 1).Hex())
	}
	var deployed hexutil.Bytes
	mustCall(t, n, &deployed, "eth_getCode", r.ContractAddress, "latest")
	if deployed.String() != "0x602a60005260206000f3" {
		t.Fatalf("deployed code %s", deployed)
	}

	// Stopped: the node holds no key for it.
	mustCall(t, n, &null, "hardhat_stopImpersonatingAccount", whale)
	if err := n.RPC.CallContext(ctx(t), &hash, "eth_sendTransaction", map[string]any{"from": whale, "to": to, "value": "0x1"}); err == nil || err.Error() != "unknown account" {
		t.Fatalf("send after stopImpersonatingAccount: %v", err)
	}

	// Auto-impersonation: any sender, here a second keyless account.
	other := common.HexToAddress("0x000000000000000000000000000000000000cafe")
	mustCall(t, n, &null, "anvil_setBalance", other, hexutil.EncodeBig(ether(1)))
	mustCall(t, n, &null, "anvil_autoImpersonateAccount", true)
	mustCall(t, n, &hash, "eth_sendTransaction", map[string]any{"from": other, "to": to, "value": "0x10"})
	if r, err = n.Eth.TransactionReceipt(ctx(t), hash); err != nil || r.Status != 1 {
		t.Fatalf("auto-impersonated receipt %+v, %v", r, err)
	}
	if got := n.balance(t, to); got.Cmp(big.NewInt(1234+16)) != 0 {
		t.Fatalf("recipient balance %v after the auto-impersonated send", got)
	}
	mustCall(t, n, &null, "anvil_autoImpersonateAccount", false)
	if err := n.RPC.CallContext(ctx(t), &hash, "eth_sendTransaction", map[string]any{"from": other, "to": to, "value": "0x1"}); err == nil || err.Error() != "unknown account" {
		t.Fatalf("send after autoImpersonateAccount(false): %v", err)
	}

	// A wrong nonce is refused, as the signed transaction would be.
	mustCall(t, n, &null, "anvil_impersonateAccount", whale)
	err = n.RPC.CallContext(ctx(t), &hash, "eth_sendTransaction", map[string]any{"from": whale, "to": to, "value": "0x1", "nonce": "0x7"})
	if err == nil || !strings.Contains(err.Error(), "the account's next nonce is 2") {
		t.Fatalf("send with nonce 7: %v", err)
	}
}

// hasAttr tells whether events hold an event of type typ with key = value.
func hasAttr(events []struct {
	Type       string `json:"type"`
	Attributes []struct{ Key, Value string }
}, typ, key, value string) bool {
	for _, e := range events {
		for _, a := range e.Attributes {
			if e.Type == typ && a.Key == key && a.Value == value {
				return true
			}
		}
	}
	return false
}
