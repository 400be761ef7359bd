package e2e

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/internal/wait"
)

// TestPoolJournal: transactions the node accepted survive a kill -9 and a
// clean restart. A burst is killed right after its last send returned, and
// a nonce-gapped (queued) transaction, which no block can include before
// its gap is filled, must still be in the pool after each restart: once
// the gap is filled, every accepted transaction is included.
func TestPoolJournal(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	key, to := devKeys[5], common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	base, err := n.Eth.PendingNonceAt(ctx(t), key.Address)
	if err != nil {
		t.Fatal(err)
	}
	const burst = 200
	gapped := n.send(t, key.Private, txOpts{Nonce: ptr(base + burst + 1), To: &to, Value: big.NewInt(7)})
	txs := make([]*types.Transaction, burst)
	for i := range txs {
		txs[i] = n.signTx(t, key.Private, txOpts{Nonce: ptr(base + uint64(i)), To: &to, Value: big.NewInt(1)})
	}
	n.sendBatch(t, txs) // every one accepted: sendBatch fails on any error
	n.Kill()
	n.Start("dev")
	pendingOrQueued(t, n, gapped)

	n.Stop() // a clean stop keeps the pool too
	n.Start("dev")
	pendingOrQueued(t, n, gapped)

	filler := n.send(t, key.Private, txOpts{Nonce: ptr(base + burst), To: &to, Value: big.NewInt(5)})
	for _, tx := range append(txs, filler, gapped) {
		if r := n.WaitReceipt(t, tx.Hash()); r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("tx %d (%s) failed", tx.Nonce()-base, tx.Hash().Hex())
		}
	}
	if nonce, _ := n.Eth.NonceAt(ctx(t), key.Address, nil); nonce != base+burst+2 {
		t.Fatalf("nonce %d after the journaled txs, want %d", nonce, base+burst+2)
	}
	if bal, _ := n.Eth.BalanceAt(ctx(t), to, nil); bal.Cmp(big.NewInt(burst+5+7)) != 0 {
		t.Fatalf("recipient holds %v wei, want %d", bal, burst+5+7)
	}
}

// pendingOrQueued fails unless the node knows tx as waiting in its pool
// (eth_getTransactionByHash answers it with no block).
func pendingOrQueued(t *testing.T, n *Node, tx *types.Transaction) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, "queued tx "+tx.Hash().Hex()+" in the pool after the restart", func() error {
		got, pending, err := n.Eth.TransactionByHash(ctx(t), tx.Hash())
		if err != nil {
			return err
		}
		return wait.Check(pending && got.Hash() == tx.Hash(), "pending %v, tx %s", pending, got.Hash().Hex())
	})
}
