package app

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/emberchain/ember/staking"
)

func TestParseChainID(t *testing.T) {
	good := map[string]uint64{"ember_9000-1": 9000, "ember_31337-1": 31337, "abc_1-22": 1}
	for s, want := range good {
		id, err := ParseChainID(s)
		if err != nil || id.Uint64() != want {
			t.Errorf("ParseChainID(%q) = %v, %v; want %d", s, id, err, want)
		}
	}
	for _, s := range []string{"", "ember", "ember_9000", "ember-9000-1", "Ember_9000-1", "ember_09000-1", "ember_9000-0", "ember_0-1", "ember_99999999999999999999999-1"} {
		if _, err := ParseChainID(s); err == nil {
			t.Errorf("ParseChainID(%q) accepted", s)
		}
	}
}

// TestModulesJSON: the modules read their sections from the app state
// without the EVM genesis, whose allocation no module reads.
func TestModulesJSON(t *testing.T) {
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Staking: &staking.GenesisState{UnbondingTime: "60s"}, Dev: true})
	raw, err := gs.modulesJSON()
	if err != nil {
		t.Fatal(err)
	}
	var sections map[string]json.RawMessage
	if err := json.Unmarshal(raw, &sections); err != nil {
		t.Fatal(err)
	}
	if _, ok := sections["evm"]; ok {
		t.Errorf("modules' app state holds the EVM genesis: %s", raw)
	}
	if got := string(sections["staking"]); got != `{"unbonding_time":"60s","validators":null}` {
		t.Errorf("staking section %s", got)
	}
	if got := string(sections["bech32_prefix"]); got != `"ember"` {
		t.Errorf("bech32_prefix %s", got)
	}
}
