package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/node/homes"
)

// clzRuntime stores CLZ(calldata word 0) in slot 0, logs it (LOG0 of the
// word) and returns it; clzInit deploys it (an 11-byte copy-and-return
// prefix). CLZ (0x1e, EIP-7939) is an invalid opcode before Osaka. Solc
// 0.8.28 (contracts/) has no clz, so the bytecode is written by hand:
// PUSH1 0 CALLDATALOAD CLZ DUP1 PUSH1 0 SSTORE PUSH1 0 MSTORE PUSH1 32
// PUSH1 0 LOG0 PUSH1 32 PUSH1 0 RETURN.
const clzRuntime = "6000351e8060005560005260206000a060206000f3"

var clzInit = common.FromHex("0x601580600b6000396000f3" + clzRuntime)

// p256Init deploys a contract that STATICCALLs P256VERIFY (0x100,
// EIP-7951) with its calldata and stores the call's success in slot 2, the
// return data size in slot 1 and the returned word in slot 0. Before
// Osaka 0x100 is an empty account: success, no return data.
var p256Init = common.FromHex("0x602280600b6000396000f3" +
	"366000600037" + // CALLDATACOPY(0, 0, CALLDATASIZE)
	"6020610100366000610100" + "5afa" + // STATICCALL(GAS, 0x100, 0, size, 0x100, 32)
	"600255" + // SSTORE(2, success)
	"3d600155" + // SSTORE(1, RETURNDATASIZE)
	"6101005160005500") // SSTORE(0, MLOAD(0x100)); STOP

var p256Address = common.HexToAddress("0x0000000000000000000000000000000000000100")

// p256Input is a P256VERIFY input (hash, r, s, x, y); bad flips a bit of
// the hash after signing, so the signature no longer verifies.
func p256Input(t *testing.T, bad bool) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hash := sha256.Sum256([]byte("ember osaka"))
	r, s, err := ecdsa.Sign(rand.Reader, key, hash[:])
	if err != nil {
		t.Fatal(err)
	}
	if bad {
		hash[0] ^= 1
	}
	in := append([]byte{}, hash[:]...)
	for _, n := range []*big.Int{r, s, key.X, key.Y} {
		in = append(in, common.BigToHash(n).Bytes()...)
	}
	return in
}

// modexpInput is a MODEXP (0x05) input of 32-byte base, exponent and
// modulus; EIP-7883 reprices it under Osaka.
func modexpInput() []byte {
	in := make([]byte, 0, 6*32)
	for _, n := range []int64{32, 32, 32} {
		in = append(in, common.BigToHash(big.NewInt(n)).Bytes()...)
	}
	base := common.BigToHash(big.NewInt(3)).Bytes()
	exp := common.MaxHash.Bytes()
	mod := common.BigToHash(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))).Bytes()
	return append(append(append(in, base...), exp...), mod...)
}

// modexpOversized has a 1,025-byte base: above EIP-7823's 1,024-byte
// bound, so the precompile fails under Osaka.
func modexpOversized() []byte {
	in := make([]byte, 0, 3*32+1027)
	for _, n := range []int64{1025, 1, 1} {
		in = append(in, common.BigToHash(big.NewInt(n)).Bytes()...)
	}
	body := make([]byte, 1027)
	body[1024], body[1025], body[1026] = 2, 3, 7
	return append(in, body...)
}

// forkConfigJSON is one entry of eth_config.
type forkConfigJSON struct {
	ActivationTime  uint64                    `json:"activationTime"`
	BlobSchedule    json.RawMessage           `json:"blobSchedule"`
	ChainID         *hexutil.Big              `json:"chainId"`
	Precompiles     map[string]common.Address `json:"precompiles"`
	SystemContracts map[string]common.Address `json:"systemContracts"`
}

type configJSON struct {
	Current *forkConfigJSON `json:"current"`
	Next    *forkConfigJSON `json:"next"`
	Last    *forkConfigJSON `json:"last"`
}

