package slashing

import (
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

var genesisTime = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// harness is the module over a real StateDB and a fake staking keeper.
type harness struct {
	t      *testing.T
	st     *state.StateDB
	f      *fakeStaking
	m      Module
	p      Params
	events []abci.Event // of the last block
}

func newHarness(t *testing.T, p Params, vals ...*fakeValidator) *harness {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	setParams(st, p)
	f := &fakeStaking{vals: vals}
	return &harness{t: t, st: st, f: f, m: Module{Staking: f.staking()}, p: p}
}

// val is a validator numbered n with tokens of power and a self-delegation
// of one token above its minimum.
func val(n byte, power int64) *fakeValidator {
	return &fakeValidator{op: common.Address{0xa0, n}, cons: common.Address{0xc0, n}, tokens: e18(power), self: e18(2), min: e18(1)}
}

func blockTime(height int64) time.Time {
	return genesisTime.Add(time.Duration(height) * 5 * time.Second)
}

func env(height int64) *module.Env {
	return &module.Env{ChainID: "ember-test", Prefix: "ember", Denom: "aember", Height: height, Time: blockTime(height)}
}

// begin runs BeginBlock of height with info, then checks the invariant.
func (h *harness) begin(height int64, info *module.BlockInfo) {
	h.t.Helper()
	b := &module.Block{Env: env(height), Info: info, Events: module.NewEvents("ember", "aember")}
	if err := h.m.BeginBlock(h.st, b); err != nil {
		h.t.Fatalf("height %d: %v", height, err)
	}
	h.events = b.Events.List()
	h.invariant()
}

// votes runs a block whose last commit has the votes of the validators not
// jailed, each signed unless it is in absent.
func (h *harness) votes(height int64, absent ...*fakeValidator) {
	h.t.Helper()
	info := &module.BlockInfo{}
	for _, v := range h.f.vals {
		if v.jailed { // out of the commits once its power-0 update took effect
			continue
		}
		signed := true
		for _, a := range absent {
			signed = signed && a != v
		}
		info.Votes = append(info.Votes, module.Vote{Validator: v.cons, Power: new(big.Int).Quo(v.tokens, e18(1)).Int64(), Signed: signed})
	}
	h.begin(height, info)
}

// invariant: each validator's counter is the number of bits set in its
// window's bitmap.
func (h *harness) invariant() {
	h.t.Helper()
	for _, info := range SigningInfos(h.st, 0, SigningInfoCount(h.st)) {
		set := int64(0)
		for i := int64(0); i < h.p.SignedBlocksWindow; i++ {
			if Missed(h.st, info.Address, i) {
				set++
			}
		}
		if set != info.MissedBlocksCounter {
			h.t.Fatalf("validator %x: counter %d, bitmap has %d bits set", info.Address, info.MissedBlocksCounter, set)
		}
	}
}

func (h *harness) info(v *fakeValidator) SigningInfo {
	h.t.Helper()
	info, ok := GetSigningInfo(h.st, v.cons)
	if !ok {
		h.t.Fatalf("no signing info for %x", v.cons)
	}
	return info
}

func (h *harness) eventsOf(typ string) []string {
	var out []string
	for _, e := range h.events {
		if e.Type != typ {
			continue
		}
		var kv []string
		for _, a := range e.Attributes {
			kv = append(kv, a.Key+"="+a.Value)
		}
		out = append(out, strings.Join(kv, " "))
	}
	return out
}

func window10() Params {
	p := DefaultParams()
	p.SignedBlocksWindow = 10
	return p
}

// TestDowntime: with a window of 10 and half to sign, a validator that
// misses 6 of the 10 blocks of its window once past start+window is slashed
// 1% at the height of the stake that signed, jailed until block time +
// jail duration, and its window restarts; one that misses 5 is not.
func TestDowntime(t *testing.T) {
	six, five := val(1, 10), val(2, 20)
	h := newHarness(t, window10(), six, five)
	if got := h.p.MaxMissedBlocks(); got != 5 {
		t.Fatalf("max missed %d, want 5", got)
	}
	for height := int64(2); height <= 13; height++ {
		var absent []*fakeValidator
		if height >= 8 {
			absent = append(absent, six)
		}
		if height >= 9 {
			absent = append(absent, five)
		}
		h.votes(height, absent...)
		if height < 13 && len(h.f.slashes) > 0 {
			t.Fatalf("height %d: slashed early: %+v", height, h.f.slashes)
		}
	}
	want := []slashCall{{cons: six.cons, infractionHeight: 11, currentHeight: 13, power: 10, fraction: dec.MustParse("0.01")}}
	if !reflect.DeepEqual(h.f.slashes, want) {
		t.Fatalf("slashes %+v, want %+v", h.f.slashes, want)
	}
	if !reflect.DeepEqual(h.f.jails, []common.Address{six.cons}) || !six.jailed || five.jailed {
		t.Fatalf("jails %v", h.f.jails)
	}
	if six.tokens.Cmp(new(big.Int).Sub(e18(10), big.NewInt(100_000_000_000_000_000))) != 0 {
		t.Fatalf("tokens after slash %v", six.tokens)
	}
	info := h.info(six)
	wantUntil := blockTime(13).Add(600 * time.Second)
	if info.StartHeight != 2 || info.IndexOffset != 0 || info.MissedBlocksCounter != 0 || !info.JailedUntil.Equal(wantUntil) || info.Tombstoned {
		t.Fatalf("six's info after the slash %+v", info)
	}
	for i := int64(0); i < 10; i++ {
		if Missed(h.st, six.cons, i) {
			t.Fatalf("bit %d still set after the slash", i)
		}
	}
	if f := h.info(five); f.MissedBlocksCounter != 5 || f.IndexOffset != 12 || f.StartHeight != 2 {
		t.Fatalf("five's info %+v", f)
	}
	wantSlash := []string{
		"address=" + consBech32("ember", six.cons) + " power=10 reason=missing_signature jailed=" + consBech32("ember", six.cons) + " burned_coins=100000000000000000",
	}
	if got := h.eventsOf("slash"); !reflect.DeepEqual(got, wantSlash) {
		t.Fatalf("slash events %q, want %q", got, wantSlash)
	}
	wantLive := []string{
		"address=" + consBech32("ember", six.cons) + " missed_blocks=6 height=13",
		"address=" + consBech32("ember", five.cons) + " missed_blocks=5 height=13",
	}
	if got := h.eventsOf("liveness"); !reflect.DeepEqual(got, wantLive) {
		t.Fatalf("liveness events %q, want %q", got, wantLive)
	}
	// five signs again: its oldest miss (height 9, bit 7) stays in the window
	// until height 19 replaces it; it is never slashed.
	for height := int64(14); height <= 20; height++ {
		h.votes(height)
	}
	if f := h.info(five); f.MissedBlocksCounter != 3 || len(h.f.slashes) != 1 {
		t.Fatalf("five after signing again: %+v, slashes %d", f, len(h.f.slashes))
	}
}

// TestJailedVotesNotCounted: the votes of a jailed validator are not
// counted, and a validator back in the commits after a gap starts a new
// grace period (start_height), as the SDK's AfterValidatorBonded does.
func TestJailedVotesNotCounted(t *testing.T) {
	v := val(1, 10)
	h := newHarness(t, window10(), v)
	h.votes(2)
	h.f.Jail(h.st, v.cons)
	h.begin(3, &module.BlockInfo{Votes: []module.Vote{{Validator: v.cons, Power: 10}}})
	if info := h.info(v); info.IndexOffset != 1 || info.MissedBlocksCounter != 0 || info.lastSeen != 3 {
		t.Fatalf("jailed validator's vote counted: %+v", info)
	}
	v.jailed = false
	h.votes(9, v) // back after a gap
	if info := h.info(v); info.StartHeight != 9 || info.IndexOffset != 2 || info.MissedBlocksCounter != 1 {
		t.Fatalf("after the gap: %+v", info)
	}
	unknown := module.Vote{Validator: common.Address{0xee}, Power: 3}
	h.begin(10, &module.BlockInfo{Votes: []module.Vote{unknown}})
	if _, ok := GetSigningInfo(h.st, unknown.Validator); ok || SigningInfoCount(h.st) != 1 {
		t.Fatal("a validator staking does not know got signing info")
	}
}

// TestBitmapWraps: over several windows, of 300 blocks so the bitmap spans
// two storage words, each bit holds the last vote at its position and the
// counter the misses of the last window.
func TestBitmapWraps(t *testing.T) {
	p := DefaultParams()
	p.SignedBlocksWindow, p.MinSignedPerWindow = 300, dec.MustParse("0.05") // 285 misses allowed: never slashed
	v := val(1, 10)
	h := newHarness(t, p, v)
	missedAt := func(height int64) bool { return height%7 == 0 || height%11 == 0 || (height > 500 && height < 620) }
	const first, last = 2, 1000
	for height := int64(first); height <= last; height++ {
		if missedAt(height) {
			h.votes(height, v)
		} else {
			h.votes(height)
		}
	}
	want := int64(0)
	for height := int64(last - 299); height <= last; height++ {
		index := (height - first) % 300
		if missedAt(height) {
			want++
		}
		if Missed(h.st, v.cons, index) != missedAt(height) {
			t.Fatalf("bit %d (height %d): %v, want %v", index, height, !missedAt(height), missedAt(height))
		}
	}
	info := h.info(v)
	if info.MissedBlocksCounter != want || info.IndexOffset != last-first+1 || len(h.f.slashes) != 0 {
		t.Fatalf("info %+v, want counter %d; slashes %v", info, want, h.f.slashes)
	}
	if w := h.st.GetState(StateAddress, slots.Offset(mapSlot(v.cons, slotMissed), 1)); w == (common.Hash{}) {
		t.Fatal("the second bitmap word is empty: bits 256-299 not stored there")
	}
}

// TestUnjail: the SDK's checks and codes: unknown validator 2, too early 4,
// not jailed 5, no self-delegation 6, below the minimum 7; after the jail
// time it unjails. A failed unjail changes nothing.
func TestUnjail(t *testing.T) {
	v := val(1, 10)
	h := newHarness(t, window10(), v)
	for height := int64(2); height <= 13; height++ {
		h.votes(height, v)
	}
	if !v.jailed {
		t.Fatal("not jailed for downtime")
	}
	until := h.info(v).JailedUntil
	r := module.NewRouter()
	r.Register(h.m.msgUnjail())
	unjail := func(op common.Address, at time.Time) error {
		t.Helper()
		m, err := r.Decode(packUnjail(t, op), module.Codec{Prefix: "ember", Denom: "aember"})
		if err != nil {
			t.Fatal(err)
		}
		if m.Signer != op || m.Gas() != GasMsgUnjail {
			t.Fatalf("decoded %+v", m)
		}
		e := env(14)
		e.Time = at
		return m.Exec(h.st, &module.MsgContext{Env: e, Events: module.NewEvents("ember", "aember"), Index: "0"})
	}
	code := func(err error) uint32 {
		if err == nil {
			return 0
		}
		e := module.AsError(err)
		if e.Codespace != CodespaceSlashing {
			t.Fatalf("codespace of %v", err)
		}
		return e.Code
	}
	if c := code(unjail(v.op, until.Add(-time.Nanosecond))); c != CodeValidatorJailed || len(h.f.unjails) != 0 {
		t.Fatalf("unjail too early: code %d", c)
	}
	if c := code(unjail(common.Address{0xdd}, until)); c != CodeNoValidator {
		t.Fatalf("unknown validator: code %d", c)
	}
	v.self = new(big.Int)
	if c := code(unjail(v.op, until)); c != CodeNoSelfDelegation {
		t.Fatalf("no self-delegation: code %d", c)
	}
	v.self = new(big.Int).Sub(v.min, big.NewInt(1))
	err := unjail(v.op, until)
	if c := code(err); c != CodeSelfDelegationLow || err.Error() != "999999999999999999 less than 1000000000000000000: validator's self delegation less than minimum; cannot be unjailed" {
		t.Fatalf("self-delegation below the minimum: %v", err)
	}
	v.self = e18(1)
	if err := unjail(v.op, until); err != nil || v.jailed || !reflect.DeepEqual(h.f.unjails, []common.Address{v.cons}) {
		t.Fatalf("unjail at jailed_until: %v, jailed %v", err, v.jailed)
	}
	if c := code(unjail(v.op, until)); c != CodeValidatorNotJailed {
		t.Fatalf("not jailed: code %d", c)
	}
}

// TestDowntimeGrace: no downtime slash until the height is past
// start_height + window, however many blocks were missed.
func TestDowntimeGrace(t *testing.T) {
	v := val(1, 3)
	h := newHarness(t, window10(), v)
	for height := int64(2); height <= 12; height++ {
		h.votes(height, v)
	}
	if info := h.info(v); len(h.f.slashes) != 0 || info.MissedBlocksCounter != 10 || info.IndexOffset != 11 {
		t.Fatalf("slashed within the grace period: %+v, info %+v", h.f.slashes, info)
	}
	h.votes(13, v)
	want := []slashCall{{cons: v.cons, infractionHeight: 11, currentHeight: 13, power: 3, fraction: dec.MustParse("0.01")}}
	if !reflect.DeepEqual(h.f.slashes, want) {
		t.Fatalf("slashes %+v, want %+v", h.f.slashes, want)
	}
	h.votes(14) // jailed: out of the commit, nothing counted
	if info := h.info(v); info.IndexOffset != 0 || info.MissedBlocksCounter != 0 || len(h.f.slashes) != 1 {
		t.Fatalf("after the slash: %+v", info)
	}
}

// TestSlashClearsBitmap: a downtime slash clears the misses in every word
// of a window that spans two (300 blocks, half to sign).
func TestSlashClearsBitmap(t *testing.T) {
	p := DefaultParams()
	p.SignedBlocksWindow = 300
	v := val(1, 10)
	h := newHarness(t, p, v)
	for height := int64(2); height <= 303; height++ {
		if height <= 151 {
			h.votes(height)
		} else {
			h.votes(height, v)
		}
		if height == 302 && (len(h.f.slashes) != 0 || h.info(v).MissedBlocksCounter != 151) {
			t.Fatalf("height 302: slashes %v, info %+v", h.f.slashes, h.info(v))
		}
	}
	want := []slashCall{{cons: v.cons, infractionHeight: 301, currentHeight: 303, power: 10, fraction: dec.MustParse("0.01")}}
	if !reflect.DeepEqual(h.f.slashes, want) {
		t.Fatalf("slashes %+v, want %+v", h.f.slashes, want)
	}
	base := mapSlot(v.cons, slotMissed)
	for i := uint64(0); i < 2; i++ {
		if w := h.st.GetState(StateAddress, slots.Offset(base, i)); w != (common.Hash{}) {
			t.Fatalf("bitmap word %d not cleared: %x", i, w)
		}
	}
}
