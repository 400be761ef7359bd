package verify

import (
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emberchain/ember/contracts"
)

// solcjs is the pinned solc-js CLI `make contracts` installs (it takes
// --standard-json like solc).
func solcjs(t *testing.T) *Compiler {
	p, _ := filepath.Abs("../../contracts/node_modules/.bin/solcjs")
	if _, err := os.Stat(p); err != nil {
		t.Skip("solc-js not installed (make contracts)")
	}
	return &Compiler{Path: p}
}

// TestPartialMatch changes a comment of EmberToken.sol: the metadata hash no
// longer matches (refused without a compiler), but compiled with solc the
// code without the trailer is the deployed code — a partial match.
func TestPartialMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles OpenZeppelin twice with solc-js: skipped with -short")
	}
	c := solcjs(t)
	tok := contracts.MustLoad("EmberToken")
	creation, _ := tok.DeployData(big.NewInt(99))
	f := files(tok)
	f["EmberToken.sol"] = []byte(strings.Replace(tok.Sources["EmberToken.sol"], "A plain OpenZeppelin ERC-20", "A plain OpenZeppelin ERC20", 1))
	var r *Refusal
	if _, err := Verify(tok.DeployedBytecode, creation, f); !errors.As(err, &r) {
		t.Fatalf("without a compiler: %v", err)
	}
	vc, err := VerifyCompiling(context.Background(), c, tok.DeployedBytecode, creation, f)
	if err != nil {
		t.Fatal(err)
	}
	if vc.FullMatch || vc.Name != "EmberToken" || vc.SourceCode != string(f["EmberToken.sol"]) || new(big.Int).SetBytes(vc.ConstructorArgs).Int64() != 99 ||
		vc.CompilerVersion != "v0.8.28+commit.7893614a" || len(vc.Sources) != len(tok.Sources)-1 || !strings.Contains(vc.ABI, `"transfer"`) {
		t.Fatalf("partial: %+v", vc)
	}
	// Code that is something else entirely stays refused.
	nft := contracts.MustLoad("EmberNFT")
	if _, err := VerifyCompiling(context.Background(), c, nft.DeployedBytecode, nil, f); !errors.As(err, &r) || !strings.Contains(r.Reason, "do not produce the deployed bytecode") {
		t.Fatalf("other code: %v", err)
	}
}

// TestCompilingRefusesUnreadableSettings: metadata settings that are JSON
// but not of the shape the record shows (an optimizer's "enabled" that is
// not a boolean) are refused before anything is compiled, not recorded as
// optimizer off.
func TestCompilingRefusesUnreadableSettings(t *testing.T) {
	// A stand-in for solc that only knows its version: nothing gets as far
	// as compiling.
	fake := filepath.Join(t.TempDir(), "solc")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'solc, the solidity compiler commandline interface'\necho 'Version: 0.8.28+commit.7893614a.Linux.g++'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tok := contracts.MustLoad("EmberToken")
	f := files(tok)
	meta := strings.Replace(tok.Metadata, `"enabled":true`, `"enabled":"yes"`, 1)
	if meta == tok.Metadata {
		t.Fatal(`EmberToken's metadata has no "enabled":true to change`)
	}
	f["metadata.json"] = []byte(meta)
	_, err := VerifyCompiling(context.Background(), &Compiler{Path: fake}, tok.DeployedBytecode, nil, f)
	var r *Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "metadata settings: json: cannot unmarshal string") {
		t.Fatalf("got %v, want a refusal of the metadata settings", err)
	}
}
