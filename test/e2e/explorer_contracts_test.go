package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/node/config"
)

// contractSchemaFixes corrects the YAML where Blockscout's backend (the
// spec generated from 11.2.7, testdata/) and blockscout-fields.md
// say otherwise: every SmartContract field may be null (an unverified
// contract has no name, ABI or sources; a contract without constructor
// arguments has none), abi is the ABI array itself, decoded constructor
// arguments are [value, {internalType, name, type}] pairs, and a summary's
// variables are any names mapping to {type, value} ("{ name: {type, value} }"
// in blockscout-fields.md) rather than always action_type/amount/token.
// It runs at init, as the other files' corrections do: a test that set them
// while parallel tests read the maps would race.
func init() { contractSchemaFixes() }

func contractSchemaFixes() {
	specNullable["SmartContract"] = []string{"verified_twin_address_hash", "name", "optimization_enabled", "optimizations_runs",
		"compiler_version", "evm_version", "verified_at", "license_type", "source_code", "file_path", "compiler_settings",
		"constructor_args", "decoded_constructor_args", "deployed_bytecode", "creation_bytecode", "language", "sourcify_repo_url"}
	specTypes["SmartContract"] = map[string]any{
		"abi": map[string]any{"type": "array", "nullable": true, "items": map[string]any{"type": "object"}},
		"decoded_constructor_args": map[string]any{"type": "array", "nullable": true,
			"items": map[string]any{"type": "array", "minItems": 2, "maxItems": 2}},
	}
	specTypes["Summary"] = map[string]any{
		"summary_template_variables": map[string]any{"type": "object", "additionalProperties": map[string]any{
			"type": "object", "required": []any{"type", "value"},
			"properties": map[string]any{"type": map[string]any{"type": "string"}},
		}},
	}
}

// clone is the creation code of an EIP-1167 minimal proxy to impl.
func cloneCode(impl common.Address) []byte {
	runtime := append(append(common.FromHex("363d3d373d3d3d363d73"), impl[:]...), common.FromHex("5af43d82803e903d91602b57fd5bf3")...)
	return append(common.FromHex("3d602d80600a3d3981f3"), runtime...)
}

// verifyMultipart posts files as Blockscout's form does (files[0], …).
func (n *Node) verifyMultipart(t *testing.T, addr common.Address, files map[string]string) (int, string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		filename, _, _ := strings.Cut(name, "@")
		part, err := w.CreateFormFile(fmt.Sprintf("files[%d]", i), filename)
		if err != nil {
			t.Fatal(err)
		}
		part.Write([]byte(files[name]))
	}
	w.Close()
	return n.explorerPost(t, "/api/v2/smart-contracts/"+addr.Hex()+"/verification/via/sourcify-metadata", w.FormDataContentType(), body.Bytes())
}

