package app

import (
	"bytes"
	"context"
	"math/big"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestEmptyDevProposalTakesArrival: on a dev chain, an empty proposal (a
// proof block) waits for a transaction admitted meanwhile and carries it,
// though CometBFT's mempool offered none; with none admitted it stays empty.
func TestEmptyDevProposalTakesArrival(t *testing.T) {
	key, _ := crypto.GenerateKey()
	a := newTestApp(t, crypto.PubkeyToAddress(key.PublicKey))
	a.genesis.Dev = true
	empty := &abci.RequestPrepareProposal{MaxTxBytes: 1 << 20}
	a.arrived.wait = time.Second // a scheduling delay must not make the test miss the wait

	res, err := a.PrepareProposal(context.Background(), empty)
	if err != nil || len(res.Txs) != 0 {
		t.Fatalf("nothing admitted: proposal %x, %v", res.Txs, err)
	}

	tx, _ := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
		ChainID: big.NewInt(9000), GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(10e9), Gas: 21000, To: &common.Address{1},
	})
	raw, _ := tx.MarshalBinary()
	proposed := make(chan [][]byte)
	go func() {
		res, err := a.PrepareProposal(context.Background(), empty)
		if err != nil {
			t.Error(err)
		}
		proposed <- res.Txs
	}()
	if res, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw}); err != nil || res.Code != CodeOK {
		t.Fatalf("CheckTx: %v %v", res, err)
	}
	// The proposal either was waiting and woke on the arrival, or had not
	// yet looked and found the tx pending: it carries the tx either way.
	if txs := <-proposed; len(txs) != 1 || !bytes.Equal(txs[0], raw) {
		t.Fatalf("proposal %x, want the admitted tx", txs)
	}
}
