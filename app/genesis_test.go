package app

import "testing"

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