func (n *Node) explorerPost(t *testing.T, path, contentType string, body []byte) (int, string) {
	t.Helper()
	resp, err := http.Post("http://"+n.Explorer+path, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// artifactFiles are a contract's metadata and sources as solc wrote them.
func artifactFiles(c *contracts.Contract) map[string]string {
	files := map[string]string{"metadata.json": c.Metadata}
	for p, s := range c.Sources {
		files[p[strings.LastIndex(p, "/")+1:]+"@"+fmt.Sprint(len(files))] = s // base names, as a browser uploads them
	}
	return files
}

// TestExplorerContracts verifies a solc-js-compiled token from its metadata
// (full match; a tampered source and another contract's metadata refused),
// resolves an EIP-1167 clone, an EIP-1967 proxy and a beacon proxy of it,
// and checks decoded inputs and logs, method names and transaction
// summaries against the exact values sent, every response validated
// against the Blockscout schema.
func TestExplorerContracts(t *testing.T) {
	t.Parallel()
	testExplorerContracts(t)
}

// TestExplorerContractsPostgres runs the same on a PostgreSQL store.
func TestExplorerContractsPostgres(t *testing.T) {
	t.Parallel()
	testExplorerContracts(t, "--explorer.db", pgDSN(t))
}

func testExplorerContracts(t *testing.T, extra ...string) {
	n := StartDev(t, append([]string{"--explorer.enable"}, extra...)...)
	s := loadBlockscoutSchemas(t)
	owner, user := devKeys[8], devKeys[9]

	deploy := func(data []byte) (*types.Transaction, common.Address) {
		tx := n.send(t, owner.Private, txOpts{Gas: 5_000_000, Data: data})
		r := n.WaitReceipt(t, tx.Hash())
		if r.Status != 1 {
			t.Fatalf("deploy %s failed (gas used %d of %d, %d bytes of code)", tx.Hash(), r.GasUsed, tx.Gas(), len(data))
		}
		return tx, r.ContractAddress
	}
	tok := contracts.MustLoad("EmberToken")
	supply := new(big.Int).Mul(big.NewInt(1_000_000), ether(1))
	tokData, _ := tok.DeployData(supply)
	tokDeploy, token := deploy(tokData)
	_, twin := deploy(tokData) // same code, never verified: decoded with the built-in table
	_, clone := deploy(cloneCode(token))
	proxyData, _ := contracts.MustLoad("EmberProxy").DeployData(token)
	_, proxy := deploy(proxyData)
	beaconData, _ := contracts.MustLoad("EmberBeacon").DeployData(token)
	_, beacon := deploy(beaconData)
	bpData, _ := contracts.MustLoad("EmberBeaconProxy").DeployData(beacon)
	_, beaconProxy := deploy(bpData)

	recipient := common.BytesToAddress(crypto.Keccak256([]byte("contracts-recipient"))[:20])
	spender := common.BytesToAddress(crypto.Keccak256([]byte("contracts-spender"))[:20])
	amount := new(big.Int).Div(new(big.Int).Mul(big.NewInt(3), ether(1)), big.NewInt(2)) // 1.5 tokens
	call := func(to common.Address, method string, args ...any) *types.Transaction {
		data, err := tok.ABI.Pack(method, args...)
		if err != nil {
			t.Fatal(err)
		}
		tx := n.send(t, owner.Private, txOpts{To: &to, Gas: 200_000, Data: data})
		n.WaitReceipt(t, tx.Hash())
		return tx
	}
	transfer := call(token, "transfer", recipient, amount)
	twinTransfer := call(twin, "transfer", recipient, big.NewInt(777))
	approve := call(token, "approve", spender, new(big.Int).Mul(big.NewInt(25), big.NewInt(1e17))) // 2.5 tokens
	viewCall := call(token, "totalSupply")
	native := n.send(t, user.Private, txOpts{To: &recipient, Value: new(big.Int).Div(ether(5), big.NewInt(4))}) // 1.25
	last := n.WaitReceipt(t, native.Hash()).BlockNumber.Uint64()
	n.waitIndexed(t, last)

	t.Run("verify", func(t *testing.T) {
		// Another contract's metadata (and sources) for the token's code.
		if status, body := n.verifyMultipart(t, token, artifactFiles(contracts.MustLoad("EmberNFT"))); status != 422 ||
			!strings.Contains(body, "the metadata does not match the deployed bytecode") {
			t.Fatalf("other metadata: %d %s", status, body)
		}
		// One byte of a source changed.
		files := artifactFiles(tok)
		for k, v := range files {
			if strings.HasPrefix(k, "EmberToken.sol") {
				files[k] = strings.Replace(v, "EMB", "EMC", 1)
			}
		}
		if status, body := n.verifyMultipart(t, token, files); status != 422 || !strings.Contains(body, "source EmberToken.sol was modified") {
			t.Fatalf("tampered: %d %s", status, body)
		}
		// Not a contract, malformed requests.
		if status, body := n.verifyMultipart(t, recipient, artifactFiles(tok)); status != 422 || !strings.Contains(body, "not a smart-contract") {
			t.Fatalf("EOA: %d %s", status, body)
		}
		if status, body := n.explorerPost(t, "/api/v2/smart-contracts/"+token.Hex()+"/verification/via/sourcify-metadata", "text/plain", []byte("x")); status != 422 {
			t.Fatalf("text body: %d %s", status, body)
		}
		if status, body := n.explorerPost(t, "/api/v2/smart-contracts/"+token.Hex()+"/verification/via/sourcify-metadata", "application/json", []byte("{")); status != 422 {
			t.Fatalf("bad JSON: %d %s", status, body)
		}
		if status, _ := n.explorerGet(t, "/api/v2/smart-contracts/"+token.Hex()); status != 200 {
			t.Fatalf("unverified contract: %d", status)
		}
		// The real thing: multipart for the token, JSON for the proxy.
		if status, body := n.verifyMultipart(t, token, artifactFiles(tok)); status != 200 || !strings.Contains(body, "full match") {
			t.Fatalf("verify: %d %s", status, body)
		}
		p := contracts.MustLoad("EmberProxy")
		jsonBody, _ := json.Marshal(map[string]any{"files": artifactFiles(p)})
		if status, body := n.explorerPost(t, "/api/v2/smart-contracts/"+proxy.Hex()+"/verification/via/sourcify-metadata", "application/json", jsonBody); status != 200 {
			t.Fatalf("verify proxy: %d %s", status, body)
		}
	})

	t.Run("smart-contract", func(t *testing.T) {
		var sc map[string]any
		n.explorerJSON(t, s, "SmartContract", "/api/v2/smart-contracts/"+token.Hex(), &sc)
		ctorArgs, _ := tok.ABI.Pack("", supply)
		abiLen := len(tok.ABI.Methods) + len(tok.ABI.Events) + len(tok.ABI.Errors) + 1 // + constructor
		want := map[string]any{
			"is_verified": true, "is_fully_verified": true, "is_partially_verified": false, "name": "EmberToken",
			"compiler_version": "v0.8.28+commit.7893614a", "evm_version": "cancun", "optimization_enabled": true,
			"optimizations_runs": 200.0, "optimization_runs": 200.0, "language": "solidity", "license_type": "mit",
			"file_path": "EmberToken.sol", "source_code": tok.Sources["EmberToken.sol"], "constructor_args": hexutil.Encode(ctorArgs),
			"deployed_bytecode": hexutil.Encode(tok.DeployedBytecode), "creation_bytecode": hexutil.Encode(tokData),
			"proxy_type": nil, "verified_twin_address_hash": nil, "has_constructor_args": true,
		}
		for k, v := range want {
			if fmt.Sprint(sc[k]) != fmt.Sprint(v) {
				t.Errorf("%s = %v, want %v", k, sc[k], v)
			}
		}
		if abi, _ := sc["abi"].([]any); len(abi) != abiLen {
			t.Errorf("abi has %d entries, want %d", len(abi), abiLen)
		}
		srcs, _ := sc["additional_sources"].([]any)
		if len(srcs) != len(tok.Sources)-1 {
			t.Fatalf("%d additional sources, want %d", len(srcs), len(tok.Sources)-1)
		}
		for _, x := range srcs {
			f := x.(map[string]any)
			if tok.Sources[f["file_path"].(string)] != f["source_code"] {
				t.Errorf("source %s differs", f["file_path"])
			}
		}
		if got := fmt.Sprint(sc["decoded_constructor_args"]); got != fmt.Sprintf("[[%s map[internalType:uint256 name:supply type:uint256]]]", supply) {
			t.Errorf("decoded_constructor_args %s", got)
		}
		if cs, _ := sc["compiler_settings"].(map[string]any); fmt.Sprint(cs["compilationTarget"]) != "map[EmberToken.sol:EmberToken]" {
			t.Errorf("compiler_settings %v", sc["compiler_settings"])
		}
		// The twin (same code, not verified) points at the token.
		n.explorerJSON(t, s, "SmartContract", "/api/v2/smart-contracts/"+twin.Hex(), &sc)
		if sc["is_verified"] != false || sc["verified_twin_address_hash"] != token.Hex() || sc["name"] != "EmberToken" {
			t.Errorf("twin: verified %v twin %v name %v", sc["is_verified"], sc["verified_twin_address_hash"], sc["name"])
		}
		if status, body := n.explorerGet(t, "/api/v2/smart-contracts/"+recipient.Hex()); status != 404 || string(body) != `{"message":"Not found"}` {
			t.Errorf("EOA: %d %s", status, body)
		}
		if status, _ := n.explorerGet(t, "/api/v2/smart-contracts/0x12"); status != 422 {
			t.Errorf("bad address: %d", status)
		}
	})

	t.Run("list", func(t *testing.T) {
		all := n.followPages(t, s, "SmartContractForList", "/api/v2/smart-contracts")
		if len(all) != 2 || addrOf(all[0]["address"]) != proxy.Hex() || addrOf(all[1]["address"]) != token.Hex() {
			t.Fatalf("list: %v", all)
		}
		if all[1]["compiler_version"] != "v0.8.28+commit.7893614a" || all[1]["has_constructor_args"] != true || all[0]["has_constructor_args"] != true ||
			all[1]["optimization_enabled"] != true || all[1]["language"] != "solidity" || all[1]["address"].(map[string]any)["name"] != "EmberToken" {
			t.Errorf("token item: %v", all[1])
		}
		for q, wantN := range map[string]int{"token": 1, "EMBER": 2, "proxy": 1, "nope": 0} {
			got := n.followPages(t, s, "SmartContractForList", "/api/v2/smart-contracts?q="+q)
			if len(got) != wantN || (q == "token" && addrOf(got[0]["address"]) != token.Hex()) {
				t.Errorf("q=%s: %d items", q, len(got))
			}
		}
		if got := n.followPages(t, s, "SmartContractForList", "/api/v2/smart-contracts?filter=vyper"); len(got) != 0 {
			t.Errorf("vyper: %d", len(got))
		}
		if status, _ := n.explorerGet(t, "/api/v2/smart-contracts?filter=cobol"); status != 422 {
			t.Errorf("bad filter: %d", status)
		}
		var counters map[string]string
		n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/counters", &counters)
		validatePath(t, s, "/smart-contracts/counters", counters)
		if counters["verified_smart_contracts"] != "2" || counters["new_verified_smart_contracts_24h"] != "2" ||
			counters["smart_contracts"] != "6" || counters["new_smart_contracts_24h"] != "6" {
			t.Errorf("counters %v", counters)
		}
	})

	t.Run("proxies", func(t *testing.T) {
		for _, c := range []struct {
			addr common.Address
			typ  string
		}{{clone, "eip1167"}, {proxy, "eip1967"}, {beaconProxy, "eip1967_beacon"}} {
			var a map[string]any
			n.explorerJSON(t, s, "Address", "/api/v2/addresses/"+c.addr.Hex(), &a)
			impl := fmt.Sprintf("[map[address_hash:%s name:EmberToken]]", token.Hex())
			if a["proxy_type"] != c.typ || fmt.Sprint(a["implementations"]) != impl || a["implementation_name"] != "EmberToken" {
				t.Errorf("address %s: proxy_type %v implementations %v implementation_name %v", c.typ, a["proxy_type"], a["implementations"], a["implementation_name"])
			}
			var sc map[string]any
			n.explorerJSON(t, s, "SmartContract", "/api/v2/smart-contracts/"+c.addr.Hex(), &sc)
			if sc["proxy_type"] != c.typ || fmt.Sprint(sc["implementations"]) != impl {
				t.Errorf("smart-contract %s: %v %v", c.typ, sc["proxy_type"], sc["implementations"])
			}
		}
		var a map[string]any
		n.explorerJSON(t, s, "Address", "/api/v2/addresses/"+token.Hex(), &a)
		if a["proxy_type"] != nil || a["is_verified"] != true || a["name"] != "EmberToken" || len(a["implementations"].([]any)) != 0 {
			t.Errorf("token address: %v %v %v", a["proxy_type"], a["is_verified"], a["name"])
		}
		// Methods: the token's own, and the implementation's through the proxy (read at the proxy's storage).
		var reads, writes []map[string]any
		n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/"+token.Hex()+"/methods-read", &reads)
		n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/"+token.Hex()+"/methods-write", &writes)
		values := map[string]string{}
		for _, m := range reads {
			if outs, _ := m["outputs"].([]any); len(outs) == 1 && len(m["inputs"].([]any)) == 0 {
				values[m["name"].(string)] = fmt.Sprint(outs[0].(map[string]any)["value"])
			}
		}
		// totalSupply is unchanged by transfers; balances are not read (they take inputs).
		if values["name"] != "Ember Token" || values["symbol"] != "EMB" || values["decimals"] != "18" || values["totalSupply"] != supply.String() || len(reads) != 6 {
			t.Errorf("methods-read: %d %v", len(reads), values)
		}
		ids := map[string]any{}
		for _, m := range writes {
			ids[m["name"].(string)] = m["method_id"]
		}
		if len(writes) != 3 || ids["transfer"] != "a9059cbb" || ids["approve"] != "095ea7b3" || ids["transferFrom"] != "23b872dd" {
			t.Errorf("methods-write: %v", ids)
		}
		n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/"+proxy.Hex()+"/methods-read-proxy", &reads)
		values = map[string]string{}
		for _, m := range reads {
			if outs, _ := m["outputs"].([]any); len(outs) == 1 && len(m["inputs"].([]any)) == 0 {
				values[m["name"].(string)] = fmt.Sprint(outs[0].(map[string]any)["value"])
			}
		}
		if len(reads) != 6 || values["totalSupply"] != "0" || values["decimals"] != "18" { // the proxy's own storage: nothing minted
			t.Errorf("methods-read-proxy: %d %v", len(reads), values)
		}
		n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/"+clone.Hex()+"/methods-read", &reads)
		if len(reads) != 0 {
			t.Errorf("unverified clone has %d read methods", len(reads))
		}
	})

	t.Run("decoding", func(t *testing.T) {
		var tx map[string]any
		n.explorerJSON(t, s, "Transaction", "/api/v2/transactions/"+transfer.Hash().Hex(), &tx)
		want := fmt.Sprintf("map[method_call:transfer(address to, uint256 value) method_id:a9059cbb parameters:[map[name:to type:address value:%s] map[name:value type:uint256 value:%s]]]", recipient.Hex(), amount)
		if got := fmt.Sprint(tx["decoded_input"]); got != want || tx["method"] != "transfer" {
			t.Errorf("verified transfer: method %v decoded %s", tx["method"], got)
		}
		if to := tx["to"].(map[string]any); to["is_verified"] != true || to["name"] != "EmberToken" {
			t.Errorf("to: %v", to)
		}
		n.explorerJSON(t, s, "Transaction", "/api/v2/transactions/"+twinTransfer.Hash().Hex(), &tx)
		want = fmt.Sprintf("map[method_call:transfer(address to, uint256 amount) method_id:a9059cbb parameters:[map[name:to type:address value:%s] map[name:amount type:uint256 value:777]]]", recipient.Hex())
		if got := fmt.Sprint(tx["decoded_input"]); got != want || tx["method"] != "transfer" {
			t.Errorf("unverified transfer: method %v decoded %s", tx["method"], got)
		}
		var logs explorerPage
		n.explorerJSON(t, s, "page:Log", "/api/v2/transactions/"+transfer.Hash().Hex()+"/logs", &logs)
		want = fmt.Sprintf("map[method_call:Transfer(address indexed from, address indexed to, uint256 value) method_id:ddf252ad parameters:[map[indexed:true name:from type:address value:%s] map[indexed:true name:to type:address value:%s] map[indexed:false name:value type:uint256 value:%s]]]",
			owner.Address.Hex(), recipient.Hex(), amount)
		if len(logs.Items) != 1 || fmt.Sprint(logs.Items[0]["decoded"]) != want {
			t.Errorf("log: %v", logs.Items)
		}
		// method in lists: the name, the selector when unknown, null for a deployment.
		items := n.followPages(t, s, "Transaction", "/api/v2/addresses/"+owner.Address.Hex()+"/transactions")
		methods := map[common.Hash]any{}
		for _, it := range items {
			methods[common.HexToHash(it["hash"].(string))] = it["method"]
		}
		for h, m := range map[common.Hash]any{transfer.Hash(): "transfer", twinTransfer.Hash(): "transfer", approve.Hash(): "approve",
			viewCall.Hash(): "totalSupply", tokDeploy.Hash(): nil} {
			if methods[h] != m {
				t.Errorf("method of %s: %v, want %v", h, methods[h], m)
			}
		}
		if len(items) != 10 { // 6 deployments, 4 calls
			t.Errorf("%d transactions of the owner, want 10", len(items))
		}
	})

	t.Run("summary", func(t *testing.T) {
		param := func(a common.Address) string { return a.Hex() }
		check := func(tx *types.Transaction, want string) {
			t.Helper()
			var sum map[string]any
			n.explorerJSON(t, s, "TransactionSummary", "/api/v2/transactions/"+tx.Hash().Hex()+"/summary", &sum)
			got := summaryText(sum)
			if got != want {
				t.Errorf("summary of %s:\n got %s\nwant %s", tx.Hash(), got, want)
			}
		}
		tokenVar := fmt.Sprintf("token{%s EMB Ember Token 18 ERC-20}", token.Hex())
		check(native, "Transfer 1.25 EMBER to "+param(recipient))
		check(transfer, "Transfer 1.5 "+tokenVar+" from "+param(owner.Address)+" to "+param(recipient))
		check(approve, "Approve "+param(spender)+" to spend 2.5 "+tokenVar)
		check(tokDeploy, "Deployed contract "+param(token)+" | Mint 1000000 "+tokenVar+" to "+param(owner.Address))
		check(viewCall, "Called method:totalSupply on "+param(token))
		if status, _ := n.explorerGet(t, "/api/v2/transactions/0x"+strings.Repeat("ab", 32)+"/summary"); status != 404 {
			t.Errorf("unknown tx: %d", status)
		}
	})
}

func addrOf(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["hash"].(string)
	return s
}

// summaryText fills each template with its variables: addresses by hash,
// tokens as token{address symbol name decimals type}, methods as method:name;
// summaries joined by " | ".
func summaryText(sum map[string]any) string {
	data, _ := sum["data"].(map[string]any)
	list, _ := data["summaries"].([]any)
	var out []string
	for _, x := range list {
		m := x.(map[string]any)
		text := m["summary_template"].(string)
		for name, v := range m["summary_template_variables"].(map[string]any) {
			vv := v.(map[string]any)
			var s string
			switch vv["type"] {
			case "address":
				s = vv["value"].(map[string]any)["hash"].(string)
			case "token":
				tk := vv["value"].(map[string]any)
				s = fmt.Sprintf("token{%v %v %v %v %v}", tk["address_hash"], tk["symbol"], tk["name"], tk["decimals"], tk["type"])
			case "method":
				s = "method:" + fmt.Sprint(vv["value"])
			default:
				s = fmt.Sprint(vv["value"])
			}
			text = strings.ReplaceAll(text, "{"+name+"}", s)
		}
		out = append(out, text)
	}
	if sum["success"] != true {
		out = append(out, "(success not true)")
	}
	return strings.Join(out, " | ")
}

// validatePath validates a decoded response against a path's 200 schema in
// the YAML.
func validatePath(t *testing.T, s *blockscoutSchemas, specPath string, v any) {
	t.Helper()
	body, _ := json.Marshal(v)
	pathValidator(t, s, specPath, nil)(t, specPath, body)
}

// TestExplorerContractsSolc configures [explorer] solc (the pinned solc-js
// CLI) and verifies EmberToken from a source whose comment changed: the
// metadata hash no longer matches, the compiled code without its trailer
// does — a partial match.
func TestExplorerContractsSolc(t *testing.T) {
	t.Parallel()
	npmInstall(t, "../../contracts") // the pinned solc-js, as `make contracts` installs it
	solc, _ := filepath.Abs("../../contracts/node_modules/.bin/solcjs")
	if _, err := os.Stat(solc); err != nil {
		t.Fatalf("solc-js CLI missing after npm install in contracts/: %v", err)
	}
	n := StartDev(t, "--explorer.enable")
	cfg, err := config.Load(n.Home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Explorer.Enable, cfg.Explorer.Solc = true, solc // `start` reads app.toml
	if err := config.Write(n.Home, cfg); err != nil {
		t.Fatal(err)
	}
	n.Stop()
	n.Start("start")
	s := loadBlockscoutSchemas(t)
	tok := contracts.MustLoad("EmberToken")
	data, _ := tok.DeployData(big.NewInt(1000))
	tx := n.send(t, devKeys[8].Private, txOpts{Gas: 3_000_000, Data: data})
	r := n.WaitReceipt(t, tx.Hash())
	n.waitIndexed(t, r.BlockNumber.Uint64())

	files := artifactFiles(tok)
	var changed string
	for k, v := range files {
		if strings.HasPrefix(k, "EmberToken.sol") {
			changed = strings.Replace(v, "A plain OpenZeppelin ERC-20", "A plain OpenZeppelin ERC20", 1)
			files[k] = changed
		}
	}
	if status, body := n.verifyMultipart(t, r.ContractAddress, files); status != 200 || !strings.Contains(body, "partial match") {
		t.Fatalf("verify: %d %s", status, body)
	}
	var sc map[string]any
	n.explorerJSON(t, s, "SmartContract", "/api/v2/smart-contracts/"+r.ContractAddress.Hex(), &sc)
	if sc["is_verified"] != true || sc["is_partially_verified"] != true || sc["is_fully_verified"] != false || sc["source_code"] != changed ||
		sc["constructor_args"] != hexutil.Encode(common.LeftPadBytes(big.NewInt(1000).Bytes(), 32)) {
		t.Fatalf("partial: verified %v partial %v full %v args %v", sc["is_verified"], sc["is_partially_verified"], sc["is_fully_verified"], sc["constructor_args"])
	}
	// Another contract's code stays refused, with the compiler's reason.
	nft := n.send(t, devKeys[8].Private, txOpts{Gas: 5_000_000, Data: contracts.MustLoad("EmberNFT").Bytecode})
	nr := n.WaitReceipt(t, nft.Hash())
	n.waitIndexed(t, nr.BlockNumber.Uint64())
	if status, body := n.verifyMultipart(t, nr.ContractAddress, files); status != 422 || !strings.Contains(body, "do not produce the deployed bytecode") {
		t.Fatalf("other code: %d %s", status, body)
	}
}
