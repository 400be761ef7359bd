package upgrade

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	upgradev1beta1 "cosmossdk.io/api/cosmos/upgrade/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
)

var codec = module.Codec{Prefix: "ember", Denom: "aember"}

func newState() *module.AllocState { return module.NewAllocState(types.GenesisAlloc{}) }

// storage is every non-zero word of StateAddress.
func storage(alloc types.GenesisAlloc) map[common.Hash]common.Hash {
	out := map[common.Hash]common.Hash{}
	for k, v := range alloc[StateAddress].Storage {
		if v != (common.Hash{}) {
			out[k] = v
		}
	}
	return out
}

func wantErr(t *testing.T, err error, codespace string, code uint32, text string) {
	t.Helper()
	e := module.AsError(err)
	if err == nil || e.Codespace != codespace || e.Code != code || e.Error() != text {
		t.Fatalf("error %v (%+v), want %s/%d %q", err, e, codespace, code, text)
	}
}

func TestScheduleAndCancel(t *testing.T) {
	alloc := types.GenesisAlloc{}
	st := module.NewAllocState(alloc)
	if _, ok := CurrentPlan(st); ok {
		t.Fatal("plan on an empty state")
	}
	if v := AppVersion(st); v != 1 {
		t.Fatalf("app version %d, want 1", v)
	}
	long := strings.Repeat("https://example.invalid/binaries ", 5) // 165 bytes: a long Solidity string
	if err := Schedule(st, Plan{Name: "v2", Height: 100, Info: long}, 40); err != nil {
		t.Fatal(err)
	}
	if p, ok := CurrentPlan(st); !ok || p != (Plan{Name: "v2", Height: 100, Info: long}) {
		t.Fatalf("plan %+v %v", p, ok)
	}
	if st.GetNonce(StateAddress) != 1 {
		t.Fatal("state account without nonce 1: EIP-161 would clear it")
	}
	// A second plan replaces the first, as the SDK's ScheduleUpgrade does.
	if err := Schedule(st, Plan{Name: "v3", Height: 120}, 41); err != nil {
		t.Fatal(err)
	}
	if p, _ := CurrentPlan(st); p != (Plan{Name: "v3", Height: 120}) {
		t.Fatalf("replaced plan %+v", p)
	}
	if err := Cancel(st); err != nil {
		t.Fatal(err)
	}
	if _, ok := CurrentPlan(st); ok {
		t.Fatal("plan after Cancel")
	}
	if left := storage(alloc); len(left) != 0 {
		t.Fatalf("cancel left %d words: %v", len(left), left)
	}
	if err := Cancel(st); err != nil { // no plan: not an error
		t.Fatal(err)
	}
}

func TestScheduleRefusals(t *testing.T) {
	alloc := types.GenesisAlloc{}
	st := module.NewAllocState(alloc)
	setDone(st, "v1", 30)
	before := storage(alloc)
	for _, c := range []struct {
		name string
		p    Plan
		at   int64
		text string
	}{
		{"empty name", Plan{Height: 100}, 40, "name cannot be empty: invalid request"},
		{"zero height", Plan{Name: "v2"}, 40, "height must be greater than 0: invalid request"},
		{"this block", Plan{Name: "v2", Height: 40}, 40, "upgrade cannot be scheduled in the past: invalid request"},
		{"past", Plan{Name: "v2", Height: 39}, 40, "upgrade cannot be scheduled in the past: invalid request"},
		{"done", Plan{Name: "v1", Height: 100}, 40, "upgrade with name v1 has already been completed: invalid request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantErr(t, Schedule(st, c.p, c.at), module.CodespaceSDK, module.CodeInvalidRequest, c.text)
			after := storage(alloc)
			if len(after) != len(before) {
				t.Fatalf("a refused plan changed the state: %d words, want %d", len(after), len(before))
			}
			for k, v := range before {
				if after[k] != v {
					t.Fatalf("a refused plan changed slot %x", k)
				}
			}
		})
	}
}

