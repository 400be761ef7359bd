package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/internal/wait"
	"github.com/emberchain/ember/upgrade"
)

// tagBuild is emberd built once per test binary with some build tags.
type tagBuild struct {
	once sync.Once
	path string
	err  error
}

var tagBuilds sync.Map // tags -> *tagBuild

// emberdWithTags builds emberd with -tags tags (once per test binary).
func emberdWithTags(t *testing.T, tags string) string {
	t.Helper()
	v, _ := tagBuilds.LoadOrStore(tags, &tagBuild{})
	b := v.(*tagBuild)
	b.once.Do(func() {
		b.path = filepath.Join(filepath.Dir(emberdBin), "emberd-"+strings.ReplaceAll(tags, ",", "-"))
		out, err := exec.Command("go", "build", "-tags", tags, "-o", b.path, "github.com/emberchain/ember/cmd/emberd").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build -tags %s: %v\n%s", tags, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

var (
	cosmovisorOnce sync.Once
	cosmovisorPath string // build/cosmovisor, or "" when it could not be installed
	cosmovisorWhy  string // why not
)

// cosmovisorBin installs cosmovisor with scripts/install-cosmovisor.sh
// (once) and returns its path, or "" and the script's reason.
func cosmovisorBin() (string, string) {
	cosmovisorOnce.Do(func() {
		root, _ := filepath.Abs("../..")
		out, err := exec.Command(filepath.Join(root, "scripts", "install-cosmovisor.sh")).CombinedOutput()
		if err != nil {
			cosmovisorWhy = strings.TrimSpace(string(out))
			return
		}
		cosmovisorPath = filepath.Join(root, "build", "cosmovisor")
	})
	return cosmovisorPath, cosmovisorWhy
}

// visorLayout lays out cosmovisor's directories in home (its DAEMON_HOME):
// cosmovisor/genesis/bin/emberd and cosmovisor/upgrades/NAME/bin/emberd,
// the given binaries (hard links, or copies).
func visorLayout(t *testing.T, home, genesis string, upgrades map[string]string) {
	t.Helper()
	install := func(src, dir string) {
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, "bin", "emberd")
		if os.Link(src, dst) == nil { // a hard link: five homes need not hold five copies
			return
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	install(genesis, filepath.Join(home, "cosmovisor", "genesis"))
	for name, bin := range upgrades {
		install(bin, filepath.Join(home, "cosmovisor", "upgrades", name))
	}
}

// visor runs one node under cosmovisor, or, where cosmovisor cannot be
// installed, under launch (below), which follows cosmovisor's documented
// contract. The node's Stop is not used: Stop here ends the process tree.
type visor struct {
	t    *testing.T
	n    *Node
	real bool // cosmovisor itself

	mu      sync.Mutex
	cmd     *exec.Cmd // cosmovisor, or the launcher's current emberd
	exits   []int     // the launcher's emberd exit statuses, in order
	stopped bool
	done    chan struct{}
}

// startVisor starts n under cosmovisor (`cosmovisor run start ...`) with
// DAEMON_HOME = n.Home.
func startVisor(t *testing.T, n *Node) *visor {
	t.Helper()
	v := &visor{t: t, n: n, done: make(chan struct{})}
	bin, why := cosmovisorBin()
	v.real = bin != ""
	if _, said := visorNoted.LoadOrStore(t.Name(), true); !v.real && !said {
		t.Logf("cosmovisor not installed (%s): running the nodes under the test's launcher of cosmovisor's layout", lastLine(why))
	}
	args := startArgs(n)
	logf, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if v.real {
		cmd := exec.Command(bin, append([]string{"run"}, args...)...)
		cmd.Env = append(os.Environ(), "DAEMON_NAME=emberd", "DAEMON_HOME="+n.Home, "DAEMON_RESTART_AFTER_UPGRADE=true",
			"UNSAFE_SKIP_BACKUP=true", "DAEMON_POLL_INTERVAL=100ms", "DAEMON_ALLOW_DOWNLOAD_BINARIES=false")
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		v.cmd = cmd
		go func() { _ = cmd.Wait(); logf.Close(); close(v.done) }()
	} else {
		go v.launch(args, logf)
	}
	t.Cleanup(v.Stop)
	return v
}

// launch is cosmovisor's contract (its README): run
// cosmovisor/current/bin/emberd (current -> genesis at first); when the
// process ends and data/upgrade-info.json names a plan other than the one
// current runs, point current at cosmovisor/upgrades/NAME (its name lower
// cased), copy upgrade-info.json there, and start again; otherwise stop.
func (v *visor) launch(args []string, log io.WriteCloser) {
	defer close(v.done)
	defer log.Close()
	root := filepath.Join(v.n.Home, "cosmovisor")
	current := filepath.Join(root, "current")
	if _, err := os.Lstat(current); err != nil {
		_ = os.Symlink(filepath.Join(root, "genesis"), current)
	}
	for {
		cmd := exec.Command(filepath.Join(current, "bin", "emberd"), args...)
		cmd.Stdout, cmd.Stderr = log, log
		v.mu.Lock()
		if v.stopped {
			v.mu.Unlock()
			return
		}
		err := cmd.Start()
		v.cmd = cmd
		v.mu.Unlock()
		if err != nil {
			fmt.Fprintf(log, "launcher: %v\n", err)
			return
		}
		err = cmd.Wait()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		v.mu.Lock()
		v.exits = append(v.exits, code)
		stopped := v.stopped
		v.mu.Unlock()
		if stopped {
			return
		}
		next, ok := v.nextUpgrade(root)
		if !ok {
			fmt.Fprintf(log, "launcher: emberd exited with status %d and no upgrade is due: stopping\n", code)
			return
		}
		fmt.Fprintf(log, "launcher: emberd exited with status %d; upgrading to %s\n", code, next)
		_ = os.Remove(current)
		if err := os.Symlink(next, current); err != nil {
			fmt.Fprintf(log, "launcher: %v\n", err)
			return
		}
		if b, err := os.ReadFile(upgrade.InfoPath(v.n.Home)); err == nil {
			_ = os.WriteFile(filepath.Join(next, upgrade.InfoFile), b, 0o644)
		}
	}
}

// nextUpgrade is the upgrade directory data/upgrade-info.json points to,
// when it is not the one current runs and it holds a binary.
func (v *visor) nextUpgrade(root string) (string, bool) {
	info, err := upgrade.ReadInfo(v.n.Home)
	if err != nil || info.Name == "" {
		return "", false
	}
	dir := filepath.Join(root, "upgrades", strings.ToLower(info.Name))
	if cur, err := os.Readlink(filepath.Join(root, "current")); err == nil && filepath.Clean(cur) == dir {
		return "", false
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "emberd")); err != nil {
		return "", false
	}
	return dir, true
}

// Stop ends the node (SIGTERM, SIGKILL after 20 s) and the launcher.
func (v *visor) Stop() {
	v.mu.Lock()
	v.stopped = true
	cmd := v.cmd
	v.mu.Unlock()
	if v.n.RPC != nil {
		v.n.RPC.Close()
		v.n.RPC, v.n.Eth = nil, nil
	}
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-v.done:
	case <-time.After(20 * time.Second):
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		<-v.done
	}
}

// Exits are the statuses of the emberd processes the launcher ran (nil
// under cosmovisor, which keeps them to itself).
func (v *visor) Exits() []int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]int(nil), v.exits...)
}

