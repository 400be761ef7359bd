package perturb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Kind is a kind of fault.
type Kind string

const (
	KillKind      Kind = "kill-9"    // SIGKILL one or two nodes, restart after Hold
	PauseKind     Kind = "sigstop"   // SIGSTOP a node, SIGCONT after Hold
	RestartKind   Kind = "sigterm"   // graceful stop, restart after Hold
	PartitionKind Kind = "partition" // cut the mesh into groups, heal after Hold
	DiskFullKind  Kind = "disk-full" // fill the victim's data tmpfs: it must fail-stop
	LatencyKind   Kind = "latency"   // delay every link by Delay for Hold
)

// Fault is one scheduled perturbation.
type Fault struct {
	Kind   Kind
	Nodes  []int   // the nodes hit (kill, pause, restart, disk full)
	Groups [][]int // the sides of a partition
	Hold   time.Duration
	Delay  time.Duration // per-link delay of a latency fault
}

// Class is the fault's kind with its shape: how many nodes a kill hits,
// the sides of a partition (the report's rows).
func (f Fault) Class() string {
	switch f.Kind {
	case KillKind:
		return fmt.Sprintf("%s ×%d", f.Kind, len(f.Nodes))
	case PartitionKind:
		var sizes []string
		for _, g := range f.Groups {
			sizes = append(sizes, fmt.Sprint(len(g)))
		}
		return fmt.Sprintf("%s %s", f.Kind, strings.Join(sizes, "|"))
	}
	return string(f.Kind)
}

func (f Fault) String() string {
	switch f.Kind {
	case PartitionKind:
		var sides []string
		for _, g := range f.Groups {
			sides = append(sides, strings.Trim(fmt.Sprint(g), "[]"))
		}
		return fmt.Sprintf("%s %s for %v", f.Kind, strings.Join(sides, " | "), f.Hold)
	case LatencyKind:
		return fmt.Sprintf("%s %v per link for %v", f.Kind, f.Delay, f.Hold)
	case DiskFullKind:
		return fmt.Sprintf("%s on node %v", f.Kind, f.Nodes)
	}
	return fmt.Sprintf("%s nodes %v for %v", f.Kind, f.Nodes, f.Hold)
}

// Schedule draws count faults from seed over validators validators (the
// kinds in kinds; disk full at most once, on diskNode, when diskNode ≥ 0).
// Holds are those the operator's manual run used: kills and pauses of a
// few seconds, partitions of 10–30 s.
func Schedule(seed uint64, count, validators int, kinds []Kind, diskNode int) []Fault {
	rng := rand.New(rand.NewPCG(seed, 0x7e57))
	var out []Fault
	diskDone := false
	for len(out) < count {
		kind := kinds[rng.IntN(len(kinds))]
		f := Fault{Kind: kind}
		switch kind {
		case KillKind:
			f.Nodes = pickNodes(rng, validators, 1+rng.IntN(2))
			f.Hold = time.Duration(2+rng.IntN(6)) * time.Second
		case PauseKind:
			f.Nodes = pickNodes(rng, validators, 1)
			f.Hold = time.Duration(5+rng.IntN(11)) * time.Second
		case RestartKind:
			f.Nodes = pickNodes(rng, validators, 1)
			f.Hold = time.Duration(1+rng.IntN(4)) * time.Second
		case PartitionKind:
			perm := rng.Perm(validators)
			cut := 1 + rng.IntN(2) // 1|3 or 2|2 (of four)
			f.Groups = [][]int{perm[:cut], perm[cut:]}
			f.Hold = time.Duration(10+rng.IntN(21)) * time.Second
		case LatencyKind:
			f.Delay = time.Duration(50+rng.IntN(200)) * time.Millisecond
			f.Hold = time.Duration(10+rng.IntN(11)) * time.Second
		case DiskFullKind:
			if diskNode < 0 || diskDone {
				continue
			}
			diskDone = true
			f.Nodes = []int{diskNode}
		}
		out = append(out, f)
	}
	return out
}

// pickNodes is k distinct nodes of n.
func pickNodes(rng *rand.Rand, n, k int) []int {
	return rng.Perm(n)[:k]
}

