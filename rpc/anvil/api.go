// Package anvil implements the test-chain JSON-RPC methods of anvil and
// Hardhat Network (the anvil_, hardhat_ and evm_ namespaces) for `emberd
// dev` chains, with anvil 1.7.1's parameters and answers. State and clock
// edits travel in dev transactions (package devchain) through consensus,
// so each is part of the chain's history; the namespaces are served only
// on development chains and answer -32601 (method not found) elsewhere.
package anvil

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/devchain"
)

// Backend is what the namespaces need from the node.
type Backend interface {
	ChainConfig() *params.ChainConfig
	Head() *types.Header
	HeaderByNumber(n uint64) *types.Header
	NextBaseFee() *big.Int
	GasPrice(ctx context.Context) (*big.Int, error)
	// MineDev makes one block per entry of blocks, each carrying a dev
	// transaction with that entry's edits, and returns once the last is
	// committed.
	MineDev(ctx context.Context, blocks [][]devchain.Op) error
	// QueueDev keeps clock and base-fee edits for the next block.
	QueueDev(ops ...devchain.Op)
	// ClockOffset is the clock offset at the head plus the queued increases.
	ClockOffset() int64
	// DropTransaction takes a pooled transaction out of the pool and the
	// mempool; false if none has that hash.
	DropTransaction(hash common.Hash) bool
	// DropAllTransactions empties the pool and the mempool of EVM transactions.
	DropAllTransactions()
	SetEtherbase(addr common.Address)
	// SendDev executes an impersonated transaction in a dev transaction
	// and returns once its block is committed; an error if the
	// transaction was refused or not executed.
	SendDev(ctx context.Context, send *devchain.Send) error
	// Settle returns once the head stops moving by itself: CometBFT
	// follows a block that changed the state with an empty one carrying
	// its AppHash.
	Settle(ctx context.Context) error
	// Revert makes block h the head again on every surface, as if the
	// blocks after it had never been made (evm_revert).
	Revert(ctx context.Context, h uint64) error
	// SetAutomine turns automine on or off and reports whether
	// transactions sent while it was off wait in the pool.
	SetAutomine(on bool) (held bool)
	Automine() bool
	// DumpState lists the state at the head; LoadState applies one in
	// blocks of edits, returning once they are committed.
	DumpState() (*devchain.State, error)
	LoadState(ctx context.Context, s *devchain.State) error
}

// API holds the methods; Anvil and EVM expose them under anvil's names.
type API struct {
	b Backend

	mu       sync.Mutex
	interval time.Duration // evm_setIntervalMining; 0 = off
	stop     chan struct{} // closes the interval miner
	imp      impersonation // impersonate.go
	snaps    snapshots     // snapshot.go
	version  string        // web3_clientVersion, for hardhat_metadata (metadata.go)
	instance common.Hash   // hardhat_metadata's instance id, drawn at its first call
}

// New returns the methods over b.
func New(b Backend) *API { return &API{b: b} }

// Close stops interval mining.
func (api *API) Close() { api.setInterval(0) }

// mine makes n blocks, each first adding interval seconds to the clock.
func (api *API) mine(ctx context.Context, n uint64, interval int64, first []devchain.Op) error {
	blocks := make([][]devchain.Op, n)
	for i := range blocks {
		if interval > 0 {
			blocks[i] = append(blocks[i], devchain.Op{Kind: devchain.IncreaseTime, Seconds: interval})
		}
	}
	if n > 0 {
		blocks[0] = append(first, blocks[0]...)
	}
	return api.b.MineDev(ctx, blocks)
}

// maxMine bounds one anvil_mine call: each block is a consensus round.
const maxMine = 100_000

// anvilMine is anvil_mine / hardhat_mine.
func (api *API) anvilMine(ctx context.Context, num, interval *Quantity) error {
	n, secs := uint64(1), int64(0)
	if num != nil {
		var err error
		if n, err = num.Uint64("block count"); err != nil {
			return err
		}
	}
	if n > maxMine {
		return invalidParams(fmt.Sprintf("block count %d over the limit of %d per call", n, maxMine))
	}
	if interval != nil {
		v, err := interval.Uint64("interval")
		if err != nil || v > 1<<40 {
			return invalidParams(fmt.Sprintf("interval %v out of range", interval.Big()))
		}
		secs = int64(v)
	}
	return api.mine(ctx, n, secs, nil)
}

