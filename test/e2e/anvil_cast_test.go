package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emberchain/ember/internal/wait"
)

// TestAnvilCastCompare calls the test-chain methods through foundry's
// `cast rpc` (npm @foundry-rs/cast 1.7.1) on an emberd dev chain and on
// anvil 1.7.1 (npm @foundry-rs/anvil), in the same order, and compares
// cast's output: answers and errors must be the same. What legitimately
// differs is not compared: block numbers (a state edit is 2 blocks on
// Ember, 0 on anvil), hashes and times, and anvil_dumpState's bytes (anvil
// also lists its blocks and transactions), of which only the gzip header
// is compared.
func TestAnvilCastCompare(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	dir, err := filepath.Abs(filepath.Join("..", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	npmInstall(t, dir)
	foundry := filepath.Join(dir, "node_modules", "@foundry-rs")
	cast := filepath.Join(foundry, "cast-linux-amd64", "bin", "cast")
	anvilURL := startAnvil(t, filepath.Join(foundry, "anvil-linux-amd64", "bin", "anvil"))
	n := StartDev(t, "--empty-block-interval", "0")
	emberURL := "http://" + n.HTTP

	x := "0x00000000000000000000000000000000000a7e11"
	word := "0x000000000000000000000000000000000000000000000000000000000000002a"
	calls := [][]string{
		{"evm_snapshot"},
		{"anvil_setBalance", x, "0x10"},
		{"eth_getBalance", x, "latest"},
		{"anvil_setCode", x, "0x602a60005260206000f3"},
		{"eth_getCode", x, "latest"},
		{"eth_call", `{"to":"` + x + `"}`, "latest"},
		{"anvil_setNonce", x, "0x5"},
		{"eth_getTransactionCount", x, "latest"},
		{"anvil_setStorageAt", x, "0x1", word},
		{"eth_getStorageAt", x, "0x1", "latest"},
		{"hardhat_setBalance", x, "0x20"},
		{"eth_getBalance", x, "latest"},
		{"evm_increaseTime", "3600"},
		{"evm_increaseTime", "0x10"},
		{"evm_mine"},
		{"anvil_mine", "0x3"},
		{"hardhat_mine", "0x2", "0x3c"},
		{"evm_setAutomine", "false"},
		{"anvil_getAutomine"},
		{"evm_setAutomine", "true"},
		{"anvil_getAutomine"},
		{"anvil_setMinGasPrice", "0x1"},
		{"anvil_setNextBlockBaseFeePerGas", "0x3b9aca00"},
		{"anvil_setCoinbase", x},
		{"anvil_impersonateAccount", x},
		{"anvil_stopImpersonatingAccount", x},
		{"anvil_autoImpersonateAccount", "false"},
		{"anvil_dropTransaction", "0x0000000000000000000000000000000000000000000000000000000000000001"},
		{"anvil_dropAllTransactions"},
		{"evm_setIntervalMining", "0"},
		{"anvil_getIntervalMining"},
		{"evm_revert", "0x0"},
		{"eth_getBalance", x, "latest"},
		{"eth_getCode", x, "latest"},
		{"evm_revert", "0x0"},
		{"evm_snapshot"},
		{"evm_setNextBlockTimestamp", "1"},
		{"evm_revert", "0x7"},
	}
	for _, c := range calls {
		want := castRPC(t, cast, anvilURL, c)
		got := castRPC(t, cast, emberURL, c)
		if got != want {
			t.Errorf("cast rpc %s:\n anvil: %s\n ember: %s", strings.Join(c, " "), want, got)
		}
	}
	dumps := [2]string{castRPC(t, cast, anvilURL, []string{"anvil_dumpState"}), castRPC(t, cast, emberURL, []string{"anvil_dumpState"})}
	for i, d := range dumps {
		if !strings.HasPrefix(d, `"0x1f8b08`) {
			t.Errorf("anvil_dumpState on %s: %.40s…, not gzip data", [2]string{"anvil", "ember"}[i], d)
		}
	}
}

// castRPC runs `cast rpc` and returns its output (an error's message
// included: cast prints it and exits non-zero).
func castRPC(t *testing.T, cast, url string, call []string) string {
	t.Helper()
	out, _ := exec.Command(cast, append([]string{"rpc", "--rpc-url", url}, call...)...).CombinedOutput()
	return strings.TrimSpace(string(out))
}

// startAnvil runs anvil on a free port in its own process group until the
// test ends, and returns its URL.
func startAnvil(t *testing.T, bin string) string {
	t.Helper()
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("anvil: %v (npm install in test/clients installs @foundry-rs/anvil)", err)
	}
	port := strconv.Itoa(freePort(t))
	cmd := exec.Command(bin, "--port", port, "--silent")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	url := "http://127.0.0.1:" + port
	wait.Eventually(t, 30*time.Second, "anvil to answer JSON-RPC", func() error {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
		if err != nil {
			return err
		}
		resp.Body.Close()
		return wait.Check(resp.StatusCode == http.StatusOK, "status %d", resp.StatusCode)
	})
	return url
}
