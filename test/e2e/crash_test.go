package e2e

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// confirmed is a receipt a client has been given.
type confirmed struct {
	hash      common.Hash
	blockHash common.Hash
	number    uint64
}

// TestCrashRecovery kills the node with SIGKILL (every third time stops it
// with SIGTERM) at random moments under a steady stream of transfers,
// restarts it, and checks that nothing a client
// was told is lost, the chain continues from the same head, and the supply
// adds up to genesis minus burned fees.
func TestCrashRecovery(t *testing.T) {
	n := StartDev(t, "--empty-block-interval", "0")
	senders := devKeys[:5]
	recipients := make([]common.Address, 5)
	for i := range recipients {
		recipients[i] = common.BytesToAddress(crypto.Keccak256([]byte{'c', byte(i)})[:20])
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	seed := rng.Int63()
	t.Logf("kill schedule seed %d", seed)
	rng = rand.New(rand.NewSource(seed))

	var (
		mu    sync.Mutex
		seen  []confirmed
		kills = 6
	)
	for round := 0; round < kills; round++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		eth := n.Eth // Stop and Kill clear n.Eth while the senders still use it
		for i, key := range senders {
			wg.Add(1)
			go func(i int, key *ecdsaKey) {
				defer wg.Done()
				streamTransfers(eth, key, recipients[i], stop, func(c confirmed) {
					mu.Lock()
					seen = append(seen, c)
					mu.Unlock()
				})
			}(i, key.Private)
		}
		time.Sleep(time.Duration(200+rng.Intn(1300)) * time.Millisecond)
		if round%3 == 2 {
			// A clean stop mid-stream too: the validator may have signed
			// votes of a height it had not committed, which the next
			// start must find in the consensus WAL or stall.
			n.Stop()
		} else {
			n.Kill()
		}
		close(stop)
		wg.Wait()

		mu.Lock()
		var last confirmed
		for _, c := range seen {
			if c.number > last.number {
				last = c
			}
		}
		count := len(seen)
		mu.Unlock()
		if round%2 == 0 {
			n.Start("start")
		} else {
			n.Start("dev")
		}
		t.Logf("round %d: killed after %d confirmed txs, highest block seen %d", round, count, last.number)
		if count == 0 {
			t.Fatalf("round %d: no tx was confirmed before the kill", round)
		}
		checkConfirmed(t, n, seen)
		if head, err := n.Eth.BlockNumber(ctx(t)); err != nil || head < last.number {
			t.Fatalf("round %d: head after restart %d (%v), below block %d a client had seen", round, head, err, last.number)
		}
	}

	// Let the chain settle, then balance the books at one height.
	to := recipients[0]
	final := n.WaitReceipt(t, n.send(t, senders[0].Private, txOpts{To: &to, Value: big.NewInt(1)}).Hash())
	head := final.BlockNumber
	coinbase := mustHeader(t, n, head).Coinbase
	addrs := []common.Address{coinbase}
	for _, k := range devKeys {
		addrs = append(addrs, k.Address)
	}
	addrs = append(addrs, recipients...)

	total := new(big.Int)
	genesis := new(big.Int)
	for _, a := range addrs {
		bal, err := n.Eth.BalanceAt(ctx(t), a, head)
		if err != nil {
			t.Fatal(err)
		}
		total.Add(total, bal)
		g, _ := n.Eth.BalanceAt(ctx(t), a, big.NewInt(0))
		genesis.Add(genesis, g)
	}
	burned := new(big.Int)
	txCount := 0
	for num := uint64(1); num <= head.Uint64(); num++ {
		h := mustHeader(t, n, new(big.Int).SetUint64(num))
		burned.Add(burned, new(big.Int).Mul(h.BaseFee, new(big.Int).SetUint64(h.GasUsed)))
		cnt, err := n.Eth.TransactionCount(ctx(t), h.Hash())
		if err != nil {
			t.Fatal(err)
		}
		txCount += int(cnt)
	}
	want := new(big.Int).Sub(genesis, burned)
	if total.Cmp(want) != 0 {
		t.Fatalf("supply at block %v: %v, want genesis %v - burned %v = %v (off by %v)", head, total, genesis, burned, want, new(big.Int).Sub(total, want))
	}
	t.Logf("after %d kills: head %v, %d txs, %d confirmed to clients, burned %v wei; supply balances", kills, head, txCount, len(seen), burned)
}

