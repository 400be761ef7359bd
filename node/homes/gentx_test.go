package homes

import (
	"crypto/ecdsa"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometbft/cometbft/p2p"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/genutil"
	"github.com/emberchain/ember/node/config"
)

// TestGentxCollect: two `init` homes, operators funded in the first's
// genesis, a gentx per home, collected in the first: the gentxs replace the
// validator init wrote, the first home dials the second, and refusals
// (unfunded operator, bond above balance, no files, duplicate account)
// change nothing.
func TestGentxCollect(t *testing.T) {
	dir := t.TempDir()
	homes := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	keys := make([]*ecdsa.PrivateKey, 2)
	for i, h := range homes {
		if err := Init(InitOptions{Home: h, Moniker: "m" + string(rune('a'+i)), ChainID: "ember_9000-1"}); err != nil {
			t.Fatal(err)
		}
		keys[i], _ = crypto.GenerateKey()
	}
	genesis := filepath.Join(homes[0], "config", "genesis.json")
	gf, err := LoadGenesis(genesis)
	if err != nil {
		t.Fatal(err)
	}
	hundred := new(big.Int).Mul(big.NewInt(100), tokens10)
	for _, k := range keys {
		if err := gf.AddAccount(crypto.PubkeyToAddress(k.PublicKey), hundred); err != nil {
			t.Fatal(err)
		}
	}
	if err := gf.AddAccount(crypto.PubkeyToAddress(keys[0].PublicKey), big.NewInt(1)); err == nil || !strings.Contains(err.Error(), "already in the genesis allocation") {
		t.Fatalf("duplicate account: %v", err)
	}
	if err := gf.Save(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(genesis)
	if err := os.WriteFile(filepath.Join(homes[1], "config", "genesis.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	stranger, _ := crypto.GenerateKey()
	if _, _, err := Gentx(GentxOptions{Home: homes[1], Key: stranger, Amount: tokens10, Commission: genutil.DefaultCommission}); err == nil || !strings.Contains(err.Error(), "is not in the genesis allocation") {
		t.Fatalf("unfunded operator: %v", err)
	}
	if _, _, err := Gentx(GentxOptions{Home: homes[1], Key: keys[1], Amount: new(big.Int).Add(hundred, big.NewInt(1)), Commission: genutil.DefaultCommission}); err == nil || !strings.Contains(err.Error(), "less than the self-bond") {
		t.Fatalf("bond above balance: %v", err)
	}
	if _, err := CollectGentxs(homes[0], ""); err == nil || !strings.Contains(err.Error(), "no gentx files") {
		t.Fatalf("collect without files: %v", err)
	}
	gentxDir := filepath.Join(dir, "gentxs")
	for i, h := range homes {
		if _, _, err := Gentx(GentxOptions{Home: h, Key: keys[i], Amount: new(big.Int).Mul(big.NewInt(int64(i+1)), tokens10), ChainID: "ember_9000-1",
			Commission: genutil.DefaultCommission, IP: "127.0.0.1", P2PPort: 26656 + 10*i, Output: filepath.Join(gentxDir, string(rune('a'+i))+".json")}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := CollectGentxs(homes[0], gentxDir)
	if err != nil {
		t.Fatal(err)
	}
	nodeB, _ := p2p.LoadNodeKey(filepath.Join(homes[1], "config", "node_key.json"))
	if c.RemovedValidators != 1 || len(c.GenTxs) != 2 || c.PersistentPeers != string(nodeB.ID())+"@127.0.0.1:26666" ||
		len(c.Validators) != 2 || !strings.HasSuffix(c.Validators[0], " power 10") || !strings.HasSuffix(c.Validators[1], " power 20") {
		t.Fatalf("collected %+v", c)
	}
	cc, err := config.LoadComet(homes[0])
	if err != nil || cc.P2P.PersistentPeers != c.PersistentPeers {
		t.Fatalf("config.toml peers %q, %v", cc.P2P.PersistentPeers, err)
	}
	after, err := LoadGenesis(genesis)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Doc.Validators) != 0 || len(after.State.Staking.Validators) != 0 || len(after.State.Genutil.GenTxs) != 2 || after.State.EVM.Alloc[crypto.PubkeyToAddress(keys[1].PublicKey)].Balance.Cmp(hundred) != 0 {
		t.Fatalf("genesis after collect: %d validators, staking %+v, genutil %+v", len(after.Doc.Validators), after.State.Staking, after.State.Genutil)
	}
	if vals, err := ValidateGenesisFile(genesis); err != nil || len(vals) != 2 {
		t.Fatalf("validate: %v %v", vals, err)
	}
}
