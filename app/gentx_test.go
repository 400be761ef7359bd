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
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/genutil"
	"github.com/emberchain/ember/staking"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
)

// operator is a gentx signer with its validator's consensus key.
type operator struct {
	key  *ecdsa.PrivateKey
	addr common.Address
	cons ed25519.PrivKey
}

func newOperator() operator {
	k, _ := crypto.GenerateKey()
	return operator{key: k, addr: crypto.PubkeyToAddress(k.PublicKey), cons: ed25519.GenPrivKey()}
}

func (o operator) gentx(t *testing.T, moniker string, bond *big.Int) json.RawMessage {
	t.Helper()
	v := genutil.Validator{Operator: o.addr, ConsKey: o.cons.PubKey().Bytes(), Moniker: moniker, SelfBond: bond, Commission: genutil.DefaultCommission}
	j, err := genutil.Sign(o.key, v, "ember_9000-1", "id@127.0.0.1:26656", DefaultPrefix, DefaultDenom)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// initGenTxApp runs InitChain on a genesis funding ops with 1000·10^18 each
// (a zero-balance filler account first, so the operators' account numbers
// are not 0) and holding txs.
func initGenTxApp(t *testing.T, ops []operator, txs []json.RawMessage, cmtVals []abci.ValidatorUpdate) (*App, *abci.ResponseInitChain, error) {
	alloc := types.GenesisAlloc{common.Address{1}: {Balance: big.NewInt(0)}}
	for _, o := range ops {
		alloc[o.addr] = types.Account{Balance: tokens(1000)}
	}
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Alloc: alloc, Staking: &staking.GenesisState{UnbondingTime: "60s"}})
	gs.Genutil = &genutil.GenesisState{GenTxs: txs}
	st, err := store.Open(t.TempDir(), gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := New(st, txpool.New(txpool.Config{}), gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	res, err := a.InitChain(context.Background(), &abci.RequestInitChain{ChainId: "ember_9000-1", Time: time.Unix(1_700_000_000, 0), InitialHeight: 1, Validators: cmtVals})
	return a, res, err
}

// TestGenTxsMakeValidatorSet: two gentxs bond two validators at genesis;
// InitChain answers them with their powers, the operators' balances are
// less their self-bonds exactly, and the bonded pool holds the sum.
func TestGenTxsMakeValidatorSet(t *testing.T) {
	a, b := newOperator(), newOperator()
	txs := []json.RawMessage{a.gentx(t, "alice", tokens(10)), b.gentx(t, "bob", tokens(25))}
	app, res, err := initGenTxApp(t, []operator{a, b}, txs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Validators) != 2 {
		t.Fatalf("validators %+v", res.Validators)
	}
	for i, want := range []struct {
		key   []byte
		power int64
	}{{a.cons.PubKey().Bytes(), 10}, {b.cons.PubKey().Bytes(), 25}} {
		v := res.Validators[i]
		if !bytes.Equal(v.PubKey.GetEd25519(), want.key) || v.Power != want.power {
			t.Errorf("validator %d: %x power %d, want %x power %d", i, v.PubKey.GetEd25519(), v.Power, want.key, want.power)
		}
	}
	if head := app.store.Head(); !bytes.Equal(res.AppHash, head.Root.Bytes()) {
		t.Errorf("app hash %x, genesis state root %x", res.AppHash, head.Root)
	}
	st := app.checkState
	for _, c := range []struct {
		addr  common.Address
		want  *big.Int
		nonce uint64
	}{{a.addr, tokens(990), 1}, {b.addr, tokens(975), 1}, {staking.BondedPool, tokens(35), 1}} {
		if got := st.GetBalance(c.addr).ToBig(); got.Cmp(c.want) != 0 {
			t.Errorf("balance of %s = %v, want %v", c.addr, got, c.want)
		}
		if got := st.GetNonce(c.addr); got != c.nonce {
			t.Errorf("nonce of %s = %d, want %d", c.addr, got, c.nonce)
		}
	}
	v, ok := staking.Get(st, b.addr)
	if !ok || v.Moniker() != "bob" || v.Tokens.Cmp(tokens(25)) != 0 || v.ReportedPower != 25 || !v.IsBonded() {
		t.Fatalf("staking validator of bob: %+v %v", v, ok)
	}
	if d := staking.SelfDelegationTokens(st, a.addr); d.Cmp(tokens(10)) != 0 {
		t.Errorf("self-delegation of alice %v", d)
	}
}

// TestGenTxsRefused: a gentx that cannot execute fails InitChain with its
// reason, as do gentxs beside CometBFT genesis validators and an edited
// gentx.
func TestGenTxsRefused(t *testing.T) {
	a, b := newOperator(), newOperator()
	cases := []struct {
		name    string
		ops     []operator
		txs     []json.RawMessage
		cmtVals []abci.ValidatorUpdate
		want    string
	}{
		{"bond above balance", []operator{a}, []json.RawMessage{a.gentx(t, "alice", tokens(1001))}, nil, "insufficient funds"},
		{"not funded", []operator{a}, []json.RawMessage{b.gentx(t, "bob", tokens(1))}, nil, "does not exist"},
		{"same operator twice", []operator{a}, []json.RawMessage{a.gentx(t, "alice", tokens(1)), a.gentx(t, "alice2", tokens(1))}, nil, "account sequence mismatch, expected 1, got 0"},
		{"cometbft validators too", []operator{a}, []json.RawMessage{a.gentx(t, "alice", tokens(1))},
			[]abci.ValidatorUpdate{abci.Ed25519ValidatorUpdate(a.cons.PubKey().Bytes(), 1)}, "validators must be empty"},
		{"edited", []operator{a}, []json.RawMessage{json.RawMessage(strings.Replace(string(a.gentx(t, "alice", tokens(1))), `"alice"`, `"mallory"`, 1))}, nil, "signature verification failed"},
	}
	for _, c := range cases {
		_, _, err := initGenTxApp(t, c.ops, c.txs, c.cmtVals)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: InitChain error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestValidateGenesis: the dry run of InitChain answers the set the gentxs
// bond, and refuses a genesis with no validator at all.
func TestValidateGenesis(t *testing.T) {
	a := newOperator()
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Alloc: types.GenesisAlloc{a.addr: {Balance: tokens(5)}}})
	doc := &cmttypes.GenesisDoc{ChainID: "ember_9000-1", GenesisTime: time.Unix(1_700_000_000, 0), InitialHeight: 1}
	doc.AppState, _ = json.Marshal(gs)
	if _, err := ValidateGenesis(doc); err == nil || !strings.Contains(err.Error(), "genesis has no validators") {
		t.Fatalf("no validators: %v", err)
	}
	gs.Genutil = &genutil.GenesisState{GenTxs: []json.RawMessage{a.gentx(t, "alice", tokens(3))}}
	doc.AppState, _ = json.Marshal(gs)
	vals, err := ValidateGenesis(doc)
	if err != nil || len(vals) != 1 || vals[0].Power != 3 || !bytes.Equal(vals[0].PubKey.GetEd25519(), a.cons.PubKey().Bytes()) {
		t.Fatalf("validators %+v, %v", vals, err)
	}
	if bal := gs.EVM.Alloc[a.addr].Balance; bal.Cmp(tokens(5)) != 0 {
		t.Fatalf("ValidateGenesis changed the allocation: %v", bal)
	}
}