// TestOsakaFromGenesis: a new dev chain runs Osaka from block 0. eth_config
// says so (current from genesis with P256VERIFY, nothing next, the EVM's
// blob config); CLZ runs in a transaction and in a call; P256VERIFY answers 1
// for a valid signature and nothing for a bad one; a transaction above
// EIP-7825's 2^24 gas is refused with go-ethereum's error.
func TestOsakaFromGenesis(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	var cfg configJSON
	mustCall(t, n, &cfg, "eth_config")
	if cfg.Current == nil || cfg.Current.ActivationTime != 0 || cfg.Next != nil || cfg.Last != nil {
		t.Fatalf("eth_config = %+v, want current from genesis and no next or last", cfg)
	}
	if got := cfg.Current.Precompiles["P256VERIFY"]; got != p256Address || len(cfg.Current.Precompiles) != 18 {
		t.Fatalf("precompiles %v: want 18 (Prague's 17 and P256VERIFY at 0x100)", cfg.Current.Precompiles)
	}
	// Osaka runs Prague's blob config (go-ethereum's); no blob tx is ever
	// admitted, so it only sets BLOBBASEFEE's 1-wei minimum.
	if want, _ := json.Marshal(params.DefaultPragueBlobConfig); string(cfg.Current.BlobSchedule) != string(want) {
		t.Fatalf("blobSchedule %s, want %s", cfg.Current.BlobSchedule, want)
	}

	key := devKeys[3]
	s := newForkSender(t, n, key.Private)
	clz := crypto.CreateAddress(key.Address, s.nonce)
	if r := s.send(nil, 300_000, clzInit); r.Status != 1 {
		t.Fatalf("CLZ contract deployment failed")
	}
	word := common.BigToHash(new(big.Int).Lsh(big.NewInt(1), 200)).Bytes() // 55 leading zero bits
	var out hexutil.Bytes
	mustCall(t, n, &out, "eth_call", map[string]any{"to": clz, "data": hexutil.Bytes(word)}, "latest")
	if new(big.Int).SetBytes(out).Int64() != 55 {
		t.Fatalf("eth_call CLZ = %x, want 55", out)
	}
	r := s.send(&clz, 100_000, word)
	var slot common.Hash
	mustCall(t, n, &slot, "eth_getStorageAt", clz, "0x0", "latest")
	if r.Status != 1 || slot.Big().Int64() != 55 || len(r.Logs) != 1 || new(big.Int).SetBytes(r.Logs[0].Data).Int64() != 55 {
		t.Fatalf("CLZ tx: status %d, slot %s, logs %d; want 1, 55, one log of 55", r.Status, slot, len(r.Logs))
	}
	for _, c := range []struct {
		bad  bool
		want string
	}{{false, "0x0000000000000000000000000000000000000000000000000000000000000001"}, {true, "0x"}} {
		mustCall(t, n, &out, "eth_call", map[string]any{"to": p256Address, "data": hexutil.Bytes(p256Input(t, c.bad))}, "latest")
		if out.String() != c.want {
			t.Fatalf("P256VERIFY (bad signature %v) = %s, want %s", c.bad, out, c.want)
		}
	}
	// 10 gwei: the fee stays under the RPC's 1-ether cap, so the gas cap is
	// what refuses it.
	tx, err := types.SignNewTx(key.Private, types.NewEIP155Signer(big.NewInt(31337)), &types.LegacyTx{
		Nonce: s.nonce, GasPrice: gwei(10), Gas: 1<<24 + 1, To: &common.Address{1}})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Eth.SendTransaction(ctx(t), tx)
	if want := "transaction gas limit too high (cap: 16777216, tx: 16777217)"; err == nil || err.Error() != want {
		t.Fatalf("a 2^24+1 gas tx: %v, want %q", err, want)
	}
}

// forkSender signs and sends legacy transactions (a fixed gas price, so
// the sender pays gas used × price on Ember and on go-ethereum alike).
type forkSender struct {
	t     *testing.T
	n     *Node
	key   *ecdsa.PrivateKey
	nonce uint64
	sent  []*types.Transaction
}

