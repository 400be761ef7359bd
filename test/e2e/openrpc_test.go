package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/emberchain/ember/contracts"
)

const openRPCPath = "testdata/execution-apis-openrpc.json"

// openRPC compiles result schemas out of the execution-apis document.
type openRPC struct {
	compiler *jsonschema.Compiler
	index    map[string]int // method name -> position in "methods"
	schemas  map[string]*jsonschema.Schema
}

func loadOpenRPC(t *testing.T) *openRPC {
	t.Helper()
	raw, err := os.ReadFile(openRPCPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var names struct {
		Methods []struct{ Name string } `json:"methods"`
	}
	if err := json.Unmarshal(raw, &names); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource("file:///openrpc.json", doc); err != nil {
		t.Fatal(err)
	}
	o := &openRPC{compiler: c, index: map[string]int{}, schemas: map[string]*jsonschema.Schema{}}
	for i, m := range names.Methods {
		o.index[m.Name] = i
	}
	return o
}

// validate checks one result against method's result schema.
func (o *openRPC) validate(t *testing.T, method string, result json.RawMessage) error {
	t.Helper()
	sch, ok := o.schemas[method]
	if !ok {
		i, inSpec := o.index[method]
		if !inSpec {
			t.Fatalf("%s is not in the OpenRPC document", method)
		}
		var err error
		if sch, err = o.compiler.Compile("file:///openrpc.json#/methods/" + itoa(i) + "/result/schema"); err != nil {
			t.Fatalf("compile %s result schema: %v", method, err)
		}
		o.schemas[method] = sch
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(result))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// TestOpenRPCConformance calls every method of the OpenRPC document that
// Ember serves, on a chain holding every transaction type Ember executes,
// contract creations, logs and reverts, and validates each answer (found and
// not-found cases) against the method's result schema with a JSON-schema
// validator. It then checks docs/json-rpc-conformance.md's conformance table says the same.
func TestOpenRPCConformance(t *testing.T) {
	t.Parallel()
	spec := loadOpenRPC(t)
	n := StartDev(t, "--empty-block-interval", "0")
	f := buildConformanceFixture(t, n)

	var validated []string
	check := func(method string, params ...any) json.RawMessage {
		t.Helper()
		var raw json.RawMessage
		if err := n.RPC.Call(&raw, method, params...); err != nil {
			t.Errorf("%s%v: %v", method, params, err)
			return nil
		}
		if err := spec.validate(t, method, raw); err != nil {
			t.Errorf("%s%v answer does not match the OpenRPC result schema:\n%s\n%v", method, params, raw, err)
			return raw
		}
		if !slices.Contains(validated, method) {
			validated = append(validated, method)
		}
		return raw
	}

	num := func(r *types.Receipt) string { return hexutil.EncodeBig(r.BlockNumber) }
	missingBlock, missingHash := "0xffffff", common.HexToHash("0xdead").Hex()

	check("net_version")
	for _, m := range []string{"eth_accounts", "eth_blockNumber", "eth_chainId", "eth_coinbase", "eth_gasPrice", "eth_maxPriorityFeePerGas", "eth_syncing"} {
		check(m)
	}
	check("eth_feeHistory", "0x4", "latest", []float64{25, 75})
	check("eth_feeHistory", "0x2", num(f.receipts[0]), []float64{})
	check("eth_getBalance", f.sender, "latest")
	check("eth_getBalance", f.sender, "0x1")
	check("eth_getTransactionCount", f.sender, "pending")
	check("eth_getCode", f.token, "latest")
	check("eth_getCode", f.sender, "latest")
	check("eth_getStorageAt", f.token, "0x2", "latest")
	check("eth_getStorageValues", map[common.Address][]string{f.token: {"0x2", f.balanceSlot.Hex()}, f.sender: {}}, "latest")
	check("eth_baseFee")
	check("eth_getProof", f.token, []string{f.balanceSlot.Hex(), "0x2"}, "latest")
	check("eth_getProof", common.HexToAddress("0x1234"), []string{}, num(f.receipts[0]))

	for _, r := range f.receipts {
		for _, full := range []bool{false, true} {
			check("eth_getBlockByNumber", num(r), full)
			check("eth_getBlockByHash", r.BlockHash, full)
		}
		check("eth_getBlockTransactionCountByNumber", num(r))
		check("eth_getBlockTransactionCountByHash", r.BlockHash)
		check("eth_getBlockReceipts", num(r))
		check("eth_getTransactionByHash", r.TxHash)
		check("eth_getTransactionByBlockHashAndIndex", r.BlockHash, hexutil.Uint(r.TransactionIndex))
		check("eth_getTransactionByBlockNumberAndIndex", num(r), hexutil.Uint(r.TransactionIndex))
		check("eth_getTransactionReceipt", r.TxHash)
	}
	check("eth_getBlockByNumber", "earliest", false)
	check("eth_getBlockByNumber", "latest", true)
	for _, tag := range []string{"safe", "finalized", "pending"} {
		check("eth_getBlockByNumber", tag, false)
	}
	// Not found: null is in every one of these schemas.
	check("eth_getBlockByNumber", missingBlock, false)
	check("eth_getBlockByHash", missingHash, false)
	check("eth_getBlockTransactionCountByNumber", missingBlock)
	check("eth_getBlockTransactionCountByHash", missingHash)
	check("eth_getBlockReceipts", missingBlock)
	check("eth_getTransactionByHash", missingHash)
	check("eth_getTransactionByBlockNumberAndIndex", num(f.receipts[0]), "0x99")
	check("eth_getTransactionReceipt", missingHash)

	balanceOf := map[string]any{"to": f.token, "input": f.balanceOfInput}
	check("eth_call", balanceOf, "latest")
	check("eth_call", balanceOf, map[string]any{"blockHash": f.receipts[len(f.receipts)-1].BlockHash, "requireCanonical": true})
	check("eth_estimateGas", map[string]any{"from": f.sender, "to": f.token, "input": f.transferInput})
	check("eth_createAccessList", map[string]any{"from": f.sender, "to": f.token, "input": f.transferInput}, "latest")
	// eth_simulateV1: a token transfer and a traced ether transfer, then a
	// gap-filled block with a revert; with tx hashes and with full txs.
	for _, full := range []bool{false, true} {
		check("eth_simulateV1", map[string]any{"traceTransfers": true, "returnFullTransactions": full, "blockStateCalls": []any{
			map[string]any{"calls": []any{
				map[string]any{"from": f.sender, "to": f.token, "input": f.transferInput},
				map[string]any{"from": f.sender, "to": f.emitter, "value": "0x1"},
			}},
			map[string]any{"blockOverrides": map[string]any{"number": hexutil.EncodeUint64(f.receipts[len(f.receipts)-1].BlockNumber.Uint64() + 9)},
				"calls": []any{map[string]any{"from": f.emitter, "to": f.token, "input": f.transferInput}}},
		}}, "latest")
	}

	logFilter := map[string]any{"fromBlock": "0x0", "toBlock": "latest", "address": f.emitter}
	if raw := check("eth_getLogs", logFilter); !bytes.Contains(raw, []byte(`"removed":false`)) {
		t.Errorf("eth_getLogs found no logs of the emitter: %s", raw)
	}
	// Not an empty result: [] matches both arms of the spec's FilterResults
	// oneOf (hashes or logs), so no empty answer can pass its schema.
	check("eth_getLogs", map[string]any{"blockHash": f.receipts[len(f.receipts)-1].BlockHash})
	var logID, blockID, pendingID string
	json.Unmarshal(check("eth_newFilter", logFilter), &logID)
	json.Unmarshal(check("eth_newBlockFilter"), &blockID)
	json.Unmarshal(check("eth_newPendingTransactionFilter"), &pendingID)
	check("eth_getFilterLogs", logID)

	// One more block, with a log, a new block hash and a pending tx for the filters.
	raw := n.signTx(t, devKeys[5].Private, txOpts{To: &f.emitter, Data: word(9), Gas: 100_000})
	enc, _ := raw.MarshalBinary()
	check("eth_sendRawTransaction", hexutil.Bytes(enc))
	n.WaitReceipt(t, raw.Hash())
	for _, id := range []string{logID, blockID, pendingID} {
		if got := check("eth_getFilterChanges", id); string(got) == "[]" {
			t.Errorf("filter %s saw nothing of the new block", id)
		}
	}
	check("eth_uninstallFilter", logID)

	// Signing with the node's keys: emberd dev unlocks its prefunded keys.
	signer, payee := devKeys[6].Address, common.HexToAddress("0x00000000000000000000000000000000000000ab")
	check("eth_sign", signer, "0xdeadbeef")
	check("eth_signTransaction", map[string]any{"from": signer, "to": payee, "value": "0x1", "gas": "0x5208", "nonce": "0x0",
		"maxFeePerGas": "0x77359400", "maxPriorityFeePerGas": "0x1"})
	check("eth_signTransaction", map[string]any{"from": signer, "to": payee, "value": "0x1", "gas": "0x5208", "nonce": "0x0", "gasPrice": "0x77359400"})
	var sent common.Hash
	json.Unmarshal(check("eth_sendTransaction", map[string]any{"from": signer, "to": payee, "value": "0x1"}), &sent)
	if r := n.WaitReceipt(t, sent); r.Status != 1 {
		t.Errorf("eth_sendTransaction's tx failed")
	}

	// eth_fillTransaction: the unsigned tx with the defaults filled in.
	var filled struct {
		Raw hexutil.Bytes `json:"raw"`
		Tx  struct {
			Gas   hexutil.Uint64 `json:"gas"`
			Nonce hexutil.Uint64 `json:"nonce"`
		} `json:"tx"`
	}
	json.Unmarshal(check("eth_fillTransaction", map[string]any{"from": signer, "to": payee, "value": "0x1"}), &filled)
	signerNonce, _ := n.Eth.PendingNonceAt(ctx(t), signer)
	if filled.Tx.Gas != 21_000 || uint64(filled.Tx.Nonce) != signerNonce || len(filled.Raw) == 0 {
		t.Errorf("eth_fillTransaction: gas %d nonce %d (want 21000, %d), raw %x", filled.Tx.Gas, filled.Tx.Nonce, signerNonce, filled.Raw)
	}
	// eth_config (EIP-7910): Osaka from genesis (P256VERIFY the 18th
	// precompile), no fork scheduled.
	var cfg struct {
		Current struct {
			ActivationTime uint64                    `json:"activationTime"`
			ChainID        *hexutil.Big              `json:"chainId"`
			Precompiles    map[string]common.Address `json:"precompiles"`
			System         map[string]common.Address `json:"systemContracts"`
		} `json:"current"`
		Next, Last json.RawMessage
	}
	json.Unmarshal(check("eth_config"), &cfg)
	chainID, _ := n.Eth.ChainID(ctx(t))
	if cfg.Current.ActivationTime != 0 || cfg.Current.ChainID.ToInt().Cmp(chainID) != 0 || len(cfg.Current.Precompiles) != 18 ||
		cfg.Current.Precompiles["P256VERIFY"] != common.HexToAddress("0x0000000000000000000000000000000000000100") ||
		cfg.Current.Precompiles["BLS12_G1ADD"] != common.BytesToAddress([]byte{0x0b}) ||
		cfg.Current.System["HISTORY_STORAGE_ADDRESS"] != common.HexToAddress("0x0000F90827F1C53a10cb7A02335B175320002935") ||
		string(cfg.Next) != "null" || string(cfg.Last) != "null" {
		t.Errorf("eth_config: %+v", cfg)
	}
	// eth_capabilities: the head, and everything kept from genesis.
	var caps struct {
		Head struct {
			Hash   common.Hash    `json:"hash"`
			Number hexutil.Uint64 `json:"number"`
		} `json:"head"`
		State struct {
			Disabled    bool           `json:"disabled"`
			OldestBlock hexutil.Uint64 `json:"oldestBlock"`
		} `json:"state"`
	}
	json.Unmarshal(check("eth_capabilities"), &caps)
	if head, err := n.Eth.HeaderByNumber(ctx(t), big.NewInt(int64(caps.Head.Number))); err != nil || head.Hash() != caps.Head.Hash ||
		caps.State.Disabled || caps.State.OldestBlock != 0 {
		t.Errorf("eth_capabilities: %+v (block %d: %v)", caps, caps.Head.Number, err)
	}
	// Refused by design, each with its reason (docs/json-rpc-conformance.md).
	refused := map[string]string{
		"eth_getBlockAccessList": "block access lists (EIP-7928) need the Amsterdam fork, which this chain does not run",
	}
	for method, want := range refused {
		var raw json.RawMessage
		if err := n.RPC.Call(&raw, method, "latest"); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want the error %q", method, err, want)
		}
	}
	// Every method of the document is validated here or answered above
	// with its refusal, except these (reasons in the conformance table).
	notHere := []string{"eth_blobBaseFee"}
	for name := range spec.index {
		ns, _, _ := strings.Cut(name, "_")
		if ns != "eth" && ns != "net" && ns != "web3" {
			continue // debug_, txpool_, engine_, testing_: see the conformance doc
		}
		if !slices.Contains(validated, name) && refused[name] == "" && !slices.Contains(notHere, name) {
			t.Errorf("%s: in the OpenRPC document, neither validated nor refused by this test", name)
		}
	}

	// The validator is strict: each of these wrong answers must fail.
	receipt := check("eth_getTransactionReceipt", f.receipts[0].TxHash)
	for _, bad := range []struct{ method, raw string }{
		{"eth_blockNumber", `"0x0400"`},
		{"eth_getBalance", `"0x"`},
		{"eth_getCode", `"0xABCD"`},
		{"eth_getBlockByNumber", `{"number":"0x1"}`},
		{"eth_simulateV1", `[{"number":"0x1","calls":[]}]`},
		{"eth_getTransactionReceipt", `{"extra":1,` + string(receipt[1:])},
		{"eth_getTransactionReceipt", strings.Replace(string(receipt), `"status":"0x1"`, `"status":"0x01"`, 1)},
	} {
		if err := spec.validate(t, bad.method, json.RawMessage(bad.raw)); err == nil {
			t.Errorf("the %s schema accepted %.80s", bad.method, bad.raw)
		}
	}

	checkConformanceTable(t, spec, validated)
}

// conformanceFixture is a chain with one transaction of each executed type.
type conformanceFixture struct {
	sender, token, emitter        common.Address
	receipts                      []*types.Receipt // legacy, access list, dynamic fee (create), set code, dynamic fee (logs)
	balanceSlot                   common.Hash
	balanceOfInput, transferInput hexutil.Bytes
}

func buildConformanceFixture(t *testing.T, n *Node) *conformanceFixture {
	key := devKeys[0]
	f := &conformanceFixture{sender: key.Address}
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	wait := func(tx *types.Transaction) *types.Receipt {
		r := n.WaitReceipt(t, tx.Hash())
		if r.Status != 1 {
			t.Fatalf("fixture tx type %d failed", tx.Type())
		}
		f.receipts = append(f.receipts, r)
		return r
	}
	wait(n.send(t, key.Private, txOpts{Type: ptr(byte(types.LegacyTxType)), To: &to, Value: ether(1)}))
	wait(n.send(t, key.Private, txOpts{Type: ptr(byte(types.AccessListTxType)), To: &to, Value: ether(1)}))

	tok := contracts.MustLoad("EmberToken")
	deploy, err := tok.DeployData(big.NewInt(1_000_000))
	if err != nil {
		t.Fatal(err)
	}
	f.token = wait(n.send(t, key.Private, txOpts{Data: deploy, Gas: 2_000_000})).ContractAddress
	f.balanceSlot = crypto.Keccak256Hash(common.LeftPadBytes(key.Address.Bytes(), 32), make([]byte, 32))
	f.balanceOfInput, _ = tok.ABI.Pack("balanceOf", key.Address)
	f.transferInput, _ = tok.ABI.Pack("transfer", to, big.NewInt(10))

	f.emitter = n.WaitReceipt(t, n.send(t, devKeys[1].Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())}).Hash()).ContractAddress
	// EIP-7702: devKeys[2] delegates to the emitter, devKeys[1] sends.
	chainID, _ := n.Eth.ChainID(ctx(t))
	authNonce, _ := n.Eth.NonceAt(ctx(t), devKeys[2].Address, nil)
	auth, err := types.SignSetCode(devKeys[2].Private, types.SetCodeAuthorization{
		ChainID: *uint256.MustFromBig(chainID), Address: f.emitter, Nonce: authNonce,
	})
	if err != nil {
		t.Fatal(err)
	}
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), devKeys[1].Address)
	setCode, err := types.SignNewTx(devKeys[1].Private, types.LatestSignerForChainID(chainID), &types.SetCodeTx{
		ChainID: uint256.MustFromBig(chainID), Nonce: nonce, GasTipCap: uint256.NewInt(1e9), GasFeeCap: uint256.NewInt(50e9),
		Gas: 200_000, To: devKeys[2].Address, Value: new(uint256.Int), Data: word(7),
		AuthList: []types.SetCodeAuthorization{auth},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Eth.SendTransaction(ctx(t), setCode); err != nil {
		t.Fatal(err)
	}
	wait(setCode)
	wait(n.send(t, devKeys[1].Private, txOpts{To: &f.emitter, Data: word(5), Gas: 100_000}))
	return f
}

// checkConformanceTable compares docs/json-rpc-conformance.md's conformance table with
// what this run validated: a method marked schema-valid there must have
// passed here, and every method that passed here must be marked.
func checkConformanceTable(t *testing.T, spec *openRPC, validated []string) {
	t.Helper()
	file, err := os.Open("../../docs/json-rpc-conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	row := regexp.MustCompile("^\\| `([a-z0-9]+_[A-Za-z0-9]+)` \\| ([^|]+) \\| ([^|]+) \\|")
	marked := map[string]bool{}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil || strings.TrimSpace(m[3]) != "yes" {
			continue
		}
		marked[m[1]] = true
		if !slices.Contains(validated, m[1]) {
			t.Errorf("docs/json-rpc-conformance.md marks %s schema-valid, but this test did not validate it", m[1])
		}
	}
	for _, m := range validated {
		if !marked[m] {
			t.Errorf("%s is schema-valid but docs/json-rpc-conformance.md's conformance table does not say so", m)
		}
	}
	if _, inSpec := spec.index["eth_blobBaseFee"]; !inSpec {
		t.Error("the OpenRPC document lost eth_blobBaseFee")
	}
}
