package app

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/txpool"
)

// TestCheckTxQueuesPromotesAndProposes walks one sender through the ABCI
// calls: a gapped tx is queued, the tx filling the gap is pending and asks
// for a promotion, the resubmitted queued tx is promoted; a replacement
// displaces the old tx, which PrepareProposal then leaves out even though
// CometBFT still offers it; on a chain with distribution the etherbase
// adds no marker.
func TestCheckTxQueuesPromotesAndProposes(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	a := newTestApp(t, from)
	var promotions int
	var displaced []*txpool.Tx
	a.SetMempoolHooks(MempoolHooks{
		Remove:  func(txs []*txpool.Tx) { displaced = append(displaced, txs...) },
		Promote: func() { promotions++ },
	})
	sign := func(nonce uint64, tip, feeCap int64) []byte {
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
			ChainID: big.NewInt(9000), Nonce: nonce, GasTipCap: big.NewInt(tip), GasFeeCap: big.NewInt(feeCap), Gas: 21000, To: &common.Address{1},
		})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := tx.MarshalBinary()
		return raw
	}
	check := func(raw []byte, typ abci.CheckTxType, want uint32) {
		t.Helper()
		res, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw, Type: typ})
		if err != nil || res.Code != want {
			t.Fatalf("CheckTx: code %d (%s), %v; want %d", res.Code, res.Log, err, want)
		}
	}
	tx1, tx0 := sign(1, 1e9, 10e9), sign(0, 1e9, 10e9)
	check(tx1, abci.CheckTxType_New, CodeQueued)
	check(tx0, abci.CheckTxType_New, CodeOK)
	if promotions != 1 {
		t.Fatalf("%d promotion requests, want 1", promotions)
	}
	check(tx1, abci.CheckTxType_New, CodeOK) // the promoter's resubmission
	check(tx1, abci.CheckTxType_New, CodeNonce)
	check(sign(1, 1_050_000_000, 10_500_000_000), abci.CheckTxType_New, CodeNonce) // +5%: underpriced
	tx1b := sign(1, 1_100_000_000, 11e9)
	check(tx1b, abci.CheckTxType_New, CodeOK)
	if len(displaced) != 1 || !bytes.Equal(displaced[0].Raw, tx1) {
		t.Fatalf("displaced %v, want the replaced tx", displaced)
	}
	check(tx1, abci.CheckTxType_Recheck, CodeNonce) // dropped when it lingers

	etherbase := common.Address{0xee}
	a.SetEtherbase(etherbase)
	res, err := a.PrepareProposal(context.Background(), &abci.RequestPrepareProposal{Txs: [][]byte{tx0, tx1, tx1b}, MaxTxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	// A chain with distribution shares the fees: the etherbase puts no
	// marker in and the fee collector is the coinbase (Fee routing).
	if len(res.Txs) != 2 || !bytes.Equal(res.Txs[0], tx0) || !bytes.Equal(res.Txs[1], tx1b) {
		t.Fatalf("proposal %x", res.Txs)
	}
	if got := a.blockCoinbase(res.Txs, []byte{1}); got != distribution.FeeCollector {
		t.Fatalf("coinbase %s", got.Hex())
	}
}

// TestProcessProposalMarkers accepts a marker only first and well formed,
// and only on a chain that honours markers (a dev chain, or one without
// distribution); elsewhere the fee collector is the coinbase. A dev chain
// without a marker pays the reward address, as anvil pays its coinbase.
func TestProcessProposalMarkers(t *testing.T) {
	real := newTestApp(t, common.Address{})
	dev, _ := newDevTestApp(t)
	legacy := newTestApp(t, common.Address{})
	legacy.genesis.Distribution = nil
	marker := coinbaseMarkerTx(common.Address{7})
	accept, reject := abci.ResponseProcessProposal_ACCEPT, abci.ResponseProcessProposal_REJECT
	for _, c := range []struct {
		a    *App
		txs  [][]byte
		want abci.ResponseProcessProposal_ProposalStatus
	}{
		{real, nil, accept},
		{real, [][]byte{{0x02}}, accept},
		{real, [][]byte{marker, {0x02}}, reject},
		{dev, [][]byte{marker, {0x02}}, accept},
		{legacy, [][]byte{marker, {0x02}}, accept},
		{dev, [][]byte{{0x02}, marker}, reject},
		{dev, [][]byte{marker[:len(marker)-1]}, reject},
		{dev, [][]byte{marker, marker}, reject},
	} {
		res, err := c.a.ProcessProposal(context.Background(), &abci.RequestProcessProposal{Txs: c.txs})
		if err != nil || res.Status != c.want {
			t.Errorf("txs %x: %v %v, want %v", c.txs, res.Status, err, c.want)
		}
	}
	if got := dev.blockCoinbase([][]byte{marker}, []byte{1, 2}); got != (common.Address{7}) {
		t.Fatalf("dev coinbase %s, want the marker's", got.Hex())
	}
	if got := dev.blockCoinbase(nil, []byte{1, 2}); got != dev.RewardAddress([]byte{1, 2}) || got == distribution.FeeCollector {
		t.Fatalf("dev coinbase %s, want the reward address", got.Hex())
	}
	if got := real.blockCoinbase([][]byte{marker}, []byte{1, 2}); got != distribution.FeeCollector {
		t.Fatalf("coinbase %s, want the fee collector", got.Hex())
	}
	// Without distribution and without a marker the proposer's genesis
	// reward address is paid.
	if got, want := legacy.blockCoinbase([][]byte{{0x02}}, []byte{1, 2}), legacy.RewardAddress([]byte{1, 2}); got != want || got == distribution.FeeCollector {
		t.Fatalf("coinbase %s, want %s", got.Hex(), want.Hex())
	}
}
