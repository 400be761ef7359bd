package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emberchain/ember/internal/wait"
)

// operatorHome is one operator's node home in TestGenesisFromGentxs.
type operatorHome struct {
	name    string
	node    *Node
	address string // ember1… of its keyring key "op"
	valoper string // embervaloper1… of the same key
	bond    string // self-bond in aember
}

// TestGenesisFromGentxs forms a network as independent operators do: four
// homes from `emberd init`, each with its own keyring key, funded by
// `genesis add-account` in one home, a gentx signed in each home against
// that genesis, `genesis collect-gentxs` in the first, its genesis copied
// to the others. The four nodes then make blocks with the four gentx
// validators in CometBFT's set and the app's staking state, and agree on
// every block.
func TestGenesisFromGentxs(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	t.Parallel()
	dir := t.TempDir()
	base := freeBasePort(t, 4)
	ops := make([]*operatorHome, 4)
	gentxDir := filepath.Join(dir, "gentxs")
	for i := range ops {
		home := filepath.Join(dir, "op"+strconv.Itoa(i))
		p := base + networkPorts*i
		addr := func(k int) string { return "127.0.0.1:" + strconv.Itoa(p+k) }
		o := &operatorHome{name: "op" + strconv.Itoa(i), bond: strconv.Itoa(i+1) + "000000000000000000",
			node: &Node{t: t, Home: home, p2p: addr(0), CometRPC: addr(1), HTTP: addr(2), WS: addr(3), REST: addr(4), GRPC: addr(5), Explorer: addr(6),
				logPath: filepath.Join(dir, "op"+strconv.Itoa(i)+".log")}}
		ops[i] = o
		cli(t, "init", o.name, "--chain-id", "ember_9000-1", "--home", home)
		cli(t, "keys", "add", "op", "--keyring-backend", "test", "--home", home)
		o.address = strings.TrimSpace(cli(t, "keys", "show", "op", "--keyring-backend", "test", "--home", home, "--address"))
		o.valoper = strings.TrimSpace(cli(t, "keys", "show", "op", "--bech", "val", "--keyring-backend", "test", "--home", home, "--address"))
		// Several nodes on one IP, found through persistent peers.
		cfg := filepath.Join(home, "config", "config.toml")
		rewrite(t, cfg, `allow_duplicate_ip = false`, `allow_duplicate_ip = true`)
		rewrite(t, cfg, `addr_book_strict = true`, `addr_book_strict = false`)
		// Snapshots for the node that joins by state sync, kept long enough
		// for it to fetch the one it chose.
		rewrite(t, filepath.Join(home, "config", "app.toml"), `snapshot-interval = 0`, `snapshot-interval = 5`)
		rewrite(t, filepath.Join(home, "config", "app.toml"), `snapshot-keep-recent = \d+`, `snapshot-keep-recent = 100`)
	}
	coord := ops[0].node.Home
	for _, o := range ops {
		// 100 ETH each; op0's by key name, the others by address.
		who := o.address
		if o == ops[0] {
			who = "op"
		}
		cli(t, "genesis", "add-account", who, "100000000000000000000aember", "--keyring-backend", "test", "--home", coord)
	}
	if out, err := emberdCLI(t, "genesis", "add-account", ops[1].address, "1aember", "--home", coord); err == nil || !strings.Contains(out, "already in the genesis allocation") {
		t.Fatalf("duplicate add-account: %v %s", err, out)
	}
	genesis := filepath.Join(coord, "config", "genesis.json")
	for i, o := range ops {
		if i > 0 {
			copyFile(t, genesis, filepath.Join(o.node.Home, "config", "genesis.json"))
		}
		p := base + networkPorts*i
		out := cli(t, "genesis", "gentx", "op", o.bond+"aember", "--chain-id", "ember_9000-1", "--keyring-backend", "test", "--home", o.node.Home,
			"--ip", "127.0.0.1", "--p2p-port", strconv.Itoa(p), "--commission-rate", "0.05", "--output-document", filepath.Join(gentxDir, o.name+".json"))
		if !strings.Contains(out, "Genesis transaction written") {
			t.Fatalf("gentx: %s", out)
		}
	}
	out := cli(t, "genesis", "collect-gentxs", "--gentx-dir", gentxDir, "--home", coord)
	if !strings.Contains(out, "Collected 4 gentxs") || !strings.Contains(out, "Removed 1 CometBFT genesis validator") || strings.Count(out, " power ") != 4 {
		t.Fatalf("collect-gentxs:\n%s", out)
	}
	if out := cli(t, "genesis", "validate", genesis); !strings.Contains(out, "is a valid genesis file") {
		t.Fatalf("validate: %s", out)
	}
	for _, o := range ops[1:] {
		copyFile(t, genesis, filepath.Join(o.node.Home, "config", "genesis.json"))
	}
	for _, o := range ops {
		o.node.Start("start")
	}
	t.Cleanup(func() {
		for _, o := range ops {
			o.node.Stop()
			if t.Failed() {
				o.node.dumpLog()
			}
		}
	})
	nodes := make([]*Node, len(ops))
	for i, o := range ops {
		nodes[i] = o.node
	}
	const target = 6
	waitAllHeight(t, target, nodes...)
	sameChain(t, target, nodes...)

	// CometBFT's set: the four consensus keys, power = self-bond / 10^18.
	var vres struct {
		Total      string `json:"total"`
		Validators []struct {
			Power string `json:"voting_power"`
		} `json:"validators"`
	}
	nodes[3].CometGet(t, "validators", nil, &vres)
	var powers []string
	for _, v := range vres.Validators {
		powers = append(powers, v.Power)
	}
	sort.Strings(powers)
	if vres.Total != "4" || strings.Join(powers, ",") != "1,2,3,4" {
		t.Fatalf("/validators: total %s, powers %v", vres.Total, powers)
	}
	// The app's staking state: the four operators, bonded with their self-bonds.
	var sres struct {
		Validators []struct {
			OperatorAddress string `json:"operator_address"`
			Tokens          string `json:"tokens"`
			Status          string `json:"status"`
			Description     struct {
				Moniker string `json:"moniker"`
			} `json:"description"`
		} `json:"validators"`
	}
	restGet(t, nodes[2], "/cosmos/staking/v1beta1/validators", &sres)
	got := map[string]string{}
	for _, v := range sres.Validators {
		got[v.OperatorAddress] = v.Description.Moniker + " " + v.Tokens + " " + v.Status
	}
	for _, o := range ops {
		if want := o.name + " " + o.bond + " BOND_STATUS_BONDED"; got[o.valoper] != want {
			t.Fatalf("staking validator %s: %q, want %q (all: %v)", o.valoper, got[o.valoper], want, got)
		}
	}
	// Each operator holds its genesis funds less its self-bond, to the wei.
	for _, o := range ops {
		var bres struct {
			Balance struct {
				Amount string `json:"amount"`
			} `json:"balance"`
		}
		restGet(t, nodes[0], "/cosmos/bank/v1beta1/balances/"+o.address+"/by_denom?denom=aember", &bres)
		bond, _ := strconv.Atoi(o.bond[:1])
		if want := strconv.Itoa(100-bond) + "000000000000000000"; bres.Balance.Amount != want {
			t.Fatalf("%s balance %s, want %s", o.name, bres.Balance.Amount, want)
		}
	}
	t.Run("JoinByStateSyncFlags", func(t *testing.T) { joinByStateSyncFlags(t, dir, base, genesis, nodes) })
}

