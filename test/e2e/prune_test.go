package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/internal/wait"
)

// fullNodeFlags start a dev node in full pruning mode keeping the states of
// the last keep blocks, sweeping every interval blocks.
func fullNodeFlags(keep, interval int) []string {
	return []string{"--empty-block-interval", "0", "--store.pruning", "full",
		"--store.keep-recent", fmt.Sprint(keep), "--store.prune-interval", fmt.Sprint(interval)}
}

// stateAnswers are the state reads of one height, as raw JSON.
type stateAnswers map[string]json.RawMessage

// stateReads are the reads whose answer at a height the test records while
// the height is recent and compares after pruning.
func stateReads(key, to, contract common.Address) map[string][]any {
	return map[string][]any{
		"eth_getBalance/sender":    {"eth_getBalance", key},
		"eth_getBalance/recipient": {"eth_getBalance", to},
		"eth_getTransactionCount":  {"eth_getTransactionCount", key},
		"eth_getCode":              {"eth_getCode", contract},
		"eth_getStorageAt":         {"eth_getStorageAt", contract, "0x0"},
		"eth_getProof":             {"eth_getProof", contract, []string{"0x0"}},
		"eth_call":                 {"eth_call", map[string]any{"to": contract}},
		"eth_estimateGas":          {"eth_estimateGas", map[string]any{"from": key, "to": contract, "data": hexutil.Encode(word(7))}},
	}
}

func readState(n *Node, reads map[string][]any, height uint64) (stateAnswers, map[string]error) {
	out, errs := stateAnswers{}, map[string]error{}
	for name, r := range reads {
		var raw json.RawMessage
		args := append(append([]any{}, r[1:]...), hexutil.EncodeUint64(height))
		if err := n.RPC.Call(&raw, r[0].(string), args...); err != nil {
			errs[name] = err
			continue
		}
		out[name] = raw
	}
	return out, errs
}

// capabilities reads eth_capabilities' state entry.
func stateCapability(t *testing.T, n *Node) (oldest uint64, strategy json.RawMessage) {
	t.Helper()
	var caps struct {
		State, StateProofs struct {
			OldestBlock    hexutil.Uint64  `json:"oldestBlock"`
			DeleteStrategy json.RawMessage `json:"deleteStrategy"`
		}
	}
	mustCall(t, n, &caps, "eth_capabilities")
	if caps.State.OldestBlock != caps.StateProofs.OldestBlock || string(caps.State.DeleteStrategy) != string(caps.StateProofs.DeleteStrategy) {
		t.Fatalf("eth_capabilities: state %+v, stateproofs %+v", caps.State, caps.StateProofs)
	}
	return uint64(caps.State.OldestBlock), caps.State.DeleteStrategy
}

