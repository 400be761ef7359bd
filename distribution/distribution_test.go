package distribution

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// chain drives the module block by block over a fake staking and checks
// the invariants after every step.
type chain struct {
	t         *testing.T
	st        module.State
	f         *fakeStaking
	k         *Keeper
	height    int64
	collected *big.Int         // Σ coins put in the fee collector
	payees    []common.Address // every account rewards are paid to (balance 0 before)
	ops       []common.Address
}

func newChain(t *testing.T, p Params) *chain {
	t.Helper()
	f, k := newFake(t)
	c := &chain{t: t, st: newState(t), f: f, k: k, collected: new(big.Int)}
	if err := Init(c.st, p); err != nil {
		t.Fatal(err)
	}
	return c
}

// block runs begin-block of the next height with fees in the collector.
func (c *chain) block(fees int64, proposer common.Address, votes ...module.Vote) *module.Events {
	c.t.Helper()
	c.height++
	fund(c.st, FeeCollector, big.NewInt(fees))
	c.collected.Add(c.collected, big.NewInt(fees))
	ev := module.NewEvents("ember", "aember")
	b := &module.Block{Env: &module.Env{Height: c.height}, Info: &module.BlockInfo{Proposer: proposer, Votes: votes}, Events: ev}
	if err := c.k.BeginBlock(c.st, b); err != nil {
		c.t.Fatal(err)
	}
	c.check()
	return ev
}

// check: the pool's balance is exactly Σ outstanding + community pool, and
// what was paid plus what the records hold is exactly what came in.
func (c *chain) check() {
	c.t.Helper()
	if err := Invariant(c.st, c.ops); err != nil {
		c.t.Fatalf("height %d: %v", c.height, err)
	}
	records := CommunityPool(c.st)
	for _, op := range c.ops {
		records = records.Add(Outstanding(c.st, op))
	}
	paid := new(big.Int)
	for _, a := range c.payees {
		paid.Add(paid, c.st.GetBalance(a).ToBig())
	}
	inFlight := c.st.GetBalance(FeeCollector).ToBig()
	if got := records.Add(dec.FromInt(paid)).Add(dec.FromInt(inFlight)); !got.Equal(dec.FromInt(c.collected)) {
		c.t.Fatalf("height %d: paid %v + records %s + collector %v = %s, collected %v", c.height, paid, records, inFlight, got, c.collected)
	}
}

func (c *chain) validator(op, cons common.Address, tokens *big.Int, rate string) {
	c.t.Helper()
	fund(c.st, op, tokens)
	c.f.create(c.st, op, cons, tokens, rate)
	c.ops = append(c.ops, op)
	c.check()
}

func (c *chain) withdraw(del, op common.Address) *big.Int {
	c.t.Helper()
	ev := module.NewEvents("ember", "aember")
	paid, err := c.k.withdrawDelegation(c.st, ev, del, op, "0")
	if err != nil {
		c.t.Fatal(err)
	}
	c.k.initializeDelegation(c.st, del, op)
	c.check()
	return paid
}

func wantDec(t *testing.T, what string, got dec.Dec, want string) {
	t.Helper()
	if got.String() != want {
		t.Fatalf("%s = %s, want %s", what, got, want)
	}
}

func wantInt(t *testing.T, what string, got *big.Int, want int64) {
	t.Helper()
	if got.Cmp(big.NewInt(want)) != 0 {
		t.Fatalf("%s = %v, want %d", what, got, want)
	}
}

var (
	opA, opB, opC       = common.Address{0xa0}, common.Address{0xb0}, common.Address{0xc0}
	consA, consB, consC = common.Address{0xa1}, common.Address{0xb1}, common.Address{0xc1}
)

func vote(cons common.Address, power int64, signed bool) module.Vote {
	return module.Vote{Validator: cons, Power: power, Signed: signed}
}

