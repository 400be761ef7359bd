package perturb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Config is one run of the suite.
type Config struct {
	Emberd     string // the emberd binary
	Dir        string // an empty directory for the node homes
	Validators int
	FullNodes  int // 0 or 1: a full node, hit by nothing but partitions' cut links
	// Faults is an explicit schedule. When empty, faults are drawn from
	// Seed (of Kinds) until Duration has passed.
	Faults   []Fault
	Kinds    []Kind
	Duration time.Duration
	Seed     uint64
	// DiskFull mounts a small tmpfs over the last validator's data
	// directory so that a disk-full fault can fill it; without root (or
	// where mount fails) disk-full faults are skipped with a printed line.
	DiskFull  bool
	TmpfsSize string  // e.g. "256m"
	Rate      float64 // transfers per second over all senders
	Senders   int
	Gap       time.Duration // quiet time between two faults
	// RecoveryTimeout bounds the wait for a healed or restarted node to
	// reach the network's height; a node that does not is a failure.
	RecoveryTimeout time.Duration
	Logf            func(format string, args ...any)
}

// AllKinds are the kinds a long run draws from.
var AllKinds = []Kind{KillKind, KillKind, KillKind, PauseKind, RestartKind, PartitionKind, PartitionKind, LatencyKind, DiskFullKind}

func (c *Config) defaults() {
	if c.Validators == 0 {
		c.Validators = 4
	}
	if c.Rate == 0 {
		c.Rate = 30
	}
	if c.Senders == 0 {
		c.Senders = 8
	}
	if c.Gap == 0 {
		c.Gap = 5 * time.Second
	}
	if c.RecoveryTimeout == 0 {
		c.RecoveryTimeout = 2 * time.Minute
	}
	if c.TmpfsSize == "" {
		c.TmpfsSize = "512m" // room for a long run's blocks before the fault fills it
	}
	if len(c.Kinds) == 0 {
		c.Kinds = AllKinds
	}
	if c.Logf == nil {
		c.Logf = func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	}
}

// runner is the state of one run.
type runner struct {
	cfg    Config
	tn     *Testnet
	load   *Load
	start  time.Time
	report *Report
	logf   func(format string, args ...any)
}

// Run builds the testnet, runs the load and the faults, heals, checks and
// returns the report. An error is a run that could not be carried out
// (the network did not start, a check could not read a node); what the
// checks found is in the report (Report.Err).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	r := &runner{cfg: cfg, logf: cfg.Logf, report: &Report{Seed: cfg.Seed, Validators: cfg.Validators, FullNodes: cfg.FullNodes}}
	tn, err := InitTestnet(cfg.Emberd, cfg.Dir, cfg.Validators, cfg.FullNodes)
	if err != nil {
		return nil, err
	}
	r.tn = tn
	defer r.teardown()
	diskNode := r.prepareDisk()
	if err := tn.StartAll(ctx); err != nil {
		return nil, err
	}
	if err := r.waitAll(ctx, 2, time.Minute); err != nil {
		return nil, err
	}
	eth, err := tn.Nodes[0].Eth()
	if err != nil {
		return nil, err
	}
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	if r.load, err = NewLoad(tn.Nodes, chainID, cfg.Senders, cfg.Rate, cfg.Seed); err != nil {
		return nil, err
	}
	r.start = time.Now()
	r.logf("[%6s] network of %d validators + %d full nodes up in %s; load %.0f tx/s from %d senders",
		"0s", cfg.Validators, cfg.FullNodes, cfg.Dir, cfg.Rate, cfg.Senders)
	r.load.Start()
	sleep(ctx, cfg.Gap)
	r.runFaults(ctx, diskNode)
	r.load.Stop()
	r.report.Elapsed = time.Since(r.start)
	return r.report, r.check(ctx)
}

// prepareDisk mounts the disk-full victim's tmpfs when the run has a
// disk-full fault, and returns the victim (-1: no disk-full faults).
func (r *runner) prepareDisk() int {
	wanted := r.cfg.DiskFull
	for _, f := range r.cfg.Faults {
		wanted = wanted || f.Kind == DiskFullKind
	}
	if !wanted {
		return -1
	}
	victim := r.cfg.Validators - 1
	if err := MountDataTmpfs(r.tn.Nodes[victim], r.cfg.TmpfsSize); err != nil {
		msg := fmt.Sprintf("disk-full skipped: cannot mount a tmpfs over %s's data directory (%v)", r.tn.Nodes[victim].Name, err)
		r.logf("%s", msg)
		r.report.Skipped = append(r.report.Skipped, msg)
		return -1
	}
	r.logf("%s's data directory is a %s tmpfs (for disk-full)", r.tn.Nodes[victim].Name, r.cfg.TmpfsSize)
	return victim
}

// runFaults runs the explicit schedule, or draws faults from the seed
// until the duration has passed.
func (r *runner) runFaults(ctx context.Context, diskNode int) {
	faults := r.cfg.Faults
	if len(faults) == 0 {
		faults = Schedule(r.cfg.Seed, 10000, r.cfg.Validators, r.cfg.Kinds, diskNode)
	}
	for i, f := range faults {
		if ctx.Err() != nil || (len(r.cfg.Faults) == 0 && time.Since(r.start) >= r.cfg.Duration) {
			return
		}
		if f.Kind == DiskFullKind && diskNode < 0 {
			continue // skipped (and said so) in prepareDisk
		}
		if f.Kind == DiskFullKind {
			f.Nodes = []int{diskNode}
		}
		r.runFault(ctx, i+1, f)
		sleep(ctx, r.cfg.Gap)
	}
}

