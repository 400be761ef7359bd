package genutil

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/native"
)

var e18 = big.NewInt(1_000_000_000_000_000_000)

func signed(t *testing.T, moniker string, bond int64, c Commission) (json.RawMessage, common.Address, []byte) {
	t.Helper()
	k, _ := crypto.GenerateKey()
	cons := ed25519.GenPrivKey().PubKey().Bytes()
	op := crypto.PubkeyToAddress(k.PublicKey)
	j, err := Sign(k, Validator{Operator: op, ConsKey: cons, Moniker: moniker, SelfBond: new(big.Int).Mul(big.NewInt(bond), e18), Commission: c},
		"ember_9000-1", "abc@10.0.0.1:26656", "ember", "aember")
	if err != nil {
		t.Fatal(err)
	}
	return j, op, cons
}

// TestGenTxJSON: a gentx is the proto-named JSON of a Tx; it decodes back
// to the signed bytes, and Parse reads what it declares.
func TestGenTxJSON(t *testing.T) {
	j, op, cons := signed(t, "alice", 3, DefaultCommission)
	for _, want := range []string{`"body"`, `"auth_info"`, `"signatures"`, `"@type":"/cosmos.staking.v1beta1.MsgCreateValidator"`,
		`"@type":"/ethermint.crypto.v1.ethsecp256k1.PubKey"`, `"rate":"100000000000000000"`, `"max_rate":"200000000000000000"`,
		`"max_change_rate":"10000000000000000"`, `"min_self_delegation":"1"`, `"memo":"abc@10.0.0.1:26656"`} {
		if !strings.Contains(strings.ReplaceAll(string(j), " ", ""), want) {
			t.Errorf("gentx JSON lacks %s: %s", want, j)
		}
	}
	g, err := Parse(j, "ember_9000-1", "ember", "aember")
	if err != nil {
		t.Fatal(err)
	}
	if g.Operator != op || string(g.ConsKey) != string(cons) || g.Moniker != "alice" || g.SelfBond.Cmp(new(big.Int).Mul(big.NewInt(3), e18)) != 0 || g.Memo != "abc@10.0.0.1:26656" {
		t.Fatalf("parsed %+v", g)
	}
	again, err := EncodeJSON(g.Raw)
	if err != nil || string(again) != string(j) {
		t.Fatalf("re-encoded %s, %v", again, err)
	}
	if _, err := native.Decode(g.Raw, "ember", "aember"); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(j, "ember_9001-1", "ember", "aember"); err == nil || !strings.Contains(err.Error(), "signature verification failed") {
		t.Fatalf("other chain: %v", err)
	}
}

// TestParseAll: duplicates and unfunded operators are refused with the
// index of the gentx.
func TestParseAll(t *testing.T) {
	a, opA, _ := signed(t, "a", 2, DefaultCommission)
	b, opB, _ := signed(t, "b", 2, DefaultCommission)
	funded := func(bal int64) func(common.Address) (*big.Int, bool) {
		return func(addr common.Address) (*big.Int, bool) {
			if addr != opA && addr != opB {
				return nil, false
			}
			return new(big.Int).Mul(big.NewInt(bal), e18), true
		}
	}
	gs, err := ParseAll([]json.RawMessage{a, b}, "ember_9000-1", "ember", "aember", funded(2))
	if err != nil || len(gs) != 2 || gs[1].Operator != opB {
		t.Fatalf("ParseAll: %v %+v", err, gs)
	}
	c, _, _ := signed(t, "c", 2, DefaultCommission)
	for _, tc := range []struct {
		txs  []json.RawMessage
		bal  int64
		want string
	}{
		{[]json.RawMessage{a, a}, 2, "gen_txs[1]: operator " + opA.Hex() + " already has a validator in gen_txs[0]"},
		{[]json.RawMessage{a, b}, 1, "gen_txs[0]: operator " + opA.Hex() + " has 1000000000000000000aember at genesis, less than its self-bond 2000000000000000000aember"},
		{[]json.RawMessage{a, c}, 2, "gen_txs[1]: operator"},
		{[]json.RawMessage{json.RawMessage(`{"body":{}}`)}, 2, "gen_txs[0]: decode gentx JSON: body and auth_info are required"},
	} {
		if _, err := ParseAll(tc.txs, "ember_9000-1", "ember", "aember", funded(tc.bal)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// TestCommission: the SDK's commission rules.
func TestCommission(t *testing.T) {
	for _, c := range []struct {
		c    Commission
		want string
	}{
		{Commission{"0.3", "0.2", "0.01", "1"}, "commission cannot be more than the max rate"},
		{Commission{"0.1", "1.5", "0.01", "1"}, "commission cannot be more than 100%"},
		{Commission{"0.1", "0.2", "0.3", "1"}, "commission change rate cannot be more than the max rate"},
		{Commission{"-0.1", "0.2", "0.01", "1"}, "commission parameter must be positive"},
		{Commission{"0.1", "0.2", "0.01", "0"}, "minimum self delegation must be a positive integer"},
		{Commission{"0.1", "0.2", "0.01", "3000000000000000000"}, "below the minimum self delegation"},
		{Commission{"x", "0.2", "0.01", "1"}, `commission "x"`},
	} {
		k, _ := crypto.GenerateKey()
		_, err := Sign(k, Validator{Operator: crypto.PubkeyToAddress(k.PublicKey), ConsKey: make([]byte, 32), Moniker: "m", SelfBond: new(big.Int).Mul(big.NewInt(2), e18), Commission: c.c},
			"ember_9000-1", "", "ember", "aember")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.c, err, c.want)
		}
	}
}

// TestProblems: every problem is listed, one per gentx, in order.
func TestProblems(t *testing.T) {
	a, opA, _ := signed(t, "a", 2, DefaultCommission)
	b, _, _ := signed(t, "b", 2, DefaultCommission)
	funded := func(addr common.Address) (*big.Int, bool) {
		if addr != opA {
			return nil, false
		}
		return new(big.Int), true
	}
	got := Problems([]json.RawMessage{a, b, json.RawMessage(`{}`), a}, "ember_9000-1", "ember", "aember", funded)
	want := []string{"gen_txs[0]: operator " + opA.Hex() + " has 0aember at genesis, less than its self-bond 2000000000000000000aember",
		"gen_txs[1]: operator", "gen_txs[2]: decode gentx JSON: body and auth_info are required", "gen_txs[3]: operator " + opA.Hex() + " already has a validator in gen_txs[0]"}
	if len(got) != len(want) {
		t.Fatalf("problems %v", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i].Error(), want[i]) {
			t.Errorf("problem %d: %v, want %q", i, got[i], want[i])
		}
	}
}
