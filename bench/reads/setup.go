package main

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/contracts"
)

// The workload is pre-signed once with fixed fees, so every node receives
// byte-identical transactions: the same token address, the same final
// balances, and blocks holding the same transactions.
const (
	chainID   = 31337
	senders   = 10 // test-mnemonic accounts: 0 deploys the token and sends token transfers, 1..9 send ETH
	receivers = 20 // fresh addresses receiving ETH and tokens
)

var (
	feeCap  = big.NewInt(50 * params.GWei)
	tipCap  = big.NewInt(params.GWei)
	supply  = new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(params.Ether))
	tokenC  = contracts.MustLoad("EmberToken")
	signer  = types.LatestSignerForChainID(big.NewInt(chainID))
	weiUnit = big.NewInt(params.GWei)
)

// workload is the setup every node receives.
type workload struct {
	deploy *types.Transaction
	burst  [][]*types.Transaction // per sender, in nonce order
	all    map[common.Hash]*types.Transaction

	token            common.Address
	holder           common.Address // queried with balanceOf
	holderTokens     *big.Int
	recipient        common.Address // queried with eth_getBalance
	recipientBalance *big.Int
}

func receiver(i int) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("bench-reads-%d", i)))[12:])
}

// newWorkload signs the token deployment and tokenTxs token transfers from
// account 0 plus ethTxs ETH transfers spread over accounts 1..9.
func newWorkload(tokenTxs, ethTxs int) (*workload, error) {
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, senders)
	if err != nil {
		return nil, err
	}
	sign := func(k *accounts.Key, nonce, gas uint64, to *common.Address, value *big.Int, data []byte) *types.Transaction {
		tx, err := types.SignNewTx(k.Private, signer, &types.DynamicFeeTx{ChainID: big.NewInt(chainID), Nonce: nonce,
			GasTipCap: tipCap, GasFeeCap: feeCap, Gas: gas, To: to, Value: value, Data: data})
		if err != nil {
			panic(err)
		}
		return tx
	}
	deployData, err := tokenC.DeployData(supply)
	if err != nil {
		return nil, err
	}
	w := &workload{
		deploy:           sign(keys[0], 0, 3_000_000, nil, nil, deployData),
		burst:            make([][]*types.Transaction, senders),
		all:              make(map[common.Hash]*types.Transaction),
		token:            crypto.CreateAddress(keys[0].Address, 0),
		holder:           receiver(0),
		holderTokens:     new(big.Int),
		recipient:        receiver(0),
		recipientBalance: new(big.Int),
	}
	w.all[w.deploy.Hash()] = w.deploy
	for i := 0; i < tokenTxs; i++ {
		to, amount := receiver(i%receivers), new(big.Int).Mul(big.NewInt(int64(i+1)), big.NewInt(params.Ether))
		data, err := tokenC.ABI.Pack("transfer", to, amount)
		if err != nil {
			return nil, err
		}
		if to == w.holder {
			w.holderTokens.Add(w.holderTokens, amount)
		}
		tx := sign(keys[0], uint64(1+i), 100_000, &w.token, nil, data)
		w.burst[0] = append(w.burst[0], tx)
	}
	for i := 0; i < ethTxs; i++ {
		s := 1 + i%(senders-1)
		to, value := receiver((i*7)%receivers), new(big.Int).Mul(big.NewInt(int64(1000+i)), weiUnit)
		if to == w.recipient {
			w.recipientBalance.Add(w.recipientBalance, value)
		}
		tx := sign(keys[s], uint64(len(w.burst[s])), 21_000, &to, value, nil)
		w.burst[s] = append(w.burst[s], tx)
	}
	for _, txs := range w.burst {
		for _, tx := range txs {
			w.all[tx.Hash()] = tx
		}
	}
	return w, nil
}

// chain is what the setup left on one node: the blocks holding the
// workload, as groups of tx hashes in block order.
type chain struct {
	blocks  []uint64
	groups  [][]common.Hash
	head    uint64
	block   uint64 // the block the block methods read: the workload's largest
	blockTx []common.Hash
}

