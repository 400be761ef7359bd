package e2e

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/internal/wait"
)

// TestExplorerRPCSource runs `emberd explorer --rpc` against an `emberd dev`
// node that also runs the in-process explorer, twice — over http:// (polled)
// into SQLite and over ws:// (newHeads) into PostgreSQL — and requires each
// to answer the same JSON as the in-process API for every block,
// transaction, log and address: the JSON-RPC source must rebuild exactly
// what the node's own store holds. Given the node's CometBFT RPC (--comet),
// that includes a native bank send, read from CometBFT's block and
// block_results.
func TestExplorerRPCSource(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable", "--empty-block-interval", "0")
	sender, other := devKeys[4], devKeys[6]
	recipient := common.BytesToAddress(crypto.Keccak256([]byte("explorer-rpc-recipient"))[:20])
	txs := n.explorerBatch(t, sender, recipient, 12)
	txs = append(txs, n.send(t, other.Private, txOpts{To: &recipient, Value: ether(2), Type: ptr(byte(types.LegacyTxType))}))
	token := contracts.MustLoad("EmberToken")
	ctorArgs, _ := token.ABI.Pack("", big.NewInt(1_000_000))
	deploy := n.send(t, other.Private, txOpts{Gas: 3_000_000, Data: append(append([]byte{}, token.Bytecode...), ctorArgs...)})
	receipts, _ := n.waitAll(t, append(txs, deploy))
	tokenAddr := receipts[deploy.Hash()].ContractAddress
	input, _ := token.ABI.Pack("transfer", recipient, big.NewInt(7))
	call := n.send(t, other.Private, txOpts{To: &tokenAddr, Gas: 200_000, Data: input})
	txs = append(txs, deploy, call)
	n.waitAll(t, txs)
	sendAmount := big.NewInt(987_654_321_012_345)
	raw, _ := signNative(t, n, other.Private, nativeB.Send(other.Address, recipient, sendAmount))
	nativeSend := deliver(t, n, raw)
	if nativeSend.TxResult.Code != 0 {
		t.Fatalf("native send: %d %s", nativeSend.TxResult.Code, nativeSend.TxResult.Log)
	}
	nativeHash := "0x" + strings.ToLower(nativeSend.Hash.String())

	// The genesis file tells them which accounts genesis funded, as the
	// node's own explorer knows from its store.
	genesis := filepath.Join(n.Home, "config", "genesis.json")
	rxs := map[string]string{
		"http+sqlite": startRPCExplorer(t, "http://"+n.HTTP, "--genesis", genesis, "--comet", "http://"+n.CometRPC),
		"ws+postgres": startRPCExplorer(t, "ws://"+n.WS, "--explorer.db", pgDSN(t), "--genesis", genesis, "--comet", "tcp://"+n.CometRPC),
	}
	head := n.settledHead(t, rxs)
	miner := n.explorerMiner(t, head)

	paths := []string{"/api/v2/stats", "/api/v2/main-page/indexing-status", "/api/v2/main-page/blocks",
		"/api/v2/main-page/transactions", "/api/v2/blocks?type=block", "/api/v2/transactions?filter=validated"}
	for b := uint64(0); b <= head; b++ {
		paths = append(paths, fmt.Sprintf("/api/v2/blocks/%d", b), fmt.Sprintf("/api/v2/blocks/%d/transactions", b),
			fmt.Sprintf("/api/v2/blocks/%d/native-transactions", b))
	}
	for _, tx := range txs {
		h := tx.Hash().Hex()
		paths = append(paths, "/api/v2/transactions/"+h, "/api/v2/transactions/"+h+"/logs", "/api/v2/search?q="+h)
	}
	for _, a := range []common.Address{sender.Address, other.Address, recipient, tokenAddr, miner} {
		h := a.Hex()
		paths = append(paths, "/api/v2/addresses/"+h, "/api/v2/addresses/"+h+"/counters",
			"/api/v2/addresses/"+h+"/transactions", "/api/v2/addresses/"+h+"/coin-balance-history",
			"/api/v2/addresses/"+h+"/native-transactions")
	}
	paths = append(paths, "/api/v2/transactions/"+nativeHash, "/api/v2/search?q="+nativeHash)
	for _, p := range paths {
		want := n.explorerGetJSON(t, n.Explorer, p)
		for name, rx := range rxs {
			if got := n.explorerGetJSON(t, rx, p); !reflect.DeepEqual(want, got) {
				t.Fatalf("GET %s differs:\nin-process: %s\nrpc source (%s): %s", p, mustJSON(want), name, mustJSON(got))
			}
		}
	}
	// The native send itself, as the JSON-RPC explorers show it: sender,
	// recipient and the amount to the wei.
	for name, rx := range rxs {
		var tx struct {
			From   struct{ Hash string } `json:"from"`
			Value  string                `json:"value"`
			Status string                `json:"status"`
			Native struct {
				Messages []struct {
					Type   string                `json:"type"`
					Amount string                `json:"amount"`
					To     struct{ Hash string } `json:"to"`
				} `json:"messages"`
			} `json:"native"`
		}
		b, _ := json.Marshal(n.explorerGetJSON(t, rx, "/api/v2/transactions/"+nativeHash))
		if err := json.Unmarshal(b, &tx); err != nil {
			t.Fatal(err)
		}
		if m := tx.Native.Messages; tx.From.Hash != other.Address.Hex() || tx.Value != sendAmount.String() || tx.Status != "ok" ||
			len(m) != 1 || m[0].Type != "/cosmos.bank.v1beta1.MsgSend" || m[0].Amount != sendAmount.String() || m[0].To.Hash != recipient.Hex() {
			t.Fatalf("%s: native send %s = %s, want %s → %s of %s", name, nativeHash, b, other.Address.Hex(), recipient.Hex(), sendAmount)
		}
	}
	if h := n.chainHead(t); h != head {
		t.Fatalf("the chain moved from %d to %d during the comparison", head, h)
	}
	t.Logf("%d responses identical on %d explorers up to block %d", len(paths), len(rxs), head)
}

