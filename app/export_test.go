package app

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/crypto/ed25519"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
)

// storeInit is contract creation code that stores 42 in slot 1 and
// deploys a runtime returning 42.
var storeInit = hexutil.MustDecode("0x602a600155" + "69602a60005260206000f3" + "600052600a6016f3")

func deployTx(t *testing.T, key *ecdsa.PrivateKey, nonce uint64) []byte {
	t.Helper()
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
		ChainID: big.NewInt(9000), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(10e9), Gas: 200_000, Data: storeInit})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return raw
}

// exportedChain is a staking app after a contract deployment (code and
// storage), an EVM transfer, a native send and a delegation, with mint
// and distribution running: every kind of account and system account.
func exportedChain(t *testing.T) (*stakingApp, *cmttypes.GenesisDoc, common.Address) {
	t.Helper()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	delKey, _ := crypto.GenerateKey()
	del := crypto.PubkeyToAddress(delKey.PublicKey)
	op := common.Address{0x99}
	s := newStakingAppMint(t, mint.DefaultGenesis(DefaultDenom), op, from, del)
	s.signedBlock(deployTx(t, key, 0), evmTransfer(t, key, 1, 2))
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	fee := new(big.Int).Mul(big.NewInt(300_000), big.NewInt(1e9))
	res, _ := s.signedBlock(s.sign(delKey, 0, fee, 300_000, b.Delegate(del, op, tokens(3))),
		s.sign(delKey, 1, fee, 300_000, b.Send(del, common.Address{0x77}, big.NewInt(1234))))
	for i, r := range res.TxResults {
		if r.Code != 0 {
			t.Fatalf("tx %d: %s", i, r.Log)
		}
	}
	s.signedBlock()
	raw, err := json.Marshal(s.genesis)
	if err != nil {
		t.Fatal(err)
	}
	doc := &cmttypes.GenesisDoc{ChainID: "ember_9000-1", GenesisTime: time.Unix(1_700_000_000, 0), AppState: raw,
		Validators: []cmttypes.GenesisValidator{{PubKey: s.valKey.PubKey(), Power: 10}}}
	if err := doc.ValidateAndComplete(); err != nil {
		t.Fatal(err)
	}
	return s, doc, crypto.CreateAddress(from, 0)
}

