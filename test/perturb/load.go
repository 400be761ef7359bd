package perturb

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/accounts"
)

// Accepted is a transaction a node accepted (eth_sendRawTransaction
// answered without an error).
type Accepted struct {
	Hash   common.Hash
	From   common.Address
	Nonce  uint64
	Node   string
	SentAt time.Time
}

// Load sends signed EIP-1559 transfers from several funded senders to
// random recipients, each to a random node that is up.
type Load struct {
	nodes   []*Node
	chainID *big.Int
	rate    float64 // transactions per second over all senders
	senders []*sender

	mu       sync.Mutex
	accepted []Accepted
	sent     int
	errors   int

	stop chan struct{}
	wg   sync.WaitGroup
}

// sender is one funded key and the nonce it will use next.
type sender struct {
	key   *ecdsa.PrivateKey
	addr  common.Address
	nonce uint64
	stale bool // a send failed: read the pending nonce from a node first
	rng   *rand.Rand
}

// NewLoad prepares senders from the first count accounts of the test
// mnemonic, which `emberd testnet init` funds at genesis.
func NewLoad(nodes []*Node, chainID *big.Int, count int, rate float64, seed uint64) (*Load, error) {
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, count)
	if err != nil {
		return nil, err
	}
	l := &Load{nodes: nodes, chainID: chainID, rate: rate, stop: make(chan struct{})}
	for i, k := range keys {
		l.senders = append(l.senders, &sender{key: k.Private, addr: k.Address, stale: true,
			rng: rand.New(rand.NewPCG(seed, uint64(i)))})
	}
	return l, nil
}

// Start runs one goroutine per sender, each at rate/len(senders).
func (l *Load) Start() {
	every := time.Duration(float64(time.Second) * float64(len(l.senders)) / l.rate)
	for _, s := range l.senders {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.run(s, every)
		}()
	}
}

// Stop ends the senders and waits for them.
func (l *Load) Stop() {
	close(l.stop)
	l.wg.Wait()
}

func (l *Load) run(s *sender, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		n := l.pick(s.rng)
		if n == nil {
			continue
		}
		l.sendOne(s, n)
	}
}

// pick is a random node that is up, nil when none is.
func (l *Load) pick(rng *rand.Rand) *Node {
	var up []*Node
	for _, n := range l.nodes {
		if n.Up() {
			up = append(up, n)
		}
	}
	if len(up) == 0 {
		return nil
	}
	return up[rng.IntN(len(up))]
}

// gasTip and gasFeeCap leave ample room above the base fee, which a loaded
// testnet keeps near its floor.
var (
	gasTip    = big.NewInt(2 * params.GWei)
	gasFeeCap = big.NewInt(100 * params.GWei)
)

// sendOne signs and sends the sender's next transfer to n. After a failed
// send the sender reads its pending nonce again (from whichever node it
// sends to next): the node may have taken the tx anyway, or another node
// may know of more.
func (l *Load) sendOne(s *sender, n *Node) {
	eth, err := n.Eth()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.stale {
		nonce, err := eth.PendingNonceAt(ctx, s.addr)
		if err != nil {
			return
		}
		s.nonce, s.stale = nonce, false
	}
	var to common.Address
	for i := range to {
		to[i] = byte(s.rng.IntN(256))
	}
	tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(l.chainID), &types.DynamicFeeTx{
		ChainID: l.chainID, Nonce: s.nonce, GasTipCap: gasTip, GasFeeCap: gasFeeCap, Gas: 21000,
		To: &to, Value: big.NewInt(1 + s.rng.Int64N(1_000_000))})
	if err != nil {
		panic(err) // a valid key and a well-formed tx cannot fail to sign
	}
	err = eth.SendTransaction(ctx, tx)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent++
	if err != nil {
		l.errors++
		s.stale = true
		return
	}
	l.accepted = append(l.accepted, Accepted{Hash: tx.Hash(), From: s.addr, Nonce: s.nonce, Node: n.Name, SentAt: time.Now()})
	s.nonce++
}

// Accepted is every transaction a node accepted so far.
func (l *Load) Accepted() []Accepted {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Accepted(nil), l.accepted...)
}

// Counts are the sends attempted and those refused.
func (l *Load) Counts() (sent, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sent, l.errors
}

// Senders are the senders' addresses.
func (l *Load) Senders() []common.Address {
	var out []common.Address
	for _, s := range l.senders {
		out = append(out, s.addr)
	}
	return out
}