// TestAllocation: three validators of powers 10, 20, 30 with commissions
// 10%, 20%, 0%; C's vote is absent. The previous proposer A gets base +
// bonus × signed fraction = 0.01 + 0.04 × 30/60 = 3%; the community tax is
// 2%; of the 95% left A gets 10/60 and B 20/60, C's share and the
// truncations go to the community pool.
func TestAllocation(t *testing.T) {
	c := newChain(t, Params{CommunityTax: dec.MustParse("0.02"), BaseProposerReward: dec.MustParse("0.01"), BonusProposerReward: dec.MustParse("0.04"), WithdrawAddrEnabled: true})
	c.validator(opA, consA, e18(10), "0.1")
	c.validator(opB, consB, e18(20), "0.2")
	c.validator(opC, consC, e18(30), "0")
	c.payees = []common.Address{opA, opB, opC}
	c.block(0, consA) // height 1 allocates nothing, records A as proposer
	ev := c.block(1_000_000, consB, vote(consA, 10, true), vote(consB, 20, true), vote(consC, 30, false))

	wantDec(t, "A outstanding", Outstanding(c.st, opA), "188333.333333333332700000")
	wantDec(t, "A commission", Commission(c.st, opA), "18833.333333333333270000")
	rA, periodA := CurrentRewards(c.st, opA)
	wantDec(t, "A current", rA, "169499.999999999999430000")
	wantDec(t, "B outstanding", Outstanding(c.st, opB), "316666.666666666666350000")
	wantDec(t, "B commission", Commission(c.st, opB), "63333.333333333333270000")
	wantDec(t, "C outstanding", Outstanding(c.st, opC), "0.000000000000000000")
	wantDec(t, "community pool", CommunityPool(c.st), "495000.000000000000950000")
	if periodA != 2 { // 1 at creation, 2 after its self-delegation
		t.Fatalf("A period %d", periodA)
	}
	if got := eventList(ev); got[3] != "proposer_reward amount=30000.000000000000000000aember validator="+ev.Valoper(opA) {
		t.Fatalf("events %v", got)
	}

	// A's own delegation: ratio 169499.99999999999943 / 10^19 truncated to
	// 18 places is 0.000000000000016949, × 10^19 = 169490 (the last
	// 9.99999999999943 stay outstanding, as in the SDK).
	wantInt(t, "A rewards", c.withdraw(opA, opA), 169490)
	paid, err := withdrawCommission(c.st, module.NewEvents("ember", "aember"), opA, "0")
	if err != nil {
		t.Fatal(err)
	}
	wantInt(t, "A commission paid", paid, 18833)
	wantDec(t, "A commission left", Commission(c.st, opA), "0.333333333333270000")
	wantDec(t, "A outstanding after", Outstanding(c.st, opA), "10.333333333332700000")
	wantInt(t, "pool", c.st.GetBalance(Pool).ToBig(), 1_000_000-169490-18833)
	c.check()
}

// TestLateDelegator: a delegator who joins after a block's allocation
// earns only from the blocks after it joined.
func TestLateDelegator(t *testing.T) {
	c := newChain(t, Params{CommunityTax: dec.Zero(), BaseProposerReward: dec.Zero(), BonusProposerReward: dec.Zero(), WithdrawAddrEnabled: true})
	c.validator(opA, consA, e18(10), "0")
	del := common.Address{0xd0}
	c.payees = []common.Address{opA}
	c.block(0, consA)
	c.block(1_000_000, consA, vote(consA, 10, true))
	fund(c.st, del, e18(30))
	c.f.delegate(c.st, del, opA, e18(30))
	c.check()
	w := common.Address{0xd1}
	c.payees = append(c.payees, w)
	setWithdrawAddress(c.st, del, w)
	c.block(4_000_000, consA, vote(consA, 40, true))
	// Block 2: 10^6 over 10·10^18 tokens; block 3: 4·10^6 over 40·10^18.
	wantInt(t, "late delegator", c.withdraw(del, opA), 3_000_000)
	wantInt(t, "paid to the withdraw address", c.st.GetBalance(w).ToBig(), 3_000_000)
	wantInt(t, "early delegator", c.withdraw(opA, opA), 2_000_000)
}

// TestSlashedRewards: rewards before a slash count at the full stake,
// after it at the stake the slash left.
func TestSlashedRewards(t *testing.T) {
	c := newChain(t, Params{CommunityTax: dec.Zero(), BaseProposerReward: dec.Zero(), BonusProposerReward: dec.Zero(), WithdrawAddrEnabled: true})
	c.validator(opA, consA, e18(10), "0")
	del := common.Address{0xd0}
	fund(c.st, del, e18(10))
	c.f.delegate(c.st, del, opA, e18(10))
	c.payees = []common.Address{opA, del}
	c.block(0, consA)
	c.block(2_000_000, consA, vote(consA, 20, true))
	c.f.slash(c.st, opA, "0.5")
	c.check()
	c.block(3_000_000, consA, vote(consA, 10, true))
	if ev := SlashEvents(c.st, opA); len(ev) != 1 || ev[0].Height != 2 || ev[0].Period != 3 || ev[0].Fraction.String() != "0.500000000000000000" {
		t.Fatalf("slash events %+v", ev)
	}
	before := c.st.GetBalance(del).ToBig()
	// Half of block 2's 2·10^6, half of block 3's 3·10^6.
	wantInt(t, "delegator after slash", c.withdraw(del, opA), 2_500_000)
	wantInt(t, "balance", new(big.Int).Sub(c.st.GetBalance(del).ToBig(), before), 2_500_000)
}

