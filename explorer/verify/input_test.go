package verify

import (
	"context"
	"errors"
	"testing"

	"github.com/emberchain/ember/contracts"
)

// refusal requires err to be a Refusal reading want.
func refusal(t *testing.T, what string, err error, want string) {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != want {
		t.Errorf("%s: %v, want the refusal %q", what, err, want)
	}
}

// TestTarget finds the file declaring the named contract, or says why not.
func TestTarget(t *testing.T) {
	src := map[string]string{
		"a/A.sol": "contract A {}\nabstract contract Base {}",
		"b/B.sol": "library B {}\ncontract A2 {}",
		"c/C.sol": "contract A {}",
	}
	for _, c := range []struct{ name, file, contract, refusal string }{
		{"Base", "a/A.sol", "Base", ""},
		{"B", "b/B.sol", "B", ""},
		{"b/B.sol:A2", "b/B.sol", "A2", ""},
		{"A", "", "", "contract A is declared in a/A.sol, c/C.sol: name one as path:A"},
		{"c/C.sol:A", "c/C.sol", "A", ""},
		{"Nothing", "", "", "no source declares contract Nothing"},
		{"d/D.sol:D", "", "", `contract_name "d/D.sol:D": no source d/D.sol`},
		{"", "", "", "contract_name is required"},
	} {
		file, contract, err := target(src, c.name)
		if c.refusal != "" {
			refusal(t, c.name, err, c.refusal)
			continue
		}
		if err != nil || file != c.file || contract != c.contract {
			t.Errorf("%q: %s %s %v, want %s %s", c.name, file, contract, err, c.file, c.contract)
		}
	}
}

// TestInputsRefused: what cannot be compiled is refused before any
// compiler runs, and without a compiler nothing is.
func TestInputsRefused(t *testing.T) {
	ctx := context.Background()
	tr := contracts.MustLoad("Tracee")
	code := tr.DeployedBytecode
	_, err := VerifyStandardInput(ctx, nil, "v0.8.28+commit.7893614a", code, nil, []byte("{"), "Tracee")
	refusal(t, "not JSON", err, "the standard-JSON input is not JSON: unexpected end of JSON input")
	_, err = VerifyStandardInput(ctx, nil, "v0.8.28+commit.7893614a", code, nil, []byte(`{"language":"Vyper","sources":{"a.vy":{"content":""}}}`), "a")
	refusal(t, "Vyper", err, `language "Vyper": only Solidity is verified`)
	_, err = VerifyStandardInput(ctx, nil, "v0.8.28+commit.7893614a", code, nil, []byte(`{"sources":{"T.sol":{"urls":["ipfs://x"]}}}`), "T")
	refusal(t, "urls", err, "source T.sol has no content (urls are not fetched)")
	_, err = VerifyStandardInput(ctx, nil, "v0.8.28+commit.7893614a", code, nil, []byte(`{"sources":{"T.sol":{"content":"contract Tracee {}"}}}`), "Tracee")
	refusal(t, "no compiler", err, "this verification compiles the sources, and the explorer has no compiler configured ([explorer] solc)")
	_, err = VerifyFlattened(ctx, nil, code, nil, &Flattened{Source: tr.Sources["Tracee.sol"], ContractName: "Tracee.sol"})
	refusal(t, "bad name", err, `contract_name "Tracee.sol" is not a Solidity identifier`)
	_, err = VerifyFlattened(ctx, nil, code, nil, &Flattened{Source: " \n", ContractName: "Tracee"})
	refusal(t, "empty", err, "source_code is empty")
	_, err = VerifyFlattened(ctx, nil, code, nil, &Flattened{Source: tr.Sources["Tracee.sol"], ContractName: "Other"})
	refusal(t, "undeclared", err, "no source declares contract Other")
}

// TestVerifyFlattened compiles Tracee.sol as one file with its settings:
// the deployed code, trailer included (a full match), licensed MIT by its
// SPDX line; another version or other settings are refused.
func TestVerifyFlattened(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with solc-js: skipped with -short")
	}
	c := solcjs(t)
	tr := contracts.MustLoad("Tracee")
	f := &Flattened{CompilerVersion: "v0.8.28+commit.7893614a", Source: tr.Sources["Tracee.sol"], ContractName: "Tracee",
		Optimization: true, Runs: 200, EVMVersion: "cancun"}
	vc, err := VerifyFlattened(context.Background(), c, tr.DeployedBytecode, tr.Bytecode, f)
	if err != nil {
		t.Fatal(err)
	}
	if !vc.FullMatch || vc.Name != "Tracee" || vc.FilePath != "Tracee.sol" || vc.LicenseType != "mit" || vc.EVMVersion != "cancun" ||
		!vc.Optimization || vc.OptimizerRuns == nil || *vc.OptimizerRuns != 200 || len(vc.ConstructorArgs) != 0 {
		t.Fatalf("flattened: %+v", vc)
	}
	f.CompilerVersion = "0.8.27+commit.40a35a09"
	_, err = VerifyFlattened(context.Background(), c, tr.DeployedBytecode, tr.Bytecode, f)
	refusal(t, "other version", err, "the request names compiler 0.8.27+commit.40a35a09, but the configured compiler is 0.8.28+commit.7893614a")
	f.CompilerVersion, f.Runs = "v0.8.28+commit.7893614a", 1
	_, err = VerifyFlattened(context.Background(), c, tr.DeployedBytecode, tr.Bytecode, f)
	refusal(t, "other runs", err, "the sources compiled with solc 0.8.28+commit.7893614a do not produce the deployed bytecode")
}
