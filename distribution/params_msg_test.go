package distribution

import (
	"math/big"
	"strings"
	"testing"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// writes counts the writes made through it: a refusal must make none.
type writes struct {
	module.State
	n int
}

func (w *writes) SetState(a common.Address, k, v common.Hash) common.Hash {
	w.n++
	return w.State.SetState(a, k, v)
}

func (w *writes) AddBalance(a common.Address, v *uint256.Int, r tracing.BalanceChangeReason) uint256.Int {
	w.n++
	return w.State.AddBalance(a, v, r)
}

func (w *writes) SubBalance(a common.Address, v *uint256.Int, r tracing.BalanceChangeReason) uint256.Int {
	w.n++
	return w.State.SubBalance(a, v, r)
}

func (w *writes) SetNonce(a common.Address, n uint64, r tracing.NonceChangeReason) {
	w.n++
	w.State.SetNonce(a, n, r)
}

var gov = module.NewEvents("ember", "").Acc(module.GovAuthority)

// execGov decodes and executes a governance message as a passed proposal
// runs it, counting its writes; it does not revert a refusal's.
func execGov(t *testing.T, c *chain, p proto.Message) (*module.Events, int, error) {
	t.Helper()
	r := module.NewRouter()
	for _, h := range (Module{Keeper: c.k}).Msgs() {
		r.Register(h)
	}
	value, _ := proto.Marshal(p)
	m, err := r.Decode(&anypb.Any{TypeUrl: "/" + string(proto.MessageName(p)), Value: value}, module.Codec{Prefix: "ember", Denom: "aember"})
	if err != nil {
		return nil, 0, err
	}
	ev := module.NewEvents("ember", "aember")
	w := &writes{State: c.st}
	err = m.Exec(w, &module.MsgContext{Env: &module.Env{Prefix: "ember", Denom: "aember"}, Events: ev, Index: "0"})
	return ev, w.n, err
}

func wantErr(t *testing.T, err error, codespace string, code uint32, text string) {
	t.Helper()
	e := module.AsError(err)
	if err == nil || e.Codespace != codespace || e.Code != code || err.Error() != text {
		t.Fatalf("error %v (%s/%d), want %s/%d %q", err, e.Codespace, e.Code, codespace, code, text)
	}
}

// poolChain is a chain whose community pool holds 2000 (half of 4000 in
// fees, the community tax being 0.5).
func poolChain(t *testing.T) *chain {
	c := newChain(t, Params{CommunityTax: dec.MustParse("0.5"), BaseProposerReward: dec.Zero(), BonusProposerReward: dec.Zero(), WithdrawAddrEnabled: true})
	c.validator(opA, consA, e18(1), "0.5")
	c.block(0, consA)
	c.block(4000, consA, vote(consA, 1, true))
	wantDec(t, "community pool", CommunityPool(c.st), "2000.000000000000000000")
	return c
}

// TestUpdateParamsMsg: the params land exactly and the next allocation
// uses them; the wrong authority and invalid values get the SDK's errors
// and write nothing.
func TestUpdateParamsMsg(t *testing.T) {
	c := poolChain(t)
	msg := func(tax, base string) *distrv1beta1.MsgUpdateParams {
		return &distrv1beta1.MsgUpdateParams{Authority: gov, Params: &distrv1beta1.Params{CommunityTax: tax, BaseProposerReward: base, WithdrawAddrEnabled: false}}
	}
	other := module.NewEvents("ember", "").Acc(opA)
	for _, tc := range []struct {
		name      string
		msg       *distrv1beta1.MsgUpdateParams
		codespace string
		code      uint32
		text      string
	}{
		{"wrong authority", &distrv1beta1.MsgUpdateParams{Authority: other, Params: msg("0", "").Params}, Codespace, 15,
			"invalid authority; expected " + gov + ", got " + other + ": expected authority account as only signer for proposal message"},
		{"base proposer reward", msg("100000000000000000", "10000000000000000"), "sdk", 18, "cannot update base or bonus proposer reward because these are deprecated fields: invalid request"},
		{"tax above 1", msg("1500000000000000000", "0"), "undefined", 1, "community tax should be non-negative and less than one: 1.500000000000000000"},
		{"negative tax", msg("-200000000000000000", ""), "undefined", 1, "community tax should be non-negative and less than one: -0.200000000000000000"},
		{"nil tax", msg("", ""), "undefined", 1, "community tax should be non-negative and less than one: <nil>"},
	} {
		_, n, err := execGov(t, c, tc.msg)
		wantErr(t, err, tc.codespace, tc.code, tc.text)
		if n != 0 {
			t.Fatalf("%s: %d writes", tc.name, n)
		}
	}
	_, _, err := execGov(t, c, &distrv1beta1.MsgUpdateParams{Authority: "ember1notanaddress", Params: msg("0", "").Params})
	if e := module.AsError(err); err == nil || e.Code != module.CodeInvalidAddress || !strings.HasPrefix(err.Error(), "invalid authority address: ") {
		t.Fatalf("undecodable authority: %v", err)
	}
	if _, _, err := execGov(t, c, msg("100000000000000000", "0")); err != nil {
		t.Fatal(err)
	}
	if got := GetParams(c.st); got.CommunityTax.String() != "0.100000000000000000" || !got.BaseProposerReward.IsZero() || got.WithdrawAddrEnabled {
		t.Fatalf("params %+v", got.JSON())
	}
	c.block(1000, consA, vote(consA, 1, true)) // 10% of 1000 to the community pool
	wantDec(t, "community pool", CommunityPool(c.st), "2100.000000000000000000")
}

// TestSpendCommunityPool: a spend pays the recipient exactly and lowers
// the community pool by as much (the pool's balance still equals its
// records; nothing is minted); a spend above the pool, of nothing, or to a
// module account is refused and writes nothing.
func TestSpendCommunityPool(t *testing.T) {
	c := poolChain(t)
	to := common.Address{0xe1}
	c.payees = append(c.payees, to)
	poolBefore := c.st.GetBalance(Pool).ToBig()
	supply := new(big.Int).Add(poolBefore, c.st.GetBalance(to).ToBig())

	w := &writes{State: c.st}
	wantErr(t, SpendCommunityPool(w, to, big.NewInt(2001)), Codespace, 9, "community pool does not have sufficient coins to distribute")
	wantErr(t, SpendCommunityPool(w, to, big.NewInt(0)), "sdk", 10, "amount 0 must be positive: invalid coins")
	wantErr(t, SpendCommunityPool(w, FeeCollector, big.NewInt(1)), "sdk", 4, FeeCollector.Hex()+" is not allowed to receive external funds: unauthorized")
	if w.n != 0 {
		t.Fatalf("%d writes by refused spends", w.n)
	}

	if err := SpendCommunityPool(c.st, to, big.NewInt(1500)); err != nil {
		t.Fatal(err)
	}
	c.check()
	wantInt(t, "recipient", c.st.GetBalance(to).ToBig(), 1500)
	wantInt(t, "pool balance", c.st.GetBalance(Pool).ToBig(), poolBefore.Int64()-1500)
	wantDec(t, "community pool", CommunityPool(c.st), "500.000000000000000000")
	if got := new(big.Int).Add(c.st.GetBalance(Pool).ToBig(), c.st.GetBalance(to).ToBig()); got.Cmp(supply) != 0 {
		t.Fatalf("pool + recipient = %v, was %v", got, supply)
	}

	// Through the message, with the bank's events.
	amount := []*basev1beta1.Coin{{Denom: "aember", Amount: "500"}}
	ev, _, err := execGov(t, c, &distrv1beta1.MsgCommunityPoolSpend{Authority: module.GovAuthority.Hex(), Recipient: acc(to), Amount: amount})
	if err != nil {
		t.Fatal(err)
	}
	c.check()
	wantInt(t, "recipient", c.st.GetBalance(to).ToBig(), 2000)
	wantDec(t, "community pool", CommunityPool(c.st), "0.000000000000000000")
	wantEvents(t, ev, "message action="+TypeMsgCommunityPoolSpend+" sender="+gov+" module=distribution msg_index=0",
		"coin_spent spender="+acc(Pool)+" amount=500aember msg_index=0",
		"coin_received receiver="+acc(to)+" amount=500aember msg_index=0",
		"transfer recipient="+acc(to)+" sender="+acc(Pool)+" amount=500aember msg_index=0")
	_, n, err := execGov(t, c, &distrv1beta1.MsgCommunityPoolSpend{Authority: gov, Recipient: acc(to), Amount: []*basev1beta1.Coin{{Denom: "aember", Amount: "1"}}})
	wantErr(t, err, Codespace, 9, "community pool does not have sufficient coins to distribute")
	other := acc(opA)
	_, n2, err := execGov(t, c, &distrv1beta1.MsgCommunityPoolSpend{Authority: other, Recipient: acc(to), Amount: amount})
	wantErr(t, err, Codespace, 15, "invalid authority; expected "+gov+", got "+other+": expected authority account as only signer for proposal message")
	_, _, err = execGov(t, c, &distrv1beta1.MsgCommunityPoolSpend{Authority: gov, Recipient: acc(to)})
	wantErr(t, err, "sdk", 10, "amount cannot be nil: invalid coins")
	if n+n2 != 0 {
		t.Fatalf("%d writes by refused messages", n+n2)
	}
}

func acc(a common.Address) string { return module.NewEvents("ember", "").Acc(a) }

// TestSpendProposal: the legacy proposal's checks, then the spend.
func TestSpendProposal(t *testing.T) {
	c := poolChain(t)
	to := common.Address{0xe2}
	c.payees = append(c.payees, to)
	coins := func(n string) []*basev1beta1.Coin { return []*basev1beta1.Coin{{Denom: "aember", Amount: n}} }
	for _, tc := range []struct {
		p         *distrv1beta1.CommunityPoolSpendProposal
		codespace string
		code      uint32
		text      string
	}{
		{&distrv1beta1.CommunityPoolSpendProposal{Amount: coins("1")}, Codespace, 11, "invalid community pool spend proposal recipient"},
		{&distrv1beta1.CommunityPoolSpendProposal{Recipient: acc(to), Amount: coins("0")}, Codespace, 10, "invalid community pool spend proposal amount"},
		{&distrv1beta1.CommunityPoolSpendProposal{Recipient: acc(to), Amount: []*basev1beta1.Coin{{Denom: "uatom", Amount: "1"}}}, Codespace, 10, "invalid community pool spend proposal amount"},
		{&distrv1beta1.CommunityPoolSpendProposal{Recipient: acc(to), Amount: coins("2001")}, Codespace, 9, "community pool does not have sufficient coins to distribute"},
	} {
		w := &writes{State: c.st}
		wantErr(t, SpendProposal(w, tc.p, "ember", "aember"), tc.codespace, tc.code, tc.text)
		if w.n != 0 {
			t.Fatalf("%d writes", w.n)
		}
	}
	if err := SpendProposal(c.st, &distrv1beta1.CommunityPoolSpendProposal{Recipient: acc(to), Amount: coins("2000")}, "ember", "aember"); err != nil {
		t.Fatal(err)
	}
	c.check()
	wantInt(t, "recipient", c.st.GetBalance(to).ToBig(), 2000)
	wantDec(t, "community pool", CommunityPool(c.st), "0.000000000000000000")
}
