// Package e2e drives real emberd processes over loopback with go-ethereum's
// clients. The binary is built once per run; each test starts its own node(s)
// on free ports, so the tests run in parallel (t.Parallel; at most -parallel
// at once, GOMAXPROCS by default) except the few that say why not. Shared
// state is read-only once tests run (the schema corrections are made at
// init) or serialised (npmInstall, the geth build, pgtest's server). Run with
// -short to skip.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/explorer/sqlstore/pgtest"
	"github.com/emberchain/ember/internal/freeport"
	"github.com/emberchain/ember/internal/wait"
)

var emberdBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ember-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	emberdBin = filepath.Join(dir, "emberd")
	args := []string{"build", "-o", emberdBin}
	if raceBuild {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "github.com/emberchain/ember/cmd/emberd")...)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build emberd:", err)
		os.Exit(1)
	}
	code := m.Run()
	pgtest.Stop() // the PostgreSQL server of the explorer tests, if one ran
	os.RemoveAll(dir)
	os.Exit(code)
}

// devKeys are the prefunded accounts of `emberd dev`.
var devKeys = func() []*accounts.Key {
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, 10)
	if err != nil {
		panic(err)
	}
	return keys
}()

// Node is one emberd process and clients connected to it.
type Node struct {
	t        testing.TB
	Home     string
	HTTP     string // JSON-RPC http://host:port
	WS       string // JSON-RPC ws://host:port
	CometRPC string // CometBFT RPC http://host:port
	REST     string // native REST host:port
	Explorer string // explorer API host:port (served with --explorer.enable)
	GRPC     string // Cosmos gRPC host:port
	Metrics  string // Prometheus endpoint host:port (dev nodes serve it)
	p2p      string
	extra    []string
	env      []string // extra environment of the next start
	cmd      *exec.Cmd
	done     chan struct{}
	logPath  string

	Eth *ethclient.Client
	RPC *rpc.Client
}

// StartDev starts `emberd dev` in a fresh home with extra flags.
func StartDev(t testing.TB, extra ...string) *Node {
	t.Helper()
	return StartDevIn(t, "", extra...)
}

// StartDevIn is StartDev in home, which may hold a chain already (a
// genesis made and edited by the test); "" is a fresh home.
func StartDevIn(t testing.TB, home string, extra ...string) *Node {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	// A free port can be taken by another process between freePort and
	// emberd binding it; such a start is retried on new ports.
	var n *Node
	for attempt := 1; ; attempt++ {
		dir := home
		if dir == "" {
			dir = t.TempDir()
		}
		n = &Node{
			t:        t,
			Home:     dir,
			HTTP:     "127.0.0.1:" + strconv.Itoa(freePort(t)),
			WS:       "127.0.0.1:" + strconv.Itoa(freePort(t)),
			CometRPC: "127.0.0.1:" + strconv.Itoa(freePort(t)),
			REST:     "127.0.0.1:" + strconv.Itoa(freePort(t)),
			Explorer: "127.0.0.1:" + strconv.Itoa(freePort(t)),
			GRPC:     "127.0.0.1:" + strconv.Itoa(freePort(t)),
			Metrics:  "127.0.0.1:" + strconv.Itoa(freePort(t)),
			p2p:      "127.0.0.1:" + strconv.Itoa(freePort(t)),
			extra:    extra,
		}
		n.logPath = filepath.Join(n.Home, "emberd.log")
		err := n.start("dev")
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			n.dumpLog()
			t.Fatal(err)
		}
		t.Logf("attempt %d: %v; retrying on other ports", attempt, err)
	}
	t.Cleanup(func() {
		n.Stop()
		if raceBuild {
			// A race-built emberd reports a data race in its log and carries on.
			if log, _ := os.ReadFile(n.logPath); bytes.Contains(log, []byte("WARNING: DATA RACE")) {
				t.Errorf("emberd reported a data race (log %s)", n.logPath)
			}
		}
		if t.Failed() {
			n.dumpLog()
		}
	})
	// CometBFT always makes block 1, even with --empty-block-interval 0.
	// Tests that count blocks from the head must not race it.
	n.waitHeight(t, 1)
	return n
}

// freePort is freeport.Port, failing the test on error.
func freePort(t testing.TB) int {
	t.Helper()
	port, err := freeport.Port()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// errPortTaken is a start-up that failed because a listen port was in use.
var errPortTaken = errors.New("emberd exited during start-up: a port was taken")

// Start runs `emberd <command> --home` on the node's ports and waits until
// JSON-RPC answers.
func (n *Node) Start(command string) {
	n.t.Helper()
	if err := n.start(command); err != nil {
		n.dumpLog()
		n.t.Fatal(err)
	}
}

func (n *Node) start(command string) error {
	if err := n.spawn(command); err != nil {
		return err
	}
	return n.waitRPC()
}

// spawn runs `emberd <command> --home` on the node's ports without waiting.
func (n *Node) spawn(command string) error {
	args := []string{command, "--home", n.Home,
		"--json-rpc.address", n.HTTP, "--json-rpc.ws-address", n.WS,
		"--rpc.laddr", "tcp://" + n.CometRPC, "--p2p.laddr", "tcp://" + n.p2p,
		"--rest.address", n.REST, "--explorer.address", n.Explorer, "--grpc.address", n.GRPC,
	}
	if n.Metrics != "" {
		args = append(args, "--metrics.address", n.Metrics)
	}
	if command == "dev" {
		args = append(args, n.extra...) // dev-only flags, e.g. --empty-block-interval
	}
	logf, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "\n===== emberd %s\n", strings.Join(args, " "))
	n.cmd = exec.Command(emberdBin, args...)
	n.cmd.Env = append(os.Environ(), n.env...)
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	if err := n.cmd.Start(); err != nil {
		return err
	}
	n.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}(n.cmd, n.done)
	return nil
}

