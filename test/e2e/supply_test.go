package e2e

import (
	"crypto/ecdsa"

	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/internal/wait"
)

// TestSupplyInvariantUnderLoad runs four validators under EVM transfers
// sent to three of them and native MsgSends between, then checks the supply
// invariant at every height (supply = genesis + minted − burned, with
// burned the EVM and native base fees, and, once the economics exist, the
// mints and slashes of FinalizeBlock) and that every node serves identical
// blocks.
func TestSupplyInvariantUnderLoad(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 4, 0)
	for _, n := range nw.Nodes {
		n.Start("start")
	}
	waitAllHeight(t, 2, nw.Nodes...)
	stop := evmLoad(nw.Nodes[:3], []*ecdsa.PrivateKey{devKeys[0].Private, devKeys[1].Private, devKeys[2].Private})
	sendNativeTransfers(t, nw.Nodes[3], devKeys[3].Private, 6)
	waitAllHeight(t, 25, nw.Nodes...) // a few dozen loaded blocks
	confirmed := stop()
	if confirmed < 10 {
		t.Fatalf("only %d EVM transfers confirmed under load", confirmed)
	}
	l := checkEconomy(t, nw, nw.Nodes...)
	if l.Native != 6 || l.EVMTxs < confirmed {
		t.Fatalf("the chain holds %d native txs (sent 6) and %d EVM txs (%d confirmed)", l.Native, l.EVMTxs, confirmed)
	}
	if l.Burned.Sign() <= 0 {
		t.Fatal("no base fee burned under load")
	}
	if economicsMerged {
		// Every block mints, and its priority fees go to the fee collector
		// for distribution, never to the proposer.
		if l.Mints != int(l.Height) {
			t.Fatalf("%d of %d blocks have a mint event", l.Mints, l.Height)
		}
		feeCollector := common.HexToAddress("0x0000000000000000000000000000000000000B12")
		for _, h := range headersTo(t, nw.Nodes[0], l.Height) {
			if h.Coinbase != feeCollector {
				t.Fatalf("block %v coinbase %s, want the fee collector %s", h.Number, h.Coinbase, feeCollector)
			}
		}
	}
}

// sendNativeTransfers delivers count MsgSends from key, one at a time, each
// of a different amount, and checks the recipient holds their sum.
func sendNativeTransfers(t *testing.T, n *Node, key *ecdsa.PrivateKey, count int) {
	t.Helper()
	from := devKeyAddress(key)
	to := common.HexToAddress("0x00000000000000000000000000000000005e4d00")
	before := balanceAt(t, n, to)
	sum := new(big.Int)
	for i := 1; i <= count; i++ {
		amount := big.NewInt(int64(1000 + i))
		if r := deliver(t, n, signTestnet(t, n, key, testnetB.Send(from, to, amount))); r.TxResult.Code != 0 {
			t.Fatalf("MsgSend %d: code %d %s", i, r.TxResult.Code, r.TxResult.Log)
		}
		sum.Add(sum, amount)
	}
	if got := balanceAt(t, n, to); got.Cmp(add(before, sum)) != 0 {
		t.Fatalf("recipient of the MsgSends holds %v, want %v", got, add(before, sum))
	}
}

func devKeyAddress(key *ecdsa.PrivateKey) common.Address {
	for _, k := range devKeys {
		if k.Private == key {
			return k.Address
		}
	}
	panic("not a dev key")
}

