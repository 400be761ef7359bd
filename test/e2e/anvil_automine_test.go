package e2e

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestAnvilAutomine turns automine off: sent transactions wait in the
// pool (pending, counted in the pending nonce, no block made) until
// evm_mine puts them all in one block; turning automine on again mines
// what waits at once. anvil_setMinGasPrice is refused as anvil refuses it
// on an EIP-1559 chain.
func TestAnvilAutomine(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	var null any
	var on bool
	mustCall(t, n, &null, "evm_mine") // settled: no block for a pending AppHash follows
	mustCall(t, n, &null, "evm_setAutomine", false)
	if mustCall(t, n, &on, "anvil_getAutomine"); on {
		t.Fatal("anvil_getAutomine true after evm_setAutomine(false)")
	}
	key := devKeys[2].Private
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x00000000000000000000000000000000000a0a0a")
	head := n.blockNumber(t)
	var txs []*types.Transaction
	for range 2 {
		txs = append(txs, n.send(t, key, txOpts{To: &to, Value: big.NewInt(5)}))
	}
	if pending, err := n.Eth.PendingNonceAt(ctx(t), from); err != nil || pending != txs[1].Nonce()+1 {
		t.Fatalf("pending nonce %d (%v) with two held transactions, want %d", pending, err, txs[1].Nonce()+1)
	}
	for _, tx := range txs {
		var got map[string]any
		mustCall(t, n, &got, "eth_getTransactionByHash", tx.Hash())
		if got == nil || got["blockNumber"] != nil {
			t.Fatalf("held transaction %s: %v, want pending", tx.Hash().Hex(), got)
		}
	}
	if got := n.blockNumber(t); got != head {
		t.Fatalf("head %d with automine off, was %d", got, head)
	}
	mustCall(t, n, &null, "evm_mine")
	for _, tx := range txs {
		r := n.WaitReceipt(t, tx.Hash())
		if r.BlockNumber.Uint64() != head+1 || r.Status != 1 {
			t.Fatalf("%s in block %v status %d, want both in block %d", tx.Hash().Hex(), r.BlockNumber, r.Status, head+1)
		}
	}
	// The block changed the state: CometBFT makes the one carrying its
	// AppHash at once, and evm_mine returns after it (as a state edit does).
	if got := n.blockNumber(t); got != head+2 {
		t.Fatalf("head %d after evm_mine, want %d", got, head+2)
	}

	third := n.send(t, key, txOpts{To: &to, Value: big.NewInt(5)})
	mustCall(t, n, &null, "evm_setAutomine", true)
	if r, err := n.Eth.TransactionReceipt(ctx(t), third.Hash()); err != nil || r.BlockNumber.Uint64() != head+3 {
		t.Fatalf("held transaction after evm_setAutomine(true): %v, %v; want mined in block %d", r, err, head+3)
	}
	if mustCall(t, n, &on, "anvil_getAutomine"); !on {
		t.Fatal("anvil_getAutomine false after evm_setAutomine(true)")
	}
	fourth := n.send(t, key, txOpts{To: &to, Value: big.NewInt(5)})
	n.WaitReceipt(t, fourth.Hash())
	if got := n.balance(t, to); got.Int64() != 20 {
		t.Fatalf("recipient balance %v, want 20", got)
	}

	err := n.RPC.Call(&null, "anvil_setMinGasPrice", "0x1")
	if err == nil || err.Error() != "anvil_setMinGasPrice is not supported when EIP-1559 is active" {
		t.Fatalf("anvil_setMinGasPrice: %v", err)
	}
}
