package gov

import (
	"encoding/json"
	"math/big"
	"testing"
	"time"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

const (
	testPrefix = "ember"
	testDenom  = "aember"
)

// fakeStaking is a bonded set and delegations over Go values.
type fakeStaking struct {
	vals []BondedValidator
	dels map[common.Address][]Delegation
	// unbonded validators' delegations are listed in dels but their
	// validators are absent from vals: they do not count.
}

func (f *fakeStaking) BondedValidators(module.Reader) []BondedValidator { return f.vals }

func (f *fakeStaking) Delegations(_ module.Reader, d common.Address) []Delegation { return f.dels[d] }

func (f *fakeStaking) TotalBonded(module.Reader) *big.Int {
	t := new(big.Int)
	for _, v := range f.vals {
		t.Add(t, v.Tokens)
	}
	return t
}

// val adds a bonded validator whose operator self-delegates selfShares.
func (f *fakeStaking) val(op common.Address, tokens int64, shares, selfShares string) {
	f.vals = append(f.vals, BondedValidator{Operator: op, Tokens: big.NewInt(tokens), DelegatorShares: dec.MustParse(shares)})
	f.delegate(op, op, selfShares)
}

func (f *fakeStaking) delegate(del, op common.Address, shares string) {
	if f.dels == nil {
		f.dels = map[common.Address][]Delegation{}
	}
	f.dels[del] = append(f.dels[del], Delegation{Validator: op, Shares: dec.MustParse(shares)})
}

func addr(n byte) common.Address { return common.BytesToAddress([]byte{0xaa, n}) }

func bech(a common.Address) string { return accounts.Bech32(testPrefix, a) }

// chain is a state with gov (and bank, whose MsgSend a proposal may
// carry) behind one router, executing messages as native.Execute does.
type chain struct {
	t      *testing.T
	alloc  types.GenesisAlloc
	st     *module.AllocState
	m      *Module
	router *module.Router
	sk     *fakeStaking
	env    *module.Env
}

func newChain(t *testing.T, p Params) *chain {
	t.Helper()
	alloc := types.GenesisAlloc{}
	c := &chain{t: t, alloc: alloc, st: module.NewAllocState(alloc), m: &Module{}, router: module.NewRouter(), sk: &fakeStaking{},
		env: &module.Env{ChainID: "ember_9000-1", Prefix: testPrefix, Denom: testDenom, Height: 10, Time: time.Unix(1_700_000_000, 0).UTC()}}
	c.m.Staking = c.sk
	c.m.Router = func() *module.Router { return c.router }
	for _, h := range c.m.Msgs() {
		c.router.Register(h)
	}
	for _, h := range (bank.Module{}).Msgs() {
		c.router.Register(h)
	}
	if err := SetParams(c.st, p); err != nil {
		t.Fatal(err)
	}
	return c
}

// fund gives a the balance n and records it in the supply.
func (c *chain) fund(a common.Address, n int64) {
	if err := bank.Mint(c.st, a, big.NewInt(n)); err != nil {
		c.t.Fatal(err)
	}
}

func (c *chain) balance(a common.Address) *big.Int { return c.st.GetBalance(a).ToBig() }

// tx decodes and executes msg; a failed message's changes are reverted.
func (c *chain) tx(msg proto.Message) (*module.Events, error) {
	a, err := newAny(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	m, err := c.router.Decode(a, module.Codec{Prefix: testPrefix, Denom: testDenom})
	if err != nil {
		return nil, err
	}
	ev := module.NewEvents(testPrefix, testDenom)
	snap := c.st.Snapshot()
	if err := m.Exec(c.st, &module.MsgContext{Env: c.env, Events: ev, Index: "0"}); err != nil {
		c.st.RevertToSnapshot(snap)
		return ev, err
	}
	return ev, nil
}

// mustTx executes msg, which must succeed.
func (c *chain) mustTx(msg proto.Message) *module.Events {
	c.t.Helper()
	ev, err := c.tx(msg)
	if err != nil {
		c.t.Fatalf("%s: %v", proto.MessageName(msg), err)
	}
	return ev
}

// endBlock advances the clock by d and runs gov's EndBlock.
func (c *chain) endBlock(d time.Duration) *module.Events {
	c.t.Helper()
	c.env.Time = c.env.Time.Add(d)
	c.env.Height++
	ev := module.NewEvents(testPrefix, testDenom)
	if _, err := c.m.EndBlock(module.WithEvents(c.st, ev, ""), &module.Block{Env: c.env, Events: ev}); err != nil {
		c.t.Fatal(err)
	}
	return ev
}

// dump is the whole state, to compare before and after a refusal.
func (c *chain) dump() string {
	b, err := json.Marshal(c.alloc)
	if err != nil {
		c.t.Fatal(err)
	}
	return string(b)
}

func coin(n int64) []*basev1beta1.Coin {
	return []*basev1beta1.Coin{{Denom: testDenom, Amount: big.NewInt(n).String()}}
}

func anyOf(t *testing.T, m proto.Message) *anypb.Any {
	a, err := newAny(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// testParams are short periods and small deposits: min_deposit 1000,
// initial at least 100, later deposits at least 10.
func testParams() Params {
	p := DefaultParams()
	p.MinDeposit = big.NewInt(1000)
	p.ExpeditedMinDeposit = big.NewInt(5000)
	p.MaxDepositPeriod = 10 * time.Second
	p.VotingPeriod = 20 * time.Second
	p.ExpeditedVotingPeriod = 10 * time.Second
	p.MinInitialDepositRatio = dec.MustParse("0.1")
	return p
}