// TestKillRestartSupply SIGKILLs validators of a loaded network at chosen
// moments: node1 the instant its head reaches a height (mid-way through the
// next one), node2 the instant a transfer's block is committed on it, and
// node3 right after a reward withdrawal is included (once the economics
// exist; a transfer until then). Each restarts, catches up, and the supply
// invariant and identical blocks hold on every node.
func TestKillRestartSupply(t *testing.T) {
	nw := InitNetwork(t, 4, 0)
	vals := nw.Nodes
	for _, n := range vals {
		n.Start("start")
	}
	waitAllHeight(t, 2, vals...)
	stop := evmLoad([]*Node{vals[0]}, []*ecdsa.PrivateKey{devKeys[0].Private, devKeys[1].Private})
	defer func() { stop() }()

	// Mid-block: the kill lands at several moments of the next height
	// (proposal, votes, FinalizeBlock, Commit), with transfers in flight.
	for i, delay := range []time.Duration{0, 150 * time.Millisecond, 300 * time.Millisecond, 450 * time.Millisecond} {
		seen := vals[1].killAtHeight(t, vals[1].height(t)+1, delay)
		t.Logf("kill %d: node1 killed %v after reaching head %d", i, delay, seen)
		vals[1].restart(t, vals[0], vals[2], vals[3])
	}

	// Right after a block with a transaction is committed on the node.
	to := common.HexToAddress("0x000000000000000000000000000000000000d1e0")
	tx := vals[2].send(t, devKeys[2].Private, txOpts{To: &to, Value: big.NewInt(3)})
	r := vals[2].WaitReceipt(t, tx.Hash())
	vals[2].Kill()
	t.Logf("node2 killed after block %v with tx %s", r.BlockNumber, tx.Hash())
	vals[2].restart(t, vals[0], vals[1], vals[3])
	if got := balanceAt(t, vals[2], to); got.Int64() != 3 {
		t.Fatalf("after the restart node2 has %v wei at %s, want 3", got, to)
	}

	// Right after a reward payout (withdraw rewards) is included.
	killAfterPayout(t, vals[0], vals[3], devKeys[3].Private, nw.manifest().Nodes[0].Operator)
	vals[3].restart(t, vals[0], vals[1], vals[2])

	stop()
	stop = func() int { return 0 }
	waitAllHeight(t, maxHeight(t, vals...)+2, vals...)
	l := checkEconomy(t, nw, vals...)
	if economicsMerged && l.Mints == 0 {
		t.Fatal("no mint event in a chain with the mint module")
	}
}

// killAfterPayout delivers, on via, a withdrawal of the rewards key's
// account earned by delegating to op (MsgWithdrawDelegatorReward; a plain
// transfer before the economics exist) and SIGKILLs victim the instant the
// tx's block is committed on victim. The withdrawal pays exactly the
// amount its withdraw_rewards event names, less the fee.
func killAfterPayout(t *testing.T, via, victim *Node, key *ecdsa.PrivateKey, op common.Address) {
	t.Helper()
	from := devKeyAddress(key)
	msg := testnetB.Send(from, from, big.NewInt(1))
	if economicsMerged {
		if r := deliver(t, via, signTestnet(t, via, key, testnetB.Delegate(from, op, e18))); r.TxResult.Code != 0 {
			t.Fatalf("delegate: %d %s", r.TxResult.Code, r.TxResult.Log)
		}
		waitAllHeight(t, via.height(t)+3, via) // rewards accrue
		msg = &distrv1beta1.MsgWithdrawDelegatorReward{DelegatorAddress: accounts.Bech32("ember", from), ValidatorAddress: valoper(op)}
	}
	raw, fee := signTestnetFee(t, via, key, msg)
	res := broadcast(t, via, raw)
	if res.Code != 0 {
		t.Fatalf("payout tx refused: %d %s", res.Code, res.Log)
	}
	c := victim.cometClient(t)
	wait.Eventually(t, 30*time.Second, "the payout tx on "+victim.Home, func() error {
		_, err := c.Tx(ctx(t), res.Hash, false)
		return err
	})
	victim.Kill()
	r := waitCometTx(t, via, res.Hash)
	if r.TxResult.Code != 0 {
		t.Fatalf("payout tx failed: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	t.Logf("%s killed after the payout at %d", victim.Home, r.Height)
	if !economicsMerged {
		return
	}
	paid, ok := eventAttr(r.TxResult.Events, "withdraw_rewards", "amount")
	if !ok {
		t.Fatalf("withdrawal has no withdraw_rewards amount: %v", r.TxResult.Events)
	}
	before, err := via.Eth.BalanceAt(ctx(t), from, big.NewInt(r.Height-1))
	if err != nil {
		t.Fatal(err)
	}
	after, err := via.Eth.BalanceAt(ctx(t), from, big.NewInt(r.Height))
	if err != nil {
		t.Fatal(err)
	}
	if want := sub(add(before, mustInt(t, paid)), fee); after.Cmp(want) != 0 || mustInt(t, paid).Sign() <= 0 {
		t.Fatalf("delegator after the withdrawal %v, want %v + %s - fee %v = %v", after, before, paid, fee, want)
	}
}