// inject applies f and undoes it after its hold; it returns the nodes to
// watch for recovery (nil: all of them) once healed.
func (r *runner) inject(ctx context.Context, f Fault) ([]*Node, error) {
	nodes := r.tn.nodesAt(f.Nodes)
	switch f.Kind {
	case KillKind:
		for _, n := range nodes {
			n.Kill()
		}
		sleep(ctx, f.Hold)
		return nodes, startAll(nodes)
	case RestartKind:
		for _, n := range nodes {
			n.Stop(30 * time.Second)
		}
		sleep(ctx, f.Hold)
		return nodes, startAll(nodes)
	case PauseKind:
		for _, n := range nodes {
			n.Pause()
		}
		sleep(ctx, f.Hold)
		for _, n := range nodes {
			n.Resume()
		}
		return nodes, nil
	case PartitionKind:
		if err := r.tn.Mesh.Partition(r.withFullNodes(f.Groups)...); err != nil {
			return nil, err
		}
		sleep(ctx, f.Hold)
		return nil, r.tn.Mesh.Heal()
	case LatencyKind:
		if err := r.tn.Mesh.SetLatency(f.Delay); err != nil {
			return nil, err
		}
		sleep(ctx, f.Hold)
		return nil, r.tn.Mesh.SetLatency(0)
	case DiskFullKind:
		return nodes, r.diskFull(ctx, nodes[0])
	}
	return nil, fmt.Errorf("unknown fault kind %q", f.Kind)
}

// withFullNodes puts the full nodes on the last side of a partition of
// validators: a node in no group keeps every link, and a full node relays
// votes and blocks, so it would bridge the two sides.
func (r *runner) withFullNodes(groups [][]int) [][]int {
	out := make([][]int, len(groups))
	copy(out, groups)
	last := append([]int(nil), out[len(out)-1]...)
	for _, n := range r.tn.Nodes {
		if !n.Validator {
			last = append(last, n.Index)
		}
	}
	out[len(out)-1] = last
	return out
}

func (tn *Testnet) nodesAt(idx []int) []*Node {
	var out []*Node
	for _, i := range idx {
		out = append(out, tn.Nodes[i])
	}
	return out
}

func startAll(nodes []*Node) error {
	for _, n := range nodes {
		if err := n.Start(); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// diskFull fills the victim's data tmpfs under load: the node must halt
// (fail-stop) and exit non-zero within a minute. The filler is then
// deleted and the node restarted.
func (r *runner) diskFull(ctx context.Context, n *Node) error {
	filler := filepath.Join(n.Home, "data", "perturb-filler")
	if err := fillFS(filler); err != nil {
		return err
	}
	code, err := n.WaitExit(time.Minute)
	if rmErr := os.Remove(filler); rmErr != nil && err == nil {
		err = rmErr
	}
	if err != nil {
		return fmt.Errorf("disk full: %w", err)
	}
	r.logf("  %s exited with code %d on a full disk", n.Name, code)
	if code == 0 {
		return fmt.Errorf("disk full: %s exited with code 0, want non-zero (fail-stop)", n.Name)
	}
	return n.Start()
}

// fillFS writes path until its file system has no room left.
func fillFS(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

// MountDataTmpfs puts a tmpfs of size (e.g. "256m") over the node's data
// directory with its content, before the node's first start, so that a
// disk-full fault can fill it. It needs root and a machine that lets it
// mount; the error says why not.
func MountDataTmpfs(n *Node, size string) error {
	if os.Geteuid() != 0 {
		return errors.New("not root")
	}
	dir := filepath.Join(n.Home, "data")
	orig := dir + ".orig"
	if err := os.Rename(dir, orig); err != nil {
		return err
	}
	restore := func() { os.Remove(dir); os.Rename(orig, dir) }
	if err := os.Mkdir(dir, 0o700); err != nil {
		restore()
		return err
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		restore()
		return fmt.Errorf("mount tmpfs: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("cp", "-a", orig+"/.", dir).CombinedOutput(); err != nil {
		exec.Command("umount", "-l", dir).Run()
		restore()
		return fmt.Errorf("copy the data directory: %v: %s", err, out)
	}
	n.mu.Lock()
	n.tmpfs = true
	n.mu.Unlock()
	return nil
}

// unmountData lazily unmounts the node's data tmpfs (after it stopped).
func unmountData(n *Node) error {
	n.mu.Lock()
	mounted := n.tmpfs
	n.tmpfs = false
	n.mu.Unlock()
	if !mounted {
		return nil
	}
	dir := filepath.Join(n.Home, "data")
	if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("umount %s: %v: %s", dir, err, out)
	}
	return nil
}
