package homes

import (
	"testing"

	"github.com/emberchain/ember/node/config"
)

// TestRuntimeGCPercent: a dev home's app.toml sets the GC target to 400,
// other homes leave Go's (config.Runtime.Apply is tested in package config).
func TestRuntimeGCPercent(t *testing.T) {
	for _, dev := range []bool{false, true} {
		home := t.TempDir()
		if err := Init(InitOptions{Home: home, Moniker: "t", ChainID: "ember_9000-1", Dev: dev}); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(home)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: 400}[dev]; cfg.Runtime.GCPercent != want {
			t.Fatalf("dev %v: gc-percent %d, want %d", dev, cfg.Runtime.GCPercent, want)
		}
	}
}
