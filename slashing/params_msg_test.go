package slashing

import (
	"reflect"
	"testing"
	"time"

	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// writes counts the writes made through it: a refused message must make
// none.
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

var govBech32 = accounts.Bech32("ember", module.GovAuthority)

func (h *harness) updateParams(msg *slashingv1beta1.MsgUpdateParams) (int, error) {
	h.t.Helper()
	r := module.NewRouter()
	for _, hd := range h.m.Msgs() {
		r.Register(hd)
	}
	value, _ := proto.Marshal(msg)
	m, err := r.Decode(&anypb.Any{TypeUrl: TypeMsgUpdateParams, Value: value}, module.Codec{Prefix: "ember", Denom: "aember"})
	if err != nil {
		return 0, err
	}
	w := &writes{State: h.st}
	err = m.Exec(w, &module.MsgContext{Env: env(1), Events: module.NewEvents("ember", "aember"), Index: "0"})
	return w.n, err
}

func protoParams() *slashingv1beta1.Params {
	return &slashingv1beta1.Params{
		SignedBlocksWindow: 10, MinSignedPerWindow: []byte("500000000000000000"), DowntimeJailDuration: durationpb.New(time.Minute),
		SlashFractionDoubleSign: []byte("100000000000000000"), SlashFractionDowntime: []byte("20000000000000000"),
	}
}

// TestUpdateParamsApplied: the params land exactly; a new window restarts
// every validator's window (both bitmap words of a 300-block window
// cleared), and the next downtime is judged and punished by the new
// params.
func TestUpdateParamsApplied(t *testing.T) {
	p := DefaultParams()
	p.SignedBlocksWindow = 300
	v, ok := val(1, 10), val(2, 10)
	h := newHarness(t, p, v, ok)
	for height := int64(2); height <= 260; height++ {
		if height >= 250 {
			h.votes(height, v) // indices 248…258: both words of the bitmap
		} else {
			h.votes(height)
		}
	}
	if got := h.info(v).MissedBlocksCounter; got != 11 {
		t.Fatalf("missed %d before the change, want 11", got)
	}
	if _, err := h.updateParams(&slashingv1beta1.MsgUpdateParams{Authority: govBech32, Params: protoParams()}); err != nil {
		t.Fatal(err)
	}
	want := Params{SignedBlocksWindow: 10, MinSignedPerWindow: dec.MustParse("0.5"), DowntimeJailDuration: time.Minute,
		SlashFractionDoubleSign: dec.MustParse("0.1"), SlashFractionDowntime: dec.MustParse("0.02")}
	if got := GetParams(h.st); !reflect.DeepEqual(got.JSON(), want.JSON()) {
		t.Fatalf("params %+v, want %+v", got.JSON(), want.JSON())
	}
	h.p = want
	for _, val := range []*fakeValidator{v, ok} {
		if info := h.info(val); info.MissedBlocksCounter != 0 || info.IndexOffset != 0 {
			t.Fatalf("validator %x: counter %d index %d after the window changed", val.cons, info.MissedBlocksCounter, info.IndexOffset)
		}
		base := mapSlot(val.cons, slotMissed)
		for i := uint64(0); i < 2; i++ {
			if w := h.st.GetState(StateAddress, slots.Offset(base, i)); w != (common.Hash{}) {
				t.Fatalf("bitmap word %d not cleared: %x", i, w)
			}
		}
	}
	for height := int64(261); height <= 266; height++ {
		h.votes(height, v) // the 6th miss of 10 exceeds the new maximum of 5
	}
	wantSlash := []slashCall{{cons: v.cons, infractionHeight: 264, currentHeight: 266, power: 10, fraction: dec.MustParse("0.02")}}
	if !reflect.DeepEqual(h.f.slashes, wantSlash) {
		t.Fatalf("slashes %+v, want %+v", h.f.slashes, wantSlash)
	}
	if got, want := h.info(v).JailedUntil, blockTime(266).Add(time.Minute); !got.Equal(want) {
		t.Fatalf("jailed until %v, want %v", got, want)
	}
}

// TestUpdateParamsRefused: the wrong authority and every invalid value get
// the SDK's error and write nothing.
func TestUpdateParamsRefused(t *testing.T) {
	h := newHarness(t, window10(), val(1, 10))
	other := accounts.Bech32("ember", common.Address{0xa0, 1})
	for _, tc := range []struct {
		name      string
		authority string
		edit      func(p *slashingv1beta1.Params)
		codespace string
		code      uint32
		text      string
	}{
		{"wrong authority", other, nil, "gov", 13, "invalid authority; expected " + govBech32 + ", got " + other + ": expected gov account as only signer for proposal message"},
		{"window 0", govBech32, func(p *slashingv1beta1.Params) { p.SignedBlocksWindow = 0 }, "undefined", 1, "signed blocks window must be positive: 0"},
		{"nil min signed", govBech32, func(p *slashingv1beta1.Params) { p.MinSignedPerWindow = nil }, "undefined", 1, "min signed per window cannot be nil: <nil>"},
		{"negative min signed", govBech32, func(p *slashingv1beta1.Params) { p.MinSignedPerWindow = []byte("-1") }, "undefined", 1, "min signed per window cannot be negative: -0.000000000000000001"},
		{"min signed above 1", govBech32, func(p *slashingv1beta1.Params) { p.MinSignedPerWindow = []byte("1500000000000000000") }, "undefined", 1, "min signed per window too large: 1.500000000000000000"},
		{"jail 0", govBech32, func(p *slashingv1beta1.Params) { p.DowntimeJailDuration = nil }, "undefined", 1, "downtime jail duration must be positive: 0s"},
		{"nil double sign", govBech32, func(p *slashingv1beta1.Params) { p.SlashFractionDoubleSign = nil }, "undefined", 1, "double sign slash fraction cannot be nil: <nil>"},
		{"double sign above 1", govBech32, func(p *slashingv1beta1.Params) { p.SlashFractionDoubleSign = []byte("2000000000000000000") }, "undefined", 1, "double sign slash fraction too large: 2.000000000000000000"},
		{"negative downtime", govBech32, func(p *slashingv1beta1.Params) { p.SlashFractionDowntime = []byte("-10") }, "undefined", 1, "downtime slash fraction cannot be negative: -0.000000000000000010"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := protoParams()
			p.SignedBlocksWindow = 20
			if tc.edit != nil {
				tc.edit(p)
			}
			n, err := h.updateParams(&slashingv1beta1.MsgUpdateParams{Authority: tc.authority, Params: p})
			e := module.AsError(err)
			if err == nil || e.Codespace != tc.codespace || e.Code != tc.code || err.Error() != tc.text {
				t.Fatalf("error %v (%s/%d), want %s/%d %q", err, e.Codespace, e.Code, tc.codespace, tc.code, tc.text)
			}
			if n != 0 || GetParams(h.st).SignedBlocksWindow != 10 {
				t.Fatalf("%d writes on a refusal; window %d", n, GetParams(h.st).SignedBlocksWindow)
			}
		})
	}
}
