package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"mime/multipart"
	"os"
	"path/filepath"
	"testing"

	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/node/config"
)

// TestExplorerVerifyInputs verifies contracts as Blockscout's other forms
// send them, with [explorer] solc set (the pinned solc-js): EmberToken from
// solc's standard-JSON input built from its metadata (language, sources,
// settings), Tracee from its single source file and compiler settings
// (flattened code). Both compile to the deployed code, metadata trailer
// included: full matches. A request naming another compiler version and
// settings that compile to other code are refused with the reason, and
// leave the contract unverified.
func TestExplorerVerifyInputs(t *testing.T) {
	t.Parallel()
	npmInstall(t, "../../contracts")
	solc, _ := filepath.Abs("../../contracts/node_modules/.bin/solcjs")
	if _, err := os.Stat(solc); err != nil {
		t.Fatalf("solc-js CLI missing after npm install in contracts/: %v", err)
	}
	n := StartDev(t, "--explorer.enable")
	cfg, err := config.Load(n.Home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Explorer.Enable, cfg.Explorer.Solc = true, solc
	if err := config.Write(n.Home, cfg); err != nil {
		t.Fatal(err)
	}
	n.Stop()
	n.Start("start")

	tok, tracee := contracts.MustLoad("EmberToken"), contracts.MustLoad("Tracee")
	token := n.deploy(t, devKeys[8], tok, big.NewInt(1000))
	traceeAt := n.deploy(t, devKeys[8], tracee)
	n.waitIndexed(t, n.settledHead(t, nil))

	var meta struct {
		Compiler struct {
			Version string `json:"version"`
		} `json:"compiler"`
		Language string         `json:"language"`
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal([]byte(tok.Metadata), &meta); err != nil {
		t.Fatal(err)
	}
	version := "v" + meta.Compiler.Version
	delete(meta.Settings, "compilationTarget")
	sources := map[string]any{}
	for p, s := range tok.Sources {
		sources[p] = map[string]string{"content": s}
	}
	input, _ := json.Marshal(map[string]any{"language": meta.Language, "sources": sources, "settings": meta.Settings})
	standard := func(version, name string) (int, string) {
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		w.WriteField("compiler_version", version)
		w.WriteField("contract_name", name)
		part, _ := w.CreateFormFile("files[0]", "input.json")
		part.Write(input)
		w.Close()
		return n.explorerPost(t, "/api/v2/smart-contracts/"+token.Hex()+"/verification/via/standard-input", w.FormDataContentType(), body.Bytes())
	}
	flattened := func(req map[string]any) (int, string) {
		b, _ := json.Marshal(req)
		return n.explorerPost(t, "/api/v2/smart-contracts/"+traceeAt.Hex()+"/verification/via/flattened-code", "application/json", b)
	}
	unverified := func(what string) {
		t.Helper()
		var sc struct {
			Verified *bool `json:"is_verified"`
		}
		n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/"+token.Hex(), &sc)
		if sc.Verified == nil || *sc.Verified {
			t.Errorf("%s: the token's is_verified is %v after a refusal", what, sc.Verified)
		}
	}

	// Refusals first: nothing is recorded.
	if status, body := standard("v0.8.27+commit.40a35a09", "EmberToken"); status != 422 ||
		body != `{"message":"Verification failed: the request names compiler v0.8.27+commit.40a35a09, but the configured compiler is `+meta.Compiler.Version+`"}` {
		t.Fatalf("other version: %d %s", status, body)
	}
	unverified("other version")
	if status, body := standard(version, "Nothing"); status != 422 || body != `{"message":"Verification failed: no source declares contract Nothing"}` {
		t.Fatalf("unknown contract: %d %s", status, body)
	}
	unverified("unknown contract")

	if status, body := standard(version, "EmberToken"); status != 200 ||
		body != `{"address_hash":"`+token.Hex()+`","message":"Smart-contract verified: full match","name":"EmberToken"}` {
		t.Fatalf("standard input: %d %s", status, body)
	}
	var sc struct {
		Verified bool   `json:"is_fully_verified"`
		Name     string `json:"name"`
		Compiler string `json:"compiler_version"`
		FilePath string `json:"file_path"`
		Source   string `json:"source_code"`
		Args     string `json:"constructor_args"`
	}
	n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/"+token.Hex(), &sc)
	if !sc.Verified || sc.Name != "EmberToken" || sc.Compiler != version || sc.Source != tok.Sources[sc.FilePath] ||
		sc.Args != "0x"+common32(1000) {
		t.Errorf("standard input record: %+v", sc)
	}

	// Flattened: Tracee.sol as one file, its compiler settings.
	req := map[string]any{"compiler_version": version, "source_code": tracee.Sources["Tracee.sol"], "contract_name": "Tracee",
		"is_optimization_enabled": false, "evm_version": "cancun"}
	if status, body := flattened(req); status != 422 ||
		body != `{"message":"Verification failed: the sources compiled with solc `+meta.Compiler.Version+` do not produce the deployed bytecode"}` {
		t.Fatalf("optimizer off: %d %s", status, body)
	}
	req["is_optimization_enabled"], req["optimization_runs"] = true, 200
	if status, body := flattened(req); status != 200 ||
		body != `{"address_hash":"`+traceeAt.Hex()+`","message":"Smart-contract verified: full match","name":"Tracee"}` {
		t.Fatalf("flattened: %d %s", status, body)
	}
	n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/"+traceeAt.Hex(), &sc)
	if !sc.Verified || sc.Name != "Tracee" || sc.FilePath != "Tracee.sol" || sc.Source != tracee.Sources["Tracee.sol"] {
		t.Errorf("flattened record: %+v", sc)
	}
}

// common32 is v as a 32-byte big-endian word in hex (an ABI uint256).
func common32(v int64) string { return fmt.Sprintf("%064x", v) }
