// Package writes measures how fast a node commits transactions sent with
// eth_sendRawTransaction: a burst of pre-signed ETH or ERC-20 transfers from
// many senders (each sender's in nonce order, one send in flight per
// sender), and the send → receipt latency of one transaction at a time.
// bench/transfers and bench/compare use it, so every node is driven and
// timed the same way.
package writes

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/hoststat"
	"github.com/emberchain/ember/bench/internal/peer"
	"github.com/emberchain/ember/contracts"
)

// Kind is what a burst transfers.
type Kind string

const (
	ETH   Kind = "eth"   // 1 wei to a fresh address, 21,000 gas
	ERC20 Kind = "erc20" // 1 token unit of an OpenZeppelin ERC-20 (contracts/EmberToken) to a fresh address
)

// Burst is one measurement: Txs transfers from Senders senders (accounts
// 0..Senders-1 of the test mnemonic; account Senders deploys the token).
type Burst struct {
	Kind    Kind
	Txs     int
	Senders int
	Timeout time.Duration // for every transfer to be committed after the last send (default 60 s)
}

// Accounts is how many prefunded accounts a node needs for b.
func (b Burst) Accounts() int { return b.Senders + 1 }

// Result is a burst's measurement. TPS counts committed transfers over the
// time from the first send to the last inclusion; latency is send to
// inclusion (the moment the watcher saw the block).
type Result struct {
	Committed, Blocks  int
	TPS                float64
	P50, P90, P99, Max time.Duration
	NodeCPU, BenchCPU  float64 // cores used by the node and by this process during the burst
	Steal              float64 // cores the hypervisor gave to other VMs meanwhile
	Reruns             int     // bursts run before this one and dropped for steal (set by the caller)
	// CatchUp is how long after the last receipt the node's explorer
	// showed the burst's last block (0: no explorer).
	CatchUp time.Duration
	// Drain is how long after the last send was answered the last transfer
	// was in a block: the part of the burst in which the node only finishes
	// the blocks of what it has admitted.
	Drain time.Duration
}

// Dial connects to a node with a connection pool sized for concurrent
// senders (net/http's default keeps 2 idle connections per host, and
// every other send would open a new one).
func Dial(url string) (*rpc.Client, error) {
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}
	return rpc.DialOptions(context.Background(), url, rpc.WithHTTPClient(&http.Client{Transport: tr}))
}

// Run prepares the node at url (for ERC20: deploys the token and gives each
// sender tokens), pre-signs the burst, sends it and measures it. node, if
// not nil, is sampled for CPU time.
func Run(ctx context.Context, url string, node *peer.Node, b Burst) (Result, error) {
	if b.Txs%b.Senders != 0 {
		return Result{}, fmt.Errorf("%d transfers do not split evenly over %d senders", b.Txs, b.Senders)
	}
	if b.Timeout == 0 {
		b.Timeout = time.Minute
	}
	c, err := Dial(url)
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	eth := ethclient.NewClient(c)
	s, err := NewSigner(ctx, eth, b.Accounts())
	if err != nil {
		return Result{}, err
	}
	var token *common.Address
	var tokenGas uint64
	if b.Kind == ERC20 {
		addr, gas, err := s.fundTokens(ctx, eth, b.Senders)
		if err != nil {
			return Result{}, fmt.Errorf("token setup: %w", err)
		}
		token, tokenGas = &addr, gas
	}
	batches, err := s.burst(b, token, tokenGas)
	if err != nil {
		return Result{}, err
	}
	head, err := eth.BlockNumber(ctx)
	if err != nil {
		return Result{}, err
	}
	host, path, err := endpoint(url)
	if err != nil {
		return Result{}, err
	}
	reqs := make([][]sendRequest, len(batches))
	conns := make([]*rawConn, len(batches))
	for i, batch := range batches {
		for _, tx := range batch {
			req, err := buildSend(host, path, len(reqs[i])+1, tx)
			if err != nil {
				return Result{}, err
			}
			reqs[i] = append(reqs[i], req)
		}
		if conns[i], err = dialRaw(host); err != nil {
			return Result{}, err
		}
		defer conns[i].Close()
	}
	return send(ctx, eth, c, node, batches, reqs, conns, head, b)
}

