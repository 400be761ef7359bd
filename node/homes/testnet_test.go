package homes

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts/keyring"
	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/genutil"
	"github.com/emberchain/ember/node/config"
)

// TestInitTestnet checks the homes InitTestnet and AddTestnetNode write:
// one genesis whose gentxs bond the homes' consensus keys, operated by the
// keys in the homes' keyrings, ports and peers.
func TestInitTestnet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tn")
	tn, err := InitTestnet(TestnetOptions{Dir: dir, Validators: 3, FullNodes: 1, BasePort: 30000, Accounts: 2, Balance: big.NewInt(5)})
	if err != nil {
		t.Fatal(err)
	}
	if len(tn.Nodes) != 4 || len(tn.Validators()) != 3 || tn.Nodes[3].Validator {
		t.Fatalf("nodes %+v", tn.Nodes)
	}
	doc, err := cmttypes.GenesisDocFromFile(filepath.Join(dir, "node0", "config", "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	state, err := app.ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		t.Fatal(err)
	}
	// The validators come from the gentxs, as independent operators form a
	// network: CometBFT's genesis names none.
	if doc.ChainID != DefaultTestnetChainID || len(doc.Validators) != 0 || state.Genutil == nil || len(state.Genutil.GenTxs) != 3 ||
		state.Staking == nil || len(state.Staking.Validators) != 0 || state.Staking.UnbondingTime != "60s" {
		t.Fatalf("genesis chain %s, %d validators, staking %+v, genutil %+v", doc.ChainID, len(doc.Validators), state.Staking, state.Genutil)
	}
	set, err := ValidateGenesisFile(filepath.Join(dir, "node0", "config", "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	gentxs, err := genutil.ParseAll(state.Genutil.GenTxs, doc.ChainID, "ember", "aember", func(common.Address) (*big.Int, bool) { return new(big.Int), true })
	if err == nil || !strings.Contains(err.Error(), "less than its self-bond 10000000000000000000aember") {
		t.Fatalf("ParseAll against empty balances: %v", err)
	}
	gentxs, err = genutil.ParseAll(state.Genutil.GenTxs, doc.ChainID, "ember", "aember", func(common.Address) (*big.Int, bool) { return tokens10, true })
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range tn.Nodes {
		if n.Ports.P2P != 30000+10*i || n.Ports.Explorer != 30006+10*i {
			t.Fatalf("%s ports %+v", n.Name, n.Ports)
		}
		raw, err := os.ReadFile(filepath.Join(n.Home, "config", "genesis.json"))
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := os.ReadFile(filepath.Join(dir, "node0", "config", "genesis.json")); string(raw) != string(want) {
			t.Fatalf("%s genesis differs", n.Name)
		}
		cc, err := config.LoadComet(n.Home)
		if err != nil {
			t.Fatal(err)
		}
		// A validator peers with the two others, the full node with all three.
		want := 3
		if n.Validator {
			want = 2
		}
		if peers := strings.Split(cc.P2P.PersistentPeers, ","); len(peers) != want || strings.Contains(cc.P2P.PersistentPeers, n.NodeID) {
			t.Fatalf("%s peers %v", n.Name, peers)
		}
		cfg, err := config.Load(n.Home)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.GRPC.Address != "127.0.0.1:"+itoa(n.Ports.GRPC) || cfg.Explorer.Enable {
			t.Fatalf("%s app.toml %+v", n.Name, cfg)
		}
		if !n.Validator {
			continue
		}
		g := gentxs[indexOfOperator(gentxs, n.Operator)]
		if g.Moniker != n.Name || g.SelfBond.Cmp(tokens10) != 0 || g.Memo != n.Peer() || set[indexOfOperator(gentxs, n.Operator)] != n.ConsAddress+" power 10" {
			t.Fatalf("validator %d: gentx %+v, set %v, node %+v", i, g, set, n)
		}
		kr, _ := keyring.Open(n.Home, keyring.Test)
		info, err := kr.Get(TestnetValidatorKey)
		if err != nil || info.Address != n.Operator {
			t.Fatalf("%s keyring: %+v %v", n.Name, info, err)
		}
		// Funded with the balance and the self-bond, so it holds the balance once bonded.
		if acc, ok := state.EVM.Alloc[n.Operator]; !ok || acc.Balance.String() != "10000000000000000005" {
			t.Fatalf("operator %s not funded", n.Operator)
		}
	}

	added, err := AddTestnetNode(dir)
	if err != nil {
		t.Fatal(err)
	}
	if added.Name != "node4" || added.Validator || added.Ports.P2P != 30040 {
		t.Fatalf("added %+v", added)
	}
	again, err := LoadTestnet(dir)
	if err != nil || len(again.Nodes) != 5 {
		t.Fatalf("manifest after add-node: %v %+v", err, again)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README"))
	if !strings.Contains(string(readme), "node4   full") {
		t.Fatalf("README:\n%s", readme)
	}
	if _, err := InitTestnet(TestnetOptions{Dir: dir, Validators: 1}); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Fatalf("init into a used dir: %v", err)
	}
	raw, _ := json.Marshal(again)
	if !strings.Contains(string(raw), `"base_port":30000`) {
		t.Fatalf("manifest %s", raw)
	}
}

var tokens10 = new(big.Int).Mul(big.NewInt(10), big.NewInt(1_000_000_000_000_000_000))

// indexOfOperator is the index of op's gentx (gentxs are in file-name
// order, by node id).
func indexOfOperator(gentxs []*genutil.GenTx, op common.Address) int {
	for i, g := range gentxs {
		if g.Operator == op {
			return i
		}
	}
	return -1
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