func anyOf(t *testing.T, m proto.Message) *anypb.Any {
	t.Helper()
	a, err := anypb.New(m)
	if err != nil {
		t.Fatal(err)
	}
	a.TypeUrl = "/" + string(proto.MessageName(m))
	return a
}

func TestMsgDecode(t *testing.T) {
	r := module.NewRouter()
	for _, h := range (Module{}).Msgs() {
		r.Register(h)
	}
	gov := accounts.Bech32("ember", module.GovAuthority)
	other := accounts.Bech32("ember", common.HexToAddress("0x1234"))
	plan := &upgradev1beta1.Plan{Name: "v2", Height: 100, Info: "{}"}
	for _, c := range []struct {
		name      string
		msg       proto.Message
		codespace string
		code      uint32
		text      string
	}{
		{"wrong authority", &upgradev1beta1.MsgSoftwareUpgrade{Authority: other, Plan: plan}, CodespaceUpgrade, CodeInvalidSigner,
			"expected " + gov + " got " + other + ": expected authority account as only signer for proposal message"},
		{"bad authority", &upgradev1beta1.MsgCancelUpgrade{Authority: "nope"}, CodespaceUpgrade, CodeInvalidSigner,
			"expected " + gov + " got nope: expected authority account as only signer for proposal message"},
		{"no plan", &upgradev1beta1.MsgSoftwareUpgrade{Authority: gov}, module.CodespaceSDK, module.CodeInvalidRequest,
			"plan: name cannot be empty: invalid request"},
		{"zero height", &upgradev1beta1.MsgSoftwareUpgrade{Authority: gov, Plan: &upgradev1beta1.Plan{Name: "v2"}}, module.CodespaceSDK, module.CodeInvalidRequest,
			"plan: height must be greater than 0: invalid request"},
		{"time", &upgradev1beta1.MsgSoftwareUpgrade{Authority: gov, Plan: &upgradev1beta1.Plan{Name: "v2", Height: 9, Time: timestamppb.New(time.Unix(1e9, 0))}},
			module.CodespaceSDK, module.CodeInvalidRequest, "plan: time-based upgrades have been deprecated in the SDK: invalid request"},
		{"ibc", &upgradev1beta1.MsgSoftwareUpgrade{Authority: gov, Plan: &upgradev1beta1.Plan{Name: "v2", Height: 9, UpgradedClientState: &anypb.Any{}}},
			module.CodespaceSDK, module.CodeInvalidRequest, "plan: upgrade logic for IBC has been moved to the IBC module: invalid request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.Decode(anyOf(t, c.msg), codec)
			wantErr(t, err, c.codespace, c.code, c.text)
		})
	}
	// The 0x spelling of the gov account and the SDK CLI's zero time pass.
	zero := &upgradev1beta1.MsgSoftwareUpgrade{Authority: module.GovAuthority.Hex(), Plan: &upgradev1beta1.Plan{
		Name: "v2", Height: 100, Time: timestamppb.New(time.Time{})}}
	m, err := r.Decode(anyOf(t, zero), codec)
	if err != nil || m.Signer != module.GovAuthority {
		t.Fatalf("decode: %v, signer %v", err, m)
	}
}

func TestMsgExec(t *testing.T) {
	r := module.NewRouter()
	for _, h := range (Module{}).Msgs() {
		r.Register(h)
	}
	gov := accounts.Bech32("ember", module.GovAuthority)
	st := newState()
	ctx := func(h int64) *module.MsgContext {
		return &module.MsgContext{Env: &module.Env{Height: h}, Events: module.NewEvents("ember", "aember"), Index: "0"}
	}
	m, err := r.Decode(anyOf(t, &upgradev1beta1.MsgSoftwareUpgrade{Authority: gov, Plan: &upgradev1beta1.Plan{Name: "v2", Height: 50, Info: "x"}}), codec)
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, m.Exec(st, ctx(50)), module.CodespaceSDK, module.CodeInvalidRequest, "upgrade cannot be scheduled in the past: invalid request")
	if err := m.Exec(st, ctx(49)); err != nil {
		t.Fatal(err)
	}
	if p, _ := CurrentPlan(st); p != (Plan{Name: "v2", Height: 50, Info: "x"}) {
		t.Fatalf("plan %+v", p)
	}
	c, err := r.Decode(anyOf(t, &upgradev1beta1.MsgCancelUpgrade{Authority: gov}), codec)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(st, ctx(49)); err != nil {
		t.Fatal(err)
	}
	if _, ok := CurrentPlan(st); ok {
		t.Fatal("plan after MsgCancelUpgrade")
	}
}

