package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/peer"
)

type workload struct{ txs, perTx, contracts int }

func (w workload) rare() int         { return (w.txs + 999) / 1000 }
func (w workload) totalLogs() int    { return w.txs*w.perTx + w.rare() }
func (w workload) blocksWanted() int { return w.txs }
func (w workload) isRare(k int) bool { return k%1000 == 0 }

// queries run smallest first, so no query pays for the garbage a larger one
// left behind in the client.
var queries = []string{"rare topic, whole range", "single block", "one topic, whole range", "one address, whole range"}

type result struct {
	name   string
	counts [4]int
	times  [4]time.Duration
	fill   time.Duration
}

// measure fills n with the workload and times the queries.
func measure(n *peer.Node, w workload, runs int, settle time.Duration) (result, error) {
	r := result{name: n.Name}
	ctx := context.Background()
	c, err := rpc.Dial(n.URL)
	if err != nil {
		return r, err
	}
	defer c.Close()
	eth := ethclient.NewClient(c)
	key, _ := accounts.DeriveKey(accounts.TestMnemonic, 0)
	if err := fundFromDevAccount(ctx, c, eth, key.Address); err != nil {
		return r, err
	}
	start := time.Now()
	contracts, firstBlock, err := fill(ctx, eth, key, w)
	if err != nil {
		return r, err
	}
	r.fill = time.Since(start)
	head, _ := eth.BlockNumber(ctx)
	fmt.Fprintf(os.Stderr, "%s: %d calls in %v, head %d\n", n.Name, w.txs, r.fill.Round(time.Second), head)
	time.Sleep(settle)

	crits := []map[string]any{
		{"topics": [][]common.Hash{{rareTopic}}, "fromBlock": "0x0", "toBlock": "latest"},
		{"fromBlock": hexutil.EncodeUint64(firstBlock), "toBlock": hexutil.EncodeUint64(firstBlock)},
		{"topics": [][]common.Hash{{topic(7)}}, "fromBlock": "0x0", "toBlock": "latest"},
		{"address": contracts[0], "fromBlock": "0x0", "toBlock": "latest"},
	}
	for i, crit := range crits {
		var times []time.Duration
		for run := -1; run < runs; run++ { // run -1 warms up and is not counted
			var logs []json.RawMessage
			runtime.GC() // the client's garbage is not the node's time
			t0 := time.Now()
			if err := c.CallContext(ctx, &logs, "eth_getLogs", crit); err != nil {
				return r, fmt.Errorf("%s: %w", queries[i], err)
			}
			if run >= 0 {
				times = append(times, time.Since(t0))
			}
			r.counts[i] = len(logs)
		}
		slices.Sort(times)
		r.times[i] = times[len(times)/2]
	}
	return r, nil
}

// fundFromDevAccount gives key money on geth --dev, whose only funded
// account is its own unlocked developer account. Ember and anvil fund the
// test mnemonic already.
func fundFromDevAccount(ctx context.Context, c *rpc.Client, eth *ethclient.Client, to common.Address) error {
	if bal, err := eth.BalanceAt(ctx, to, nil); err == nil && bal.Sign() > 0 {
		return nil
	}
	var accs []common.Address
	if err := c.CallContext(ctx, &accs, "eth_accounts"); err != nil || len(accs) == 0 {
		return fmt.Errorf("no funded account to draw from: %v", err)
	}
	var hash common.Hash
	value := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))
	if err := c.CallContext(ctx, &hash, "eth_sendTransaction", map[string]any{"from": accs[0], "to": to, "value": (*hexutil.Big)(value)}); err != nil {
		return err
	}
	_, err := waitReceipt(ctx, eth, hash)
	return err
}

// fill deploys the logger contracts and sends the calls one at a time,
// each waiting for its receipt, so each lands in a block of its own.
func fill(ctx context.Context, eth *ethclient.Client, key *accounts.Key, w workload) ([]common.Address, uint64, error) {
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return nil, 0, err
	}
	signer := types.LatestSignerForChainID(chainID)
	nonce, err := eth.PendingNonceAt(ctx, key.Address)
	if err != nil {
		return nil, 0, err
	}
	send := func(to *common.Address, data []byte, gas uint64) (*types.Receipt, error) {
		head, err := eth.HeaderByNumber(ctx, nil)
		if err != nil {
			return nil, err
		}
		feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), big.NewInt(params.GWei))
		tx, _ := types.SignNewTx(key.Private, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
			GasTipCap: big.NewInt(params.GWei), GasFeeCap: feeCap, Gas: gas, To: to, Data: data})
		if err := eth.SendTransaction(ctx, tx); err != nil {
			return nil, err
		}
		nonce++
		r, err := waitReceipt(ctx, eth, tx.Hash())
		if err == nil && r.Status != 1 {
			err = fmt.Errorf("tx %s failed", tx.Hash())
		}
		return r, err
	}
	runtime := loggerRuntime(w.perTx)
	var contracts []common.Address
	for i := 0; i < w.contracts; i++ {
		r, err := send(nil, deployCode(runtime), 500_000)
		if err != nil {
			return nil, 0, err
		}
		contracts = append(contracts, r.ContractAddress)
	}
	var first uint64
	gas := uint64(40_000 + 2_000*w.perTx)
	for k := 0; k < w.txs; k++ {
		data := crypto.Keccak256(nil)[:0]
		data = append(data, common.BigToHash(big.NewInt(int64(k))).Bytes()...)
		rare := common.Hash{}
		if w.isRare(k) {
			rare[31] = 1
		}
		data = append(data, rare.Bytes()...)
		r, err := send(&contracts[k%len(contracts)], data, gas)
		if err != nil {
			return nil, 0, fmt.Errorf("call %d: %w", k, err)
		}
		if len(r.Logs) != w.perTx+btoi(w.isRare(k)) {
			return nil, 0, fmt.Errorf("call %d emitted %d logs", k, len(r.Logs))
		}
		if k == 0 {
			first = r.BlockNumber.Uint64()
		}
	}
	return contracts, first, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func waitReceipt(ctx context.Context, eth *ethclient.Client, hash common.Hash) (*types.Receipt, error) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if r, err := eth.TransactionReceipt(ctx, hash); err == nil {
			return r, nil
		}
		time.Sleep(time.Millisecond)
	}
	return nil, fmt.Errorf("no receipt for %s", hash)
}
