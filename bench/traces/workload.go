package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/contracts"
)

// workload: key 0 deploys the token (nonce 0) and gives each of keys
// 1..senders a share (nonces 1..senders); then each sender makes perSender
// transfers to fresh recipients, all sent at once right after a block so
// they land together in the next one. Every transaction is signed the same
// way on every node (fixed gas and fees), so the chains hold the same
// transactions with the same hashes.
type workload struct {
	senders, perSender int
	gas                uint64 // gas limit of each transfer
}

func (w workload) txs() int { return w.senders * w.perSender }

var (
	token      = contracts.MustLoad("EmberToken")
	supply     = new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(params.Ether))
	share      = new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))
	tipCap     = big.NewInt(params.GWei)
	feeCap     = big.NewInt(100 * params.GWei)
	deployGas  = uint64(3_000_000)
	shareGas   = uint64(100_000)
	receiptMax = time.Minute
)

// chain is a client of one node and the keys that act on it.
type chain struct {
	name    string
	rpc     *rpc.Client
	eth     *ethclient.Client
	chainID *big.Int
	signer  types.Signer
	keys    []*accounts.Key // keys[0] deploys, keys[1:] send
	token   common.Address
}

// gzip asks nodes for gzip-compressed answers, as Go's HTTP client (and most
// others) does by default (-gzip; geth compresses, Ember does not).
var gzip = true

func dial(name, url string, keys []*accounts.Key) (*chain, error) {
	// Keep enough idle connections for the concurrent mode (Go's default
	// transport keeps 2 per host and would reconnect for the others).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	tr.DisableCompression = !gzip
	c, err := rpc.DialOptions(context.Background(), url, rpc.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		return nil, err
	}
	eth := ethclient.NewClient(c)
	id, err := eth.ChainID(context.Background())
	if err != nil {
		c.Close()
		return nil, err
	}
	return &chain{name: name, rpc: c, eth: eth, chainID: id, signer: types.LatestSignerForChainID(id), keys: keys,
		token: crypto.CreateAddress(keys[0].Address, 0)}, nil
}

func (c *chain) sign(k *accounts.Key, nonce uint64, to *common.Address, gas uint64, data []byte) *types.Transaction {
	tx, err := types.SignNewTx(k.Private, c.signer, &types.DynamicFeeTx{ChainID: c.chainID, Nonce: nonce,
		GasTipCap: tipCap, GasFeeCap: feeCap, Gas: gas, To: to, Data: data})
	if err != nil {
		panic(err)
	}
	return tx
}

// sendBatch sends txs in one batched request, in order.
func (c *chain) sendBatch(ctx context.Context, txs []*types.Transaction) error {
	batch := make([]rpc.BatchElem, len(txs))
	hashes := make([]common.Hash, len(txs))
	for i, tx := range txs {
		raw, _ := tx.MarshalBinary()
		batch[i] = rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: &hashes[i]}
	}
	if err := c.rpc.BatchCallContext(ctx, batch); err != nil {
		return err
	}
	for i, e := range batch {
		if e.Error != nil {
			return fmt.Errorf("tx %d (%s): %w", i, txs[i].Hash(), e.Error)
		}
	}
	return nil
}