// TestPruneFull runs a full node keeping 8 states: every height read while
// recent answers the same after pruning as long as it is in the window;
// older heights answer the exact "not available" error naming the oldest
// state; blocks, receipts and logs stay; eth_capabilities says so.
func TestPruneFull(t *testing.T) {
	t.Parallel()
	const keep, interval = 8, 4
	n := StartDev(t, fullNodeFlags(keep, interval)...)
	key, to := devKeys[4], common.HexToAddress("0x00000000000000000000000000000000000000b7")
	d := n.WaitReceipt(t, n.send(t, key.Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())}).Hash())
	reads := stateReads(key.Address, to, d.ContractAddress)

	recorded := map[uint64]stateAnswers{}
	var receipts []*types.Receipt
	for i := uint64(1); i <= 30; i++ {
		n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &to, Value: big.NewInt(int64(i))}).Hash())
		r := n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &d.ContractAddress, Data: word(i), Gas: 100_000}).Hash())
		receipts = append(receipts, r)
		h := r.BlockNumber.Uint64()
		answers, errs := readState(n, reads, h)
		if len(errs) > 0 {
			t.Fatalf("reads at %d right after it: %v", h, errs)
		}
		recorded[h] = answers
	}
	head, err := n.Eth.BlockNumber(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	// A sweep runs in the background once the window moved by an interval.
	oldest := wait.For(t, 30*time.Second, fmt.Sprintf("a sweep at head %d", head), func() (uint64, error) {
		oldest, _ := stateCapability(t, n)
		return oldest, wait.Check(oldest+keep+interval > head, "oldest state %d", oldest)
	})
	if _, strategy := stateCapability(t, n); string(strategy) != fmt.Sprintf(`{"type":"window","retentionBlocks":"%#x"}`, keep) {
		t.Fatalf("deleteStrategy %s", strategy)
	}
	// The block CometBFT makes after the last one may start one more sweep
	// meanwhile: the checks are made again when the oldest height moved
	// while they ran.
	for attempt := 1; ; attempt++ {
		before, _ := stateCapability(t, n)
		problems, kept, pruned := checkWindow(t, n, before, reads, recorded, receipts, to)
		if after, _ := stateCapability(t, n); after != before && attempt < 5 {
			continue
		}
		for _, p := range problems {
			t.Error(p)
		}
		if kept == 0 || pruned < 20 {
			t.Fatalf("%d recorded heights kept, %d pruned: the window (oldest %d, head %d) is not what keep-recent says", kept, pruned, before, head)
		}
		break
	}
	var raw json.RawMessage
	last := receipts[len(receipts)-1]
	if err := n.RPC.Call(&raw, "debug_traceTransaction", last.TxHash, map[string]any{"tracer": "callTracer"}); err != nil {
		t.Fatalf("trace of a tx in the window: %v", err)
	}

	// Blocks, receipts and logs of pruned heights stay.
	for _, r := range receipts[:3] {
		got, err := n.Eth.TransactionReceipt(ctx(t), r.TxHash)
		if err != nil || got.BlockHash != r.BlockHash || len(got.Logs) != 1 {
			t.Fatalf("receipt of %s in pruned block %d: %v %v", r.TxHash, r.BlockNumber, got, err)
		}
		if b, err := n.Eth.BlockByNumber(ctx(t), r.BlockNumber); err != nil || b.Hash() != r.BlockHash {
			t.Fatalf("pruned block %d: %v", r.BlockNumber, err)
		}
	}
	var logs []types.Log
	mustCall(t, n, &logs, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest", "address": d.ContractAddress})
	if len(logs) != len(receipts) {
		t.Fatalf("eth_getLogs over pruned heights: %d logs, want %d", len(logs), len(receipts))
	}

	// The metric says the same oldest height as eth_capabilities.
	oldest, _ = stateCapability(t, n)
	res, err := http.Get("http://" + n.Metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if again, _ := stateCapability(t, n); again == oldest && !strings.Contains(string(body), fmt.Sprintf("\nember_state_oldest_height %d\n", oldest)) {
		t.Errorf("ember_state_oldest_height is not %d", oldest)
	}
}

// checkWindow reads every recorded height: from oldest on, the answers
// recorded while it was recent; below it, the "not available" error naming
// oldest, over JSON-RPC, REST and for traces (which name the parent).
func checkWindow(t *testing.T, n *Node, oldest uint64, reads map[string][]any, recorded map[uint64]stateAnswers,
	receipts []*types.Receipt, to common.Address) (problems []string, kept, pruned int) {
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	unavailable := func(h uint64) string {
		return fmt.Sprintf("state of block %d is not available on this node: the oldest available is block %d", h, oldest)
	}
	for h, want := range recorded {
		got, errs := readState(n, reads, h)
		if h >= oldest {
			kept++
			if len(errs) > 0 {
				report("height %d (oldest %d): %v", h, oldest, errs)
			}
			for name := range want {
				if string(got[name]) != string(want[name]) {
					report("%s at %d: %s after pruning, %s before", name, h, got[name], want[name])
				}
			}
			continue
		}
		pruned++
		for name := range reads {
			if p := unavailableProblem(name, errs[name], unavailable(h)); p != "" {
				report("%s", p)
			}
		}
	}
	// The native account over REST: the same window.
	balPath := "/cosmos/bank/v1beta1/balances/" + accounts.Bech32("ember", to)
	first := receipts[0]
	at := first.BlockNumber.Uint64()
	if code, body, _ := n.restGet(t, balPath, "x-cosmos-block-height", fmt.Sprint(at)); code != 400 || !strings.Contains(body, unavailable(at)) {
		report("REST balance at pruned %d: %d %s, want 400 with %q", at, code, body, unavailable(at))
	}
	if code, body, _ := n.restGet(t, balPath, "x-cosmos-block-height", fmt.Sprint(oldest)); code != 200 {
		report("REST balance at the oldest kept height %d: %d %s", oldest, code, body)
	}
	// Tracing needs the parent's state: a pruned parent names itself.
	var raw json.RawMessage
	for what, err := range map[string]error{
		"debug_traceBlockByNumber": n.RPC.Call(&raw, "debug_traceBlockByNumber", hexutil.EncodeUint64(at), map[string]any{}),
		"debug_traceTransaction":   n.RPC.Call(&raw, "debug_traceTransaction", first.TxHash, map[string]any{"tracer": "callTracer"}),
	} {
		if p := unavailableProblem(what, err, unavailable(at-1)); p != "" {
			report("%s", p)
		}
	}
	return problems, kept, pruned
}

// unavailableProblem describes how err differs from the JSON-RPC error
// -32000 wantMsg ("" when it does not).
func unavailableProblem(what string, err error, wantMsg string) string {
	var re interface{ ErrorCode() int }
	if !errors.As(err, &re) || re.ErrorCode() != -32000 || err.Error() != wantMsg {
		return fmt.Sprintf("%s: %v, want -32000 %q", what, err, wantMsg)
	}
	return ""
}

func checkUnavailable(t *testing.T, what string, err error, wantMsg string) {
	t.Helper()
	if p := unavailableProblem(what, err, wantMsg); p != "" {
		t.Error(p)
	}
}

// TestPruneKill kills a full node (SIGKILL) while it prunes, under a stream
// of transfers, and restarts it: each time it starts cleanly, every
// receipt a client saw is still there, the recipients hold exactly what
// the included transfers sent, and the pruner finishes the sweep it lost.
func TestPruneKill(t *testing.T) {
	t.Parallel()
	const keep, interval = 4, 2
	n := StartDev(t, fullNodeFlags(keep, interval)...)
	senders := devKeys[:4]
	recipients := make([]common.Address, len(senders))
	for i := range recipients {
		recipients[i] = common.BigToAddress(big.NewInt(int64(0xe000 + i)))
	}
	var seen []confirmed
	hits := 0
	for round := 0; round < 20 && (hits < 3 || round < 6); round++ {
		stop := make(chan struct{})
		results := make(chan confirmed, 1<<16)
		done := make(chan struct{})
		eth := n.Eth // Kill clears n.Eth while the senders still use it
		for i, key := range senders {
			go func(i int, key *ecdsaKey) {
				streamTransfers(eth, key, recipients[i], stop, func(c confirmed) { results <- c })
				done <- struct{}{}
			}(i, key.Private)
		}
		// Under load for a while (some 40 receipts), then killed as soon
		// as a sweep begins (or 3 s later without one).
		_ = wait.PollEvery(5*time.Millisecond, 20*time.Second, "40 receipts", func() error {
			return wait.Check(len(results) >= 40, "%d", len(results))
		})
		logStart := logSize(t, n)
		waitLog(n, logStart, "pruning state", 3*time.Second)
		n.Kill()
		close(stop)
		for range senders {
			<-done
		}
		close(results)
		for c := range results {
			seen = append(seen, c)
		}
		if killedMidSweep(t, n, logStart) {
			hits++
		}
		n.Start("dev")
	}
	if hits == 0 {
		t.Fatal("no kill landed during a sweep")
	}
	t.Logf("%d kills during a sweep, %d receipts seen", hits, len(seen))
	// Let the journaled txs land, then check every receipt and the balances.
	for _, c := range seen {
		r := n.WaitReceipt(t, c.hash)
		if r.BlockHash != c.blockHash {
			t.Fatalf("tx %s: block %s after restarts, %s before", c.hash, r.BlockHash, c.blockHash)
		}
	}
	for i, key := range senders {
		head, err := n.Eth.BlockNumber(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		nonce, err := n.Eth.NonceAt(ctx(t), key.Address, new(big.Int).SetUint64(head))
		if err != nil {
			t.Fatal(err)
		}
		bal, err := n.Eth.BalanceAt(ctx(t), recipients[i], new(big.Int).SetUint64(head))
		if err != nil {
			t.Fatal(err)
		}
		// streamTransfers sends 1 wei per transfer: all included ones.
		if bal.Uint64() != nonce {
			t.Errorf("recipient %d holds %v wei after %d transfers", i, bal, nonce)
		}
	}
	// No reader lost a node it needed: the explorer (on in dev homes) holds
	// its next block from pruning, across restarts too.
	if log, _ := os.ReadFile(n.logPath); strings.Contains(string(log), "missing trie node") {
		t.Error("a state read hit a pruned node (missing trie node in the log)")
	}
	// The pruner goes on after the restarts: the window follows the head.
	for i := 0; i < 2*interval+2; i++ {
		n.WaitReceipt(t, n.send(t, devKeys[8].Private, txOpts{To: &recipients[0], Value: big.NewInt(1)}).Hash())
	}
	head, _ := n.Eth.BlockNumber(ctx(t))
	wait.Eventually(t, 30*time.Second, fmt.Sprintf("a sweep after the restarts (head %d)", head), func() error {
		oldest, _ := stateCapability(t, n)
		return wait.Check(oldest+keep+interval > head, "oldest state %d", oldest)
	})
}

func logSize(t *testing.T, n *Node) int64 {
	fi, err := os.Stat(n.logPath)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// waitLog waits until the node's log after offset contains s, or for max
// (the callers act either way). It polls every 2 ms: they kill the node the
// moment s is logged.
func waitLog(n *Node, offset int64, s string, max time.Duration) {
	_ = wait.PollEvery(2*time.Millisecond, max, s+" in the log", func() error {
		b, _ := os.ReadFile(n.logPath)
		return wait.Check(int64(len(b)) > offset && strings.Contains(string(b[offset:]), s), "not logged")
	})
}

// killedMidSweep reports whether the run logged after offset began a sweep
// it did not finish.
func killedMidSweep(t *testing.T, n *Node, offset int64) bool {
	b, err := os.ReadFile(n.logPath)
	if err != nil {
		t.Fatal(err)
	}
	run := string(b[offset:])
	startAt, endAt := strings.LastIndex(run, "pruning state"), strings.LastIndex(run, "pruned state")
	return startAt >= 0 && endAt < startAt
}

// TestPruneSwitchModes switches a home from archive to full (the next
// start prunes everything older than the window) and back to archive (the
// oldest state stays where pruning left it and no longer moves).
func TestPruneSwitchModes(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	to := common.HexToAddress("0x00000000000000000000000000000000000000c5")
	transfers := func(k int) {
		for i := 0; i < k; i++ {
			n.WaitReceipt(t, n.send(t, devKeys[5].Private, txOpts{To: &to, Value: big.NewInt(1)}).Hash())
		}
	}
	transfers(10)
	if oldest, strategy := stateCapability(t, n); oldest != 0 || strategy != nil {
		t.Fatalf("archive: oldest %d, deleteStrategy %s", oldest, strategy)
	}
	var balance hexutil.Big
	mustCall(t, n, &balance, "eth_getBalance", to, "0x1")

	n.Stop()
	n.extra = fullNodeFlags(4, 2)
	n.Start("dev")
	// The sweep at start may stop short of the window: the explorer holds
	// the states of the blocks it has not indexed yet (a race-built node
	// indexes slowly), and a held pruner looks again every second.
	var oldest, head uint64
	wait.Eventually(t, 30*time.Second, "archive → full: the oldest state within the window of 4", func() error {
		oldest, _ = stateCapability(t, n)
		head, _ = n.Eth.BlockNumber(ctx(t))
		return wait.Check(oldest != 0 && oldest+4 >= head, "oldest %d at head %d", oldest, head)
	})
	wantMsg := fmt.Sprintf("state of block 1 is not available on this node: the oldest available is block %d", oldest)
	checkUnavailable(t, "eth_getBalance at 1 after archive → full", n.RPC.Call(&balance, "eth_getBalance", to, "0x1"), wantMsg)

	n.Stop()
	n.extra = []string{"--empty-block-interval", "0"}
	n.Start("dev")
	transfers(10) // 20 blocks: a full node would have swept several times
	if got, strategy := stateCapability(t, n); got != oldest || strategy != nil {
		t.Fatalf("full → archive: oldest %d (was %d), deleteStrategy %s", got, oldest, strategy)
	}
	mustCall(t, n, &balance, "eth_getBalance", to, hexutil.EncodeUint64(oldest))
	checkUnavailable(t, "eth_getBalance at 1 after full → archive", n.RPC.Call(&balance, "eth_getBalance", to, "0x1"), wantMsg)
}
