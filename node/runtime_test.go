package node

import (
	"runtime/debug"
	"testing"
)

// TestRuntimeGCPercent: a dev home's app.toml sets the GC target to 400,
// other homes leave Go's; Apply sets it unless GOGC does.
func TestRuntimeGCPercent(t *testing.T) {
	for _, dev := range []bool{false, true} {
		home := t.TempDir()
		if err := InitHome(InitOptions{Home: home, Moniker: "t", ChainID: "ember_9000-1", Dev: dev}); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadConfig(home)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: 400}[dev]; cfg.Runtime.GCPercent != want {
			t.Fatalf("dev %v: gc-percent %d, want %d", dev, cfg.Runtime.GCPercent, want)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	if !(RuntimeConfig{GCPercent: 400}).Apply() || debug.SetGCPercent(100) != 400 {
		t.Fatal("gc-percent 400 not applied")
	}
	if (RuntimeConfig{}).Apply() || debug.SetGCPercent(100) != 100 {
		t.Fatal("gc-percent 0 changed the GC target")
	}
	t.Setenv("GOGC", "50")
	if (RuntimeConfig{GCPercent: 400}).Apply() || debug.SetGCPercent(100) != 100 {
		t.Fatal("gc-percent applied over GOGC")
	}
}
