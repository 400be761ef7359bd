package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/hoststat"
	"github.com/emberchain/ember/bench/internal/peer"
	"github.com/emberchain/ember/bench/internal/writes"
)

// readMethod is one read, its request and a check of its answer.
type readMethod struct {
	label string
	body  func(s *readSetup) []byte
	check func(s *readSetup, result json.RawMessage) error
}

// readSetup is what a node holds before the reads: one ETH transfer of
// 1 finney from account 1 to a fresh address, alone in its block.
type readSetup struct {
	sender, recipient common.Address
	block             uint64
	tx                common.Hash
	nonce             uint64 // the sender's pending nonce after it
}

var (
	oneFinney = big.NewInt(1e15)
	callInput = hexutil.Bytes(crypto.Keccak256([]byte("identity")))
	identity  = common.BytesToAddress([]byte{4})
)

// readMethods are issue 17's five reads.
var readMethods = []readMethod{
	{"eth_blockNumber", func(*readSetup) []byte { return request("eth_blockNumber") },
		func(s *readSetup, r json.RawMessage) error {
			var n hexutil.Uint64
			if err := json.Unmarshal(r, &n); err != nil || uint64(n) < s.block {
				return fmt.Errorf("block number %s, want at least %d", r, s.block)
			}
			return nil
		}},
	{"eth_getBalance latest", func(s *readSetup) []byte { return request("eth_getBalance", s.recipient, "latest") },
		func(s *readSetup, r json.RawMessage) error {
			var b hexutil.Big
			if err := json.Unmarshal(r, &b); err != nil || b.ToInt().Cmp(oneFinney) != 0 {
				return fmt.Errorf("balance %s, want %s", r, oneFinney)
			}
			return nil
		}},
	{"eth_call (identity precompile)", func(*readSetup) []byte {
		return request("eth_call", map[string]any{"to": identity, "data": callInput}, "latest")
	}, func(s *readSetup, r json.RawMessage) error {
		var out hexutil.Bytes
		if err := json.Unmarshal(r, &out); err != nil || !bytes.Equal(out, callInput) {
			return fmt.Errorf("eth_call returned %s, want %s", r, callInput)
		}
		return nil
	}},
	{"eth_getBlockByNumber(block of 1 tx, true)", func(s *readSetup) []byte {
		return request("eth_getBlockByNumber", hexutil.Uint64(s.block), true)
	}, func(s *readSetup, r json.RawMessage) error {
		var b struct {
			Transactions []struct{ Hash common.Hash }
		}
		if err := json.Unmarshal(r, &b); err != nil || len(b.Transactions) != 1 || b.Transactions[0].Hash != s.tx {
			return fmt.Errorf("block %d: %.200s", s.block, r)
		}
		return nil
	}},
	{"eth_getTransactionCount pending", func(s *readSetup) []byte {
		return request("eth_getTransactionCount", s.sender, "pending")
	}, func(s *readSetup, r json.RawMessage) error {
		var n hexutil.Uint64
		if err := json.Unmarshal(r, &n); err != nil || uint64(n) != s.nonce {
			return fmt.Errorf("nonce %s, want %d", r, s.nonce)
		}
		return nil
	}},
}

