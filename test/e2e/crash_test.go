package e2e

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/internal/wait"
)

// TestCrashRecovery streams signed transfers from several senders at once
// and kills the node with SIGKILL 30 times at random moments (six clean
// stops, SIGTERM, among them), restarting it each time, alternately as
// `emberd start` and `emberd dev`. It records every transaction
// eth_sendRawTransaction accepted (answered its hash, or later "already
// known"), and those whose answer a kill cut ("maybe accepted": sent again
// after the restart, as a client would). Checks: after each restart the
// head is at or past the last block a client saw, with the same hash; at
// the end every accepted transaction has a successful receipt in the
// canonical chain (or the test names why not), each recipient holds the
// sum of its sender's included values, and the balances of all accounts
// add up to genesis minus the burned base fees, to the wei. Not parallel:
// its senders keep the CPU busy, and other tests' nodes would slow.
func TestCrashRecovery(t *testing.T) {
	n := StartDev(t, "--empty-block-interval", "0")
	seed := time.Now().UnixNano()
	t.Logf("kill schedule seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	chainID, err := n.Eth.ChainID(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	// Five senders of ETH, one of ERC-20 tokens (contract calls that
	// change storage), each to its own recipient.
	token := contracts.MustLoad("EmberToken")
	tokenAddr := n.deploy(t, devKeys[5], token, crashTokenSupply)
	senders := make([]*crashSender, 6)
	for i := range senders {
		senders[i] = newCrashSender(t, n, devKeys[i], chainID, byte(i))
	}
	senders[5].useToken(tokenAddr, token)

	const rounds = 36        // every sixth a clean stop: 30 kills
	var seen []*types.Header // the last head a client saw before each kill
	for round := 0; round < rounds; round++ {
		var accepted atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		eth := n.Eth // Stop and Kill clear n.Eth while the senders still use it
		for _, s := range senders {
			wg.Add(1)
			go func(s *crashSender) {
				defer wg.Done()
				s.stream(eth, stop, &accepted)
			}(s)
		}
		// Killed once a random number of transactions were accepted this
		// round, a random instant later (a moment of some block's life).
		target := int64(50 + rng.Intn(550))
		if err := wait.PollEvery(time.Millisecond, time.Minute, fmt.Sprintf("round %d: %d transactions accepted", round, target), func() error {
			got := accepted.Load()
			return wait.Check(got >= target, "%d accepted", got)
		}); err != nil {
			t.Fatal(err)
		}
		head, err := eth.HeaderByNumber(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, head)
		time.Sleep(time.Duration(rng.Intn(20_000)) * time.Microsecond)
		if round%6 == 5 {
			// A clean stop mid-stream: the validator may have signed votes
			// of a height it had not committed, which the next start must
			// find in the consensus WAL or stall.
			n.Stop()
		} else {
			n.Kill()
		}
		close(stop)
		wg.Wait()
		n.Start([]string{"start", "dev"}[round%2])
		checkHeads(t, n, seen)
		t.Logf("round %d: killed after %d accepted (target %d) at block %d; %s", round, accepted.Load(), target, head.Number, crashTally(senders))
	}

	// A client whose answer was lost sends again; then every sender's
	// transactions are all included, or some accepted one was lost.
	for _, s := range senders {
		if err := s.resend(n.Eth); err != nil {
			t.Fatalf("sender %d: sending again what a kill cut: %v", s.id, err)
		}
	}
	for _, s := range senders {
		s.waitIncluded(t, n)
	}
	last, err := n.Eth.HeaderByNumber(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	headers := headersTo(t, n, last.Number.Uint64())
	for _, s := range senders {
		s.checkIncluded(t, n, headers)
	}
	checkSupply(t, n, headers, senders)
	t.Logf("%d kills and %d stops: head %v; %s", rounds-rounds/6, rounds/6, last.Number, crashTally(senders))
}

// crashSender streams transfers of ETH, or of an ERC-20 token, from one dev
// account to its own recipient.
// Each nonce has exactly one transaction (the same fields sign to the same
// bytes), sent with nonces the test counts itself, never the node's: no
// transaction of a sender can take another's nonce, so an accepted one
// that is not included was lost.
type crashSender struct {
	id       int
	key      *accounts.Key
	to       common.Address
	signer   types.Signer
	chainID  *big.Int
	base     uint64          // the account's nonce at the start
	next     uint64          // the next nonce to send
	accepted map[uint64]bool // nonces the node accepted
	maybe    map[uint64]bool // nonces sent whose answer a kill cut, not accepted since
	rejected map[string]int  // the node's refusals by message (sent again later)

	token    *common.Address     // the ERC-20 sent instead of ETH, if any
	tokenABI *contracts.Contract // its contract
}

// crashTokenSupply is what the token's deployer holds at the start.
var crashTokenSupply = ether(1_000_000)

// crashWindow is how many transactions a sender has sent and not yet seen
// included: a sender stalled by a lost transaction stays stalled, so the
// loss cannot hide behind nonces taken afterwards.
const crashWindow = 64

func newCrashSender(t *testing.T, n *Node, key *accounts.Key, chainID *big.Int, id byte) *crashSender {
	base, err := n.Eth.NonceAt(ctx(t), key.Address, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &crashSender{id: int(id), key: key, chainID: chainID, signer: types.LatestSignerForChainID(chainID),
		to:   common.BytesToAddress(crypto.Keccak256([]byte{'c', id})[:20]),
		base: base, next: base, accepted: map[uint64]bool{}, maybe: map[uint64]bool{}, rejected: map[string]int{}}
}

// useToken makes the sender send the ERC-20 at token, which it holds.
func (s *crashSender) useToken(token common.Address, c *contracts.Contract) {
	s.token, s.tokenABI = &token, c
}

// value is what the transaction of a nonce sends: 1 to 97 wei, or token
// units.
func (s *crashSender) value(nonce uint64) *big.Int { return big.NewInt(int64(1 + nonce%97)) }

func (s *crashSender) tx(nonce uint64) *types.Transaction {
	inner := &types.DynamicFeeTx{ChainID: s.chainID, Nonce: nonce, GasTipCap: gwei(1), GasFeeCap: gwei(100),
		Gas: 21000, To: &s.to, Value: s.value(nonce)}
	if s.token != nil {
		data, err := s.tokenABI.ABI.Pack("transfer", s.to, s.value(nonce))
		if err != nil {
			panic(err)
		}
		inner.To, inner.Value, inner.Data, inner.Gas = s.token, new(big.Int), data, 100_000
	}
	tx, err := types.SignNewTx(s.key.Private, s.signer, inner)
	if err != nil {
		panic(err)
	}
	return tx
}

// balance is what addr holds at block head: wei, or units of the token.
func (s *crashSender) balance(t *testing.T, n *Node, addr common.Address, head *big.Int) *big.Int {
	t.Helper()
	if s.token == nil {
		bal, err := n.Eth.BalanceAt(ctx(t), addr, head)
		if err != nil {
			t.Fatal(err)
		}
		return bal
	}
	out, err := n.Eth.CallContract(ctx(t), ethereum.CallMsg{To: s.token, Data: pack(t, s.tokenABI, "balanceOf", addr)}, head)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// stream sends the transactions a kill cut again, then new ones, at most
// crashWindow ahead of the chain, until stop closes or the node goes away.
func (s *crashSender) stream(eth *ethclient.Client, stop <-chan struct{}, accepted *atomic.Int64) {
	if s.resend(eth) != nil {
		return
	}
	mined := s.base
	for {
		select {
		case <-stop:
			return
		default:
		}
		if s.next-mined >= crashWindow {
			nonce, err := eth.NonceAt(context.Background(), s.key.Address, nil)
			if err != nil {
				return
			}
			if mined = nonce; s.next-mined >= crashWindow {
				time.Sleep(5 * time.Millisecond)
				continue
			}
		}
		switch ok, err := s.send(eth, s.next); {
		case err != nil:
			return // the node went away
		case ok:
			s.next++
			accepted.Add(1)
		default:
			time.Sleep(10 * time.Millisecond) // refused: the same transaction again
		}
	}
}

// resend sends again each transaction whose answer a kill cut; an error
// means the node went away.
func (s *crashSender) resend(eth *ethclient.Client) error {
	for _, nonce := range slices.Sorted(maps.Keys(s.maybe)) {
		if _, err := s.send(eth, nonce); err != nil {
			return err
		}
	}
	return nil
}

// send submits the transaction of nonce and records the outcome: ok when
// the node accepted it; an error when no answer came (the node went away:
// the transaction is "maybe accepted").
func (s *crashSender) send(eth *ethclient.Client, nonce uint64) (ok bool, err error) {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = eth.SendTransaction(c, s.tx(nonce))
	var answer rpc.Error
	switch {
	case err == nil || errors.As(err, &answer) && strings.Contains(err.Error(), "already known"):
		s.accepted[nonce] = true
		delete(s.maybe, nonce)
		return true, nil
	case errors.As(err, &answer) && strings.Contains(err.Error(), "nonce too low"):
		delete(s.maybe, nonce) // included already: this sender's only tx of that nonce
		return true, nil
	case errors.As(err, &answer):
		s.rejected[err.Error()]++
		return false, nil
	}
	if !s.accepted[nonce] {
		s.maybe[nonce] = true
	}
	if nonce == s.next {
		s.next++ // sent: it may be in the pool, later nonces go on
	}
	return false, err
}

// waitIncluded waits until the sender's account nonce reaches its next
// nonce (every transaction sent included) or stops advancing.
func (s *crashSender) waitIncluded(t *testing.T, n *Node) {
	t.Helper()
	var nonce uint64
	for nonce != s.next {
		was := nonce
		if err := wait.PollEvery(20*time.Millisecond, 20*time.Second, fmt.Sprintf("sender %d's nonce to move from %d", s.id, was), func() error {
			var err error
			if nonce, err = n.Eth.NonceAt(ctx(t), s.key.Address, nil); err != nil {
				t.Fatal(err)
			}
			return wait.Check(nonce == s.next || nonce != was, "nonce %d", nonce)
		}); err != nil {
			t.Errorf("sender %d: nonce stays %d, sent up to %d", s.id, nonce, s.next-1)
			return
		}
	}
}

// checkIncluded checks at the last of headers (blocks 1..head) that every
// accepted transaction has a successful receipt in the canonical chain,
// naming why one has not, and that the recipient holds the values of all
// included ones (and a token sender the rest of its supply).
func (s *crashSender) checkIncluded(t *testing.T, n *Node, headers []*types.Header) {
	t.Helper()
	head := headers[len(headers)-1].Number
	nonce, err := n.Eth.NonceAt(ctx(t), s.key.Address, head)
	if err != nil {
		t.Fatal(err)
	}
	accepted := slices.Sorted(maps.Keys(s.accepted))
	receipts := receiptsOf(t, n, accepted, s.tx)
	for i, k := range accepted {
		r, tx := receipts[i], s.tx(k)
		switch {
		case r == nil && k < nonce:
			t.Errorf("sender %d: accepted tx %s (nonce %d) not included: its nonce was taken by another transaction", s.id, tx.Hash(), k)
		case r == nil:
			_, pending, err := n.Eth.TransactionByHash(ctx(t), tx.Hash())
			t.Errorf("sender %d: accepted tx %s (nonce %d) not included, account nonce %d: lost (node knows it: %v, pending %v)",
				s.id, tx.Hash(), k, nonce, err == nil, pending)
		case r.Status != types.ReceiptStatusSuccessful:
			t.Errorf("sender %d: accepted tx %s (nonce %d) failed", s.id, tx.Hash(), k)
		case headers[r.BlockNumber.Uint64()-1].Hash() != r.BlockHash:
			t.Errorf("sender %d: tx %s: receipt in block %s, not the canonical block %d", s.id, tx.Hash(), r.BlockHash, r.BlockNumber)
		}
	}
	want := new(big.Int)
	for k := s.base; k < nonce; k++ {
		want.Add(want, s.value(k))
	}
	if bal := s.balance(t, n, s.to, head); bal.Cmp(want) != 0 {
		t.Errorf("sender %d: recipient holds %v, want %v: the values of nonces %d..%d", s.id, bal, want, s.base, nonce-1)
	}
	if s.token != nil {
		if bal, rest := s.balance(t, n, s.key.Address, head), new(big.Int).Sub(crashTokenSupply, want); bal.Cmp(rest) != 0 {
			t.Errorf("sender %d: holds %v tokens, want %v", s.id, bal, rest)
		}
	}
}

// receiptsOf fetches the receipts of the transactions of nonces; nil where
// there is none.
func receiptsOf(t *testing.T, n *Node, nonces []uint64, tx func(uint64) *types.Transaction) []*types.Receipt {
	t.Helper()
	out := make([]*types.Receipt, len(nonces))
	batch := make([]rpc.BatchElem, len(nonces))
	for i, k := range nonces {
		batch[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{tx(k).Hash()}, Result: &out[i]}
	}
	n.mustBatch(t, batch)
	return out
}

// checkHeads checks that each head a client saw is still the chain's
// block at its height.
func checkHeads(t *testing.T, n *Node, seen []*types.Header) {
	t.Helper()
	for _, h := range seen {
		got, err := n.Eth.HeaderByNumber(ctx(t), h.Number)
		if err != nil {
			t.Fatalf("block %d, seen before a kill, after the restart: %v", h.Number, err)
		}
		if got.Hash() != h.Hash() {
			t.Fatalf("block %d is %s after the restart, was %s", h.Number, got.Hash(), h.Hash())
		}
	}
}

// checkSupply balances the books at the last of headers (blocks 1..head):
// every account holding coins (dev accounts, recipients, the coinbase)
// adds up to its genesis balance minus the base fees burned.
func checkSupply(t *testing.T, n *Node, headers []*types.Header, senders []*crashSender) {
	t.Helper()
	head := headers[len(headers)-1]
	addrs := []common.Address{head.Coinbase}
	for _, k := range devKeys {
		addrs = append(addrs, k.Address)
	}
	for _, s := range senders {
		addrs = append(addrs, s.to)
	}
	total, genesis := new(big.Int), new(big.Int)
	for _, a := range addrs {
		bal, err := n.Eth.BalanceAt(ctx(t), a, head.Number)
		if err != nil {
			t.Fatal(err)
		}
		total.Add(total, bal)
		g, err := n.Eth.BalanceAt(ctx(t), a, big.NewInt(0))
		if err != nil {
			t.Fatal(err)
		}
		genesis.Add(genesis, g)
	}
	burned := new(big.Int)
	for _, h := range headers {
		burned.Add(burned, new(big.Int).Mul(h.BaseFee, new(big.Int).SetUint64(h.GasUsed)))
	}
	if want := new(big.Int).Sub(genesis, burned); total.Cmp(want) != 0 {
		t.Fatalf("supply at block %v: %v, want genesis %v - burned %v = %v (off by %v)", head.Number, total, genesis, burned, want, new(big.Int).Sub(total, want))
	}
	t.Logf("supply at block %v balances: genesis %v wei, %v burned", head.Number, genesis, burned)
}

// headersTo fetches the headers of blocks 1..head.
func headersTo(t *testing.T, n *Node, head uint64) []*types.Header {
	t.Helper()
	out := make([]*types.Header, head)
	batch := make([]rpc.BatchElem, head)
	for i := range batch {
		batch[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(uint64(i) + 1), false}, Result: &out[i]}
	}
	n.mustBatch(t, batch)
	for i, h := range out {
		if h == nil {
			t.Fatalf("block %d missing", i+1)
		}
	}
	return out
}

// crashTally sums the senders' outcomes for the log.
func crashTally(senders []*crashSender) string {
	var accepted, maybe, sent int
	rejected := map[string]int{}
	for _, s := range senders {
		accepted += len(s.accepted)
		maybe += len(s.maybe)
		sent += int(s.next - s.base)
		for m, c := range s.rejected {
			rejected[m] += c
		}
	}
	return fmt.Sprintf("%d sent, %d accepted, %d answers cut by a kill and not accepted since, refusals %v", sent, accepted, maybe, rejected)
}

// confirmed is a receipt a client has been given.
type confirmed struct {
	hash      common.Hash
	blockHash common.Hash
	number    uint64
}

type ecdsaKey = ecdsa.PrivateKey

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
	t.Parallel()
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