// receipts waits until every tx has a receipt and returns them in order.
func (c *chain) receipts(ctx context.Context, txs []*types.Transaction) ([]*types.Receipt, error) {
	out := make([]*types.Receipt, len(txs))
	deadline := time.Now().Add(receiptMax)
	for {
		var batch []rpc.BatchElem
		var idx []int
		for i, r := range out {
			if r == nil {
				batch = append(batch, rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{txs[i].Hash()}, Result: &out[i]})
				idx = append(idx, i)
			}
		}
		if len(batch) == 0 {
			return out, nil
		}
		if err := c.rpc.BatchCallContext(ctx, batch); err != nil {
			return nil, err
		}
		missing := 0
		for _, i := range idx {
			if out[i] == nil {
				missing++
			}
		}
		if missing == 0 {
			return out, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d of %d receipts missing after %v", missing, len(txs), receiptMax)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// setup deploys the token and hands out shares, as a node makes blocks.
func (c *chain) setup(ctx context.Context) error {
	if n, err := c.eth.NonceAt(ctx, c.keys[0].Address, nil); err != nil || n != 0 {
		return fmt.Errorf("deployer nonce %d (%v), want 0: the token would not be at %s", n, err, c.token)
	}
	deploy, err := token.DeployData(supply)
	if err != nil {
		return err
	}
	txs := []*types.Transaction{c.sign(c.keys[0], 0, nil, deployGas, deploy)}
	for i, k := range c.keys[1:] {
		data, _ := token.ABI.Pack("transfer", k.Address, share)
		txs = append(txs, c.sign(c.keys[0], uint64(i+1), &c.token, shareGas, data))
	}
	if err := c.sendBatch(ctx, txs); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	rs, err := c.receipts(ctx, txs)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	for i, r := range rs {
		if r.Status != types.ReceiptStatusSuccessful {
			return fmt.Errorf("setup tx %d failed", i)
		}
	}
	if rs[0].ContractAddress != c.token {
		return fmt.Errorf("token at %s, want %s", rs[0].ContractAddress, c.token)
	}
	return nil
}

// recipient is the fresh address sender s pays in its j-th transfer of round r.
func recipient(round, s, j int) common.Address {
	var b [24]byte
	copy(b[:], "traces")
	binary.BigEndian.PutUint16(b[8:], uint16(round))
	binary.BigEndian.PutUint32(b[12:], uint32(s))
	binary.BigEndian.PutUint32(b[16:], uint32(j))
	return common.BytesToAddress(crypto.Keccak256(b[:]))
}

// amount is what sender s sends in its j-th transfer (distinct per transfer).
func amount(s, j int) *big.Int { return big.NewInt(int64(1e15 + 1000*s + j)) }

// block is the block holding a round's transfers.
type block struct {
	number   uint64
	round    int
	txs      []*types.Transaction
	receipts []*types.Receipt
	// recipients names each fresh recipient of the round by sender and transfer.
	recipients map[common.Address]string
}

// fill sends the transfers of one round right after a new block and checks
// they all landed in one block holding nothing else; it retries (new round,
// new recipients) up to maxRounds times.
func (c *chain) fill(ctx context.Context, w workload, maxRounds int) (*block, error) {
	for round := 0; round < maxRounds; round++ {
		b, err := c.round(ctx, w, round)
		if err != nil {
			return nil, err
		}
		var count hexutil.Uint
		if err := c.rpc.CallContext(ctx, &count, "eth_getBlockTransactionCountByNumber", hexutil.Uint64(b.number)); err != nil {
			return nil, err
		}
		blocks := map[uint64]int{}
		for _, r := range b.receipts {
			blocks[r.BlockNumber.Uint64()]++
		}
		if len(blocks) == 1 && int(count) == w.txs() {
			fmt.Fprintf(os.Stderr, "%s: round %d: %d transfers in block %d\n", c.name, round, w.txs(), b.number)
			return b, nil
		}
		fmt.Fprintf(os.Stderr, "%s: round %d: transfers spread over blocks %v (block %d holds %d txs); retrying\n",
			c.name, round, blocks, b.number, count)
	}
	return nil, fmt.Errorf("no round put %d transfers in one block", w.txs())
}

func (c *chain) round(ctx context.Context, w workload, round int) (*block, error) {
	var txs []*types.Transaction
	recipients := map[common.Address]string{}
	nonces := make([]uint64, w.senders)
	for s := range nonces {
		n, err := c.eth.NonceAt(ctx, c.keys[1+s].Address, nil)
		if err != nil {
			return nil, err
		}
		nonces[s] = n
	}
	// Nonce-major order: every sender's first transfer, then every second...
	for j := 0; j < w.perSender; j++ {
		for s := 0; s < w.senders; s++ {
			to := recipient(round, s, j)
			recipients[to] = fmt.Sprintf("recipient(%d,%d)", s, j)
			data, _ := token.ABI.Pack("transfer", to, amount(s, j))
			txs = append(txs, c.sign(c.keys[1+s], nonces[s]+uint64(j), &c.token, w.gas, data))
		}
	}
	// Wait for a fresh block, so the whole block interval is left to send.
	head, err := c.eth.BlockNumber(ctx)
	if err != nil {
		return nil, err
	}
	for {
		n, err := c.eth.BlockNumber(ctx)
		if err != nil {
			return nil, err
		}
		if n > head {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	t0 := time.Now()
	if err := c.sendBatch(ctx, txs); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "%s: round %d: %d transfers sent in %v\n", c.name, round, len(txs), time.Since(t0).Round(time.Millisecond))
	rs, err := c.receipts(ctx, txs)
	if err != nil {
		return nil, err
	}
	for i, r := range rs {
		if r.Status != types.ReceiptStatusSuccessful {
			return nil, fmt.Errorf("transfer %d (%s) failed", i, txs[i].Hash())
		}
	}
	// The block is the one the most transfers landed in; the caller checks
	// it holds them all. Order txs and receipts as the block does.
	count := map[uint64]int{}
	for _, r := range rs {
		count[r.BlockNumber.Uint64()]++
	}
	var number uint64
	for n, k := range count {
		if k > count[number] {
			number = n
		}
	}
	b := &block{number: number, round: round, recipients: recipients, txs: make([]*types.Transaction, w.txs()), receipts: make([]*types.Receipt, w.txs())}
	for i, r := range rs {
		if r.BlockNumber.Uint64() == number && int(r.TransactionIndex) < len(b.txs) {
			b.txs[r.TransactionIndex], b.receipts[r.TransactionIndex] = txs[i], r
		}
	}
	return b, nil
}
