package homes

import (
	"math/big"
	"testing"

	"github.com/emberchain/ember/node/config"
)

// TestMinGasPricesInAppToml: the key is written by init and read back.
func TestMinGasPricesInAppToml(t *testing.T) {
	home := t.TempDir()
	if err := Init(InitOptions{Home: home, Moniker: "t", ChainID: "ember_9000-1"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(home)
	if err != nil || cfg.MinGasPrices != "0aember" || cfg.TxPool != config.DefaultTxPool() {
		t.Fatalf("defaults: %q %+v %v", cfg.MinGasPrices, cfg.TxPool, err)
	}
	cfg.MinGasPrices = config.FormatMinGasPrices(big.NewInt(3))
	if err := config.Write(home, cfg); err != nil {
		t.Fatal(err)
	}
	if cfg, err = config.Load(home); err != nil || cfg.MinGasPrices != "3aember" {
		t.Fatalf("read back %q %v", cfg.MinGasPrices, err)
	}
}
