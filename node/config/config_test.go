package config

import (
	"math/big"
	"runtime/debug"
	"testing"
)

func TestParseMinGasPrices(t *testing.T) {
	for in, want := range map[string]int64{
		"": 0, "0aember": 0, "1000000000aember": 1e9, " 7 ": 7, "5aember": 5,
	} {
		got, err := ParseMinGasPrices(in)
		if err != nil || got.Cmp(big.NewInt(want)) != 0 {
			t.Errorf("ParseMinGasPrices(%q) = %v, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"0.025aember", "-1aember", "1uatom", "1 aember", "0x10"} {
		if _, err := ParseMinGasPrices(bad); err == nil {
			t.Errorf("ParseMinGasPrices(%q) accepted", bad)
		}
	}
	if s := FormatMinGasPrices(big.NewInt(5e9)); s != "5000000000aember" {
		t.Fatalf("format: %s", s)
	}
}

// TestRuntimeApply: Apply sets the GC target unless GOGC does. (A dev
// home's 400 is checked by package home's TestRuntimeGCPercent.)
func TestRuntimeApply(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	if !(Runtime{GCPercent: 400}).Apply() || debug.SetGCPercent(100) != 400 {
		t.Fatal("gc-percent 400 not applied")
	}
	if (Runtime{}).Apply() || debug.SetGCPercent(100) != 100 {
		t.Fatal("gc-percent 0 changed the GC target")
	}
	t.Setenv("GOGC", "50")
	if (Runtime{GCPercent: 400}).Apply() || debug.SetGCPercent(100) != 100 {
		t.Fatal("gc-percent applied over GOGC")
	}
}
