package homes

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/emberchain/ember/accounts/keyring"
	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/node/config"
)

// TestInitTestnet checks the homes InitTestnet and AddTestnetNode write:
// one genesis whose CometBFT validators and app_state.staking agree with
// the homes' keys, operators in the keyrings, ports and peers.
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
	if doc.ChainID != DefaultTestnetChainID || len(doc.Validators) != 3 || state.Staking == nil || len(state.Staking.Validators) != 3 {
		t.Fatalf("genesis chain %s, %d validators, staking %+v", doc.ChainID, len(doc.Validators), state.Staking)
	}
	if !strings.Contains(string(doc.AppState), `"tokens": "10000000000000000000"`) {
		t.Fatalf("tokens not decimal: %s", doc.AppState)
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
		v, s := doc.Validators[i], state.Staking.Validators[i]
		if v.Power != 10 || string(s.ConsensusPubKey) != string(v.PubKey.Bytes()) || s.Operator != n.Operator || (*big.Int)(s.Tokens).String() != "10000000000000000000" {
			t.Fatalf("validator %d: %+v / %+v", i, v, s)
		}
		kr, _ := keyring.Open(n.Home, keyring.Test)
		info, err := kr.Get(TestnetValidatorKey)
		if err != nil || info.Address != n.Operator {
			t.Fatalf("%s keyring: %+v %v", n.Name, info, err)
		}
		if acc, ok := state.EVM.Alloc[n.Operator]; !ok || acc.Balance.Int64() != 5 {
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

func itoa(i int) string { return big.NewInt(int64(i)).String() }