// MineOptions is evm_mine's parameter: a timestamp, or {timestamp, blocks}.
type MineOptions struct {
	Timestamp *Quantity `json:"timestamp"`
	Blocks    *Quantity `json:"blocks"`
}

// UnmarshalJSON accepts a bare timestamp as well as the object.
func (o *MineOptions) UnmarshalJSON(b []byte) error {
	if s := strings.TrimSpace(string(b)); strings.HasPrefix(s, "{") {
		type plain MineOptions
		return json.Unmarshal(b, (*plain)(o))
	}
	o.Timestamp = new(Quantity)
	return o.Timestamp.UnmarshalJSON(b)
}

// evmMine is evm_mine: blocks (default 1), the first at the given timestamp.
func (api *API) evmMine(ctx context.Context, opts *MineOptions) error {
	n := uint64(1)
	var first []devchain.Op
	if opts != nil && opts.Blocks != nil {
		var err error
		if n, err = opts.Blocks.Uint64("blocks"); err != nil {
			return err
		}
		if n > maxMine {
			return invalidParams(fmt.Sprintf("block count %d over the limit of %d per call", n, maxMine))
		}
	}
	if opts != nil && opts.Timestamp != nil {
		op, err := api.timestampOp(opts.Timestamp)
		if err != nil {
			return err
		}
		first = []devchain.Op{op}
	}
	return api.mine(ctx, n, 0, first)
}

// timestampOp is the edit setting the next block's timestamp, refused
// when older than the head's, as anvil refuses it.
func (api *API) timestampOp(q *Quantity) (devchain.Op, error) {
	t, err := q.Uint64("timestamp")
	if err != nil {
		return devchain.Op{}, err
	}
	if t > 1<<62 {
		return devchain.Op{}, invalidParams(fmt.Sprintf("Timestamp error: %d is too far in the future", t))
	}
	if head := api.b.Head(); t < head.Time {
		return devchain.Op{}, invalidParams(fmt.Sprintf("Timestamp error: %d is lower than previous block's timestamp", t))
	}
	ts := hexutil.Uint64(t)
	return devchain.Op{Kind: devchain.SetTimestamp, Timestamp: &ts}, nil
}

// increaseTime is evm_increaseTime: the offset grows from the next block
// on; the answer is the total offset in seconds, as anvil's.
func (api *API) increaseTime(q Quantity) (int64, error) {
	secs, err := q.Uint64("seconds")
	if err != nil || secs > 1<<40 {
		return 0, invalidParams(fmt.Sprintf("seconds %v out of range", q.Big()))
	}
	api.b.QueueDev(devchain.Op{Kind: devchain.IncreaseTime, Seconds: int64(secs)})
	return api.b.ClockOffset(), nil
}

// setNextBlockTimestamp is evm_setNextBlockTimestamp.
func (api *API) setNextBlockTimestamp(q Quantity) error {
	op, err := api.timestampOp(&q)
	if err != nil {
		return err
	}
	api.b.QueueDev(op)
	return nil
}

// edit makes a block applying one state edit.
func (api *API) edit(ctx context.Context, op devchain.Op) error {
	return api.b.MineDev(ctx, [][]devchain.Op{{op}})
}

// setInterval starts (d > 0) or stops interval mining: a block every d.
func (api *API) setInterval(d time.Duration) {
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.stop != nil {
		close(api.stop)
		api.stop = nil
	}
	api.interval = d
	if d <= 0 {
		return
	}
	stop := make(chan struct{})
	api.stop = stop
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-stop; cancel() }() // also ends a block being waited for
	go func() {
		defer cancel()
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = api.b.MineDev(ctx, [][]devchain.Op{nil}) // a failed block is retried next tick
			}
		}
	}()
}
