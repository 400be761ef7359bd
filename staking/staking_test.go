package staking

import (
	"math/big"
	"testing"
	"time"

	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

func e18(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), PowerReduction) }

func newState(t *testing.T, funded ...common.Address) *module.AllocState {
	t.Helper()
	m := module.NewAllocState(types.GenesisAlloc{})
	for _, a := range funded {
		if err := bank.Mint(m, a, e18(100)); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// checkInvariants is the SDK's staking invariants: the pools hold exactly
// the tokens the state says they do, and every validator's shares are the
// sum of its delegations'.
func checkInvariants(t *testing.T, st module.Reader) {
	t.Helper()
	bonded, notBonded := new(big.Int), new(big.Int)
	for _, v := range All(st) {
		if !v.HasOperator {
			continue
		}
		if v.IsBonded() {
			bonded.Add(bonded, v.Tokens)
		} else {
			notBonded.Add(notBonded, v.Tokens)
		}
		sum := dec.Zero()
		for _, del := range ValidatorDelegators(st, v.Operator) {
			s, _ := DelegationShares(st, del, v.Operator)
			sum = sum.Add(s)
		}
		if !sum.Equal(v.DelegatorShares) {
			t.Fatalf("validator %s: delegations hold %s shares, validator %s", v.Operator.Hex(), sum, v.DelegatorShares)
		}
		for _, del := range UnbondingDelegators(st, v.Operator) {
			for _, e := range UnbondingEntries(st, del, v.Operator) {
				notBonded.Add(notBonded, e.Balance)
			}
		}
	}
	if got := st.GetBalance(BondedPool).ToBig(); got.Cmp(bonded) != 0 {
		t.Fatalf("bonded pool %v, bonded tokens %v", got, bonded)
	}
	if got := st.GetBalance(NotBondedPool).ToBig(); got.Cmp(notBonded) != 0 {
		t.Fatalf("not-bonded pool %v, not-bonded tokens + entries %v", got, notBonded)
	}
}

// chain drives a state through blocks as the app does.
type chain struct {
	t      *testing.T
	st     *module.AllocState
	k      *Keeper
	height int64
	now    time.Time
}

func newChain(t *testing.T, p Params, funded ...common.Address) *chain {
	c := &chain{t: t, st: newState(t, funded...), k: &Keeper{}, height: 1, now: time.Unix(1_000_000, 0).UTC()}
	if err := c.k.InitGenesis(c.st, nil, p); err != nil {
		t.Fatal(err)
	}
	return c
}

// block ends the current block and begins the next, dt later.
func (c *chain) block(dt time.Duration) *Matured {
	c.t.Helper()
	ev := module.NewEvents("ember", "aember")
	b := &module.Block{Env: &module.Env{Height: c.height, Time: c.now}, Events: ev}
	if _, err := ApplyValidatorSet(c.st, b, c.height, c.now); err != nil {
		c.t.Fatal(err)
	}
	c.height++
	c.now = c.now.Add(dt)
	done, err := Mature(c.st, c.now)
	if err != nil {
		c.t.Fatal(err)
	}
	checkInvariants(c.t, c.st)
	return done
}

func (c *chain) create(op common.Address, self *big.Int, rate string) {
	c.t.Helper()
	r := dec.MustParse(rate)
	v := &Validator{Operator: op, HasOperator: true, ConsPubKey: ed25519.GenPrivKey().PubKey().Bytes(), Status: Unbonded, Tokens: new(big.Int),
		DelegatorShares: dec.Zero(), Description: Description{Moniker: "v"}, Commission: Commission{Rate: r, MaxRate: dec.MustParse("0.5"), MaxChangeRate: dec.MustParse("0.05"), UpdateTime: c.now},
		MinSelfDelegation: big.NewInt(1), CreationHeight: c.height, RewardAddress: op}
	if err := c.k.Create(c.st, v, self); err != nil {
		c.t.Fatal(err)
	}
	checkInvariants(c.t, c.st)
}

func (c *chain) val(op common.Address) *Validator {
	v, ok := Get(c.st, op)
	if !ok {
		c.t.Fatalf("no validator %s", op.Hex())
	}
	return v
}

func wantCode(t *testing.T, err error, code uint32) {
	t.Helper()
	if !HasCode(err, code) {
		t.Fatalf("error %v, want staking code %d", err, code)
	}
}

func bigEq(t *testing.T, what string, got, want *big.Int) {
	t.Helper()
	if got.Cmp(want) != 0 {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

var (
	opA, opB, opC = common.Address{0xa}, common.Address{0xb}, common.Address{0xc}
	del1, del2    = common.Address{0xd1}, common.Address{0xd2}
)

func testParams() Params {
	p := DefaultParams()
	p.UnbondingTime = 100 * time.Second
	return p
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

// TestStatusTransitions: with max_validators 2 and 3 validators, the two
// largest are bonded; the third becomes bonded when it outgrows one, which
// unbonds and then matures to unbonded after the unbonding time.
func TestStatusTransitions(t *testing.T) {
	p := testParams()
	p.MaxValidators = 2
	c := newChain(t, p, opA, opB, opC, del1)
	c.create(opA, e18(10), "0.1")
	c.create(opB, e18(5), "0.1")
	c.create(opC, e18(3), "0.1")
	c.block(5 * time.Second)
	if a, b, cc := c.val(opA), c.val(opB), c.val(opC); a.Status != Bonded || b.Status != Bonded || cc.Status != Unbonded {
		t.Fatalf("statuses %v %v %v", a.Status, b.Status, cc.Status)
	}
	bigEq(t, "bonded pool", c.st.GetBalance(BondedPool).ToBig(), e18(15))
	if _, err := c.k.Delegate(c.st, del1, opC, e18(4)); err != nil {
		t.Fatal(err)
	}
	leaveAt := c.now
	c.block(5 * time.Second)
	if b, cc := c.val(opB), c.val(opC); b.Status != Unbonding || cc.Status != Bonded || !b.UnbondingTime.Equal(leaveAt.Add(100*time.Second)) || b.UnbondingHeight != 2 {
		t.Fatalf("after delegation: B %v %v %d, C %v", b.Status, b.UnbondingTime, b.UnbondingHeight, cc.Status)
	}
	bigEq(t, "not-bonded pool", c.st.GetBalance(NotBondedPool).ToBig(), e18(5))
	c.block(94 * time.Second) // 99s after B left
	if c.val(opB).Status != Unbonding {
		t.Fatal("B matured early")
	}
	c.block(time.Second)
	if c.val(opB).Status != Unbonded {
		t.Fatalf("B %v, want unbonded", c.val(opB).Status)
	}
	// Jailing A lets B back in.
	if err := c.k.Jail(c.st, c.val(opA).ConsAddress()); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	if a, b := c.val(opA), c.val(opB); a.Status != Unbonding || b.Status != Bonded || a.ReportedPower != 0 {
		t.Fatalf("after jail: A %v, B %v", a.Status, b.Status)
	}
	if err := c.k.Unjail(c.st, c.val(opA).ConsAddress()); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	if a, b := c.val(opA), c.val(opB); a.Status != Bonded || b.Status != Unbonding {
		t.Fatalf("after unjail: A %v, B %v", a.Status, b.Status)
	}
}

// TestSlashShares: after a slash a share holds fewer tokens, so the same
// delegation buys more shares and an undelegation returns less.
func TestSlashShares(t *testing.T) {
	c := newChain(t, testParams(), opA, opB, del1, del2)
	c.create(opA, e18(10), "0.1")
	c.create(opB, e18(10), "0.1")
	if _, err := c.k.Delegate(c.st, del1, opA, e18(10)); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	supply := bank.Supply(c.st)
	burned, err := c.k.Slash(c.st, nil, c.val(opA).ConsAddress(), c.height, c.height, time.Time{}, 20, dec.MustParse("0.1"))
	if err != nil {
		t.Fatal(err)
	}
	bigEq(t, "burned", burned, e18(2))
	bigEq(t, "supply", bank.Supply(c.st), new(big.Int).Sub(supply, e18(2)))
	checkInvariants(t, c.st)
	v := c.val(opA)
	bigEq(t, "tokens", v.Tokens, e18(18))
	if !v.DelegatorShares.Equal(dec.FromInt(e18(20))) {
		t.Fatalf("shares %s", v.DelegatorShares)
	}
	// 9 tokens now buy 9 × 20/18 = 10 shares.
	if s, err := c.k.Delegate(c.st, del2, opA, e18(9)); err != nil || s != "10000000000000000000.000000000000000000" {
		t.Fatalf("new shares %s %v", s, err)
	}
	checkInvariants(t, c.st)
	// del1's 10·10^18 shares now hold 10 × 27/30 = 9 tokens.
	_, out, err := c.k.Undelegate(c.st, del1, opA, e18(9), c.height, c.now)
	if err != nil {
		t.Fatal(err)
	}
	bigEq(t, "undelegated", out, e18(9))
	if _, ok := DelegationShares(c.st, del1, opA); ok {
		t.Fatal("del1 still delegates")
	}
	checkInvariants(t, c.st)
	// Undelegating more than a delegation holds is refused.
	_, _, err = c.k.Undelegate(c.st, del2, opA, new(big.Int).Add(e18(9), big.NewInt(1_000_000_000_000)), c.height, c.now)
	if me, ok := err.(*module.Error); !ok || me.Codespace != module.CodespaceSDK || me.Code != module.CodeInvalidRequest {
		t.Fatalf("too much: %v", err)
	}
}

// TestRedelegation: a redelegation moves tokens at once, completes after
// the unbonding time, and a second hop from its destination is refused
// until then.
func TestRedelegation(t *testing.T) {
	c := newChain(t, testParams(), opA, opB, opC, del1)
	c.create(opA, e18(10), "0.1")
	c.create(opB, e18(10), "0.1")
	c.create(opC, e18(10), "0.1")
	if _, err := c.k.Delegate(c.st, del1, opA, e18(6)); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	done, err := c.k.Redelegate(c.st, del1, opA, opB, e18(2), c.height, c.now)
	if err != nil {
		t.Fatal(err)
	}
	if !done.Equal(c.now.Add(100 * time.Second)) {
		t.Fatalf("completion %v", done)
	}
	checkInvariants(t, c.st)
	bigEq(t, "A tokens", c.val(opA).Tokens, e18(14))
	bigEq(t, "B tokens", c.val(opB).Tokens, e18(12))
	_, err = c.k.Redelegate(c.st, del1, opB, opC, e18(1), c.height, c.now)
	wantCode(t, err, CodeTransitiveRedelegation)
	_, err = c.k.Redelegate(c.st, del1, opA, opA, e18(1), c.height, c.now)
	wantCode(t, err, CodeSelfRedelegation)
	reds := Redelegations(c.st, del1, common.Address{}, common.Address{})
	if len(reds) != 1 || reds[0].Src != opA || reds[0].Dst != opB || reds[0].Entries[0].InitialBalance.Cmp(e18(2)) != 0 {
		t.Fatalf("redelegations %+v", reds)
	}
	c.block(99 * time.Second)
	if len(Redelegations(c.st, del1, opA, opB)) != 1 {
		t.Fatal("matured early")
	}
	m := c.block(time.Second)
	if len(m.Redelegations) != 1 || m.Redelegations[0].Amount.Cmp(e18(2)) != 0 || len(Redelegations(c.st, del1, opA, common.Address{})) != 0 {
		t.Fatalf("matured %+v", m.Redelegations)
	}
	if _, err := c.k.Redelegate(c.st, del1, opB, opC, e18(1), c.height, c.now); err != nil {
		t.Fatalf("after completion: %v", err)
	}
	checkInvariants(t, c.st)
}

// TestMaxEntries: the eighth unbonding entry of a pair is refused, and
// the entries pay out at maturity.
func TestMaxEntries(t *testing.T) {
	c := newChain(t, testParams(), opA, opB, del1)
	c.create(opA, e18(10), "0.1")
	c.create(opB, e18(10), "0.1")
	if _, err := c.k.Delegate(c.st, del1, opA, e18(10)); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	before := c.st.GetBalance(del1).ToBig()
	for i := 0; i < DefaultMaxEntries; i++ {
		if _, _, err := c.k.Undelegate(c.st, del1, opA, e18(1), c.height, c.now); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
	}
	_, _, err := c.k.Undelegate(c.st, del1, opA, e18(1), c.height, c.now)
	wantCode(t, err, CodeMaxUnbondingEntries)
	for i := 0; i < DefaultMaxEntries; i++ {
		if _, err := c.k.Redelegate(c.st, opA, opA, opB, big.NewInt(1000), c.height, c.now); err != nil {
			t.Fatalf("redelegation %d: %v", i, err)
		}
	}
	_, err = c.k.Redelegate(c.st, opA, opA, opB, big.NewInt(1000), c.height, c.now)
	wantCode(t, err, CodeMaxRedelegationEntries)
	c.block(100 * time.Second)
	bigEq(t, "paid back", c.st.GetBalance(del1).ToBig(), new(big.Int).Add(before, e18(7)))
	if len(UnbondingEntries(c.st, del1, opA)) != 0 || len(UnbondingValidators(c.st, del1)) != 0 {
		t.Fatal("entries left")
	}
}

// TestCancelUnbonding: part of an entry goes back to the validator, the
// rest still pays out; a wrong height or amount is refused.
func TestCancelUnbonding(t *testing.T) {
	c := newChain(t, testParams(), opA, del1)
	c.create(opA, e18(10), "0.1")
	if _, err := c.k.Delegate(c.st, del1, opA, e18(10)); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	h := c.height
	if _, _, err := c.k.Undelegate(c.st, del1, opA, e18(5), h, c.now); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, c.st)
	err := c.k.CancelUnbonding(c.st, del1, opA, e18(1), h+1, c.now)
	if me, ok := err.(*module.Error); !ok || me.Code != codeSDKNotFound || me.Error() != "unbonding delegation entry is not found at block height 3: not found" {
		t.Fatalf("wrong height: %v", err)
	}
	err = c.k.CancelUnbonding(c.st, del1, opA, e18(6), h, c.now)
	if me, ok := err.(*module.Error); !ok || me.Code != module.CodeInvalidRequest {
		t.Fatalf("too much: %v", err)
	}
	wantCode(t, c.k.CancelUnbonding(c.st, del2, opA, e18(1), h, c.now), CodeNoUnbondingDelegation)
	if err := c.k.CancelUnbonding(c.st, del1, opA, e18(2), h, c.now); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, c.st)
	es := UnbondingEntries(c.st, del1, opA)
	if len(es) != 1 || es[0].Balance.Cmp(e18(3)) != 0 || es[0].InitialBalance.Cmp(e18(3)) != 0 {
		t.Fatalf("entries %+v", es)
	}
	s, _ := DelegationShares(c.st, del1, opA)
	if !s.Equal(dec.FromInt(e18(7))) {
		t.Fatalf("shares %s", s)
	}
	c.block(time.Second)
	before := c.st.GetBalance(del1).ToBig()
	c.block(100 * time.Second)
	bigEq(t, "paid", c.st.GetBalance(del1).ToBig(), new(big.Int).Add(before, e18(3)))
}

// TestCommission: bounds at creation and the SDK's edit rules.
func TestCommission(t *testing.T) {
	for _, c := range []struct {
		rate, max, change string
		code              uint32
	}{
		{"0.1", "1.1", "0.1", CodeCommissionHuge},
		{"0.3", "0.2", "0.1", CodeCommissionGTMaxRate},
		{"0.1", "0.2", "0.3", CodeChangeRateGTMaxRate},
		{"-0.1", "0.2", "0.1", CodeCommissionNegative},
	} {
		err := validateCommission(Commission{Rate: dec.MustParse(c.rate), MaxRate: dec.MustParse(c.max), MaxChangeRate: dec.MustParse(c.change)})
		wantCode(t, err, c.code)
	}
	if err := validateCommission(Commission{Rate: dec.MustParse("0.2"), MaxRate: dec.MustParse("0.2"), MaxChangeRate: dec.MustParse("0.2")}); err != nil {
		t.Fatal(err)
	}
	p := testParams()
	p.MinCommissionRate = dec.MustParse("0.05")
	ch := newChain(t, p, opA)
	wantCode(t, CheckCreate(ch.st, opA, make([]byte, 32), e18(1), dec.MustParse("0.01")), CodeCommissionLTMinRate)
	ch.create(opA, e18(10), "0.1") // max 0.5, max change 0.05
	edit := func(rate string, at time.Time) error {
		m := &module.Msg{Validator: opA, Proto: editMsg(rate)}
		v, err := edited(ch.st, m, at, true)
		if err == nil {
			setValidator(ch.st, v)
		}
		return err
	}
	created := ch.now
	wantCode(t, edit("0.12", created.Add(23*time.Hour)), CodeCommissionUpdateTime)
	wantCode(t, edit("0.16", created.Add(24*time.Hour)), CodeCommissionGTMaxChange)
	wantCode(t, edit("0.04", created.Add(24*time.Hour)), CodeCommissionLTMinRate)
	if err := edit("0.15", created.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if r := CommissionRate(ch.st, opA); !r.Equal(dec.MustParse("0.15")) {
		t.Fatalf("rate %s", r)
	}
	wantCode(t, edit("0.14", created.Add(47*time.Hour)), CodeCommissionUpdateTime)
	if err := edit("0.05", created.Add(48*time.Hour)); err != nil { // decreases are not bounded by max change
		t.Fatal(err)
	}
}

// TestSlashEntries: a slash for an older infraction cuts the unbonding
// entry and the redelegation made at or after it, not those made before.
func TestSlashEntries(t *testing.T) {
	c := newChain(t, testParams(), opA, opB, del1, del2)
	c.create(opA, e18(20), "0.1")
	c.create(opB, e18(10), "0.1")
	for _, d := range []common.Address{del1, del2} {
		if _, err := c.k.Delegate(c.st, d, opA, e18(10)); err != nil {
			t.Fatal(err)
		}
	}
	c.block(time.Second)
	// Before the infraction (height 2): del1 unbonds 4, del2 redelegates 4.
	if _, _, err := c.k.Undelegate(c.st, del1, opA, e18(4), c.height, c.now); err != nil {
		t.Fatal(err)
	}
	if _, err := c.k.Redelegate(c.st, del2, opA, opB, e18(4), c.height, c.now); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	infraction := c.height // 3
	if _, _, err := c.k.Undelegate(c.st, del1, opA, e18(2), c.height, c.now); err != nil {
		t.Fatal(err)
	}
	if _, err := c.k.Redelegate(c.st, del2, opA, opB, e18(2), c.height, c.now); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	c.block(time.Second)
	// A had 40 at the infraction (power 40); it has 28 now.
	bigEq(t, "A tokens", c.val(opA).Tokens, e18(28))
	supply := bank.Supply(c.st)
	burned, err := c.k.Slash(c.st, nil, c.val(opA).ConsAddress(), infraction, c.height, time.Time{}, 40, dec.MustParse("0.5"))
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, c.st)
	// Asked 20: the new entry gives 1, the new redelegation 1 (unbonded
	// from B and burned), the validator the other 18, which is what Slash
	// reports (the SDK's burned_coins); the supply loses all 20.
	bigEq(t, "burned", burned, e18(18))
	bigEq(t, "supply burned", new(big.Int).Sub(supply, bank.Supply(c.st)), e18(20))
	es := UnbondingEntries(c.st, del1, opA)
	if len(es) != 2 || es[0].Balance.Cmp(e18(4)) != 0 || es[1].Balance.Cmp(e18(1)) != 0 || es[1].InitialBalance.Cmp(e18(2)) != 0 {
		t.Fatalf("entries %+v", es)
	}
	bigEq(t, "A tokens", c.val(opA).Tokens, e18(10))
	bigEq(t, "B tokens", c.val(opB).Tokens, e18(15))
	s, _ := DelegationShares(c.st, del2, opB)
	if !s.Equal(dec.FromInt(e18(5))) {
		t.Fatalf("del2 shares at B %s", s)
	}
	// The same infraction at the current height cuts no entry.
	burned, err = c.k.Slash(c.st, nil, c.val(opA).ConsAddress(), c.height, c.height, time.Time{}, 10, dec.MustParse("0.1"))
	if err != nil {
		t.Fatal(err)
	}
	bigEq(t, "burned now", burned, e18(1))
	checkInvariants(t, c.st)
}

func TestEmptySetRefused(t *testing.T) {
	c := newChain(t, testParams(), opA)
	c.create(opA, e18(2), "0.1")
	c.block(time.Second)
	_, _, err := c.k.Undelegate(c.st, opA, opA, e18(2), c.height, c.now)
	wantCode(t, err, CodeBadDelegation)
	if _, _, err := c.k.Undelegate(c.st, opA, opA, e18(1), c.height, c.now); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, c.st)
}

type recorder struct{ calls []string }

func (r *recorder) AfterValidatorCreated(_ module.State, v common.Address) error {
	r.calls = append(r.calls, "created "+v.Hex()[:4])
	return nil
}
func (r *recorder) BeforeDelegationCreated(_ module.State, d, v common.Address) error {
	r.calls = append(r.calls, "before-create "+d.Hex()[:4])
	return nil
}
func (r *recorder) BeforeDelegationSharesModified(_ module.State, d, v common.Address) error {
	r.calls = append(r.calls, "before-modify "+d.Hex()[:4])
	return nil
}
func (r *recorder) AfterDelegationModified(_ module.State, d, v common.Address) error {
	r.calls = append(r.calls, "after "+d.Hex()[:4])
	return nil
}
func (r *recorder) BeforeValidatorSlashed(_ module.State, v common.Address, f dec.Dec) error {
	r.calls = append(r.calls, "slashed "+f.String())
	return nil
}

func TestHooks(t *testing.T) {
	c := newChain(t, testParams(), opA, del1)
	rec := &recorder{}
	c.k.Hooks = rec
	c.create(opA, e18(10), "0.1")
	if _, err := c.k.Delegate(c.st, del1, opA, e18(10)); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	if _, _, err := c.k.Undelegate(c.st, del1, opA, e18(10), c.height, c.now); err != nil {
		t.Fatal(err)
	}
	if _, err := c.k.Slash(c.st, nil, c.val(opA).ConsAddress(), c.height, c.height, time.Time{}, 10, dec.MustParse("0.3")); err != nil {
		t.Fatal(err)
	}
	want := []string{"created 0x0a", "before-create 0x0a", "after 0x0a", "before-create 0xd1", "after 0xd1",
		"before-modify 0xd1", "after 0xd1", "slashed 0.300000000000000000"}
	if len(rec.calls) != len(want) {
		t.Fatalf("calls %v", rec.calls)
	}
	for i := range want {
		if rec.calls[i] != want[i] {
			t.Fatalf("calls %v, want %v", rec.calls, want)
		}
	}
	c.k.Tombstoned = func(module.Reader, common.Address) bool { return true }
	_, err := c.k.Delegate(c.st, del1, opA, e18(1))
	if me, ok := err.(*module.Error); !ok || me.Code != CodeValidatorJailed || me.Error() != "validator is tombstoned: validator for this address is currently jailed" {
		t.Fatalf("tombstoned: %v", err)
	}
}

func editMsg(rate string) *stakingv1beta1.MsgEditValidator {
	return &stakingv1beta1.MsgEditValidator{Description: &stakingv1beta1.Description{Moniker: DoNotModify, Identity: DoNotModify, Website: DoNotModify, SecurityContact: DoNotModify, Details: DoNotModify},
		CommissionRate: dec.MustParse(rate).Raw().String()}
}
