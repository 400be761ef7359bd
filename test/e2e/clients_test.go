package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// clientScripts are the scripts in test/clients, each run against a node of
// its own with the dev accounts it names (indices into devKeys).
var clientScripts = []struct {
	name, script string
	keys         []int
}{
	{"ethers", "ethers.mjs", []int{0, 1}},  // ethers 6: JsonRpcProvider, Wallet, ContractFactory
	{"viem", "viem.mjs", []int{2, 3}},      // viem 2: public/wallet clients, http and webSocket transports
	{"cast", "cast.mjs", []int{4}},         // foundry cast CLI
	{"forge", "forge.mjs", []int{5}},       // foundry forge script --broadcast, compiled offline by solc-js
	{"simulate", "simulate.mjs", []int{6}}, // viem 2: simulateCalls and simulateBlocks (eth_simulateV1)
}

// TestClients runs real Ethereum clients from npm (test/clients) against
// `emberd dev`: each script deploys OpenZeppelin contracts, sends transfers
// and checks exact balances, receipts, logs, reverts and Merkle proofs, and
// exits non-zero with the mismatch. Needs Node.js and npm; the packages are
// installed (npm install, at the versions in package-lock.json) when
// node_modules is missing or older than package.json or package-lock.json.
func TestClients(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	dir, err := filepath.Abs(filepath.Join("..", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found in PATH: the client tests need Node.js (>= 20) and npm to run test/clients: %v", err)
	}
	npmInstall(t, dir)

	for _, c := range clientScripts {
		t.Run(c.name, func(t *testing.T) {
			n := StartDev(t)
			keys := make([]string, len(c.keys))
			for i, k := range c.keys {
				keys[i] = hexutil.Encode(crypto.FromECDSA(devKeys[k].Private))
			}
			start := time.Now()
			out, err := runScript(t, dir, nodeBin, c.script,
				"EMBER_RPC=http://"+n.HTTP,
				"EMBER_WS=ws://"+n.WS,
				"EMBER_KEYS="+strings.Join(keys, ","),
			)
			if err != nil {
				t.Fatalf("node %s against %s: %v\n%s", c.script, n.HTTP, err, out)
			}
			t.Logf("node %s (%.1f s):\n%s", c.script, time.Since(start).Seconds(), out)
		})
	}
}

// runScript runs `node script` in dir with extra environment variables and
// returns its combined output. The script and anything it spawns (cast,
// forge) are in one process group, killed if it outlives the deadline.
func runScript(t *testing.T, dir, nodeBin, script string, env ...string) (string, error) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, nodeBin, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if c.Err() != nil {
		err = fmt.Errorf("%w (killed after %v)", err, 3*time.Minute)
	}
	return string(out), err
}

// npmMu serialises npmInstall.
var npmMu sync.Mutex

// npmInstall runs `npm install` in dir unless node_modules is current: npm
// writes node_modules/.package-lock.json on install, so it must exist and be
// no older than package.json and package-lock.json. The versions are those of
// package-lock.json. Not `npm ci`: the lockfile lacks the cast and forge
// binaries of other platforms (optional dependencies this machine's registry
// does not serve), and npm ci refuses such a lockfile as out of sync.
func npmInstall(t *testing.T, dir string) {
	t.Helper()
	// Tests run in parallel, and several install the same directory: one
	// npm at a time, and the second finds the first's install current.
	npmMu.Lock()
	defer npmMu.Unlock()
	installed, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err == nil {
		current := true
		for _, f := range []string{"package.json", "package-lock.json"} {
			st, err := os.Stat(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if st.ModTime().After(installed.ModTime()) {
				current = false
			}
		}
		if current {
			return
		}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm not found in PATH: the client tests need Node.js (>= 20) and npm to install test/clients (ethers, viem, cast, forge): %v", err)
	}
	start := time.Now()
	cmd := exec.Command(npm, "install", "--no-audit", "--no-fund")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm install in %s: %v\n%s", dir, err, out)
	}
	t.Logf("npm install in %s (%.1f s)", dir, time.Since(start).Seconds())
}

// TestCosmjs runs cosmjs 0.32 (@cosmjs/stargate, test/clients/cosmjs.mjs)
// against `emberd dev`: StargateClient reads over abci_query with the
// Cosmos SDK's gRPC method paths, a SigningStargateClient with an
// ethsecp256k1 signer simulates, signs and broadcasts a MsgSend and a
// MsgDelegate (balances, sequences and voting power checked exactly), and
// the REST-only wallet flow (account → simulate → broadcast → tx by hash)
// runs against the gateway paths with the SDK's JSON field names. Empty
// blocks every second let CometBFT apply the validator update.
func TestCosmjs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	dir, err := filepath.Abs(filepath.Join("..", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found in PATH: the client tests need Node.js (>= 20) and npm to run test/clients: %v", err)
	}
	npmInstall(t, dir)
	n := StartDev(t, "--empty-block-interval", "1s")
	// Keys 1 and 2: not the dev validator's operator (key 0), which
	// receives the fees' tips.
	keys := []string{hexutil.Encode(crypto.FromECDSA(devKeys[1].Private)), hexutil.Encode(crypto.FromECDSA(devKeys[2].Private))}
	start := time.Now()
	out, err := runScript(t, dir, nodeBin, "cosmjs.mjs",
		"EMBER_COMET=http://"+n.CometRPC,
		"EMBER_REST=http://"+n.REST,
		"EMBER_RPC=http://"+n.HTTP,
		"EMBER_CHAIN_ID="+devChainID,
		"EMBER_KEYS="+strings.Join(keys, ","),
	)
	if err != nil {
		t.Fatalf("node cosmjs.mjs: %v\n%s", err, out)
	}
	t.Logf("node cosmjs.mjs (%.1f s):\n%s", time.Since(start).Seconds(), out)
}
