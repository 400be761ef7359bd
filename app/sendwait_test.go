package app

import (
	"context"
	"math/big"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core/types"

	pool "github.com/emberchain/ember/txpool"
)

// admitted runs raw through CheckTx, which must answer it pending, and
// returns it decoded.
func admitted(t *testing.T, a *App, raw []byte) *types.Transaction {
	t.Helper()
	if res, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw}); err != nil || res.Code != CodeOK {
		t.Fatalf("CheckTx: %v %v", res, err)
	}
	tx, err := DecodeTx(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// block is a block number n with the base fee and transactions given, as
// committed() sees it.
func block(n int64, baseFee int64, txs ...*types.Transaction) *types.Block {
	return types.NewBlockWithHeader(&types.Header{Number: big.NewInt(n), BaseFee: big.NewInt(baseFee)}).
		WithBody(types.Body{Transactions: txs})
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestWaitIncluded: a sender's wait ends when a block holding its
// transaction is committed, after the proof block when that block changed
// the state; not on a block without it; at once for a transaction that
// left the pool, or whose fee cap a committed block's base fee exceeds;
// there is no wait with automine off.
func TestWaitIncluded(t *testing.T) {
	a, key := newDevTestApp(t)
	tx0 := admitted(t, a, signedTransfer(t, key, 0))
	done, forget, ok := a.WaitIncluded(tx0.Hash())
	if !ok {
		t.Fatal("WaitIncluded not ok on a dev chain with automine on")
	}
	defer forget()
	a.dev.committed(nil, block(1, 1e9), false)
	if closed(done) {
		t.Fatal("woken by a block without the transaction")
	}
	a.dev.committed(nil, block(2, 1e9, tx0), true)
	if closed(done) {
		t.Fatal("woken before the proof block of a block that changed the state")
	}
	a.dev.committed(nil, block(3, 1e9), false)
	if !closed(done) {
		t.Fatal("not woken after the proof block")
	}

	// Fee cap 10 gwei: a committed block at 11 gwei leaves it waiting for
	// the base fee to fall, and its sender answers.
	tx1 := admitted(t, a, signedTransfer(t, key, 1))
	done, forget, _ = a.WaitIncluded(tx1.Hash())
	defer forget()
	a.dev.committed(nil, block(4, 10e9), false)
	if closed(done) {
		t.Fatal("woken by a block whose base fee equals the fee cap")
	}
	a.dev.committed(nil, block(5, 11e9), false)
	if !closed(done) {
		t.Fatal("not woken by a block whose base fee exceeds the fee cap")
	}

	// Dropped from the pool (hardhat_dropTransaction): woken at once.
	done, forget, _ = a.WaitIncluded(tx1.Hash())
	defer forget()
	a.pool.Remove(pool.KeyOf(signedTransfer(t, key, 1)))
	a.ReleaseUnpooled()
	if !closed(done) {
		t.Fatal("not woken when the transaction left the pool")
	}
	if len(a.dev.state.sends) != 0 {
		t.Fatalf("%d hashes still waited for", len(a.dev.state.sends))
	}

	a.SetAutomine(false)
	if _, _, ok := a.WaitIncluded(tx1.Hash()); ok {
		t.Fatal("WaitIncluded ok with automine off")
	}
}