// importExported starts an app on a new store from an exported genesis.
func importExported(t *testing.T, doc *cmttypes.GenesisDoc) (*App, *abci.ResponseInitChain, error) {
	t.Helper()
	gs, err := ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir(), gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := New(st, txpool.New(txpool.Config{}), gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	req := &abci.RequestInitChain{ChainId: doc.ChainID, Time: doc.GenesisTime, InitialHeight: 1}
	for _, v := range doc.Validators {
		req.Validators = append(req.Validators, abci.Ed25519ValidatorUpdate(v.PubKey.Bytes(), v.Power))
	}
	res, err := a.InitChain(context.Background(), req)
	return a, res, err
}

// TestExportImportSameRoot: the state of a populated chain's head, exported
// and imported into a new store, has the head's state root, every account
// (system accounts, the contract with its code and storage, the native
// accounts) reads the same, and the new chain executes a block on it.
func TestExportImportSameRoot(t *testing.T) {
	s, doc, contract := exportedChain(t)
	head := s.store.Head()
	out, err := Export(context.Background(), s.store, doc, ExportOptions{ChainID: "ember_9001-1"})
	if err != nil {
		t.Fatal(err)
	}
	if out.ChainID != "ember_9001-1" || out.InitialHeight != 1 || !out.GenesisTime.Equal(time.Unix(int64(head.Time), 0)) {
		t.Fatalf("exported doc %s height %d time %v", out.ChainID, out.InitialHeight, out.GenesisTime)
	}
	if len(out.Validators) != 1 || out.Validators[0].Power != 13 || !out.Validators[0].PubKey.Equals(s.valKey.PubKey()) {
		t.Fatalf("exported validators %+v, want the genesis validator with power 13", out.Validators)
	}
	exGS, err := ParseAppState(out.AppState, out.ChainID)
	if err != nil {
		t.Fatal(err)
	}
	wantFee := evm.NextBaseFee(s.config, head, s.genesis.MinBaseFee())
	if ex := exGS.Exported; ex.Height != head.Number.Uint64() || ex.BlockHash != head.Hash() || ex.StateRoot != head.Root || ex.ChainID != "ember_9000-1" ||
		exGS.EVM.GasLimit != head.GasLimit || exGS.EVM.BaseFee.Cmp(wantFee) != 0 || len(exGS.EVM.Alloc) != 0 || exGS.Genutil != nil {
		t.Fatalf("exported height %d hash %x root %x from %s, gas limit %d, base fee %v (want %v), alloc %d",
			ex.Height, ex.BlockHash, ex.StateRoot, ex.ChainID, exGS.EVM.GasLimit, exGS.EVM.BaseFee, wantFee, len(exGS.EVM.Alloc))
	}
	if _, err := ValidateGenesis(out); err != nil {
		t.Fatalf("ValidateGenesis of the export: %v", err)
	}
	b, res, err := importExported(t, out)
	if err != nil {
		t.Fatal(err)
	}
	if common.BytesToHash(res.AppHash) != head.Root || b.store.Head().Root != head.Root || b.store.Head().Number.Uint64() != 0 {
		t.Fatalf("imported block 0 root %x (app hash %x), exported head root %x", b.store.Head().Root, res.AppHash, head.Root)
	}
	if b.config.ChainID.Uint64() != 9001 {
		t.Fatalf("new chain's EVM id %v", b.config.ChainID)
	}
	old, _ := s.store.StateAt(head.Root)
	imported, _ := b.store.StateAt(head.Root)
	for _, a := range []common.Address{contract, staking.StateAddress, staking.BondedPool, distribution.StateAddress, distribution.FeeCollector,
		mint.StateAddress, bank.SupplyAddress, accounts.RegistryAddress, {0x77}} {
		if old.GetBalance(a).Cmp(imported.GetBalance(a)) != 0 || old.GetNonce(a) != imported.GetNonce(a) ||
			old.GetStorageRoot(a) != imported.GetStorageRoot(a) || string(old.GetCode(a)) != string(imported.GetCode(a)) {
			t.Errorf("account %s differs after import", a)
		}
	}
	if got := imported.GetState(contract, common.BigToHash(big.NewInt(1))); got != common.BigToHash(big.NewInt(42)) {
		t.Errorf("contract slot 1 = %x, want 42", got)
	}
	if got := imported.GetBalance(common.Address{0x77}).Uint64(); got != 1234 {
		t.Errorf("native send recipient %d, want 1234", got)
	}
	// Addresses the exporter knows are named, beside their hashes.
	var named int
	for _, acct := range mustExported(t, out).Accounts {
		if acct.Address != nil {
			named++
			if crypto.Keccak256Hash(acct.Address[:]) != acct.Hash {
				t.Fatalf("account %x named %s", acct.Hash, acct.Address)
			}
		}
	}
	if named < 8 {
		t.Errorf("%d named accounts", named)
	}
	// The new chain runs: block 1 on the imported state.
	next := &stakingApp{App: b, t: t, valKey: s.valKey, now: out.GenesisTime}
	if r := next.block(time.Second); len(r.AppHash) != 32 || b.store.Head().Number.Uint64() != 1 {
		t.Fatalf("block 1 on the imported state: head %d", b.store.Head().Number)
	}
}

func mustExported(t *testing.T, doc *cmttypes.GenesisDoc) *ExportedState {
	t.Helper()
	gs, err := ParseAppState(doc.AppState, doc.ChainID)
	if err != nil || gs.Exported == nil {
		t.Fatalf("exported app state: %v", err)
	}
	return gs.Exported
}

// editExported rewrites the exported section of doc.
func editExported(t *testing.T, doc *cmttypes.GenesisDoc, edit func(*ExportedState)) *cmttypes.GenesisDoc {
	t.Helper()
	gs, err := ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		t.Fatal(err)
	}
	edit(gs.Exported)
	raw, err := json.Marshal(gs)
	if err != nil {
		t.Fatal(err)
	}
	out := *doc
	out.AppState = raw
	return &out
}