// TestShareChanges: delegating more and undelegating go through the hooks:
// each pays the rewards so far at the old stake; an undelegation of every
// share removes the starting info and its period reference.
func TestShareChanges(t *testing.T) {
	c := newChain(t, Params{CommunityTax: dec.Zero(), BaseProposerReward: dec.Zero(), BonusProposerReward: dec.Zero(), WithdrawAddrEnabled: true})
	c.validator(opA, consA, e18(10), "0")
	del := common.Address{0xd0}
	w := common.Address{0xd1}
	setWithdrawAddress(c.st, del, w)
	fund(c.st, del, e18(40))
	c.f.delegate(c.st, del, opA, e18(10))
	c.payees = []common.Address{opA, w}
	c.block(0, consA)
	c.block(1_000_000, consA, vote(consA, 20, true))
	c.f.delegate(c.st, del, opA, e18(30)) // pays 500000 at 10 of 20
	c.check()
	wantInt(t, "paid on delegate", c.st.GetBalance(w).ToBig(), 500_000)
	c.block(5_000_000, consA, vote(consA, 50, true))
	c.f.undelegate(c.st, del, opA, c.f.delegs[del][opA]) // pays 4000000 at 40 of 50
	c.check()
	wantInt(t, "paid on undelegate", c.st.GetBalance(w).ToBig(), 4_500_000)
	if _, ok := Starting(c.st, del, opA); ok {
		t.Fatal("starting info of a removed delegation")
	}
	_, period := CurrentRewards(c.st, opA)
	self := mustStarting(t, c, opA, opA).PreviousPeriod
	for p := uint64(0); p < period; p++ { // referenced: the self-delegation's start and the last closed period
		if h := HistoricalRewards(c.st, opA, p); (h.ReferenceCount != 0) != (p == self || p == period-1) {
			t.Fatalf("period %d: reference count %d", p, h.ReferenceCount)
		}
	}
	wantInt(t, "self", c.withdraw(opA, opA), 1_500_000)
}

func mustStarting(t *testing.T, c *chain, del, op common.Address) StartingInfo {
	t.Helper()
	si, ok := Starting(c.st, del, op)
	if !ok {
		t.Fatal("no starting info")
	}
	return si
}

// TestDust: a stake that does not divide the rewards leaves a fraction,
// which goes to the community pool when the rewards are paid.
func TestDust(t *testing.T) {
	c := newChain(t, Params{CommunityTax: dec.Zero(), BaseProposerReward: dec.Zero(), BonusProposerReward: dec.Zero(), WithdrawAddrEnabled: true})
	c.validator(opA, consA, big.NewInt(3), "0")
	c.validator(opB, consB, big.NewInt(3), "0.333333333333333333")
	c.payees = []common.Address{opA, opB}
	c.block(0, consA)
	c.block(10, consA, vote(consA, 1, true), vote(consB, 2, true))
	// A gets 10 × 0.333333333333333333 = 3.33333333333333333; B twice, of
	// which 0.333333333333333333 is commission.
	wantDec(t, "A outstanding", Outstanding(c.st, opA), "3.333333333333333330")
	wantDec(t, "community", CommunityPool(c.st), "0.000000000000000010")
	wantInt(t, "A", c.withdraw(opA, opA), 3)
	// ratio 1.11111111111111111 × 3 = 3.33333333333333333: 0.33333333333333333 to the pool
	wantDec(t, "community after", CommunityPool(c.st), "0.333333333333333340")
	wantDec(t, "A outstanding after", Outstanding(c.st, opA), "0.000000000000000000")
	wantInt(t, "B", c.withdraw(opB, opB), 4)
}

func eventList(ev *module.Events) []string {
	var out []string
	for _, e := range ev.List() {
		s := e.Type
		for _, a := range e.Attributes {
			s += " " + a.Key + "=" + a.Value
		}
		out = append(out, s)
	}
	return out
}