// send sends sender i's pre-built requests in order on conns[i], one in
// flight per sender, and measures until every transfer is in a block.
func send(ctx context.Context, eth *ethclient.Client, c *rpc.Client, node *peer.Node, batches [][]*types.Transaction, reqs [][]sendRequest, conns []*rawConn, head uint64, b Burst) (Result, error) {
	var (
		sentAt  = make([][]time.Time, len(batches))
		mu      sync.Mutex
		wg      sync.WaitGroup
		sendErr error
	)
	cpu0, self0, host0 := nodeCPU(node), peer.SelfCPU(), hoststat.Now()
	start := time.Now()
	w := watch(c, head, b.Txs)
	for i := range batches {
		sentAt[i] = make([]time.Time, len(reqs[i]))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j, req := range reqs[i] {
				sentAt[i][j] = time.Now()
				if err := conns[i].send(req); err != nil {
					mu.Lock()
					sendErr = fmt.Errorf("send: %w", err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	sent := time.Now()
	if sendErr != nil {
		w.stop()
		return Result{}, sendErr
	}
	included, blocks := w.wait(b.Timeout)
	elapsed := time.Since(start)
	cpu1, self1, host1 := nodeCPU(node), peer.SelfCPU(), hoststat.Now()

	var lat []time.Duration
	var last time.Time
	for i, batch := range batches {
		for j, tx := range batch {
			if at, ok := included[tx.Hash()]; ok {
				lat = append(lat, at.Sub(sentAt[i][j]))
				if at.After(last) {
					last = at
				}
			}
		}
	}
	slices.Sort(lat)
	r := Result{Committed: len(lat), Blocks: blocks,
		NodeCPU: (cpu1 - cpu0).Seconds() / elapsed.Seconds(), BenchCPU: (self1 - self0).Seconds() / elapsed.Seconds(),
		Steal: host1.StealSince(host0)}
	if len(lat) > 0 {
		r.TPS = float64(len(lat)) / last.Sub(start).Seconds()
		r.Drain = max(last.Sub(sent), 0)
		r.P50, r.P90, r.P99, r.Max = Pct(lat, 50), Pct(lat, 90), Pct(lat, 99), lat[len(lat)-1]
	}
	if node != nil && node.Explorer != "" && len(lat) > 0 {
		end, err := eth.BlockNumber(ctx)
		if err != nil {
			return r, err
		}
		at, err := explorerAt(ctx, node.Explorer, end, time.Minute)
		if err != nil {
			return r, err
		}
		r.CatchUp = at.Sub(last)
	}
	return r, nil
}

func nodeCPU(n *peer.Node) time.Duration {
	if n == nil {
		return 0
	}
	return n.CPU()
}

// Pct is the p-th percentile of sorted durations.
func Pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100]
}

// Signer signs EIP-1559 transactions for the test mnemonic's first
// accounts on one node, keeping each account's next nonce.
type Signer struct {
	keys    []*accounts.Key
	nonces  []uint64
	signer  types.Signer
	chainID *big.Int
	feeCap  *big.Int
}

var tip = big.NewInt(1e9)

// NewSigner derives the test mnemonic's first n accounts and reads their
// pending nonces and the chain's base fee from eth.
func NewSigner(ctx context.Context, eth *ethclient.Client, n int) (*Signer, error) {
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, n)
	if err != nil {
		return nil, err
	}
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	h, err := eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	baseFee := h.BaseFee
	if baseFee == nil {
		baseFee = big.NewInt(1e9)
	}
	// The fee cap leaves room for the base fee to climb through a long
	// burst of full blocks (+12.5% a block): 4× was passed after ~15
	// full blocks and the rest of a 30,000-tx burst was refused.
	s := &Signer{keys: keys, nonces: make([]uint64, n), signer: types.LatestSignerForChainID(chainID), chainID: chainID,
		feeCap: new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(100)), tip)}
	for i, k := range keys {
		if s.nonces[i], err = eth.PendingNonceAt(ctx, k.Address); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Sign signs the next transaction of account i.
func (s *Signer) Sign(i int, to *common.Address, gas uint64, value *big.Int, data []byte) (*types.Transaction, error) {
	tx, err := types.SignNewTx(s.keys[i].Private, s.signer, &types.DynamicFeeTx{ChainID: s.chainID, Nonce: s.nonces[i],
		GasTipCap: tip, GasFeeCap: s.feeCap, Gas: gas, To: to, Value: value, Data: data})
	if err == nil {
		s.nonces[i]++
	}
	return tx, err
}

// Accounts is how many accounts s signs for.
func (s *Signer) Accounts() int { return len(s.keys) }

// Address is account i's address.
func (s *Signer) Address(i int) common.Address { return s.keys[i].Address }

// Resync reads account i's next nonce from eth again: after a send that
// failed, the node may or may not hold the transaction.
func (s *Signer) Resync(ctx context.Context, eth *ethclient.Client, i int) error {
	n, err := eth.PendingNonceAt(ctx, s.keys[i].Address)
	if err == nil {
		s.nonces[i] = n
	}
	return err
}

var token = contracts.MustLoad("EmberToken")

// fundTokens deploys the token from account senders and sends each sender
// a million units, and waits for all of it. It returns the token and the
// gas limit of a transfer to a fresh holder on this node: 5/4 of the
// estimate (about 52,000 under Ember's rules; geth --dev's own, newer rules
// charge more).
func (s *Signer) fundTokens(ctx context.Context, eth *ethclient.Client, senders int) (common.Address, uint64, error) {
	supply := new(big.Int).Lsh(big.NewInt(1), 128)
	data, err := token.DeployData(supply)
	if err != nil {
		return common.Address{}, 0, err
	}
	deploy, err := s.Sign(senders, nil, 3_000_000, nil, data)
	if err != nil {
		return common.Address{}, 0, err
	}
	if err := eth.SendTransaction(ctx, deploy); err != nil {
		return common.Address{}, 0, err
	}
	if _, err := WaitReceipt(ctx, eth, deploy.Hash(), time.Minute); err != nil {
		return common.Address{}, 0, err
	}
	addr := crypto.CreateAddress(s.keys[senders].Address, deploy.Nonce())
	probe, err := token.ABI.Pack("transfer", s.keys[0].Address, big.NewInt(1_000_000))
	if err != nil {
		return common.Address{}, 0, err
	}
	est, err := eth.EstimateGas(ctx, ethereum.CallMsg{From: s.keys[senders].Address, To: &addr, Data: probe})
	if err != nil {
		return common.Address{}, 0, fmt.Errorf("estimate a token transfer: %w", err)
	}
	gas := est * 5 / 4
	var last *types.Transaction
	for i := 0; i < senders; i++ {
		data, err := token.ABI.Pack("transfer", s.keys[i].Address, big.NewInt(1_000_000))
		if err != nil {
			return common.Address{}, 0, err
		}
		if last, err = s.Sign(senders, &addr, gas, nil, data); err != nil {
			return common.Address{}, 0, err
		}
		if err := eth.SendTransaction(ctx, last); err != nil {
			return common.Address{}, 0, err
		}
	}
	if _, err := WaitReceipt(ctx, eth, last.Hash(), time.Minute); err != nil {
		return common.Address{}, 0, err
	}
	return addr, gas, nil
}

// burst pre-signs every sender's transfers, to fresh recipients, so
// signing is not measured.
func (s *Signer) burst(b Burst, tokenAddr *common.Address, tokenGas uint64) ([][]*types.Transaction, error) {
	per := b.Txs / b.Senders
	out := make([][]*types.Transaction, b.Senders)
	for i := range out {
		for j := 0; j < per; j++ {
			to := common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("bench-%s-%d-%d", b.Kind, i, j)))[:20])
			var tx *types.Transaction
			var err error
			if tokenAddr == nil {
				tx, err = s.Sign(i, &to, 21_000, big.NewInt(1), nil)
			} else {
				data, perr := token.ABI.Pack("transfer", to, big.NewInt(1))
				if perr != nil {
					return nil, perr
				}
				tx, err = s.Sign(i, tokenAddr, tokenGas, nil, data)
			}
			if err != nil {
				return nil, err
			}
			out[i] = append(out[i], tx)
		}
	}
	return out, nil
}