type ecdsaKey = ecdsa.PrivateKey

// checkConfirmed asserts every receipt handed out is still served unchanged.
func checkConfirmed(t *testing.T, n *Node, seen []confirmed) {
	t.Helper()
	for _, c := range seen {
		r, err := n.Eth.TransactionReceipt(ctx(t), c.hash)
		if err != nil {
			t.Fatalf("receipt of %s (block %d) lost after restart: %v", c.hash.Hex(), c.number, err)
		}
		if r.BlockHash != c.blockHash || r.BlockNumber.Uint64() != c.number || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("receipt of %s changed: block %d %s status %d, was block %d %s", c.hash.Hex(), r.BlockNumber, r.BlockHash, r.Status, c.number, c.blockHash)
		}
		if h := mustHeader(t, n, r.BlockNumber); h.Hash() != c.blockHash {
			t.Fatalf("block %d hash changed to %s, was %s", c.number, h.Hash(), c.blockHash)
		}
	}
}

func mustHeader(t *testing.T, n *Node, num *big.Int) *types.Header {
	t.Helper()
	h, err := n.Eth.HeaderByNumber(ctx(t), num)
	if err != nil {
		t.Fatalf("header %v: %v", num, err)
	}
	return h
}

// streamTransfers sends 1-wei transfers from key to `to` one after another,
// reporting each receipt, until stop closes or the node goes away.
func streamTransfers(eth *ethclient.Client, key *ecdsaKey, to common.Address, stop <-chan struct{}, report func(confirmed)) {
	c := context.Background()
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID, err := eth.ChainID(c)
	if err != nil {
		return
	}
	signer := types.LatestSignerForChainID(chainID)
	for {
		select {
		case <-stop:
			return
		default:
		}
		nonce, err := eth.PendingNonceAt(c, from)
		if err != nil {
			return
		}
		tx, _ := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: gwei(1), GasFeeCap: gwei(10), Gas: 21000, To: &to, Value: big.NewInt(1)})
		if err := eth.SendTransaction(c, tx); err != nil {
			return
		}
		for {
			select {
			case <-stop:
				return
			default:
			}
			r, err := eth.TransactionReceipt(c, tx.Hash())
			if err == nil {
				report(confirmed{hash: tx.Hash(), blockHash: r.BlockHash, number: r.BlockNumber.Uint64()})
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// TestStopMidBlock stops the node (SIGTERM) right after a transaction was
// accepted, while its block is being made, and starts it again, several
// times: the chain must go on each time. The validator may have signed
// votes of the height it had not committed; without them (a lost consensus
// WAL) a lone validator cannot sign that height again and the chain stalls.
func TestStopMidBlock(t *testing.T) {
	n := StartDev(t, "--empty-block-interval", "0")
	to := common.HexToAddress("0x000000000000000000000000000000000000b10c")
	for round := 0; round < 8; round++ {
		tx := n.send(t, devKeys[6].Private, txOpts{To: &to, Value: big.NewInt(1)})
		time.Sleep(time.Duration(round) * time.Millisecond) // different moments of the block
		n.Stop()
		n.Start("dev")
		if r := n.WaitReceipt(t, tx.Hash()); r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("round %d: tx failed", round)
		}
	}
	if bal, _ := n.Eth.BalanceAt(ctx(t), to, nil); bal.Int64() != 8 {
		t.Fatalf("recipient holds %v wei, want 8", bal)
	}
}