// startRPCExplorer runs `emberd explorer --rpc url` with extra flags (on
// SQLite in a temp home by default) and returns its API address once it
// answers; it is stopped at cleanup.
func startRPCExplorer(t *testing.T, rpcURL string, extra ...string) string {
	t.Helper()
	home := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	logPath := filepath.Join(home, "explorer.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"explorer", "--rpc", rpcURL, "--home", home, "--explorer.address", addr}, extra...)
	cmd := exec.Command(emberdBin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("emberd explorer log:\n%s", b)
		}
	})
	wait.Eventually(t, 30*time.Second, "emberd explorer to serve its API", func() error {
		select {
		case <-done:
			b, _ := os.ReadFile(logPath)
			return wait.Stop(fmt.Errorf("emberd explorer exited:\n%s", b))
		default:
		}
		resp, err := http.Get("http://" + addr + "/api/health")
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	return addr
}

// settledHead waits until the chain is settled (waitSettled) and every
// explorer (the node's and rxs) has indexed its head, and returns it. The
// node must make no empty blocks on an interval (--empty-block-interval 0).
func (n *Node) settledHead(t *testing.T, rxs map[string]string) uint64 {
	t.Helper()
	head := n.waitSettled(t)
	n.waitIndexed(t, head)
	for _, rx := range rxs {
		(&Node{t: t, Explorer: rx}).waitIndexed(t, head)
	}
	return head
}

func (n *Node) chainHead(t *testing.T) uint64 {
	h, err := n.Eth.BlockNumber(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (n *Node) explorerMiner(t *testing.T, number uint64) common.Address {
	h, err := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(number))
	if err != nil {
		t.Fatal(err)
	}
	return h.Coinbase
}

// explorerGetJSON fetches path from the explorer at host and decodes it,
// requiring 200.
func (n *Node) explorerGetJSON(t *testing.T, host, path string) any {
	t.Helper()
	status, body := (&Node{t: t, Explorer: host}).explorerGet(t, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s%s: %d %s", host, path, status, body)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	return v
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
