package e2e

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// gethVersion is the geth the side-by-side tests compare with: the newest
// patch whose cmd/geth builds here.
const gethVersion = "v1.17.8"

var (
	gethOnce sync.Once
	gethPath string
	gethErr  error
)

// gethBinary returns geth: $EMBER_GETH, else build/geth-<version>/geth at
// the repository root, built there with `go install` on first use (minutes
// on a cold cache, seconds after).
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
		cmd := exec.Command("go", "install", "github.com/ethereum/go-ethereum/cmd/geth@"+gethVersion)
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			gethErr = err
			t.Logf("go install geth:\n%s", out)
		}
	})
	if gethErr != nil {
		t.Fatalf("geth %s: %v", gethVersion, gethErr)
	}
	return gethPath
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
