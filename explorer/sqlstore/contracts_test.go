package sqlstore

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
)

func TestVerifiedContracts(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openTest(t, dsn)
		runs := int64(200)
		mk := func(addr common.Address, name string, code []byte, at int64) *explorer.VerifiedContract {
			return &explorer.VerifiedContract{
				Address: addr, Name: name, Language: "solidity", CompilerVersion: "v0.8.28+commit.7893614a", EVMVersion: "cancun",
				Optimization: true, OptimizerRuns: &runs, LicenseType: "mit", ABI: "[]", FilePath: name + ".sol",
				SourceCode: "contract " + name + " {}", Settings: "{}", Metadata: "{}", DeployedCode: code,
				CodeHash: crypto.Keccak256Hash(code), FullMatch: true, VerifiedAt: at,
				Sources: []explorer.SourceFile{{Path: "b.sol", Content: "B"}, {Path: "a.sol", Content: "A 100%_"}},
			}
		}
		tok := mk(alice, "EmberToken", []byte{1, 2, 3}, 1000)
		tok.ConstructorArgs = []byte{0, 7}
		if err := s.SaveVerifiedContract(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveVerifiedContract(ctx, mk(bob, "Proxy_100%", []byte{4}, 2000)); err != nil {
			t.Fatal(err)
		}
		got, err := s.VerifiedContract(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "EmberToken" || got.ID != 1 || *got.OptimizerRuns != 200 || !got.FullMatch || string(got.ConstructorArgs) != "\x00\x07" ||
			got.CreationCode != nil || len(got.Sources) != 2 || got.Sources[0].Path != "a.sol" || got.Sources[0].Content != "A 100%_" ||
			got.CodeHash != crypto.Keccak256Hash([]byte{1, 2, 3}) || got.Address != alice {
			t.Fatalf("read back: %+v", got)
		}
		if _, err := s.VerifiedContract(ctx, miner); !errors.Is(err, explorer.ErrNotFound) {
			t.Fatalf("unverified: %v", err)
		}
		twin, err := s.VerifiedTwin(ctx, crypto.Keccak256Hash([]byte{4}))
		if err != nil || twin.Address != bob {
			t.Fatalf("twin: %v %v", twin, err)
		}
		list := func(q, lang string, before int64) []string {
			l, err := s.VerifiedContracts(ctx, q, lang, before, 50)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range l {
				names = append(names, c.Name)
			}
			return names
		}
		if n := list("", "", 0); len(n) != 2 || n[0] != "Proxy_100%" || n[1] != "EmberToken" {
			t.Fatalf("list: %v", n)
		}
		if n := list("token", "", 0); len(n) != 1 || n[0] != "EmberToken" {
			t.Fatalf("q=token: %v", n)
		}
		if n := list("_100%", "", 0); len(n) != 1 || n[0] != "Proxy_100%" { // wildcards are literal
			t.Fatalf("q=_100%%: %v", n)
		}
		if n := list("y_1", "", 0); len(n) != 1 {
			t.Fatalf("q=y_1: %v", n)
		}
		if n := list("", "vyper", 0); len(n) != 0 {
			t.Fatalf("vyper: %v", n)
		}
		if n := list("", "solidity", 2); len(n) != 1 || n[0] != "EmberToken" {
			t.Fatalf("before 2: %v", n)
		}
		// Verifying again replaces the row (and its sources) with a new id.
		again := mk(alice, "EmberToken", []byte{1, 2, 3}, 3000)
		again.Sources = nil
		if err := s.SaveVerifiedContract(ctx, again); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.VerifiedContract(ctx, alice); got.ID != 3 || len(got.Sources) != 0 || got.VerifiedAt != 3000 {
			t.Fatalf("replaced: %+v", got)
		}
		abis, err := s.ContractABIs(ctx, []common.Address{alice, miner, alice})
		if err != nil || len(abis) != 1 || abis[alice].Name != "EmberToken" || abis[alice].ABI != "[]" {
			t.Fatalf("abis: %v %v", abis, err)
		}
		counts, err := s.ContractCounts(ctx, 2500)
		if err != nil || counts.Verified != 2 || counts.NewVerified != 1 || counts.Contracts != 0 {
			t.Fatalf("counts: %+v %v", counts, err)
		}
	})
}