// startWithBin starts `bin start` on n's home and ports, as n.Start does
// with emberd, and waits for its JSON-RPC.
func startWithBin(t *testing.T, n *Node, bin string) {
	t.Helper()
	logf, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	n.cmd = exec.Command(bin, startArgs(n)...)
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}(n.cmd, n.done)
	if err := n.waitRPC(); err != nil {
		n.dumpLog()
		t.Fatal(err)
	}
}

// dial connects n's clients once its JSON-RPC answers (after a restart
// the previous connection is gone).
func dial(t *testing.T, n *Node, within time.Duration) {
	t.Helper()
	if n.RPC != nil {
		n.RPC.Close()
	}
	wait.Eventually(t, within, n.Home+" to answer JSON-RPC", func() error {
		c, err := rpc.Dial("http://" + n.HTTP)
		if err != nil {
			return err
		}
		var num string
		if err := c.Call(&num, "eth_blockNumber"); err != nil {
			c.Close()
			return err
		}
		n.RPC, n.Eth = c, ethclient.NewClient(c)
		return nil
	})
}

// waitPast waits until n (restarted as often as cosmovisor does) serves
// height h, redialing as needed.
func waitPast(t *testing.T, n *Node, h uint64, within time.Duration) {
	t.Helper()
	wait.Eventually(t, within, fmt.Sprintf("%s to serve height %d", n.Home, h), func() error {
		if n.RPC == nil {
			c, err := rpc.Dial("http://" + n.HTTP)
			if err != nil {
				return err
			}
			n.RPC, n.Eth = c, ethclient.NewClient(c)
		}
		got, err := n.Eth.BlockNumber(ctx(t))
		if err != nil {
			n.RPC.Close()
			n.RPC, n.Eth = nil, nil
			return err
		}
		return wait.Check(got >= h, "height %d", got)
	})
}

// logHas tells whether n's log holds s.
func logHas(n *Node, s string) bool {
	b, _ := os.ReadFile(n.logPath)
	return bytes.Contains(b, []byte(s))
}

// visorNoted holds the tests that said they run without cosmovisor.
var visorNoted sync.Map

// lastLine is the last non-empty line of s: go install's reason.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
