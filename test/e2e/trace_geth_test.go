package e2e

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/internal/wait"
)

// chainClient is what the side-by-side test needs of either node.
type chainClient struct {
	name string
	rpc  *rpc.Client
	eth  *ethclient.Client
}

// sendAndWait signs and sends a dynamic-fee tx with the chain's own id and
// fee suggestions, and waits for its receipt.
func (c chainClient) sendAndWait(t *testing.T, key *ecdsa.PrivateKey, nonce uint64, to *common.Address, value *big.Int, data []byte) *types.Receipt {
	t.Helper()
	chainID, err := c.eth.ChainID(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	tip, _ := c.eth.SuggestGasTipCap(ctx(t))
	head, _ := c.eth.HeaderByNumber(ctx(t), nil)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 3_000_000, To: to, Value: value, Data: data,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.eth.SendTransaction(ctx(t), tx); err != nil {
		t.Fatalf("%s: send: %v", c.name, err)
	}
	return wait.For(t, 30*time.Second, c.name+": the receipt of "+tx.Hash().Hex(), func() (*types.Receipt, error) {
		return c.eth.TransactionReceipt(ctx(t), tx.Hash())
	})
}

// TestTracesMatchGeth runs the same transactions (same genesis, sender key
// and nonces, so the same contract addresses) on Ember and on geth --dev
// started from Ember's genesis, and compares every tracer's output field by
// field. Only what legitimately differs between the chains is left out:
// block hashes and positions, the sender's balance (the chains' base fees
// differ: Ember's has a floor) and the fee recipients' accounts.
func TestTracesMatchGeth(t *testing.T) {
	t.Parallel()
	ember := StartDev(t, "--empty-block-interval", "0")
	geth := StartGeth(t, emberGenesisForGeth(t, ember.Home))
	key := devKeys[7]
	chains := []chainClient{{"ember", ember.RPC, ember.Eth}, {"geth", geth.RPC, geth.Eth}}

	tracee := contracts.MustLoad("Tracee")
	deploy, _ := tracee.DeployData()
	run7, _ := tracee.ABI.Pack("run", big.NewInt(7))
	run8, _ := tracee.ABI.Pack("run", big.NewInt(8))
	addr := crypto.CreateAddress(key.Address, 0)
	txs := make([][]common.Hash, len(chains)) // per chain: deploy, run(7), run(8)
	for i, c := range chains {
		if n, _ := c.eth.NonceAt(ctx(t), key.Address, nil); n != 0 {
			t.Fatalf("%s: key nonce %d, want 0", c.name, n)
		}
		r := c.sendAndWait(t, key.Private, 0, nil, nil, deploy)
		if r.ContractAddress != addr || r.Status != 1 {
			t.Fatalf("%s: deploy at %s status %d", c.name, r.ContractAddress, r.Status)
		}
		r7 := c.sendAndWait(t, key.Private, 1, &addr, big.NewInt(10), run7)
		r8 := c.sendAndWait(t, key.Private, 2, &addr, big.NewInt(10), run8)
		if r7.Status != 1 || r8.Status != 1 || r7.GasUsed != 0 && false {
			t.Fatalf("%s: runs failed", c.name)
		}
		txs[i] = []common.Hash{r.TxHash, r7.TxHash, r8.TxHash}
	}

	js := `{n: 0, ops: {}, step: function(log) { this.n++; var op = log.op.toString(); this.ops[op] = (this.ops[op] || 0) + 1 }, fault: function() {}, result: function() { return {steps: this.n, ops: this.ops} }}`
	configs := map[string]map[string]any{
		"structLogger":          {"enableMemory": true, "enableReturnData": true},
		"callTracer":            {"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}},
		"prestateTracer":        {"tracer": "prestateTracer"},
		"prestateTracer diff":   {"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}},
		"4byteTracer":           {"tracer": "4byteTracer"},
		"flatCallTracer":        {"tracer": "flatCallTracer"},
		"muxTracer":             {"tracer": "muxTracer", "tracerConfig": map[string]any{"callTracer": map[string]any{"onlyTopCall": true}, "4byteTracer": nil}},
		"JavaScript op counter": {"tracer": js},
	}
	names := make([]string, 0, len(configs))
	for name := range configs {
		names = append(names, name)
	}
	sort.Strings(names)
	// The accounts whose balances legitimately differ, and the fee recipients.
	var emberHead, gethHead *types.Header
	emberHead, _ = ember.Eth.HeaderByNumber(ctx(t), nil)
	gethHead, _ = geth.Eth.HeaderByNumber(ctx(t), nil)
	feeRecipients := []string{lower(emberHead.Coinbase), lower(gethHead.Coinbase)}

	for _, name := range names {
		for i, label := range []string{"deploy", "run(7)", "run(8)"} {
			var traces [2]any
			for c := range chains {
				var raw json.RawMessage
				if err := chains[c].rpc.Call(&raw, "debug_traceTransaction", txs[c][i], configs[name]); err != nil {
					t.Fatalf("%s %s on %s: %v", name, label, chains[c].name, err)
				}
				var v any
				json.Unmarshal(raw, &v)
				traces[c] = normalizeTrace(v, lower(key.Address), feeRecipients)
			}
			if d := jsonDiff(traces[0], traces[1], ""); d != "" {
				t.Errorf("%s of %s differs from geth: %s", name, label, d)
			}
		}
	}
}

func lower(a common.Address) string { return hexutil.Encode(a.Bytes()) }

// normalizeTrace drops what differs between two chains running the same
// transactions: chain positions and hashes, the sender's balance, and the
// fee recipients' accounts.
func normalizeTrace(v any, sender string, feeRecipients []string) any {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"blockHash", "blockNumber", "transactionHash", "transactionPosition"} {
			delete(v, k)
		}
		for _, fr := range feeRecipients {
			delete(v, fr)
		}
		if acct, ok := v[sender].(map[string]any); ok {
			delete(acct, "balance")
		}
		for k, e := range v {
			v[k] = normalizeTrace(e, sender, feeRecipients)
		}
	case []any:
		for i, e := range v {
			v[i] = normalizeTrace(e, sender, feeRecipients)
		}
	}
	return v
}

// jsonDiff describes the first difference between two decoded JSON values.
func jsonDiff(a, b any, path string) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object vs %T", path, b)
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := jsonDiff(av[k], bv[k], path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return fmt.Sprintf("%s: array of %d vs %v", path, len(av), summarize(b))
		}
		for i := range av {
			if d := jsonDiff(av[i], bv[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: ember %v, geth %v", path, summarize(a), summarize(b))
	}
	return ""
}

func summarize(v any) string {
	if arr, ok := v.([]any); ok {
		return fmt.Sprintf("array of %d", len(arr))
	}
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
