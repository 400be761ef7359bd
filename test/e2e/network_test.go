package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/genutil"
	"github.com/emberchain/ember/internal/wait"
)

// TestNetwork runs four validators made by `emberd testnet init`, each an
// `emberd start` process, and one full node added later with `testnet
// add-node`. The phases share the network and run in order: consensus
// across processes, CometBFT's RPC on a live network, losing one validator
// (the chain goes on), losing two (it halts, without forking), restarting
// them (every node then serves identical blocks), and a full node
// block-syncing from genesis.
func TestNetwork(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 4, 1)
	checkTestnetHomes(t, nw)
	vals := nw.Nodes
	for _, n := range vals {
		n.Start("start")
	}

	var transfer *types.Transaction
	var transferReceipt *types.Receipt
	to := common.HexToAddress("0x0000000000000000000000000000000000c0ffee")
	t.Run("ValidatorsProduceBlocks", func(t *testing.T) {
		waitAllHeight(t, 3, vals...)
		transfer = vals[0].send(t, devKeys[0].Private, txOpts{To: &to, Value: big.NewInt(1_000_000_007)})
		transferReceipt = vals[0].WaitReceipt(t, transfer.Hash())
		if transferReceipt.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("receipt status %d", transferReceipt.Status)
		}
		for _, n := range vals[1:] {
			r := n.WaitReceipt(t, transfer.Hash())
			if r.BlockHash != transferReceipt.BlockHash || r.BlockNumber.Cmp(transferReceipt.BlockNumber) != 0 || r.TransactionIndex != transferReceipt.TransactionIndex {
				t.Fatalf("%s: tx in block %v %s index %d; node0: block %v %s index %d", n.Home,
					r.BlockNumber, r.BlockHash, r.TransactionIndex, transferReceipt.BlockNumber, transferReceipt.BlockHash, transferReceipt.TransactionIndex)
			}
		}
		for _, n := range vals {
			bal, err := n.Eth.BalanceAt(ctx(t), to, transferReceipt.BlockNumber)
			if err != nil || bal.Cmp(big.NewInt(1_000_000_007)) != 0 {
				t.Fatalf("%s: balance of %s = %v, %v", n.Home, to, bal, err)
			}
		}
		// Four validators sign the blocks: CometBFT's /validators lists them.
		var res struct {
			Total string `json:"total"`
		}
		vals[2].CometGet(t, "validators", nil, &res)
		if res.Total != "4" {
			t.Fatalf("/validators total %s, want 4", res.Total)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("CometRPC", func(t *testing.T) { testCometRPC(t, nw) })

	t.Run("OneValidatorDown", func(t *testing.T) {
		vals[3].Stop()
		h := maxHeight(t, vals[:3]...)
		// 30 of 40 voting power left (> 2/3): blocks continue, with rounds
		// the stopped validator should have proposed timing out.
		waitAllHeight(t, h+3, vals[:3]...)
	})

	var halted uint64
	t.Run("TwoValidatorsDownHalts", func(t *testing.T) {
		vals[2].Stop()
		// 20 of 40 is not more than 2/3: no block can be committed. A
		// block whose precommits were out before the stop may still land.
		// The halt is what is checked: heights that do not move for 4 s
		// after a grace of 3 s, not a wait for something to happen.
		time.Sleep(3 * time.Second)
		h0, h1 := vals[0].height(t), vals[1].height(t)
		time.Sleep(4 * time.Second)
		if a, b := vals[0].height(t), vals[1].height(t); a != h0 || b != h1 {
			t.Fatalf("heights moved from %d/%d to %d/%d with half the voting power down", h0, h1, a, b)
		}
		// The two agree on the last block, and CometBFT on its height.
		halted = min(h0, h1)
		sameChain(t, halted, vals[0], vals[1])
		for _, n := range vals[:2] {
			var st cometStatus
			n.CometGet(t, "status", nil, &st)
			if got := st.SyncInfo.LatestBlockHeight; got != jsonUint(max(h0, h1)) && got != jsonUint(halted) {
				t.Fatalf("%s: CometBFT height %s, EVM heights %d/%d", n.Home, got, h0, h1)
			}
		}
	})

	t.Run("RestartedValidatorsCatchUp", func(t *testing.T) {
		vals[2].Start("start")
		vals[3].Start("start")
		waitAllHeight(t, halted+3, vals...)
		h := minHeight(t, vals...)
		sameChain(t, h, vals...)
	})

	t.Run("FullNodeBlockSyncs", func(t *testing.T) {
		// Enough blocks that the new node is observably behind.
		waitAllHeight(t, 40, vals[0])
		full := nw.AddFullNode()
		behindAt := vals[0].height(t)
		full.Start("start")
		syncing := full.pollSyncing(t)
		if len(syncing) == 0 {
			t.Fatal("eth_syncing never reported progress while block-syncing")
		}
		first := syncing[0]
		if first.StartingBlock != 0 || first.CurrentBlock > first.HighestBlock {
			t.Fatalf("first eth_syncing answer %+v", first)
		}
		behind := false
		for _, s := range syncing {
			if s.StartingBlock != 0 || s.CurrentBlock > s.HighestBlock {
				t.Fatalf("eth_syncing answer %+v", s)
			}
			behind = behind || s.CurrentBlock < s.HighestBlock
		}
		if !behind {
			t.Fatalf("eth_syncing never showed currentBlock < highestBlock (chain at %d): %+v", behindAt, syncing)
		}
		t.Logf("chain at %d when the full node started; eth_syncing answered %d times before false: first %+v, last %+v",
			behindAt, len(syncing), first, syncing[len(syncing)-1])
		var st cometStatus
		full.CometGet(t, "status", nil, &st)
		if st.SyncInfo.CatchingUp {
			t.Fatal("eth_syncing false while /status says catching_up")
		}
		h := vals[0].height(t)
		waitAllHeight(t, h, full)
		sameChain(t, h, append([]*Node{full}, vals...)...)

		// The same answers as a validator: balances, the tx and its receipt.
		for _, addr := range []common.Address{to, devKeys[0].Address} {
			want, err := vals[1].Eth.BalanceAt(ctx(t), addr, new(big.Int).SetUint64(h))
			if err != nil {
				t.Fatal(err)
			}
			got, err := full.Eth.BalanceAt(ctx(t), addr, new(big.Int).SetUint64(h))
			if err != nil || got.Cmp(want) != 0 {
				t.Fatalf("balance of %s at %d: full node %v (%v), validator %v", addr, h, got, err, want)
			}
		}
		for _, method := range []string{"eth_getTransactionReceipt", "eth_getTransactionByHash"} {
			var want, got json.RawMessage
			if err := vals[1].RPC.Call(&want, method, transfer.Hash()); err != nil {
				t.Fatal(err)
			}
			if err := full.RPC.Call(&got, method, transfer.Hash()); err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(want, got) || string(got) == "null" {
				t.Fatalf("%s: full node %s, validator %s", method, got, want)
			}
		}
		// A tx sent to the full node is gossiped to the validators and
		// included.
		tx := full.send(t, devKeys[1].Private, txOpts{To: &to, Value: big.NewInt(5)})
		r := full.WaitReceipt(t, tx.Hash())
		if r2 := vals[3].WaitReceipt(t, tx.Hash()); r2.BlockHash != r.BlockHash {
			t.Fatalf("tx sent to the full node: block %s there, %s on node3", r.BlockHash, r2.BlockHash)
		}
	})
}

// syncProgress is one non-false eth_syncing answer.
type syncProgress struct {
	StartingBlock hexutil.Uint64 `json:"startingBlock"`
	CurrentBlock  hexutil.Uint64 `json:"currentBlock"`
	HighestBlock  hexutil.Uint64 `json:"highestBlock"`
}

// pollSyncing calls eth_syncing until it answers false and returns the
// progress answers before that. Each must have exactly the three fields of
// the execution-apis SyncingStatus.
func (n *Node) pollSyncing(t *testing.T) []syncProgress {
	t.Helper()
	var out []syncProgress
	// Every 20 ms: the answers on the way are what is checked.
	if err := wait.PollEvery(20*time.Millisecond, 60*time.Second, "eth_syncing to answer false", func() error {
		var raw json.RawMessage
		if err := n.RPC.Call(&raw, "eth_syncing"); err != nil {
			t.Fatal(err)
		}
		if string(raw) == "false" {
			return nil
		}
		var fields map[string]any
		if err := json.Unmarshal(raw, &fields); err != nil || len(fields) != 3 {
			t.Fatalf("eth_syncing answered %s", raw)
		}
		var p syncProgress
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
		return fmt.Errorf("%+v", p)
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func maxHeight(t *testing.T, nodes ...*Node) uint64 {
	var h uint64
	for _, n := range nodes {
		h = max(h, n.height(t))
	}
	return h
}

func minHeight(t *testing.T, nodes ...*Node) uint64 {
	h := nodes[0].height(t)
	for _, n := range nodes[1:] {
		h = min(h, n.height(t))
	}
	return h
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// checkTestnetHomes checks what `testnet init` wrote: one genesis shared by
// all homes with the four validators (power 10) in CometBFT's list and in
// app_state.staking (the consensus key of each home, a 10^19 self-bond, an
// operator whose key is in the home's test keyring and funded at genesis),
// the dev accounts funded, distinct ports, and each validator peering with
// the three others.
func checkTestnetHomes(t *testing.T, nw *Network) {
	m := nw.manifest()
	if len(m.Nodes) != 4 || m.ChainID != "ember_9000-1" {
		t.Fatalf("manifest: %d nodes, chain %s", len(m.Nodes), m.ChainID)
	}
	var first []byte
	ports := map[int]string{}
	for i, h := range m.Nodes {
		g, err := os.ReadFile(filepath.Join(h.Home, "config", "genesis.json"))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = g
		} else if string(g) != string(first) {
			t.Fatalf("%s has another genesis than node0", h.Name)
		}
		for _, p := range []int{h.Ports.P2P, h.Ports.RPC, h.Ports.JSONRPC, h.Ports.WS, h.Ports.REST, h.Ports.GRPC, h.Ports.Explorer} {
			if other, dup := ports[p]; dup {
				t.Fatalf("port %d used by %s and %s", p, other, h.Name)
			}
			ports[p] = h.Name
		}
		cfg, err := os.ReadFile(filepath.Join(h.Home, "config", "config.toml"))
		if err != nil {
			t.Fatal(err)
		}
		var peers []string
		for j, o := range m.Nodes {
			if j != i {
				peers = append(peers, o.NodeID+"@127.0.0.1:"+itoa(o.Ports.P2P))
			}
		}
		for _, line := range []string{`persistent_peers = "` + strings.Join(peers, ",") + `"`, "addr_book_strict = false",
			"allow_duplicate_ip = true", `indexer = "kv"`, `timeout_commit = "500ms"`, "create_empty_blocks = true"} {
			if !strings.Contains(string(cfg), "\n"+line+"\n") {
				t.Fatalf("%s config.toml lacks %s", h.Name, line)
			}
		}
		key, err := os.ReadFile(filepath.Join(h.Home, "keyring-test", "validator.json"))
		if err != nil {
			t.Fatal(err)
		}
		var kf struct{ Address string }
		if err := json.Unmarshal(key, &kf); err != nil || common.HexToAddress(kf.Address) != h.Operator {
			t.Fatalf("%s keyring validator %s, operator %s", h.Name, kf.Address, h.Operator)
		}
	}
	var g struct {
		ChainID    string            `json:"chain_id"`
		Validators []json.RawMessage `json:"validators"`
		AppState   struct {
			EVM struct {
				Alloc map[string]struct {
					Balance *hexutil.Big `json:"balance"`
				} `json:"alloc"`
			} `json:"evm"`
			Staking struct {
				UnbondingTime string            `json:"unbonding_time"`
				Validators    []json.RawMessage `json:"validators"`
			} `json:"staking"`
			Genutil genutil.GenesisState `json:"genutil"`
		} `json:"app_state"`
	}
	if err := json.Unmarshal(first, &g); err != nil {
		t.Fatal(err)
	}
	// The testnet forms its genesis as independent operators do: a gentx
	// per validator, CometBFT's genesis validators left empty.
	if len(g.Validators) != 0 || len(g.AppState.Staking.Validators) != 0 || len(g.AppState.Genutil.GenTxs) != 4 || g.AppState.Staking.UnbondingTime == "" {
		t.Fatalf("genesis: %d validators, staking %+v, %d gentxs", len(g.Validators), g.AppState.Staking, len(g.AppState.Genutil.GenTxs))
	}
	tenKEther := ether(10_000)
	alloc := map[common.Address]*big.Int{}
	for k, v := range g.AppState.EVM.Alloc {
		alloc[common.HexToAddress(k)] = v.Balance.ToInt()
	}
	gentxs, err := genutil.ParseAll(g.AppState.Genutil.GenTxs, g.ChainID, "ember", "aember", func(a common.Address) (*big.Int, bool) { b, ok := alloc[a]; return b, ok })
	if err != nil {
		t.Fatal(err)
	}
	byOperator := map[common.Address]*genutil.GenTx{}
	for _, gt := range gentxs {
		byOperator[gt.Operator] = gt
	}
	for _, h := range m.Nodes {
		var pv struct {
			PubKey struct {
				Value string `json:"value"`
			} `json:"pub_key"`
		}
		raw, _ := os.ReadFile(filepath.Join(h.Home, "config", "priv_validator_key.json"))
		if err := json.Unmarshal(raw, &pv); err != nil {
			t.Fatal(err)
		}
		gt := byOperator[h.Operator]
		if gt == nil || gt.Moniker != h.Name || base64.StdEncoding.EncodeToString(gt.ConsKey) != pv.PubKey.Value ||
			gt.SelfBond.Cmp(ether(10)) != 0 || gt.Memo != h.NodeID+"@127.0.0.1:"+itoa(h.Ports.P2P) {
			t.Fatalf("%s: gentx %+v, home key %s", h.Name, gt, pv.PubKey.Value)
		}
		// Funded with 10,000 ETH and the self-bond: 10,000 ETH once bonded.
		if a, ok := alloc[h.Operator]; !ok || a.Cmp(new(big.Int).Add(tenKEther, ether(10))) != 0 {
			t.Fatalf("operator %s of %s funded with %v, not 10,010 ETH", h.Operator, h.Name, a)
		}
	}
	for _, k := range devKeys {
		if a, ok := alloc[k.Address]; !ok || a.Cmp(tenKEther) != 0 {
			t.Fatalf("dev account %s not funded with 10,000 ETH", k.Address)
		}
	}
	if len(alloc) != 14 {
		t.Fatalf("alloc has %d accounts, want 10 dev + 4 operators", len(g.AppState.EVM.Alloc))
	}
}

// TestTestnetCLIErrors: bad input to the testnet commands is refused with a
// clear message.
func TestTestnetCLIErrors(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	dir := t.TempDir()
	nonEmpty := filepath.Join(dir, "full")
	if err := os.MkdirAll(nonEmpty, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(nonEmpty, "x"), nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"testnet", "init", "--validators", "0", "--output", filepath.Join(dir, "a")}, "--validators must be at least 1, got 0"},
		{[]string{"testnet", "init", "--output", nonEmpty}, nonEmpty + " exists and is not empty"},
		{[]string{"testnet", "init", "--output", filepath.Join(dir, "b"), "--base-port", "65530"}, "--base-port 65530: 4 nodes need ports 65530-65569, within 1024-65535"},
		{[]string{"testnet", "init", "--output", filepath.Join(dir, "c"), "--chain-id", "ember-1"}, `invalid chain-id "ember-1"`},
		{[]string{"testnet", "init", "--output", filepath.Join(dir, "d"), "--balance", "-1"}, `invalid --balance "-1"`},
		{[]string{"testnet", "init"}, "--output is required"},
		{[]string{"testnet", "add-node", dir}, dir + " is not a testnet directory"},
		{[]string{"testnet", "start", dir}, dir + " is not a testnet directory"},
	} {
		out, err := emberdCLI(t, c.args...)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("emberd %s: err %v, output %q, want %q", strings.Join(c.args, " "), err, out, c.want)
		}
	}
}

// TestTestnetStart runs `emberd testnet start` on a two-validator testnet:
// both children make blocks together, each logging to its home, and a
// SIGTERM to the parent stops them all.
func TestTestnetStart(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 2, 0)
	cmd := exec.Command(emberdBin, "testnet", "start", nw.Dir)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	done := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	for _, n := range nw.Nodes {
		if err := wait.Poll(60*time.Second, n.Home+" to answer JSON-RPC", func() error {
			c, err := rpc.Dial("http://" + n.HTTP)
			if err != nil {
				return err
			}
			var num hexutil.Uint64
			if err := c.Call(&num, "eth_blockNumber"); err != nil {
				c.Close()
				return err
			}
			n.RPC, n.Eth = c, ethclient.NewClient(c)
			return nil
		}); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
	}
	waitAllHeight(t, 3, nw.Nodes...)
	sameChain(t, 3, nw.Nodes...)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		if waitErr != nil {
			t.Fatalf("testnet start exited with %v:\n%s", waitErr, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("testnet start still running 30s after SIGTERM:\n%s", out.String())
	}
	for _, n := range nw.Nodes {
		n.RPC.Close()
		n.RPC, n.Eth = nil, nil
		if _, err := net.DialTimeout("tcp", n.HTTP, time.Second); err == nil {
			t.Fatalf("%s still listens after testnet start stopped", n.HTTP)
		}
		log, err := os.ReadFile(filepath.Join(n.Home, "emberd.log"))
		if err != nil || !bytes.Contains(log, []byte(`msg="node started" chain=ember_9000-1`)) {
			t.Fatalf("%s/emberd.log: %v\n%s", n.Home, err, log)
		}
	}
	for _, line := range []string{"node0: pid ", "node1: pid ", "terminated: stopping 2 nodes", "node0 exited (exit status 0)", "node1 exited (exit status 0)"} {
		if !strings.Contains(out.String(), line) {
			t.Fatalf("testnet start output lacks %q:\n%s", line, out.String())
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
