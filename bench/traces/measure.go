package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

var traceConfig = map[string]any{"tracer": "callTracer"}

// verbose prints every call's latency (-v).
var verbose bool

// timing is one mode's latencies and throughput.
type timing struct {
	calls            int
	min, median, p90 time.Duration
	perSec           float64 // blocks traced per second
	mismatched, errs int     // answers that differ from the first one / failed calls
}

type result struct {
	name       string
	block      *block
	seq, conc  timing
	first      []byte // the warm-up answer
	verifyErrs []string
	// The machine's 1-minute load average before and after tracing (other
	// processes' load shows in the latencies).
	loadBefore, loadAfter string
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (c *chain) trace(ctx context.Context, number uint64) ([]byte, time.Duration, error) {
	var raw json.RawMessage
	t0 := time.Now()
	err := c.rpc.CallContext(ctx, &raw, "debug_traceBlockByNumber", hexutil.Uint64(number), traceConfig)
	return raw, time.Since(t0), err
}

// measure traces b once (warm-up, verified), then `runs` times in a row,
// then `concCalls` times from `conc` clients at once.
func (c *chain) measure(ctx context.Context, b *block, runs, conc, concCalls int) (result, error) {
	r := result{name: c.name, block: b, loadBefore: loadavg()}
	first, _, err := c.trace(ctx, b.number)
	if err != nil {
		return r, fmt.Errorf("warm-up trace: %w", err)
	}
	r.first = first
	r.verifyErrs = c.verify(first, b)

	var times []time.Duration
	var total time.Duration
	for i := 0; i < runs; i++ {
		runtime.GC() // the client's garbage is not the node's time
		raw, d, err := c.trace(ctx, b.number)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: sequential call %d: %v\n", c.name, i, err)
			r.seq.errs++
			continue
		}
		if !bytes.Equal(raw, first) {
			r.seq.mismatched++
		}
		if verbose {
			fmt.Fprintf(os.Stderr, "%s: sequential call %d: %.1f ms\n", c.name, i, ms(d))
		}
		times = append(times, d)
		total += d
	}
	r.seq = summarize(times, total, r.seq)

	runtime.GC()
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next = make(chan struct{}, concCalls)
	)
	times = times[:0]
	for i := 0; i < concCalls; i++ {
		next <- struct{}{}
	}
	close(next)
	t0 := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				raw, d, err := c.trace(ctx, b.number)
				mu.Lock()
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: concurrent call: %v\n", c.name, err)
					r.conc.errs++
				} else {
					if verbose {
						fmt.Fprintf(os.Stderr, "%s: concurrent call at +%.0f ms: %.1f ms\n", c.name, ms(time.Since(t0)), ms(d))
					}
					times = append(times, d)
					if !bytes.Equal(raw, first) {
						r.conc.mismatched++
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r.conc = summarize(times, time.Since(t0), r.conc)
	r.loadAfter = loadavg()
	return r, nil
}

// summarize: perSec is calls over the time they took (sequential: the sum
// of the calls; concurrent: wall time from the first send to the last answer).
func summarize(times []time.Duration, took time.Duration, t timing) timing {
	t.calls = len(times)
	if len(times) == 0 {
		return t
	}
	slices.Sort(times)
	t.min = times[0]
	t.median = times[len(times)/2]
	if len(times)%2 == 0 {
		t.median = (times[len(times)/2-1] + times[len(times)/2]) / 2
	}
	t.p90 = times[min(len(times)-1, (len(times)*9+9)/10-1)]
	t.perSec = float64(len(times)) / took.Seconds()
	return t
}

// callFrame is the part of callTracer's output the checks read.
type callFrame struct {
	Type    string          `json:"type"`
	From    common.Address  `json:"from"`
	To      common.Address  `json:"to"`
	GasUsed hexutil.Uint64  `json:"gasUsed"`
	Error   string          `json:"error"`
	Revert  string          `json:"revertReason"`
	Calls   json.RawMessage `json:"calls"`
}

type txTrace struct {
	TxHash common.Hash     `json:"txHash"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// verify checks a block trace: one result per transaction, in block order,
// none failed, each a top-level CALL from the sender to the token using
// exactly the receipt's gas.
func (c *chain) verify(raw []byte, b *block) []string {
	var traces []txTrace
	if err := json.Unmarshal(raw, &traces); err != nil {
		return []string{"answer is not [{txHash, result}]: " + err.Error()}
	}
	var errs []string
	add := func(format string, args ...any) {
		if len(errs) < 10 {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	if len(traces) != len(b.txs) {
		add("%d results, want %d", len(traces), len(b.txs))
		return errs
	}
	for i, t := range traces {
		tx, rc := b.txs[i], b.receipts[i]
		var f callFrame
		if err := json.Unmarshal(t.Result, &f); err != nil {
			add("tx %d: result: %v", i, err)
			continue
		}
		from, _ := types.Sender(c.signer, tx)
		switch {
		case t.TxHash != tx.Hash():
			add("tx %d: txHash %s, want %s", i, t.TxHash, tx.Hash())
		case t.Error != "" || f.Error != "" || f.Revert != "":
			add("tx %d: error %q %q %q", i, t.Error, f.Error, f.Revert)
		case f.Type != "CALL" || f.To != c.token || f.From != from:
			add("tx %d: %s %s → %s, want CALL %s → token %s", i, f.Type, f.From, f.To, from, c.token)
		case uint64(f.GasUsed) != rc.GasUsed:
			add("tx %d: gasUsed %d, receipt %d", i, f.GasUsed, rc.GasUsed)
		case len(f.Calls) != 0:
			add("tx %d: unexpected inner calls %s", i, f.Calls)
		}
	}
	return errs
}

// compare reports per transaction index whether two nodes' traces are the
// same JSON, after the round's recipients are renamed (they differ only
// when the nodes needed different rounds to fill one block).
func compare(a, b result) (same int, diffs []string) {
	var ta, tb []txTrace
	if json.Unmarshal(a.first, &ta) != nil || json.Unmarshal(b.first, &tb) != nil || len(ta) != len(tb) {
		return 0, []string{"answers do not parse or differ in length"}
	}
	na, nb := renamer(a.block), renamer(b.block)
	for i := range ta {
		ra, rb := na.Replace(string(ta[i].Result)), nb.Replace(string(tb[i].Result))
		hashes := ta[i].TxHash == tb[i].TxHash || a.block.round != b.block.round
		if ra == rb && hashes {
			same++
		} else if len(diffs) < 5 {
			diffs = append(diffs, fmt.Sprintf("tx %d:\n  %s %s %s\n  %s %s %s", i, a.name, ta[i].TxHash, ra, b.name, tb[i].TxHash, rb))
		}
	}
	return same, diffs
}

// renamer replaces the round's recipients (hex without 0x, as they appear
// in "to" fields and in calldata) by their role.
func renamer(b *block) *strings.Replacer {
	var pairs []string
	for addr, label := range b.recipients {
		pairs = append(pairs, strings.ToLower(addr.Hex()[2:]), label)
	}
	return strings.NewReplacer(pairs...)
}
