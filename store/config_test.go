package store_test

import (
	"math/big"
	"sync"
	"testing"

	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/store"
)

// TestConfigSwap: readers of Config during SetConfig each get one whole
// config, the old schedule or the new one (run with -race: the swap is an
// atomic pointer, never a write into a config a reader holds).
func TestConfigSwap(t *testing.T) {
	prague := evm.PragueChainConfig(big.NewInt(9000))
	st, err := store.Open(t.TempDir(), prague, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Config() != prague {
		t.Fatal("Config is not the config the store was opened with")
	}
	at := uint64(1000)
	osaka := *prague
	osaka.OsakaTime = &at
	var wg sync.WaitGroup
	var mixed sync.Map
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10_000; i++ {
				cfg := st.Config()
				if cfg != prague && cfg != &osaka {
					mixed.Store(cfg, true)
				}
				_ = cfg.IsOsaka(big.NewInt(1), 1000)
			}
		}()
	}
	for i := 0; i < 1000; i++ {
		if i%2 == 0 {
			st.SetConfig(&osaka)
		} else {
			st.SetConfig(prague)
		}
	}
	st.SetConfig(&osaka)
	wg.Wait()
	mixed.Range(func(k, _ any) bool { t.Errorf("a reader got %p, neither config", k); return true })
	if got := st.Config(); got != &osaka || !got.IsOsaka(big.NewInt(1), 1000) || got.IsOsaka(big.NewInt(1), 999) {
		t.Fatal("the last SetConfig is not what Config answers")
	}
}
