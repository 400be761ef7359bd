package slashing

import (
	"reflect"
	"testing"
	"time"

	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

func packUnjail(t *testing.T, op common.Address) *anypb.Any {
	t.Helper()
	valoper, _ := accounts.NewPrefixes("ember").Encode(accounts.KindValidator, op[:])
	b, err := proto.Marshal(&slashingv1beta1.MsgUnjail{ValidatorAddr: valoper})
	if err != nil {
		t.Fatal(err)
	}
	return &anypb.Any{TypeUrl: TypeMsgUnjail, Value: b}
}

func doubleSign(v *fakeValidator, height, power int64) module.Misbehavior {
	return module.Misbehavior{DuplicateVote: true, Validator: v.cons, Power: power, Height: height, Time: blockTime(height), TotalVotingPower: 100}
}

// TestDoubleSign: evidence slashes 5% at the power it reports and at the
// height before the infraction, jails for ever and tombstones; a second
// piece for the same validator does nothing; unjail is refused for ever.
func TestDoubleSign(t *testing.T) {
	v, other := val(1, 10), val(2, 10)
	h := newHarness(t, DefaultParams(), v, other)
	h.votes(2)
	h.begin(20, &module.BlockInfo{Misbehavior: []module.Misbehavior{doubleSign(v, 5, 7)}})
	want := []slashCall{{cons: v.cons, infractionHeight: 4, currentHeight: 20, power: 7, fraction: dec.MustParse("0.05")}}
	if !reflect.DeepEqual(h.f.slashes, want) || !reflect.DeepEqual(h.f.jails, []common.Address{v.cons}) {
		t.Fatalf("slashes %+v jails %v", h.f.slashes, h.f.jails)
	}
	if v.tokens.String() != "9650000000000000000" {
		t.Fatalf("tokens %v", v.tokens)
	}
	info := h.info(v)
	if !info.Tombstoned || !info.JailedUntil.Equal(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)) || !IsTombstoned(h.st, v.cons) || IsTombstoned(h.st, other.cons) {
		t.Fatalf("info %+v", info)
	}
	cons := consBech32("ember", v.cons)
	wantEv := []string{"address=" + cons + " power=7 reason=double_sign burned_coins=350000000000000000", "jailed=" + cons}
	if got := h.eventsOf("slash"); !reflect.DeepEqual(got, wantEv) {
		t.Fatalf("events %q, want %q", got, wantEv)
	}
	h.begin(21, &module.BlockInfo{Misbehavior: []module.Misbehavior{doubleSign(v, 6, 7)}})
	if len(h.f.slashes) != 1 || len(h.f.jails) != 1 || len(h.events) != 0 {
		t.Fatalf("second evidence acted: %+v, events %v", h.f.slashes, h.events)
	}
	r := module.NewRouter()
	r.Register(h.m.msgUnjail())
	m, _ := r.Decode(packUnjail(t, v.op), module.Codec{Prefix: "ember", Denom: "aember"})
	if err := m.Check(h.st); module.AsError(err).Code != CodeValidatorJailed {
		t.Fatalf("unjail of a tombstoned validator: %v", err)
	}
}

// TestEvidenceAge: evidence older than both max_age_num_blocks and
// max_age_duration is ignored; older by one of them only, it counts (the
// SDK's rule). An unknown validator's evidence and a light-client attack
// are ignored too; a jailed validator is slashed and tombstoned but not
// jailed again.
func TestEvidenceAge(t *testing.T) {
	old, oneLimit, jailed := val(1, 10), val(2, 10), val(3, 10)
	h := newHarness(t, DefaultParams(), old, oneLimit, jailed)
	now := int64(MaxEvidenceAgeBlocks + 1000)
	e := doubleSign(old, 999, 10)
	e.Time = blockTime(now).Add(-MaxEvidenceAgeDuration - time.Second)
	unknown := doubleSign(&fakeValidator{cons: common.Address{0xee}}, now-1, 10)
	lca := doubleSign(old, now-1, 10)
	lca.DuplicateVote = false
	h.begin(now, &module.BlockInfo{Misbehavior: []module.Misbehavior{e, unknown, lca}})
	if len(h.f.slashes) != 0 || SigningInfoCount(h.st) != 0 {
		t.Fatalf("ignored evidence acted: %+v", h.f.slashes)
	}
	e = doubleSign(oneLimit, 999, 10) // too many blocks ago, but recent enough in time
	e.Time = blockTime(now).Add(-MaxEvidenceAgeDuration)
	jailed.jailed = true
	h.begin(now, &module.BlockInfo{Misbehavior: []module.Misbehavior{e, doubleSign(jailed, now-1, 10)}})
	want := []slashCall{
		{cons: oneLimit.cons, infractionHeight: 998, currentHeight: now, power: 10, fraction: dec.MustParse("0.05")},
		{cons: jailed.cons, infractionHeight: now - 2, currentHeight: now, power: 10, fraction: dec.MustParse("0.05")},
	}
	if !reflect.DeepEqual(h.f.slashes, want) || !reflect.DeepEqual(h.f.jails, []common.Address{oneLimit.cons}) {
		t.Fatalf("slashes %+v jails %v", h.f.slashes, h.f.jails)
	}
	if !IsTombstoned(h.st, jailed.cons) || h.info(jailed).StartHeight != now {
		t.Fatalf("jailed validator's info %+v", h.info(jailed))
	}
}