// WaitReceipt polls for a receipt every 5 ms and checks the transaction
// succeeded.
func WaitReceipt(ctx context.Context, eth *ethclient.Client, hash common.Hash, timeout time.Duration) (*types.Receipt, error) {
	deadline := time.Now().Add(timeout)
	for {
		r, err := eth.TransactionReceipt(ctx, hash)
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return nil, fmt.Errorf("tx %s failed", hash)
			}
			return r, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no receipt for %s after %v: %v", hash, timeout, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Latency sends n ETH transfers one at a time from account 0, each after
// the previous one's receipt, and returns the send → receipt times, sorted.
// With ws empty the receipt is polled every 5 ms (what most clients do);
// otherwise it is asked for on each newHeads notification from ws, which
// measures the node's own latency without the polling interval's share.
func Latency(ctx context.Context, url, ws string, n int) ([]time.Duration, error) {
	c, err := Dial(url)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	eth := ethclient.NewClient(c)
	s, err := NewSigner(ctx, eth, 1)
	if err != nil {
		return nil, err
	}
	wait := func(hash common.Hash) error {
		_, err := WaitReceipt(ctx, eth, hash, 30*time.Second)
		return err
	}
	if ws != "" {
		heads, stop, err := subscribeHeads(ctx, ws)
		if err != nil {
			return nil, err
		}
		defer stop()
		wait = func(hash common.Hash) error { return waitOnHeads(ctx, eth, heads, hash) }
	}
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		to := common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("bench-latency-%d", i)))[:20])
		tx, err := s.Sign(0, &to, 21_000, big.NewInt(1), nil)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if err := eth.SendTransaction(ctx, tx); err != nil {
			return nil, err
		}
		if err := wait(tx.Hash()); err != nil {
			return nil, err
		}
		out = append(out, time.Since(start))
	}
	slices.Sort(out)
	return out, nil
}

// subscribeHeads subscribes to newHeads over the WebSocket endpoint ws.
func subscribeHeads(ctx context.Context, ws string) (<-chan *types.Header, func(), error) {
	c, err := ethclient.DialContext(ctx, ws)
	if err != nil {
		return nil, nil, fmt.Errorf("websocket %s: %w", ws, err)
	}
	heads := make(chan *types.Header, 64)
	sub, err := c.SubscribeNewHead(ctx, heads)
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("newHeads on %s: %w", ws, err)
	}
	return heads, func() { sub.Unsubscribe(); c.Close() }, nil
}

// waitOnHeads asks for hash's receipt once, then again on each new head
// until it is there (a head announced before the send only costs a lookup).
func waitOnHeads(ctx context.Context, eth *ethclient.Client, heads <-chan *types.Header, hash common.Hash) error {
	timeout := time.After(30 * time.Second)
	for {
		r, err := eth.TransactionReceipt(ctx, hash)
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return fmt.Errorf("tx %s failed", hash)
			}
			return nil
		}
		select {
		case <-heads:
		case <-timeout:
			return fmt.Errorf("no receipt for %s after 30s: %v", hash, err)
		}
	}
}