func block(h int64) *module.Block {
	return &module.Block{Env: &module.Env{Height: h, Time: time.Unix(1_700_000_000, 0)}, Events: module.NewEvents("ember", "aember")}
}

func TestPreBlock(t *testing.T) {
	runs := 0
	Register("unit-apply", func(st module.State, c *Context) error {
		runs++
		st.AddBalance(common.Address{1}, uint256.NewInt(7), 0)
		return TestMigration(st, c)
	})
	st := newState()
	if err := Schedule(st, Plan{Name: "unit-missing", Height: 10, Info: "get v2"}, 5); err != nil {
		t.Fatal(err)
	}
	if err := (Module{}).PreBlock(st, block(9)); err != nil {
		t.Fatalf("before the plan: %v", err)
	}
	err := (Module{}).PreBlock(st, block(10))
	h, ok := AsHalt(err)
	if !ok || !h.Needed || h.Height != 10 || err.Error() != `UPGRADE "unit-missing" NEEDED at height: 10: get v2` {
		t.Fatalf("halt %v %+v", err, h)
	}

	if err := Schedule(st, Plan{Name: "unit-apply", Height: 12}, 9); err != nil {
		t.Fatal(err)
	}
	err = (Module{}).PreBlock(st, block(11))
	if h, ok := AsHalt(err); !ok || h.Needed || err.Error() != `BINARY UPDATED BEFORE TRIGGER! UPGRADE "unit-apply" - in binary but not executed on chain. Downgrade your binary` {
		t.Fatalf("early binary: %v", err)
	}
	b := block(12)
	if err := (Module{}).PreBlock(st, b); err != nil {
		t.Fatal(err)
	}
	if at, ok := Applied(st, "unit-apply"); !ok || at != 12 {
		t.Fatalf("applied %d %v", at, ok)
	}
	if _, ok := CurrentPlan(st); ok {
		t.Fatal("plan left after it applied")
	}
	if v := AppVersion(st); v != 2 {
		t.Fatalf("app version %d, want 2", v)
	}
	if hh, n := TestMarker(st); hh != 12 || n != 1 || runs != 1 {
		t.Fatalf("marker %d/%d, runs %d", hh, n, runs)
	}
	if got := st.GetBalance(common.Address{1}).Uint64(); got != 7 {
		t.Fatalf("migration's balance %d", got)
	}
	ev := b.Events.List()
	if len(ev) != 1 || ev[0].Type != "upgrade" || len(ev[0].Attributes) != 3 || ev[0].Attributes[0].Value != "unit-apply" ||
		ev[0].Attributes[1].Value != "12" || ev[0].Attributes[2].Value != "2" {
		t.Fatalf("events %v", ev)
	}
	// Nothing is due any more: the next block runs nothing again.
	if err := (Module{}).PreBlock(st, block(13)); err != nil || runs != 1 {
		t.Fatalf("after: %v, runs %d", err, runs)
	}
	wantErr(t, Schedule(st, Plan{Name: "unit-apply", Height: 20}, 13), module.CodespaceSDK, module.CodeInvalidRequest,
		"upgrade with name unit-apply has already been completed: invalid request")
	if name, at, ok := LastApplied(st); name != "unit-apply" || at != 12 || !ok {
		t.Fatalf("last applied %q %d", name, at)
	}
}