// joinByStateSyncFlags starts a fifth home, made by `emberd init` with the
// network's genesis, with nothing but flags: the peers and the RPC servers.
// It restores a snapshot (its log says which) and follows the chain.
func joinByStateSyncFlags(t *testing.T, dir string, base int, genesis string, vals []*Node) {
	home := filepath.Join(dir, "joiner")
	cli(t, "init", "joiner", "--chain-id", "ember_9000-1", "--home", home)
	copyFile(t, genesis, filepath.Join(home, "config", "genesis.json"))
	cfg := filepath.Join(home, "config", "config.toml")
	rewrite(t, cfg, `allow_duplicate_ip = false`, `allow_duplicate_ip = true`)
	rewrite(t, cfg, `addr_book_strict = true`, `addr_book_strict = false`)
	var peers []string
	for _, v := range vals[:2] {
		id := strings.TrimSpace(cli(t, "comet", "show-node-id", "--home", v.Home))
		peers = append(peers, id+"@"+v.p2p)
	}
	p := base + networkPorts*4
	addr := func(k int) string { return "127.0.0.1:" + strconv.Itoa(p+k) }
	n := &Node{t: t, Home: home, p2p: addr(0), CometRPC: addr(1), HTTP: addr(2), WS: addr(3), REST: addr(4), GRPC: addr(5), Explorer: addr(6),
		logPath: filepath.Join(dir, "joiner.log")}
	// The trusted block is read from the servers: a height below the
	// latest, which the first snapshot must not predate by much.
	waitAllHeight(t, 12, vals...)
	n.extra = []string{"--p2p.persistent-peers", strings.Join(peers, ","), "--statesync.rpc-servers", vals[0].CometRPC + "," + vals[1].CometRPC}
	spawnWith(t, n, "start")
	t.Cleanup(func() {
		n.Stop()
		if t.Failed() {
			n.dumpLog()
		}
	})
	if err := n.waitRPC(); err != nil {
		n.dumpLog()
		t.Fatal(err)
	}
	// The endpoint table is printed once the node has started, a moment
	// after its JSON-RPC answers.
	var m [][]byte
	wait.Eventually(t, 10*time.Second, "the joiner's restore, trusted block and endpoint table in its output", func() error {
		log, _ := os.ReadFile(n.logPath)
		m = regexp.MustCompile(`msg="state sync: restored" height=(\d+)`).FindSubmatch(log)
		if m == nil || !strings.Contains(string(log), "state sync: trusting block") || !strings.Contains(string(log), "Ember node joiner (chain ember_9000-1) listening on:") {
			return fmt.Errorf("output so far:\n%s", log)
		}
		return nil
	})
	restored, _ := strconv.ParseUint(string(m[1]), 10, 64)
	h := maxHeight(t, vals...) + 2
	waitAllHeight(t, h, n)
	sameChainFrom(t, restored, h, vals[0], n)
}

// spawnWith is Node.spawn with n.extra passed to any command.
func spawnWith(t *testing.T, n *Node, command string) {
	t.Helper()
	args := []string{command, "--home", n.Home,
		"--json-rpc.address", n.HTTP, "--json-rpc.ws-address", n.WS,
		"--rpc.laddr", "tcp://" + n.CometRPC, "--p2p.laddr", "tcp://" + n.p2p,
		"--rest.address", n.REST, "--explorer.address", n.Explorer, "--grpc.address", n.GRPC,
	}
	args = append(args, n.extra...)
	logf, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	n.cmd = exec.Command(emberdBin, args...)
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
}

// cli runs emberd and fails the test on an error.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	out, err := emberdCLI(t, args...)
	if err != nil {
		t.Fatalf("emberd %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// restGet decodes a native REST answer of n.
func restGet(t *testing.T, n *Node, path string, v any) {
	t.Helper()
	resp, err := http.Get("http://" + n.REST + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, resp.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
}