// TestImportRefusesAlteredState: an exported genesis whose state no longer
// hashes to its root, or whose validators are not the staking state's, is
// refused by ValidateGenesis and InitChain, and the new store stays empty.
func TestImportRefusesAlteredState(t *testing.T) {
	s, doc, _ := exportedChain(t)
	out, err := Export(context.Background(), s.store, doc, ExportOptions{Height: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustExported(t, out); got.Height != 2 || got.StateRoot != s.store.HeaderByNumber(2).Root {
		t.Fatalf("exported height %d root %x", got.Height, got.StateRoot)
	}
	altered := editExported(t, out, func(ex *ExportedState) {
		for i := range ex.Accounts {
			if len(ex.Accounts[i].Storage) > 0 {
				ex.Accounts[i].Storage[0].Value[31] ^= 1
				return
			}
		}
	})
	if _, err := ValidateGenesis(altered); err == nil || !strings.Contains(err.Error(), "hashes to") {
		t.Fatalf("ValidateGenesis of an altered slot: %v", err)
	}
	b, _, err := importExported(t, altered)
	if err == nil || !strings.Contains(err.Error(), "hashes to") || b.store.Head() != nil {
		t.Fatalf("InitChain of an altered slot: %v", err)
	}
	rich := editExported(t, out, func(ex *ExportedState) {
		bal := (*big.Int)(ex.Accounts[0].Balance)
		bal.Add(bal, big.NewInt(1))
	})
	if _, _, err := importExported(t, rich); err == nil || !strings.Contains(err.Error(), "state root") {
		t.Fatalf("InitChain of an altered balance: %v", err)
	}
	wrongPower := *out
	wrongPower.Validators = []cmttypes.GenesisValidator{out.Validators[0]}
	wrongPower.Validators[0].Power++
	if _, _, err := importExported(t, &wrongPower); err == nil || !strings.Contains(err.Error(), "not in the exported staking state's set") {
		t.Fatalf("InitChain with another power: %v", err)
	}
	if _, err := Export(context.Background(), s.store, doc, ExportOptions{Height: 99}); err == nil || !strings.Contains(err.Error(), "above the head") {
		t.Fatalf("export above the head: %v", err)
	}
}

// TestExportDevChainNamesEveryAccount: a dev chain keeps the trie's
// preimages, so its export names every account and slot, and the import
// records them again (a dev chain lists its state by them).
func TestExportDevChainNamesEveryAccount(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	valKey := ed25519.GenPrivKey()
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Dev: true, Alloc: types.GenesisAlloc{from: {Balance: tokens(10)}},
		Staking: &staking.GenesisState{UnbondingTime: "10s", Validators: []staking.GenesisValidator{{Moniker: "dev", Operator: common.Address{0x99},
			ConsensusPubKey: valKey.PubKey().Bytes(), Tokens: (*staking.Amount)(tokens(10))}}}})
	st, err := store.Open(t.TempDir(), gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8, Preimages: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := New(st, txpool.New(txpool.Config{}), gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	now := time.Unix(1_700_000_000, 0)
	if _, err := a.InitChain(context.Background(), &abci.RequestInitChain{ChainId: "ember_9000-1", Time: now, InitialHeight: 1,
		Validators: []abci.ValidatorUpdate{abci.Ed25519ValidatorUpdate(valKey.PubKey().Bytes(), 10)}}); err != nil {
		t.Fatal(err)
	}
	s := &stakingApp{App: a, t: t, valKey: valKey, now: now}
	s.block(time.Second, deployTx(t, key, 0))
	raw, _ := json.Marshal(gs)
	doc := &cmttypes.GenesisDoc{ChainID: "ember_9000-1", GenesisTime: now, AppState: raw, Validators: []cmttypes.GenesisValidator{{PubKey: valKey.PubKey(), Power: 10}}}
	if err := doc.ValidateAndComplete(); err != nil {
		t.Fatal(err)
	}
	out, err := Export(context.Background(), st, doc, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExported(t, out)
	var slots int
	for _, acct := range ex.Accounts {
		if acct.Address == nil {
			t.Errorf("account %x not named on a dev chain", acct.Hash)
		}
		for _, s := range acct.Storage {
			if s.Slot == nil || crypto.Keccak256Hash(s.Slot[:]) != s.Key {
				t.Errorf("slot %x of %x named %v", s.Key, acct.Hash, s.Slot)
			}
			slots++
		}
	}
	if slots == 0 {
		t.Fatal("no storage exported")
	}
	b, _, err := importExported(t, out)
	if err != nil {
		t.Fatal(err)
	}
	contract := crypto.CreateAddress(from, 0)
	if got := b.store.Preimage(crypto.Keccak256Hash(contract[:])); !bytes.Equal(got, contract[:]) {
		t.Fatalf("preimage of the contract's hash after import: %x", got)
	}
}
