package perturb

import (
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// FaultResult is one injected fault and how the network came back.
type FaultResult struct {
	Seq      int
	Fault    Fault
	At       time.Duration // since the load started
	Recovery time.Duration // from the heal/restart until the affected nodes were at the network's next height
	Height   uint64        // that height
	Err      string        // the fault could not be applied or healed, or the network did not recover
}

// Report is a run's outcome.
type Report struct {
	Seed                  uint64
	Validators, FullNodes int
	Elapsed               time.Duration
	Skipped               []string
	Faults                []FaultResult

	Sent, Refused, Accepted int
	Txs                     TxOutcome

	Height uint64   // the common height checked (1..Height)
	Heads  []uint64 // every node's head at the check
	Forks  []Fork   // every (height, node) that differs from the first node
	Supply *Supply
}

// ForkHeights is how many heights differ on some node.
func (r *Report) ForkHeights() int {
	heights := map[uint64]bool{}
	for _, f := range r.Forks {
		heights[f.Height] = true
	}
	return len(heights)
}

// Err lists everything the checks found wrong; nil when the run is clean.
func (r *Report) Err() error {
	var errs []error
	for _, f := range r.Faults {
		if f.Err != "" {
			errs = append(errs, fmt.Errorf("fault %d (%s): %s", f.Seq, f.Fault, f.Err))
		}
	}
	for i, f := range r.Forks {
		if i == 10 {
			errs = append(errs, fmt.Errorf("… %d more differences", len(r.Forks)-10))
			break
		}
		errs = append(errs, fmt.Errorf("fork: height %d on %s: %s", f.Height, f.Node, f.What))
	}
	for i, a := range r.Txs.Lost {
		if i == 10 {
			errs = append(errs, fmt.Errorf("… %d more lost txs", len(r.Txs.Lost)-10))
			break
		}
		errs = append(errs, fmt.Errorf("lost tx %s (from %s nonce %d, accepted by %s at %s)", a.Hash, a.From, a.Nonce, a.Node, a.SentAt.UTC().Format(time.RFC3339Nano)))
	}
	if r.Supply == nil {
		errs = append(errs, errors.New("supply: not checked"))
	} else {
		for _, e := range r.Supply.Errors {
			errs = append(errs, errors.New("supply: "+e))
		}
	}
	if r.Accepted == 0 {
		errs = append(errs, errors.New("no transaction was accepted: the load did not run"))
	}
	return errors.Join(errs...)
}

// String is the report as the tables an operator reads.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "PERTURBATION REPORT  seed %d, %d validators + %d full nodes, %v under load\n",
		r.Seed, r.Validators, r.FullNodes, r.Elapsed.Round(time.Second))
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	b.WriteString("\nFaults\n")
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "  #\tat\tfault\trecovery\theight\tresult")
	for _, f := range r.Faults {
		result := "ok"
		if f.Err != "" {
			result = "FAIL: " + f.Err
		}
		fmt.Fprintf(w, "  %d\t%v\t%s\t%v\t%d\t%s\n", f.Seq, f.At.Round(time.Second), f.Fault, f.Recovery.Round(10*time.Millisecond), f.Height, result)
	}
	w.Flush()
	b.WriteString("\nBy kind\n")
	w = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "  kind\tinjected\tfailed\trecovery mean\trecovery max")
	total := kindStats{}
	for _, c := range r.classes() {
		s := r.byClass(c)
		total.count, total.failed, total.sum, total.max = total.count+s.count, total.failed+s.failed, total.sum+s.sum, max(total.max, s.max)
		fmt.Fprintf(w, "  %s\t%d\t%d\t%v\t%v\n", c, s.count, s.failed, s.mean().Round(10*time.Millisecond), s.max.Round(10*time.Millisecond))
	}
	fmt.Fprintf(w, "  all\t%d\t%d\t%v\t%v\n", total.count, total.failed, total.mean().Round(10*time.Millisecond), total.max.Round(10*time.Millisecond))
	w.Flush()
	b.WriteString("\nTransactions\n")
	w = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "  sent\t%d\n  refused by the node\t%d\n  accepted\t%d\n  included\t%d\n  replaced (nonce used by another included tx)\t%d\n  lost\t%d\n",
		r.Sent, r.Refused, r.Accepted, r.Txs.Included, len(r.Txs.Replaced), len(r.Txs.Lost))
	w.Flush()
	fmt.Fprintf(&b, "  accepted → in a block (CometBFT block time): p50 %v, p99 %v, max %v\n",
		r.Txs.Delay(50).Round(10*time.Millisecond), r.Txs.Delay(99).Round(10*time.Millisecond), r.Txs.Delay(100).Round(10*time.Millisecond))
	for _, d := range r.Txs.Delays[:min(3, len(r.Txs.Delays))] {
		fmt.Fprintf(&b, "    slow: %s accepted by %s at %s, in block %d %v later\n",
			d.Hash, d.Node, d.SentAt.UTC().Format("15:04:05.000"), d.Height, d.Delay.Round(10*time.Millisecond))
	}
	for i, a := range r.Txs.Replaced {
		if i == 5 {
			fmt.Fprintf(&b, "    … %d more replaced\n", len(r.Txs.Replaced)-5)
			break
		}
		fmt.Fprintf(&b, "    replaced: %s (from %s nonce %d, accepted by %s at %s)\n", a.Hash, a.From, a.Nonce, a.Node, a.SentAt.UTC().Format("15:04:05.000"))
	}
	b.WriteString("\nChain\n")
	fmt.Fprintf(&b, "  heights checked 1..%d on every node (heads %v): block hash, state root, parent, txs, CometBFT block id and app hash\n", r.Height, r.Heads)
	fmt.Fprintf(&b, "  forks: %d heights differ (%d node×height differences)\n", r.ForkHeights(), len(r.Forks))
	if s := r.Supply; s != nil {
		fmt.Fprintf(&b, "\nSupply (every height, exact to the wei)\n  genesis %v + minted %v - burned %v = %v (reported at %d: %v); %d slashes; %d mismatches\n",
			s.Genesis, s.Minted, s.Burned, new(big.Int).Sub(new(big.Int).Add(s.Genesis, s.Minted), s.Burned), r.Height, s.Final, s.Slashes, len(s.Errors))
	}
	if err := r.Err(); err != nil {
		fmt.Fprintf(&b, "\nRESULT: FAIL\n%v\n", err)
	} else {
		b.WriteString("\nRESULT: PASS (no fork, no lost tx, supply exact, every fault recovered)\n")
	}
	return b.String()
}

// kindStats are the recoveries of one kind of fault.
type kindStats struct {
	count, failed int
	sum, max      time.Duration
}

func (s kindStats) mean() time.Duration {
	if ok := s.count - s.failed; ok > 0 {
		return s.sum / time.Duration(ok)
	}
	return 0
}

func (r *Report) byClass(c string) kindStats {
	var s kindStats
	for _, f := range r.Faults {
		if f.Fault.Class() != c {
			continue
		}
		s.count++
		if f.Err != "" {
			s.failed++
			continue
		}
		s.sum += f.Recovery
		s.max = max(s.max, f.Recovery)
	}
	return s
}

// KindCounts is how many faults of each kind were injected.
func (r *Report) KindCounts() map[Kind]int {
	out := map[Kind]int{}
	for _, f := range r.Faults {
		out[f.Fault.Kind]++
	}
	return out
}

// classes are the faults' classes, sorted.
func (r *Report) classes() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range r.Faults {
		if c := f.Fault.Class(); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}
