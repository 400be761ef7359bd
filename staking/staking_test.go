package staking

import (
	"math/big"
	"testing"
	"time"

	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/module"
)

func e18(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), PowerReduction) }

func newState(t *testing.T, funded ...common.Address) *module.AllocState {
	t.Helper()
	m := module.NewAllocState(types.GenesisAlloc{})
	for _, a := range funded {
		m.AddBalance(a, uint256.MustFromBig(e18(100)), 0)
	}
	return m
}

func TestPower(t *testing.T) {
	for _, c := range []struct {
		tokens *big.Int
		power  int64
	}{
		{big.NewInt(0), 0},
		{new(big.Int).Sub(e18(1), big.NewInt(1)), 0},
		{e18(1), 1},
		{new(big.Int).Add(e18(2), big.NewInt(5)), 2},
		{new(big.Int).Lsh(big.NewInt(1), 200), MaxPower},
	} {
		if got := Power(c.tokens); got != c.power {
			t.Errorf("Power(%v) = %d, want %d", c.tokens, got, c.power)
		}
	}
}

func TestLifecycle(t *testing.T) {
	gen, op, del := ed25519.GenPrivKey().PubKey().Bytes(), common.Address{0xa}, common.Address{0xb}
	st := newState(t, op, del)
	if err := InitGenesis(st, []Genesis{{Moniker: "g", Operator: common.Address{0xc}, HasOperator: true, ConsPubKey: gen, Tokens: e18(10), RewardAddress: common.Address{0xc}}}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := st.GetBalance(BondedPool).ToBig(); got.Cmp(e18(10)) != 0 {
		t.Fatalf("genesis pool %v", got)
	}
	if u := Updates(st); len(u) != 0 {
		t.Fatalf("updates at genesis: %v", u)
	}
	key := ed25519.GenPrivKey().PubKey().Bytes()
	if err := Create(st, op, key, "a long moniker that does not fit in one storage word, surely", e18(1)); err != nil {
		t.Fatal(err)
	}
	if err := Create(st, common.Address{0xd}, key, "dup", e18(1)); err != ErrPubKeyExists {
		t.Fatalf("duplicate key: %v", err)
	}
	if err := Create(st, op, ed25519.GenPrivKey().PubKey().Bytes(), "dup", e18(1)); err != ErrOperatorExists {
		t.Fatalf("duplicate operator: %v", err)
	}
	if err := Delegate(st, del, op, new(big.Int).Add(e18(1), big.NewInt(7))); err != nil {
		t.Fatal(err)
	}
	if err := Delegate(st, del, common.Address{0xee}, e18(1)); err != ErrNoValidator {
		t.Fatalf("unknown validator: %v", err)
	}
	v, _ := Get(st, op)
	if v.Tokens.Cmp(new(big.Int).Add(e18(2), big.NewInt(7))) != 0 || v.Moniker != "a long moniker that does not fit in one storage word, surely" || v.RewardAddress != op {
		t.Fatalf("validator %+v", v)
	}
	if u := Updates(st); len(u) != 1 || u[0].Power != 2 {
		t.Fatalf("updates %v", u)
	}
	if by, ok := ByConsAddress(st, v.ConsAddress()); !ok || by.Operator != op {
		t.Fatal("lookup by consensus address")
	}
	now := time.Unix(1000, 0)
	if _, err := Undelegate(st, del, op, e18(3), now); err != ErrNotEnoughShares {
		t.Fatalf("too much: %v", err)
	}
	if _, err := Undelegate(st, common.Address{0xff}, op, e18(1), now); err != ErrNoDelegation {
		t.Fatalf("no delegation: %v", err)
	}
	done, err := Undelegate(st, del, op, new(big.Int).Add(e18(1), big.NewInt(8)), now)
	if err != ErrNotEnoughShares || !done.IsZero() {
		t.Fatalf("one more than delegated: %v", err)
	}
	done, err = Undelegate(st, del, op, new(big.Int).Add(e18(1), big.NewInt(7)), now)
	if err != nil || !done.Equal(now.Add(10*time.Second)) {
		t.Fatalf("undelegate: %v %v", done, err)
	}
	if _, err := Undelegate(st, op, op, big.NewInt(1), now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if u := Updates(st); len(u) != 1 || u[0].Power != 0 {
		t.Fatalf("updates after unbonding %v", u)
	}
	if got := st.GetBalance(UnbondingPool).ToBig(); got.Cmp(new(big.Int).Add(e18(1), big.NewInt(8))) != 0 {
		t.Fatalf("unbonding pool %v", got)
	}
	delBefore := st.GetBalance(del).ToBig()
	if paid, _ := Mature(st, now.Add(9*time.Second)); len(paid) != 0 {
		t.Fatal("paid early")
	}
	if paid, _ := Mature(st, now.Add(10*time.Second)); len(paid) != 1 || paid[0].Delegator != del {
		t.Fatalf("paid %v", paid)
	}
	if got := st.GetBalance(del).ToBig(); got.Cmp(new(big.Int).Add(delBefore, new(big.Int).Add(e18(1), big.NewInt(7)))) != 0 {
		t.Fatalf("delegator %v", got)
	}
	if paid, _ := Mature(st, now.Add(11*time.Second)); len(paid) != 1 || paid[0].Delegator != op {
		t.Fatalf("second entry %v", paid)
	}
	if got := st.GetBalance(UnbondingPool).ToBig(); got.Sign() != 0 || len(Unbondings(st)) != 0 {
		t.Fatalf("unbonding pool %v", got)
	}
	// The genesis validator cannot leave the set empty.
	if _, err := Undelegate(st, common.Address{0xc}, common.Address{0xc}, e18(10), now); err != ErrEmptySet {
		t.Fatalf("empty set: %v", err)
	}
	// Supply: pool = genesis 10 + op's remaining 10^18 - 1.
	if got := st.GetBalance(BondedPool).ToBig(); got.Cmp(new(big.Int).Sub(e18(11), big.NewInt(1))) != 0 {
		t.Fatalf("bonded pool %v", got)
	}
}
