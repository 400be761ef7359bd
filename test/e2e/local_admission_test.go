package e2e

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/internal/wait"
)

// TestDevSendsNeverWaitForABlock sends 200 transfers one at a time to a dev
// chain that makes no empty blocks, each 0–7 ms after its predecessor's
// receipt: sends land while CometBFT's proof block waits for one, while an
// empty proof block is being made, and while the chain idles. The node
// admits them without CometBFT's mempool (app/local.go), so one admitted
// while an empty block was made must still start a block: each is mined
// within 5 s (otherwise it would wait forever), the recipient holds exactly
// their sum, and CometBFT's mempool is empty at the end.
func TestDevSendsNeverWaitForABlock(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	key := devKeys[6].Private
	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	chainID := big.NewInt(31337)
	pause := rand.New(rand.NewPCG(17, 42))
	sum := new(big.Int)
	for i := range 200 {
		value := big.NewInt(int64(i + 1))
		tx := n.signTx(t, key, txOpts{Nonce: ptr(uint64(i)), To: &to, Value: value, ChainID: chainID})
		n.mustSend(t, tx)
		sum.Add(sum, value)
		if r := n.receiptWithin(t, tx, 5*time.Second); r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("transfer %d failed", i)
		}
		// The next send lands at a random moment of the block's life
		// (pacing under test, not a wait).
		time.Sleep(time.Duration(pause.IntN(8)) * time.Millisecond)
	}
	if got, err := n.Eth.BalanceAt(ctx(t), to, nil); err != nil || got.Cmp(sum) != 0 {
		t.Fatalf("recipient balance %v (%v), want %v", got, err, sum)
	}
	n.waitMempool(t, 0)
}

// receiptWithin polls for tx's receipt every millisecond, failing the test
// after d.
func (n *Node) receiptWithin(t *testing.T, tx *types.Transaction, d time.Duration) *types.Receipt {
	t.Helper()
	c := ctx(t)
	var r *types.Receipt
	if err := wait.PollEvery(time.Millisecond, d, fmt.Sprintf("the receipt of nonce %d", tx.Nonce()), func() (err error) {
		r, err = n.Eth.TransactionReceipt(c, tx.Hash())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return r
}
