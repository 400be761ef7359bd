package node

import (
	"math/big"
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

// TestMinGasPricesInAppToml: the key is written by init and read back.
func TestMinGasPricesInAppToml(t *testing.T) {
	home := t.TempDir()
	if err := InitHome(InitOptions{Home: home, Moniker: "t", ChainID: "ember_9000-1"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(home)
	if err != nil || cfg.MinGasPrices != "0aember" || cfg.TxPool != DefaultTxPoolConfig() {
		t.Fatalf("defaults: %q %+v %v", cfg.MinGasPrices, cfg.TxPool, err)
	}
	cfg.MinGasPrices = FormatMinGasPrices(big.NewInt(3))
	if err := WriteConfig(home, cfg); err != nil {
		t.Fatal(err)
	}
	if cfg, err = LoadConfig(home); err != nil || cfg.MinGasPrices != "3aember" {
		t.Fatalf("read back %q %v", cfg.MinGasPrices, err)
	}
}