func request(method string, params ...any) []byte {
	if params == nil {
		params = []any{}
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return b
}

// readResult is one method on one node.
type readResult struct {
	rps           float64
	p50, p99      time.Duration
	nodeCPU       float64 // cores
	wrkCPU        float64 // cores
	nodeCPUPerReq time.Duration
	steal         float64   // cores the hypervisor took from the machine meanwhile
	errors        string    // wrk's socket errors or non-2xx answers, if any
	slices        []float64 // req/s of every slice, in the order run (on the median one)
	reruns        int       // slices measured again for steal (on the median one: of all slices)
}

// medianSlice is the slice with the median req/s (the lower middle one of an
// even count), carrying every slice's req/s.
func medianSlice(rs []*readResult) *readResult {
	byRate := slices.Clone(rs)
	slices.SortFunc(byRate, func(a, b *readResult) int { return cmp.Compare(a.rps, b.rps) })
	m := *byRate[(len(byRate)-1)/2]
	m.slices, m.reruns = make([]float64, len(rs)), 0
	for i, r := range rs {
		m.slices[i] = r.rps
		m.reruns += r.reruns
	}
	return &m
}

// readCPUs is where a reads run puts the nodes and wrk: nil, anywhere
// (sharing the machine's cores, as a developer's laptop runs them); else
// each node started on CPU node and wrk on CPU load, so that neither takes
// the other's time and the node's core is what limits its req/s.
type readCPUs struct{ node, load string }

// pinnedReads: one core for the node, another for wrk.
var pinnedReads = &readCPUs{node: "1", load: "0"}

// runReads starts one node of each kind, sets it up, then measures each
// method on each node: dur split into n slices, the nodes taking turns
// slice by slice (the node going first rotating), so that they never
// compete for the cores while measured and a passing disturbance of the
// shared machine hits one slice, not one node's whole figure. Each node's
// figure is its median slice.
func runReads(kinds []nodeKind, wrk string, conns int, dur time.Duration, n int, cpus *readCPUs) [][]*readResult {
	if _, err := exec.LookPath(wrk); err != nil {
		fatalf("wrk not found (apt-get install wrk): %v", err)
	}
	load := wrkRunner{bin: wrk, conns: conns}
	if cpus != nil {
		if _, err := exec.LookPath("taskset"); err != nil {
			fatalf("taskset not found (util-linux): %v", err)
		}
		peer.StartOn(cpus.node)
		defer peer.StartOn("")
		load.cpus = cpus.load
	}
	nodes := make([]*peer.Node, len(kinds))
	setups := make([]*readSetup, len(kinds))
	for i, k := range kinds {
		node, err := k.start(2)
		if err != nil {
			fatalf("start %s: %v", k.key, err)
		}
		nodes[i] = track(node)
		if setups[i], err = setupReads(node.URL); err != nil {
			fatalf("%s: read setup: %v", k.key, err)
		}
	}
	dir, err := os.MkdirTemp("", "bench-wrk-")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(dir)
	slice := sliceLength(dur, n)
	out := make([][]*readResult, len(readMethods))
	for m, method := range readMethods {
		scripts := make([]string, len(kinds))
		for k := range kinds {
			i := (k + m) % len(kinds)
			scripts[i] = prepareRead(method, m, kinds[i], nodes[i], setups[i], dir, load)
		}
		runs := make([][]*readResult, len(kinds))
		for s := range n {
			for k := range kinds {
				i := (k + m + s) % len(kinds)
				runs[i] = append(runs[i], measureSlice(load, scripts[i], nodes[i], slice, fmt.Sprintf("%-18s %-38s %d/%d", kinds[i].key, method.label, s+1, n)))
			}
		}
		out[m] = make([]*readResult, len(kinds))
		for i := range kinds {
			out[m][i] = medianSlice(runs[i])
		}
	}
	for _, node := range nodes {
		stop(node)
	}
	return out
}

// A slice during which the hypervisor took more than maxStealShare of the
// machine's cores is measured again, at most maxReruns times: steal slows
// whichever node it hits, so such a slice says more about the neighbours
// than about the node.
const (
	maxStealShare = 0.1
	maxReruns     = 2
)

// remeasure says whether a measurement during which the hypervisor took
// steal cores, on its try-th try (0 the first), is to be taken again.
func remeasure(steal float64, try int) bool {
	return steal > maxStealShare*float64(runtime.NumCPU()) && try < maxReruns
}

// measureSlice runs one slice of wrk on the node, again while the steal
// was too high, and prints each try after label.
func measureSlice(load wrkRunner, script string, node *peer.Node, slice time.Duration, label string) *readResult {
	for try := 0; ; try++ {
		r, err := load.run(script, node, slice)
		if err != nil {
			fatalf("%s: %v", label, err)
		}
		r.reruns = try
		again := remeasure(r.steal, try)
		note := ""
		if again {
			note = "  (steal: measured again)"
		}
		fmt.Fprintf(os.Stderr, "%s %8.0f req/s  p50 %5.2f ms  p99 %5.2f ms  node %3.0f%% (%.1f µs/req)  wrk %3.0f%%  steal %3.0f%%  load %s %s%s\n",
			label, r.rps, ms(r.p50), ms(r.p99), 100*r.nodeCPU, float64(r.nodeCPUPerReq.Nanoseconds())/1000,
			100*r.wrkCPU, 100*r.steal, loadAvg(), r.errors, note)
		if !again {
			return r
		}
	}
}

// sliceLength is dur split into n slices of whole seconds (wrk's unit), at
// least 1 s each.
func sliceLength(dur time.Duration, n int) time.Duration {
	return max(time.Second, (dur / time.Duration(max(n, 1))).Round(time.Second))
}

// prepareRead checks the node's answer to the method once, writes wrk's
// script for it and warms the node up with 1 s of it; it returns the
// script's path.
func prepareRead(method readMethod, m int, kind nodeKind, node *peer.Node, setup *readSetup, dir string, load wrkRunner) string {
	body := method.body(setup)
	if err := checkAnswer(node.URL, body, func(r json.RawMessage) error { return method.check(setup, r) }); err != nil {
		fatalf("%s %s: wrong answer: %v", kind.key, method.label, err)
	}
	script := filepath.Join(dir, fmt.Sprintf("%d-%s.lua", m, kind.key))
	if err := writeScript(script, body); err != nil {
		fatalf("%v", err)
	}
	if _, err := load.run(script, node, time.Second); err != nil {
		fatalf("%s %s: %v", kind.key, method.label, err)
	}
	return script
}

// setupReads sends the transfer the reads look at and waits for it.
func setupReads(url string) (*readSetup, error) {
	ctx := context.Background()
	c, err := writes.Dial(url)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	eth := ethclient.NewClient(c)
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, 2)
	if err != nil {
		return nil, err
	}
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	nonce, err := eth.PendingNonceAt(ctx, keys[1].Address)
	if err != nil {
		return nil, err
	}
	recipient := common.BytesToAddress(crypto.Keccak256([]byte("bench-reads-recipient"))[12:])
	tx, err := types.SignNewTx(keys[1].Private, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{ChainID: chainID,
		Nonce: nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(10e9), Gas: 21_000, To: &recipient, Value: oneFinney})
	if err != nil {
		return nil, err
	}
	if err := eth.SendTransaction(ctx, tx); err != nil {
		return nil, err
	}
	r, err := writes.WaitReceipt(ctx, eth, tx.Hash(), time.Minute)
	if err != nil {
		return nil, err
	}
	return &readSetup{sender: keys[1].Address, recipient: recipient, block: r.BlockNumber.Uint64(), tx: tx.Hash(), nonce: nonce + 1}, nil
}

