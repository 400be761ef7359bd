package slashing

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// TestGenesisParams: app_state.slashing in the SDK's JSON is stored; an
// absent section or field keeps the SDK's default; an invalid value is
// refused with the SDK's text and the field's name.
func TestGenesisParams(t *testing.T) {
	initGenesis := func(appState string) (Params, uint64, error) {
		g := &module.Genesis{AppState: json.RawMessage(appState), Alloc: types.GenesisAlloc{}}
		err := Module{}.InitGenesis(g)
		st := module.NewAllocState(g.Alloc)
		return GetParams(st), st.GetNonce(StateAddress), err
	}
	p, nonce, err := initGenesis(`{"slashing":{"params":{"signed_blocks_window":"10000","min_signed_per_window":"0.05","downtime_jail_duration":"1.5s","slash_fraction_double_sign":"0.1","slash_fraction_downtime":"0.0001"},"signing_infos":[],"missed_blocks":[]}}`)
	want := Params{SignedBlocksWindow: 10000, MinSignedPerWindow: dec.MustParse("0.05"), DowntimeJailDuration: 1500 * time.Millisecond,
		SlashFractionDoubleSign: dec.MustParse("0.1"), SlashFractionDowntime: dec.MustParse("0.0001")}
	if err != nil || nonce != 1 || p.SignedBlocksWindow != want.SignedBlocksWindow || !p.MinSignedPerWindow.Equal(want.MinSignedPerWindow) ||
		p.DowntimeJailDuration != want.DowntimeJailDuration || !p.SlashFractionDoubleSign.Equal(want.SlashFractionDoubleSign) || !p.SlashFractionDowntime.Equal(want.SlashFractionDowntime) {
		t.Fatalf("params %+v nonce %d err %v", p, nonce, err)
	}
	if p.MinSignedBlocks() != 500 || p.MaxMissedBlocks() != 9500 {
		t.Fatalf("min signed %d", p.MinSignedBlocks())
	}
	p, _, err = initGenesis(`{"slashing":{"params":{"signed_blocks_window":7}}}`)
	if d := DefaultParams(); err != nil || p.SignedBlocksWindow != 7 || !p.MinSignedPerWindow.Equal(d.MinSignedPerWindow) || p.DowntimeJailDuration != d.DowntimeJailDuration {
		t.Fatalf("partial params %+v %v", p, err)
	}
	if p.MinSignedBlocks() != 4 { // 3.5 rounds half to even
		t.Fatalf("min signed of 0.5 × 7: %d", p.MinSignedBlocks())
	}
	if p, nonce, err = initGenesis(`{}`); err != nil || nonce != 0 || p.SignedBlocksWindow != 100 || p.JSON().DowntimeJailDuration != "600s" {
		t.Fatalf("no section: %+v %v", p, err)
	}
	for appState, want := range map[string]string{
		`{"slashing":{"params":{"signed_blocks_window":"0"}}}`:            "app_state.slashing.params: signed blocks window must be positive: 0",
		`{"slashing":{"params":{"min_signed_per_window":"1.5"}}}`:         "app_state.slashing.params: min signed per window too large: 1.500000000000000000",
		`{"slashing":{"params":{"slash_fraction_double_sign":"-0.1"}}}`:   "app_state.slashing.params: double sign slash fraction cannot be negative: -0.100000000000000000",
		`{"slashing":{"params":{"slash_fraction_downtime":"abc"}}}`:       `app_state.slashing.params: slash_fraction_downtime: invalid decimal "abc"`,
		`{"slashing":{"params":{"downtime_jail_duration":"-1s"}}}`:        "app_state.slashing.params: downtime jail duration must be positive: -1s",
		`{"slashing":{"params":{"downtime_jail_duration":"10 minutes"}}}`: `app_state.slashing.params: downtime_jail_duration: invalid duration "10 minutes": want e.g. "600s"`,
		`{"slashing":{"signing_infos":[{"address":"embervalcons1"}]}}`:    "app_state.slashing: signing_infos and missed_blocks must be empty: a validator's record starts with its first signed block",
		`{"slashing":{"params":{"signed_blocks_window":"x"}}}`:            `app_state.slashing: invalid integer "x"`,
	} {
		if _, _, err := initGenesis(appState); err == nil || err.Error() != want {
			t.Errorf("%s:\n got  %v\n want %s", appState, err, want)
		}
	}
}
