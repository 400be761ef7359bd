package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// hardhatTests is the size of the pass list of test/clients/hardhat: every
// test passes on both networks.
const hardhatTests = 14

// emberRuns is how many times the suite runs on one emberd dev chain: a
// flaky pass (a receipt read before its block, a head that moves after a
// send answered) shows up as a failure in one of them.
const emberRuns = 5

// TestHardhat runs the Hardhat 2 project in test/clients/hardhat
// (hardhat-toolbox; its tests use loadFixture, time.increase,
// time.increaseTo, mine, impersonateAccount, setBalance, setCode,
// setStorageAt, setNonce, setCoinbase, setNextBlockBaseFeePerGas,
// dropTransaction, takeSnapshot().restore() and the chai matchers emit,
// revertedWith, revertedWithCustomError, changeEtherBalance(s) and
// changeTokenBalance(s)) unchanged, with no Ember-specific configuration:
// once on Hardhat's own network, then emberRuns times with --network ember
// on one emberd dev chain. Every pass list must be complete and equal.
// Needs Node.js and npm (the packages are installed at their locked
// versions).
func TestHardhat(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	dir, err := filepath.Abs(filepath.Join("..", "clients", "hardhat"))
	if err != nil {
		t.Fatal(err)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found in PATH: the Hardhat tests need Node.js (>= 20) and npm: %v", err)
	}
	npmInstall(t, dir)
	onHardhat := runHardhat(t, dir, nodeBin)
	if len(onHardhat) != hardhatTests {
		t.Fatalf("%d tests passed on Hardhat's network, want %d: %q", len(onHardhat), hardhatTests, onHardhat)
	}
	n := StartDev(t, "--empty-block-interval", "0")
	for run := 1; run <= emberRuns; run++ {
		onEmber := runHardhat(t, dir, nodeBin, "--network", "ember", "EMBER_RPC_URL=http://"+n.HTTP)
		if !slices.Equal(onHardhat, onEmber) {
			t.Fatalf("run %d: pass lists differ:\nhardhat: %q\nember:   %q", run, onHardhat, onEmber)
		}
	}
}

// runHardhat runs `hardhat test` with args (flags, then KEY=value
// environment) and returns the titles of the passing tests, failing t on
// any failure.
func runHardhat(t *testing.T, dir, nodeBin string, args ...string) []string {
	t.Helper()
	var flags, env []string
	for _, a := range args {
		if bytes.ContainsRune([]byte(a), '=') {
			env = append(env, a)
		} else {
			flags = append(flags, a)
		}
	}
	cmd := exec.Command(nodeBin, append([]string{filepath.Join("node_modules", "hardhat", "internal", "cli", "bootstrap.js"), "test"}, flags...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "MOCHA_REPORTER=json", "HARDHAT_DISABLE_TELEMETRY_PROMPT=true"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	var report struct {
		Passes   []struct{ FullTitle string } `json:"passes"`
		Failures []struct {
			FullTitle string
			Err       struct{ Message string } `json:"err"`
		} `json:"failures"`
	}
	out := stdout.Bytes()
	if i := bytes.IndexByte(out, '{'); i >= 0 {
		out = out[i:]
	}
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		t.Fatalf("hardhat test %v: %v; report: %v\n%s\n%s", flags, err, jerr, stdout.String(), stderr.String())
	}
	for _, f := range report.Failures {
		t.Errorf("hardhat test %v: %s: %s", flags, f.FullTitle, f.Err.Message)
	}
	if err != nil && len(report.Failures) == 0 {
		t.Fatalf("hardhat test %v: %v\n%s", flags, err, stderr.String())
	}
	titles := make([]string, len(report.Passes))
	for i, p := range report.Passes {
		titles[i] = p.FullTitle
	}
	t.Logf("hardhat test %v: %d passing (%.1f s)", flags, len(titles), time.Since(start).Seconds())
	return titles
}