// fillBurst sends the deployment (waiting for it), then every sender's
// transfers concurrently (each sender in nonce order), and reads back how the
// node grouped them into blocks. This is how Ember is set up.
func fillBurst(ctx context.Context, url string, w *workload) (*chain, error) {
	c, err := rpc.Dial(url)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	eth := ethclient.NewClient(c)
	if err := checkChain(ctx, eth); err != nil {
		return nil, err
	}
	if err := eth.SendTransaction(ctx, w.deploy); err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	r, err := waitReceipt(ctx, eth, w.deploy.Hash())
	if err != nil {
		return nil, err
	}
	from := r.BlockNumber.Uint64()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, txs := range w.burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tx := range txs {
				if err := eth.SendTransaction(ctx, tx); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("send %s: %w", tx.Hash(), err))
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	for _, txs := range w.burst {
		if len(txs) > 0 {
			if _, err := waitReceipt(ctx, eth, txs[len(txs)-1].Hash()); err != nil {
				return nil, err
			}
		}
	}
	return readBack(ctx, eth, w, from)
}

// fillGroups replays the grouping another node made: with automine off it
// sends each group and mines it into one block (evm_mine). This is how anvil
// is set up, so its blocks hold the same transactions as Ember's. Without
// groups (Ember not run), the deployment and the burst are one block each.
func fillGroups(ctx context.Context, url string, w *workload, groups [][]common.Hash) (*chain, error) {
	c, err := rpc.Dial(url)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	eth := ethclient.NewClient(c)
	if err := checkChain(ctx, eth); err != nil {
		return nil, err
	}
	if groups == nil {
		groups = [][]common.Hash{{w.deploy.Hash()}, nil}
		for _, txs := range w.burst {
			for _, tx := range txs {
				groups[1] = append(groups[1], tx.Hash())
			}
		}
	}
	if err := c.CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
		return nil, fmt.Errorf("evm_setAutomine: %w", err)
	}
	defer c.CallContext(ctx, nil, "evm_setAutomine", true)
	var from uint64
	for gi, g := range groups {
		for _, h := range g {
			if err := eth.SendTransaction(ctx, w.all[h]); err != nil {
				return nil, fmt.Errorf("send %s: %w", h, err)
			}
		}
		if err := c.CallContext(ctx, nil, "evm_mine"); err != nil {
			return nil, fmt.Errorf("evm_mine: %w", err)
		}
		r, err := waitReceipt(ctx, eth, g[len(g)-1])
		if err != nil {
			return nil, err
		}
		if gi == 0 {
			from = r.BlockNumber.Uint64()
		}
	}
	return readBack(ctx, eth, w, from)
}

// readBack checks every workload tx succeeded and records the blocks that
// hold them.
func readBack(ctx context.Context, eth *ethclient.Client, w *workload, from uint64) (*chain, error) {
	head, err := eth.BlockNumber(ctx)
	if err != nil {
		return nil, err
	}
	ch := &chain{head: head}
	seen := 0
	for n := from; n <= head && seen < len(w.all); n++ {
		b, err := eth.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", n, err)
		}
		var g []common.Hash
		for _, tx := range b.Transactions() {
			if _, ok := w.all[tx.Hash()]; ok {
				g = append(g, tx.Hash())
			}
		}
		if len(g) == 0 {
			continue
		}
		if len(g) != len(b.Transactions()) {
			return nil, fmt.Errorf("block %d holds %d foreign transactions", n, len(b.Transactions())-len(g))
		}
		receipts, err := eth.BlockReceipts(ctx, rpc.BlockNumberOrHashWithNumber(rpc.BlockNumber(n)))
		if err != nil {
			return nil, fmt.Errorf("receipts of block %d: %w", n, err)
		}
		for _, r := range receipts {
			if r.Status != types.ReceiptStatusSuccessful {
				return nil, fmt.Errorf("tx %s failed", r.TxHash)
			}
		}
		seen += len(g)
		ch.blocks = append(ch.blocks, n)
		ch.groups = append(ch.groups, g)
		if len(g) > len(ch.blockTx) {
			ch.block, ch.blockTx = n, g
		}
	}
	if seen != len(w.all) {
		return nil, fmt.Errorf("found %d of %d workload transactions in blocks %d..%d", seen, len(w.all), from, head)
	}
	return ch, nil
}

func checkChain(ctx context.Context, eth *ethclient.Client) error {
	id, err := eth.ChainID(ctx)
	if err != nil {
		return err
	}
	if id.Int64() != chainID {
		return fmt.Errorf("chain id %d, want %d", id, chainID)
	}
	return nil
}

func waitReceipt(ctx context.Context, eth *ethclient.Client, hash common.Hash) (*types.Receipt, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if r, err := eth.TransactionReceipt(ctx, hash); err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return nil, fmt.Errorf("tx %s failed", hash)
			}
			return r, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil, fmt.Errorf("no receipt for %s", hash)
}
