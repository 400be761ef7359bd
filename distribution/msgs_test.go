package distribution

import (
	"fmt"
	"testing"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// exec decodes p through the module's handlers and executes it.
func exec(t *testing.T, c *chain, p proto.Message) (*module.Events, error) {
	t.Helper()
	r := module.NewRouter()
	for _, h := range (Module{Keeper: c.k}).Msgs() {
		r.Register(h)
	}
	value, _ := proto.Marshal(p)
	m, err := r.Decode(&anypb.Any{TypeUrl: "/" + string(proto.MessageName(p)), Value: value}, module.Codec{Prefix: "ember", Denom: "aember"})
	if err != nil {
		return nil, err
	}
	if err := m.Check(c.st); err != nil {
		return nil, err
	}
	ev := module.NewEvents("ember", "aember")
	snap := c.st.Snapshot()
	if err := m.Exec(c.st, &module.MsgContext{Env: &module.Env{Denom: "aember"}, Events: ev, Index: "0"}); err != nil {
		c.st.RevertToSnapshot(snap)
		return nil, err
	}
	c.check()
	return ev, nil
}

func wantCode(t *testing.T, err error, codespace string, code uint32) {
	t.Helper()
	if e := module.AsError(err); err == nil || e.Codespace != codespace || e.Code != code {
		t.Fatalf("error %v, want %s/%d", err, codespace, code)
	}
}

// TestMsgs: each message's effect and events, and the SDK's codes for what
// it refuses (which changes nothing).
func TestMsgs(t *testing.T) {
	c := newChain(t, Params{CommunityTax: dec.MustParse("0.5"), BaseProposerReward: dec.Zero(), BonusProposerReward: dec.Zero(), WithdrawAddrEnabled: true})
	c.validator(opA, consA, e18(1), "0.5")
	del, w := common.Address{0xd0}, common.Address{0xd1}
	fund(c.st, del, e18(2))
	c.f.delegate(c.st, del, opA, e18(1))
	c.payees = []common.Address{w, opA}
	c.block(0, consA)
	c.block(4000, consA, vote(consA, 2, true))
	ev := module.NewEvents("ember", "aember")

	_, err := exec(t, c, &distrv1beta1.MsgWithdrawDelegatorReward{DelegatorAddress: w.Hex(), ValidatorAddress: ev.Valoper(opA)})
	wantCode(t, err, Codespace, CodeEmptyDelegationDistInfo)
	_, err = exec(t, c, &distrv1beta1.MsgWithdrawDelegatorReward{DelegatorAddress: del.Hex(), ValidatorAddress: ev.Valoper(opB)})
	wantCode(t, err, Codespace, CodeNoValidatorDistInfo)
	_, err = exec(t, c, &distrv1beta1.MsgWithdrawValidatorCommission{ValidatorAddress: ev.Valoper(opB)})
	wantCode(t, err, Codespace, CodeNoValidatorCommission)
	_, err = exec(t, c, &distrv1beta1.MsgSetWithdrawAddress{DelegatorAddress: del.Hex(), WithdrawAddress: Pool.Hex()})
	wantCode(t, err, module.CodespaceSDK, module.CodeUnauthorized)

	got, err := exec(t, c, &distrv1beta1.MsgSetWithdrawAddress{DelegatorAddress: del.Hex(), WithdrawAddress: ev.Acc(w)})
	if err != nil || WithdrawAddress(c.st, del) != w {
		t.Fatal(err)
	}
	wantEvents(t, got, "message action=/cosmos.distribution.v1beta1.MsgSetWithdrawAddress sender="+ev.Acc(del)+" module=distribution msg_index=0",
		"set_withdraw_address withdraw_address="+ev.Acc(w)+" msg_index=0")

	// 4000 − half to the community: 2000, half commission: 1000 to two
	// equal delegations.
	got, err = exec(t, c, &distrv1beta1.MsgWithdrawDelegatorReward{DelegatorAddress: del.Hex(), ValidatorAddress: ev.Valoper(opA)})
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, got, "message action=/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward sender="+ev.Acc(del)+" module=distribution msg_index=0",
		"coin_spent spender="+ev.Acc(Pool)+" amount=500aember msg_index=0",
		"coin_received receiver="+ev.Acc(w)+" amount=500aember msg_index=0",
		"transfer recipient="+ev.Acc(w)+" sender="+ev.Acc(Pool)+" amount=500aember msg_index=0",
		"withdraw_rewards amount=500aember validator="+ev.Valoper(opA)+" delegator="+ev.Acc(del)+" msg_index=0")
	got, err = exec(t, c, &distrv1beta1.MsgWithdrawValidatorCommission{ValidatorAddress: ev.Valoper(opA)})
	if err != nil || c.st.GetBalance(opA).Uint64() != 1000 {
		t.Fatalf("commission: %v, balance %v", err, c.st.GetBalance(opA))
	}
	if l := eventList(got); l[len(l)-1] != "withdraw_commission amount=1000aember msg_index=0" {
		t.Fatalf("events %v", l)
	}
	_, err = exec(t, c, &distrv1beta1.MsgWithdrawValidatorCommission{ValidatorAddress: ev.Valoper(opA)})
	wantCode(t, err, Codespace, CodeNoValidatorCommission)

	c.payees = append(c.payees, del) // del's balance now only leaves by the fund below
	c.collected.Add(c.collected, c.st.GetBalance(del).ToBig())
	if _, err = exec(t, c, &distrv1beta1.MsgFundCommunityPool{Depositor: del.Hex(), Amount: []*basev1beta1.Coin{{Denom: "aember", Amount: "77"}}}); err != nil {
		t.Fatal(err)
	}
	wantDec(t, "community pool", CommunityPool(c.st), "2077.000000000000000000")
	_, err = exec(t, c, &distrv1beta1.MsgFundCommunityPool{Depositor: del.Hex(), Amount: []*basev1beta1.Coin{{Denom: "aember", Amount: e18(5).String()}}})
	wantCode(t, err, module.CodespaceSDK, module.CodeInsufficientFunds)

	if err := setParamsDisabled(c); err != nil {
		t.Fatal(err)
	}
	_, err = exec(t, c, &distrv1beta1.MsgSetWithdrawAddress{DelegatorAddress: del.Hex(), WithdrawAddress: del.Hex()})
	wantCode(t, err, Codespace, CodeSetWithdrawAddrDisabled)
	if WithdrawAddress(c.st, del) != w {
		t.Fatal("a refused MsgSetWithdrawAddress changed the address")
	}
}

func setParamsDisabled(c *chain) error {
	p := GetParams(c.st)
	p.WithdrawAddrEnabled = false
	return Init(c.st, p)
}

func wantEvents(t *testing.T, ev *module.Events, want ...string) {
	t.Helper()
	if got := eventList(ev); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events\n%v\nwant\n%v", got, want)
	}
}

func TestBlocked(t *testing.T) {
	for a, want := range map[common.Address]bool{
		common.HexToAddress("0x01"): true, common.HexToAddress("0x0100"): true, Pool: true, FeeCollector: true,
		common.HexToAddress("0x0B40"): true, common.HexToAddress("0xbeef"): false, common.HexToAddress("0x0200"): false, {0xd1}: false,
	} {
		if blocked(a) != want {
			t.Errorf("blocked(%s) = %v", a.Hex(), !want)
		}
	}
}
