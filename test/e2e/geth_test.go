package e2e

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/internal/wait"
)

// gethVersion is the geth the side-by-side tests compare with: go-ethereum's
// cmd/geth at the version Ember builds with, so that both run one EVM.
// TestGethToolMatchesRoot keeps it, gethtool/go.mod and go.mod in step.
const gethVersion = "v1.17.10"

var (
	gethOnce sync.Once
	gethPath string
	gethErr  error
)

// gethBinary returns geth: $EMBER_GETH, else build/geth-<version>/geth at
// the repository root, built there on first use from the gethtool module
// (gethtool/go.mod). That module pins every dependency it shares with
// Ember's go.mod at Ember's version, so a build shares Ember's compiled
// packages and compiles only what geth adds.
func gethBinary(t *testing.T) string {
	t.Helper()
	gethOnce.Do(func() {
		if p := os.Getenv("EMBER_GETH"); p != "" {
			gethPath = p
			return
		}
		dir, err := filepath.Abs(filepath.Join("..", "..", "build", "geth-"+gethVersion))
		if err != nil {
			gethErr = err
			return
		}
		gethPath = filepath.Join(dir, "geth")
		if _, err := os.Stat(gethPath); err == nil {
			return
		}
		t.Logf("building geth %s into %s (once)", gethVersion, dir)
		cmd := exec.Command("go", "build", "-o", gethPath, "github.com/ethereum/go-ethereum/cmd/geth")
		cmd.Dir = "gethtool"
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			gethErr = err
			t.Logf("go build geth:\n%s", out)
		}
	})
	if gethErr != nil {
		t.Fatalf("geth %s: %v", gethVersion, gethErr)
	}
	return gethPath
}

// TestGethToolMatchesRoot checks that the geth the tests build is the
// go-ethereum Ember builds with, and that every module gethtool/go.mod
// shares with go.mod is at go.mod's version (else the geth build would
// compile those packages again, and a bump of go.mod would leave the
// reference behind).
func TestGethToolMatchesRoot(t *testing.T) {
	t.Parallel()
	root := modVersions(t, filepath.Join("..", "..", "go.mod"))
	tool := modVersions(t, filepath.Join("gethtool", "go.mod"))
	if v := root["github.com/ethereum/go-ethereum"]; v != gethVersion {
		t.Errorf("go.mod has go-ethereum %s, gethVersion is %s", v, gethVersion)
	}
	for mod, v := range tool {
		if rv, ok := root[mod]; ok && rv != v {
			t.Errorf("%s: gethtool/go.mod has %s, go.mod %s (cd test/e2e/gethtool && go get %s@%s && go mod tidy)", mod, v, rv, mod, rv)
		}
	}
	if len(tool) == 0 || tool["github.com/ethereum/go-ethereum"] != gethVersion {
		t.Errorf("gethtool/go.mod has go-ethereum %q, want %s", tool["github.com/ethereum/go-ethereum"], gethVersion)
	}
}

// modVersions reads the module versions a go.mod requires: the lines of
// its require blocks and single require lines ("path version [// …]").
func modVersions(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "require" && f[1] == "(":
			inBlock = true
		case inBlock && len(f) == 1 && f[0] == ")":
			inBlock = false
		case inBlock && len(f) >= 2:
			out[f[0]] = f[1]
		case len(f) >= 3 && f[0] == "require":
			out[f[1]] = f[2]
		}
	}
	return out
}

// Geth is a geth --dev process: instant blocks, one unlocked prefunded dev
// account, eth, net, web3 and debug over HTTP.
type Geth struct {
	RPC *rpc.Client
	Eth *ethclient.Client
	cmd *exec.Cmd
	log bytes.Buffer
}

// StartGeth runs geth --dev in a temporary directory until the test ends.
// With a genesis, the chain starts from it (geth --dev reuses an initialised
// datadir) instead of geth's developer genesis.
func StartGeth(t *testing.T, genesis *core.Genesis, extra ...string) *Geth {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	bin := gethBinary(t)
	datadir := t.TempDir()
	if genesis != nil {
		path := filepath.Join(t.TempDir(), "genesis.json")
		enc, err := json.Marshal(genesis)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, enc, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "init", "--datadir", datadir, path).CombinedOutput(); err != nil {
			t.Fatalf("geth init: %v\n%s", err, out)
		}
	}
	port := strconv.Itoa(freePort(t))
	args := append([]string{"--dev", "--datadir", datadir, "--http", "--http.addr", "127.0.0.1", "--http.port", port,
		"--http.api", "eth,net,web3,debug", "--port", "0", "--authrpc.port", strconv.Itoa(freePort(t)),
		"--nodiscover", "--maxpeers", "0", "--ipcdisable", "--verbosity", "2"}, extra...)
	g := &Geth{cmd: exec.Command(bin, args...)}
	g.cmd.Stdout, g.cmd.Stderr = &g.log, &g.log
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
		_ = g.cmd.Wait()
		if t.Failed() {
			t.Logf("geth log:\n%s", g.log.String())
		}
	})
	if err := wait.Poll(60*time.Second, "geth --dev to answer JSON-RPC", func() error {
		c, err := rpc.Dial("http://127.0.0.1:" + port)
		if err != nil {
			return err
		}
		var n string
		if err := c.Call(&n, "eth_blockNumber"); err != nil {
			c.Close()
			return err
		}
		g.RPC, g.Eth = c, ethclient.NewClient(c)
		t.Cleanup(c.Close)
		return nil
	}); err != nil {
		t.Fatalf("%v\n%s", err, g.log.String())
	}
	return g
}

// emberGenesisForGeth is the go-ethereum genesis inside an Ember home's
// genesis.json (same config, alloc, time and fees, so the same state), plus
// the Prague system contracts geth requires to process a block (Ember does
// not deploy them; transactions that do not call them trace the same).
func emberGenesisForGeth(t *testing.T, home string) *core.Genesis {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(home, "config", "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AppState struct {
			EVM *core.Genesis `json:"evm"`
		} `json:"app_state"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.AppState.EVM == nil {
		t.Fatalf("ember genesis: %v", err)
	}
	g := doc.AppState.EVM
	for addr, code := range map[common.Address][]byte{
		params.BeaconRootsAddress: params.BeaconRootsCode, params.HistoryStorageAddress: params.HistoryStorageCode,
		params.WithdrawalQueueAddress: params.WithdrawalQueueCode, params.ConsolidationQueueAddress: params.ConsolidationQueueCode,
	} {
		g.Alloc[addr] = types.Account{Nonce: 1, Code: code, Balance: new(big.Int)}
	}
	return g
}