func TestPreBlockHandlerError(t *testing.T) {
	boom := errors.New("boom")
	Register("unit-fail", func(st module.State, c *Context) error {
		st.AddBalance(common.Address{2}, uint256.NewInt(5), 0)
		return boom
	})
	st := newState()
	if err := Schedule(st, Plan{Name: "unit-fail", Height: 3}, 1); err != nil {
		t.Fatal(err)
	}
	err := (Module{}).PreBlock(st, block(3))
	if !errors.Is(err, boom) || err.Error() != `upgrade "unit-fail" at height 3: boom` {
		t.Fatalf("error %v", err)
	}
	if _, ok := AsHalt(err); ok {
		t.Fatal("a failed migration is not a missing binary")
	}
	if st.GetBalance(common.Address{2}).Sign() != 0 || AppVersion(st) != 1 {
		t.Fatal("a failed migration's changes stayed")
	}
	if _, ok := CurrentPlan(st); !ok {
		t.Fatal("a failed migration cleared its plan")
	}
}

func TestCheckBinary(t *testing.T) {
	st := newState()
	if err := CheckBinary(st, 100); err != nil {
		t.Fatal(err)
	}
	setDone(st, "unit-never-registered", 77)
	err := CheckBinary(st, 100)
	want := `wrong app version 2: upgrade "unit-never-registered" was applied at height 77 and this binary has no handler for it; run the binary of that upgrade (or a later one)`
	if h, ok := AsHalt(err); !ok || !h.Downgrade || h.Needed || h.Height != 100 || err.Error() != want {
		t.Fatalf("got %v", err)
	}
	// A binary started for the next plan need not keep the last one's
	// handler: the check waits until that plan has applied.
	if err := Schedule(st, Plan{Name: "unit-next", Height: 101}, 99); err != nil {
		t.Fatal(err)
	}
	if err := CheckBinary(st, 100); err == nil {
		t.Fatal("a plan not due at the next block let an old binary run")
	}
	if err := CheckBinary(st, 101); err != nil {
		t.Fatalf("plan due at the next block: %v", err)
	}
	// The first block a process runs checks too (a node that state-synced
	// past an upgrade has no state at start-up to check).
	binaryChecked.Store(false)
	defer binaryChecked.Store(true)
	if h, ok := AsHalt((Module{}).PreBlock(st, block(100))); !ok || !h.Downgrade {
		t.Fatalf("first block: %v", h)
	}
	if binaryChecked.Load() {
		t.Fatal("a failed check counted as passed")
	}
}

func TestWriteInfo(t *testing.T) {
	home := t.TempDir()
	if err := WriteInfo(home, 42, Plan{Name: "v2", Height: 42, Info: `{"binaries":{}}`}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(home + "/data/upgrade-info.json")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"v2","time":"0001-01-01T00:00:00Z","height":42,"info":"{\"binaries\":{}}"}`
	if string(b) != want {
		t.Fatalf("upgrade-info.json\n%s\nwant\n%s", b, want)
	}
	fi, _ := os.Stat(home + "/data/upgrade-info.json")
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	in, err := ReadInfo(home)
	if err != nil || in.Name != "v2" || in.Height != 42 {
		t.Fatalf("read back %+v %v", in, err)
	}
}

// TestPreBlockBuiltin: a built-in plan (every binary has its handler)
// runs the blocks before its height, where a new binary's plan halts, and
// applies at its height once.
func TestPreBlockBuiltin(t *testing.T) {
	runs := 0
	RegisterBuiltin("unit-builtin", func(st module.State, c *Context) error {
		runs++
		return nil
	})
	if !Builtin("unit-builtin") || Builtin("unit-missing") {
		t.Fatal("Builtin answers wrongly")
	}
	st := newState()
	if err := Schedule(st, Plan{Name: "unit-builtin", Height: 8}, 5); err != nil {
		t.Fatal(err)
	}
	for h := int64(6); h < 8; h++ {
		if err := (Module{}).PreBlock(st, block(h)); err != nil || runs != 0 {
			t.Fatalf("block %d before the plan: %v, runs %d", h, err, runs)
		}
	}
	if err := (Module{}).PreBlock(st, block(8)); err != nil || runs != 1 {
		t.Fatalf("block 8: %v, runs %d", err, runs)
	}
	if at, ok := Applied(st, "unit-builtin"); !ok || at != 8 {
		t.Fatalf("applied %d %v", at, ok)
	}
}