func newForkSender(t *testing.T, n *Node, key *ecdsa.PrivateKey) *forkSender {
	nonce, err := n.Eth.NonceAt(ctx(t), crypto.PubkeyToAddress(key.PublicKey), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &forkSender{t: t, n: n, key: key, nonce: nonce}
}

func (s *forkSender) signValue(id *big.Int, to *common.Address, gas uint64, data []byte, value *big.Int) *types.Transaction {
	s.t.Helper()
	if value == nil {
		value = new(big.Int)
	}
	tx, err := types.SignNewTx(s.key, types.NewEIP155Signer(id), &types.LegacyTx{
		Nonce: s.nonce, GasPrice: gwei(100), Gas: gas, To: to, Data: data, Value: value,
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return tx
}

// send sends the next transaction and waits for its receipt.
func (s *forkSender) send(to *common.Address, gas uint64, data []byte) *types.Receipt {
	return s.sendValue(to, gas, data, nil)
}

func (s *forkSender) sendValue(to *common.Address, gas uint64, data []byte, value *big.Int) *types.Receipt {
	s.t.Helper()
	id, err := s.n.Eth.ChainID(ctx(s.t))
	if err != nil {
		s.t.Fatal(err)
	}
	tx := s.signValue(id, to, gas, data, value)
	if err := s.n.Eth.SendTransaction(ctx(s.t), tx); err != nil {
		s.t.Fatal(err)
	}
	s.nonce++
	s.sent = append(s.sent, tx)
	return s.n.WaitReceipt(s.t, tx.Hash())
}

// TestOsakaMatchesGeth runs one set of transactions on an Ember dev chain
// whose genesis schedules Osaka at a time after Prague, and on go-ethereum
// (the library: core.GenerateChain, then a core.BlockChain that validates
// and imports the blocks) with the same genesis allocation and schedule,
// each transaction in a block of the same time: CLZ contract deploy and
// calls, P256VERIFY with a valid and a bad signature, MODEXP within and
// above EIP-7823's bound (Osaka pricing) and plain transfers, half before
// the switch and half after. Receipts (status, gas used, logs) and the
// post-state of every touched account (balance, nonce, code, storage) must
// be identical.
func TestOsakaMatchesGeth(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	senderKey, _ := crypto.GenerateKey()
	sender := crypto.PubkeyToAddress(senderKey.PublicKey)
	home := t.TempDir()
	alloc := homes.FundAll([]common.Address{devKeys[0].Address, sender}, ether(10_000))
	if err := homes.Init(homes.InitOptions{Home: home, Moniker: "ember-dev", ChainID: "ember_31337-1",
		Alloc: alloc, Dev: true, EmptyBlockInterval: 0, Operator: &devKeys[0].Address}); err != nil {
		t.Fatal(err)
	}
	osakaAt := scheduleOsaka(t, home, 100_000)
	n := StartDevIn(t, home, "--empty-block-interval", "0")

	s := newForkSender(t, n, senderKey)
	clz, p256 := crypto.CreateAddress(sender, 0), crypto.CreateAddress(sender, 1)
	recipient := common.HexToAddress("0x00000000000000000000000000000000000f0a05")
	modexp := common.BytesToAddress([]byte{5})
	word := common.BigToHash(new(big.Int).Lsh(big.NewInt(1), 200)).Bytes()
	valid, bad := p256Input(t, false), p256Input(t, true)
	phase := func() {
		s.send(&clz, 100_000, word)
		s.send(&p256, 100_000, valid)
		s.send(&p256, 100_000, bad)
		s.send(&modexp, 100_000, modexpInput())
		s.send(&modexp, 100_000, modexpOversized())
		s.sendValue(&recipient, 21_000, nil, ether(1))
	}
	s.send(nil, 300_000, clzInit)
	s.send(nil, 300_000, p256Init)
	phase() // Prague
	pragueHead, err := n.Eth.BlockNumber(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	checkForkRPC(t, n, clz, word, osakaAt, false)
	mustCall(t, n, nil, "evm_setNextBlockTimestamp", hexutil.Uint64(osakaAt))
	phase() // Osaka
	checkForkRPC(t, n, clz, word, osakaAt, true)
	// A call at a Prague height still runs Prague.
	var out hexutil.Bytes
	err = n.RPC.Call(&out, "eth_call", map[string]any{"to": clz, "data": hexutil.Bytes(word)}, hexutil.Uint64(pragueHead))
	if want := "invalid opcode: " + vm.CLZ.String(); err == nil || err.Error() != want {
		t.Fatalf("eth_call CLZ at Prague block %d after the switch: %v, want %q", pragueHead, err, want)
	}

	emberReceipts := make([]*types.Receipt, len(s.sent))
	times := make([]uint64, len(s.sent))
	for i, tx := range s.sent {
		emberReceipts[i] = n.WaitReceipt(t, tx.Hash())
		h, err := n.Eth.HeaderByHash(ctx(t), emberReceipts[i].BlockHash)
		if err != nil {
			t.Fatal(err)
		}
		times[i] = h.Time
	}
	if times[7] >= osakaAt || times[8] != osakaAt {
		t.Fatalf("the last Prague tx ran at %d and the first Osaka one at %d; want before %d and at it", times[7], times[8], osakaAt)
	}
	if emberReceipts[2].Status != 0 || emberReceipts[8].Status != 1 || emberReceipts[6].Status != 1 || emberReceipts[12].Status != 0 {
		t.Fatalf("status before/after Osaka: CLZ %d/%d, MODEXP over 1,024 bytes %d/%d; want 0/1 and 1/0",
			emberReceipts[2].Status, emberReceipts[8].Status, emberReceipts[6].Status, emberReceipts[12].Status)
	}

	// A trace replays each block under its own fork, after the switch too.
	for i, want := range map[int]string{2: "invalid opcode: " + vm.CLZ.String(), 8: ""} {
		var tr struct {
			Error string `json:"error"`
		}
		mustCall(t, n, &tr, "debug_traceTransaction", s.sent[i].Hash(), map[string]any{"tracer": "callTracer"})
		if tr.Error != want {
			t.Errorf("trace of tx %d: error %q, want %q", i, tr.Error, want)
		}
	}

	gethReceipts, gethState := runOnGeth(t, n, home, osakaAt, s.sent, times)
	for i := range s.sent {
		e, g := emberReceipts[i], gethReceipts[i]
		if e.Status != g.Status || e.GasUsed != g.GasUsed || !sameLogs(e.Logs, g.Logs) {
			t.Errorf("tx %d: Ember status %d gas %d logs %d; geth status %d gas %d logs %d", i, e.Status, e.GasUsed, len(e.Logs), g.Status, g.GasUsed, len(g.Logs))
		}
	}
	if emberReceipts[3].GasUsed == emberReceipts[9].GasUsed || emberReceipts[5].GasUsed == emberReceipts[11].GasUsed {
		t.Errorf("P256VERIFY and MODEXP cost the same before and after Osaka: %d %d, %d %d", emberReceipts[3].GasUsed, emberReceipts[9].GasUsed, emberReceipts[5].GasUsed, emberReceipts[11].GasUsed)
	}
	for _, addr := range []common.Address{sender, clz, p256, recipient} {
		e := emberAccount(t, n, addr)
		if g := gethState[addr]; e != g {
			t.Errorf("account %s: Ember %+v, geth %+v", addr, e, g)
		}
	}
}

// checkForkRPC checks eth_config and eth_estimateGas before (osaka false)
// or after the Osaka time of a chain whose genesis schedules it: Prague
// current and Osaka next at osakaAt, then Osaka current from osakaAt; a
// CLZ call cannot be estimated before and is after; before, a simulated
// block at the Osaka time runs CLZ.
func checkForkRPC(t *testing.T, n *Node, clz common.Address, word []byte, osakaAt uint64, osaka bool) {
	t.Helper()
	var cfg configJSON
	mustCall(t, n, &cfg, "eth_config")
	if !osaka {
		if cfg.Current == nil || cfg.Current.ActivationTime != 0 || len(cfg.Current.Precompiles) != 17 ||
			cfg.Next == nil || cfg.Next.ActivationTime != osakaAt || cfg.Next.Precompiles["P256VERIFY"] != p256Address ||
			cfg.Last == nil || cfg.Last.ActivationTime != osakaAt {
			t.Fatalf("eth_config before Osaka: %+v %+v %+v", cfg.Current, cfg.Next, cfg.Last)
		}
	} else if cfg.Current == nil || cfg.Current.ActivationTime != osakaAt || len(cfg.Current.Precompiles) != 18 || cfg.Next != nil || cfg.Last != nil {
		t.Fatalf("eth_config after Osaka: %+v %+v %+v", cfg.Current, cfg.Next, cfg.Last)
	}
	var gas hexutil.Uint64
	err := n.RPC.Call(&gas, "eth_estimateGas", map[string]any{"to": clz, "data": hexutil.Bytes(word)}, "latest")
	if osaka && (err != nil || gas < 21_000) {
		t.Fatalf("eth_estimateGas of CLZ under Osaka: %d, %v", gas, err)
	}
	if want := "invalid opcode: " + vm.CLZ.String(); !osaka && (err == nil || err.Error() != want) {
		t.Fatalf("eth_estimateGas of CLZ under Prague: %v, want %q", err, want)
	}
	if osaka {
		return
	}
	// eth_simulateV1 runs each simulated block by its own time: the next
	// one (Prague) fails CLZ, one at the Osaka time runs it.
	call := []any{map[string]any{"to": clz, "data": hexutil.Bytes(word)}}
	var sim []struct {
		Calls []struct {
			Status     hexutil.Uint64 `json:"status"`
			ReturnData hexutil.Bytes  `json:"returnData"`
		} `json:"calls"`
	}
	mustCall(t, n, &sim, "eth_simulateV1", map[string]any{"blockStateCalls": []any{
		map[string]any{"calls": call},
		map[string]any{"blockOverrides": map[string]any{"time": hexutil.Uint64(osakaAt)}, "calls": call},
	}}, "latest")
	if len(sim) != 2 || sim[0].Calls[0].Status != 0 || sim[1].Calls[0].Status != 1 || new(big.Int).SetBytes(sim[1].Calls[0].ReturnData).Int64() != 55 {
		t.Fatalf("eth_simulateV1 before and at the Osaka time: %+v", sim)
	}
}

// scheduleOsaka edits home's genesis (a Prague chain, as chains made
// before Osaka are) to schedule Osaka after seconds past the genesis time,
// and returns that time.
func scheduleOsaka(t *testing.T, home string, after uint64) uint64 {
	t.Helper()
	path := filepath.Join(home, "config", "genesis.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var genesisTime time.Time
	if err := json.Unmarshal(doc["genesis_time"], &genesisTime); err != nil {
		t.Fatal(err)
	}
	var appState map[string]json.RawMessage
	if err := json.Unmarshal(doc["app_state"], &appState); err != nil {
		t.Fatal(err)
	}
	var evmGenesis map[string]json.RawMessage
	if err := json.Unmarshal(appState["evm"], &evmGenesis); err != nil {
		t.Fatal(err)
	}
	var config map[string]json.RawMessage
	if err := json.Unmarshal(evmGenesis["config"], &config); err != nil {
		t.Fatal(err)
	}
	at := uint64(genesisTime.Unix()) + after
	config["osakaTime"], _ = json.Marshal(at)
	evmGenesis["config"], _ = json.Marshal(config)
	appState["evm"], _ = json.Marshal(evmGenesis)
	doc["app_state"], _ = json.Marshal(appState)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return at
}

// account is what the comparison reads of an account.
type account struct {
	Balance string
	Nonce   uint64
	Code    string
	Slots   [3]common.Hash
}

func emberAccount(t *testing.T, n *Node, addr common.Address) account {
	t.Helper()
	var a account
	var bal hexutil.Big
	var nonce hexutil.Uint64
	var code hexutil.Bytes
	mustCall(t, n, &bal, "eth_getBalance", addr, "latest")
	mustCall(t, n, &nonce, "eth_getTransactionCount", addr, "latest")
	mustCall(t, n, &code, "eth_getCode", addr, "latest")
	a.Balance, a.Nonce, a.Code = bal.ToInt().String(), uint64(nonce), code.String()
	for i := range a.Slots {
		mustCall(t, n, &a.Slots[i], "eth_getStorageAt", addr, hexutil.Uint64(i), "latest")
	}
	return a
}

func sameLogs(a, b []*types.Log) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Address != b[i].Address || common.Bytes2Hex(a[i].Data) != common.Bytes2Hex(b[i].Data) || len(a[i].Topics) != len(b[i].Topics) {
			return false
		}
		for j := range a[i].Topics {
			if a[i].Topics[j] != b[i].Topics[j] {
				return false
			}
		}
	}
	return true
}

// runOnGeth executes txs on go-ethereum from the genesis in home (its EVM
// section: config with the Osaka time, allocation, and the system
// contracts go-ethereum's block processing needs) at Ember's genesis
// time, in blocks of the times Ember ran them at (transactions of one
// second share a block), and
// returns the receipts and the touched accounts' state.
func runOnGeth(t *testing.T, n *Node, home string, osakaAt uint64, txs []*types.Transaction, times []uint64) ([]*types.Receipt, map[common.Address]account) {
	t.Helper()
	genesis := emberGenesisForGeth(t, home)
	if genesis.Config.OsakaTime == nil && genesis.Config.PragueTime != nil {
		// A Prague chain that an upgrade moved: Osaka from the time its
		// activation block recorded, go-ethereum's schedule by time.
		genesis.Config.OsakaTime = &osakaAt
	}
	if genesis.Config.OsakaTime == nil || *genesis.Config.OsakaTime != osakaAt || genesis.Config.PragueTime == nil {
		t.Fatalf("genesis config %v: want Prague then Osaka at %d", genesis.Config, osakaAt)
	}
	h0, err := n.Eth.HeaderByNumber(ctx(t), big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	genesis.Timestamp = h0.Time
	var groups [][]*types.Transaction
	var groupTimes []uint64
	for i, tx := range txs {
		if len(groupTimes) == 0 || groupTimes[len(groupTimes)-1] != times[i] {
			groups, groupTimes = append(groups, nil), append(groupTimes, times[i])
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], tx)
	}
	// go-ethereum's headers need increasing times, Ember's may repeat (its
	// first block may even share the genesis second): a group runs at its
	// Ember time or one second after the previous group, whichever is
	// later, which keeps each on its side of osakaAt (the Prague groups
	// run seconds after genesis, osakaAt is far ahead).
	prev := genesis.Timestamp
	for i, gt := range groupTimes {
		groupTimes[i] = max(gt, prev+1)
		prev = groupTimes[i]
		if (gt < osakaAt) != (groupTimes[i] < osakaAt) {
			t.Fatalf("group %d moved across the Osaka time: %d → %d", i, gt, groupTimes[i])
		}
	}
	engine := beacon.New(ethash.NewFaker())
	_, blocks, receipts := core.GenerateChainWithGenesis(genesis, engine, len(groups), func(i int, b *core.BlockGen) {
		b.OffsetTime(int64(groupTimes[i]) - int64(b.Timestamp()))
		for _, tx := range groups[i] {
			b.AddTx(tx)
		}
	})
	chain, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), genesis, engine, core.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Stop()
	if i, err := chain.InsertChain(blocks); err != nil {
		t.Fatalf("go-ethereum refused block %d: %v", i, err)
	}
	var flat []*types.Receipt
	for _, rs := range receipts {
		flat = append(flat, rs...)
	}
	st, err := chain.State()
	if err != nil {
		t.Fatal(err)
	}
	accounts := map[common.Address]account{}
	for _, tx := range txs {
		from, _ := types.Sender(types.LatestSigner(genesis.Config), tx)
		addrs := []common.Address{from}
		if tx.To() != nil {
			addrs = append(addrs, *tx.To())
		} else {
			addrs = append(addrs, crypto.CreateAddress(from, tx.Nonce()))
		}
		for _, a := range addrs {
			acc := account{Balance: st.GetBalance(a).ToBig().String(), Nonce: st.GetNonce(a), Code: hexutil.Bytes(st.GetCode(a)).String()}
			for i := range acc.Slots {
				acc.Slots[i] = st.GetState(a, common.BigToHash(big.NewInt(int64(i))))
			}
			accounts[a] = acc
		}
	}
	return flat, accounts
}
