package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/internal/wait"
)

// TestAnvilDumpLoadState dumps a dev chain's state (anvil_dumpState: gzip
// JSON in anvil's shape, and --dump-state at the stop) and loads it into
// fresh chains (anvil_loadState, --load-state): balance, nonce, code and
// storage of an edited account come back exactly.
func TestAnvilDumpLoadState(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "state.json")
	a := StartDev(t, "--empty-block-interval", "0", "--dump-state", file)
	addr := common.HexToAddress("0x00000000000000000000000000000000005747e5")
	code := hexutil.Bytes{0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3}
	slot, value := "0x07", common.HexToHash("0x2a")
	var null any
	var ok bool
	mustCall(t, a, &null, "anvil_setBalance", addr, "0xde0b6b3a7640000")
	mustCall(t, a, &null, "anvil_setCode", addr, code)
	mustCall(t, a, &null, "anvil_setNonce", addr, "0x5")
	mustCall(t, a, &ok, "anvil_setStorageAt", addr, slot, value)

	var dumped hexutil.Bytes
	mustCall(t, a, &dumped, "anvil_dumpState")
	zr, err := gzip.NewReader(bytes.NewReader(dumped))
	if err != nil {
		t.Fatalf("anvil_dumpState is not gzip: %v", err)
	}
	plain, _ := io.ReadAll(zr)
	var st struct {
		Accounts map[common.Address]struct {
			Nonce   uint64            `json:"nonce"`
			Balance string            `json:"balance"`
			Code    string            `json:"code"`
			Storage map[string]string `json:"storage"`
		} `json:"accounts"`
	}
	if err := json.Unmarshal(plain, &st); err != nil {
		t.Fatal(err)
	}
	got, okAcc := st.Accounts[addr]
	if !okAcc || got.Nonce != 5 || got.Balance != "0xde0b6b3a7640000" || got.Code != code.String() || got.Storage["0x7"] != "0x2a" {
		t.Fatalf("dumped account %s: %+v", addr.Hex(), got)
	}
	if _, ok := st.Accounts[devKeys[0].Address]; !ok || len(st.Accounts) < 10 {
		t.Fatalf("dump holds %d accounts, the prefunded ones missing", len(st.Accounts))
	}

	b := StartDev(t, "--empty-block-interval", "0")
	if mustCall(t, b, &ok, "anvil_loadState", dumped); !ok {
		t.Fatal("anvil_loadState answered false")
	}
	checkLoaded(t, b, addr, code, value)

	a.Stop() // writes --dump-state
	c := StartDev(t, "--empty-block-interval", "0", "--load-state", file)
	// The state is loaded once the chain runs (its JSON-RPC answers
	// before): wait for the edits' blocks.
	wait.Eventually(t, 60*time.Second, "the loaded state's balance of "+addr.Hex(), func() error {
		return wait.Check(c.balance(t, addr).Sign() != 0, "zero")
	})
	checkLoaded(t, c, addr, code, value)
}

func checkLoaded(t *testing.T, n *Node, addr common.Address, code hexutil.Bytes, value common.Hash) {
	t.Helper()
	var gotCode hexutil.Bytes
	var nonce hexutil.Uint64
	var slot common.Hash
	mustCall(t, n, &gotCode, "eth_getCode", addr, "latest")
	mustCall(t, n, &nonce, "eth_getTransactionCount", addr, "latest")
	mustCall(t, n, &slot, "eth_getStorageAt", addr, "0x7", "latest")
	want, _ := new(big.Int).SetString("de0b6b3a7640000", 16)
	if bal := n.balance(t, addr); bal.Cmp(want) != 0 || gotCode.String() != code.String() || nonce != 5 || slot != value {
		t.Fatalf("loaded account: balance %v code %s nonce %d slot 7 %s", bal, gotCode, nonce, slot.Hex())
	}
}