// checkAnswer posts body once and checks the result.
func checkAnswer(url string, body []byte, check func(json.RawMessage) error) error {
	c, err := writes.Dial(url)
	if err != nil {
		return err
	}
	defer c.Close()
	var req struct {
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	args := make([]any, len(req.Params))
	for i, p := range req.Params {
		args[i] = p
	}
	var result json.RawMessage
	if err := c.CallContext(context.Background(), &result, req.Method, args...); err != nil {
		return err
	}
	return check(result)
}

func writeScript(path string, body []byte) error {
	if bytes.ContainsAny(body, "'\\\n") {
		return fmt.Errorf("request %s does not fit a Lua string literal", body)
	}
	script := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = '%s'\nwrk.headers[\"Content-Type\"] = \"application/json\"\n", body)
	return os.WriteFile(path, []byte(script), 0o644)
}

var (
	rpsLine     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	pctLine     = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([0-9.]+)(us|ms|s)\s*$`)
	socketLine  = regexp.MustCompile(`Socket errors:.*`)
	non2xxLine  = regexp.MustCompile(`Non-2xx or 3xx responses: \d+`)
	unitSeconds = map[string]float64{"us": 1e-6, "ms": 1e-3, "s": 1}
)

// wrkRunner runs wrk: 1 thread, conns connections, on the CPUs cpus ("":
// any).
type wrkRunner struct {
	bin   string
	conns int
	cpus  string
}

// run runs wrk for dur against the node and reads its figures, with the
// CPU time wrk and the node used.
func (l wrkRunner) run(script string, n *peer.Node, dur time.Duration) (*readResult, error) {
	secs := max(1, int(dur.Round(time.Second).Seconds()))
	cmd := exec.Command(l.bin, "-t1", "-c"+strconv.Itoa(l.conns), "-d"+strconv.Itoa(secs)+"s", "--latency", "-s", script, n.URL)
	if l.cpus != "" {
		cmd = peer.Pinned(cmd, l.cpus)
	}
	var outBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &outBuf
	cpu0, t0, host0 := n.CPU(), time.Now(), hoststat.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("wrk: %v\n%s", err, outBuf.String())
	}
	elapsed := time.Since(t0).Seconds()
	cpu1, host1 := n.CPU(), hoststat.Now()
	out := outBuf.String()
	m := rpsLine.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no Requests/sec in wrk's output:\n%s", out)
	}
	r := &readResult{}
	r.rps, _ = strconv.ParseFloat(m[1], 64)
	for _, p := range pctLine.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(p[2], 64)
		d := time.Duration(v * unitSeconds[p[3]] * float64(time.Second))
		if p[1] == "50" {
			r.p50 = d
		} else {
			r.p99 = d
		}
	}
	var errs []string
	if s := socketLine.FindString(out); s != "" {
		errs = append(errs, strings.TrimSpace(s))
	}
	if s := non2xxLine.FindString(out); s != "" {
		errs = append(errs, s)
	}
	r.errors = strings.Join(errs, "; ")
	r.nodeCPU = (cpu1 - cpu0).Seconds() / elapsed
	r.steal = host1.StealSince(host0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.wrkCPU = time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Seconds() / elapsed
	}
	if total := r.rps * elapsed; total > 0 {
		r.nodeCPUPerReq = time.Duration(float64(cpu1-cpu0) / total)
	}
	return r, nil
}