// runFault injects one fault, heals it and measures the recovery.
func (r *runner) runFault(ctx context.Context, seq int, f Fault) {
	res := FaultResult{Seq: seq, Fault: f, At: time.Since(r.start)}
	r.logf("[%6s] fault %d: %s", res.At.Round(time.Second), seq, f)
	affected, err := r.inject(ctx, f)
	healed := time.Now()
	if err != nil {
		res.Err = err.Error()
		r.logf("  FAILED: %v", err)
	}
	if affected == nil {
		affected = r.tn.Nodes
	}
	res.Recovery, res.Height, err = r.recover(ctx, affected, healed)
	if err != nil {
		if res.Err != "" {
			res.Err += "; "
		}
		res.Err += err.Error()
		r.logf("  NOT RECOVERED: %v", err)
	} else {
		r.logf("  healed; %s back at the network's height %d in %v", names(affected), res.Height, res.Recovery.Round(10*time.Millisecond))
	}
	r.report.Faults = append(r.report.Faults, res)
}

// recover waits until every affected node reaches one block past the
// highest head any node had when the fault was healed: the network made
// progress again and the affected nodes have it.
func (r *runner) recover(ctx context.Context, affected []*Node, healed time.Time) (time.Duration, uint64, error) {
	target := MaxHeight(ctx, r.tn.Nodes) + 1
	deadline := healed.Add(r.cfg.RecoveryTimeout)
	for {
		behind := r.behind(ctx, affected, target)
		if len(behind) == 0 {
			return time.Since(healed), target, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0, target, fmt.Errorf("%s not at height %d %v after the heal", names(behind), target, r.cfg.RecoveryTimeout)
		}
		sleep(ctx, 100*time.Millisecond)
	}
}

// behind are the nodes whose head is below target (or that do not answer).
func (r *runner) behind(ctx context.Context, nodes []*Node, target uint64) []*Node {
	var out []*Node
	for _, n := range nodes {
		if h, err := n.Height(ctx); err != nil || h < target {
			out = append(out, n)
		}
	}
	return out
}

// waitAll waits until every node is at height h or above.
func (r *runner) waitAll(ctx context.Context, h uint64, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		behind := r.behind(ctx, r.tn.Nodes, h)
		if len(behind) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not at height %d within %v", names(behind), h, within)
		}
		sleep(ctx, 200*time.Millisecond)
	}
}

// check restarts any node that is down, waits until the accepted
// transactions are settled and every node is at a common height H, then
// compares the chains 1..H, classifies the transactions and checks the
// supply.
func (r *runner) check(ctx context.Context) error {
	for _, n := range r.tn.Nodes {
		n.Resume()
		if !n.Running() {
			r.logf("restarting %s for the checks", n.Name)
			if err := n.Start(); err != nil {
				return err
			}
		}
	}
	if err := r.tn.Mesh.Heal(); err != nil {
		return err
	}
	accepted := r.load.Accepted()
	r.settle(ctx, accepted)
	h := MaxHeight(ctx, r.tn.Nodes)
	if err := r.waitAll(ctx, h, r.cfg.RecoveryTimeout); err != nil {
		return err
	}
	rep := r.report
	rep.Height = h
	for _, n := range r.tn.Nodes {
		nh, _ := n.Height(ctx)
		rep.Heads = append(rep.Heads, nh)
	}
	r.logf("checking heights 1..%d on %d nodes", h, len(r.tn.Nodes))
	blocks, forks, err := compareChains(ctx, r.tn.Nodes, h)
	if err != nil {
		return err
	}
	rep.Forks = forks
	rep.Sent, rep.Refused = r.load.Counts()
	rep.Accepted = len(accepted)
	rep.Txs = classify(accepted, blocks)
	genesis, err := GenesisSupply(r.tn.Nodes[0].Home)
	if err != nil {
		return err
	}
	rep.Supply, err = checkSupply(ctx, r.tn.Nodes, blocks, genesis)
	return err
}

// settle waits (up to the recovery timeout) until every sender's nonce on
// the first node is past the highest nonce any node accepted from it:
// every accepted tx then had its chance to be included.
func (r *runner) settle(ctx context.Context, accepted []Accepted) {
	want := map[common.Address]uint64{}
	for _, a := range accepted {
		want[a.From] = max(want[a.From], a.Nonce+1)
	}
	deadline := time.Now().Add(r.cfg.RecoveryTimeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if r.pending(ctx, want) == 0 {
			return
		}
		sleep(ctx, 500*time.Millisecond)
	}
	r.logf("after %v, %d senders still have accepted txs not mined", r.cfg.RecoveryTimeout, r.pending(ctx, want))
}

// pending counts the senders whose mined nonce on the first node is below
// want.
func (r *runner) pending(ctx context.Context, want map[common.Address]uint64) int {
	eth, err := r.tn.Nodes[0].Eth()
	if err != nil {
		return len(want)
	}
	count := 0
	for addr, nonce := range want {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		got, err := eth.NonceAt(c, addr, nil)
		cancel()
		if err != nil || got < nonce {
			count++
		}
	}
	return count
}

// teardown stops the nodes, unmounts the tmpfs and closes the mesh.
func (r *runner) teardown() {
	r.tn.Close()
	for _, n := range r.tn.Nodes {
		if err := unmountData(n); err != nil {
			r.logf("%v", err)
		}
		os.RemoveAll(filepath.Join(n.Home, "data.orig"))
	}
}

func names(nodes []*Node) string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	if len(out) == 0 {
		return "none"
	}
	return fmt.Sprint(out)
}