// waitRPC waits until the started process answers JSON-RPC.
func (n *Node) waitRPC() error {
	err := wait.PollEvery(50*time.Millisecond, 60*time.Second, "emberd to answer JSON-RPC", func() error {
		c, err := rpc.Dial("http://" + n.HTTP)
		if err == nil {
			var num string
			if err = c.Call(&num, "eth_blockNumber"); err == nil {
				n.RPC = c
				n.Eth = ethclient.NewClient(c)
				return nil
			}
			c.Close()
		}
		select {
		case <-n.done:
			n.cmd = nil
			if log, _ := os.ReadFile(n.logPath); bytes.Contains(log, []byte("address already in use")) {
				return wait.Stop(errPortTaken)
			}
			return wait.Stop(errors.New("emberd exited during start-up"))
		default:
		}
		return err
	})
	if err != nil && n.cmd != nil {
		n.Kill()
	}
	return err
}

// Stop ends the process with SIGTERM (SIGKILL after 20 s).
func (n *Node) Stop() { n.signal(syscall.SIGTERM, 20*time.Second) }

// Kill ends the process with SIGKILL, as a crash would.
func (n *Node) Kill() { n.signal(syscall.SIGKILL, 10*time.Second) }

func (n *Node) signal(sig syscall.Signal, grace time.Duration) {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	if n.RPC != nil {
		n.RPC.Close()
		n.RPC, n.Eth = nil, nil
	}
	_ = n.cmd.Process.Signal(sig)
	select {
	case <-n.done:
	case <-time.After(grace):
		_ = n.cmd.Process.Kill()
		<-n.done
	}
	n.cmd = nil
}

func (n *Node) dumpLog() {
	b, _ := os.ReadFile(n.logPath)
	// A data race's report is the part worth reading whole, wherever it is.
	if i := bytes.Index(b, []byte("WARNING: DATA RACE")); i >= 0 {
		end := min(len(b), i+40000)
		n.t.Logf("emberd's first data race (%s):\n%s", n.logPath, b[i:end])
	}
	if len(b) > 20000 {
		b = b[len(b)-20000:]
	}
	n.t.Logf("emberd log (%s):\n%s", n.logPath, b)
}

// ctx is a test-bounded context.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// WaitReceipt polls for a receipt.
func (n *Node) WaitReceipt(t testing.TB, hash common.Hash) *types.Receipt {
	t.Helper()
	return wait.For(t, 30*time.Second, "the receipt of "+hash.Hex(), func() (*types.Receipt, error) {
		return n.Eth.TransactionReceipt(context.Background(), hash)
	})
}

// waitSettled waits until no block is due for what was sent and returns
// the head: until the head block left the state as its parent did. A block
// that changes the state is followed at once by CometBFT's proof block,
// which carries the new AppHash (Ember's AppHash is the state root) in its
// header; until that block is committed the head moves with nothing sent.
// A chain with empty blocks on an interval still makes those later.
func (n *Node) waitSettled(t testing.TB) uint64 {
	t.Helper()
	return wait.For(t, 60*time.Second, "a settled head (the proof block after the last state change)", func() (uint64, error) {
		head, err := n.Eth.HeaderByNumber(ctx(t), nil)
		if err != nil || head.Number.Sign() == 0 {
			return 0, err
		}
		parent, err := n.Eth.HeaderByHash(ctx(t), head.ParentHash)
		if err != nil {
			return 0, err
		}
		return head.Number.Uint64(), wait.Check(head.Root == parent.Root,
			"head %d changed the state (root %s, its parent's %s)", head.Number, head.Root.Hex(), parent.Root.Hex())
	})
}

// mustBatch sends JSON-RPC batches of up to 500 calls and fails the test on
// any error, the batch's or a call's.
func (n *Node) mustBatch(t testing.TB, calls []rpc.BatchElem) {
	t.Helper()
	for from := 0; from < len(calls); from += 500 {
		batch := calls[from:min(from+500, len(calls))]
		if err := n.RPC.BatchCall(batch); err != nil {
			t.Fatal(err)
		}
		for _, el := range batch {
			if el.Error != nil {
				t.Fatal(el.Error)
			}
		}
	}
}

// CometGet calls a CometBFT RPC URI endpoint and decodes its result.
func (n *Node) CometGet(t testing.TB, path string, params url.Values, result any) {
	t.Helper()
	resp, err := http.Get("http://" + n.CometRPC + "/" + path + "?" + params.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("CometBFT %s: %v: %s", path, err, body)
	}
	if len(env.Error) > 0 && !bytes.Equal(env.Error, []byte("null")) {
		t.Fatalf("CometBFT %s: %s", path, env.Error)
	}
	if err := json.Unmarshal(env.Result, result); err != nil {
		t.Fatalf("CometBFT %s result: %v: %s", path, err, env.Result)
	}
}

// gwei is n gwei in wei.
func gwei(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000_000)) }

// ether is n ether in wei.
func ether(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000_000_000_000_000))
}
