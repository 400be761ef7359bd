package eth

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/evm"
)

// forkConfig is one fork's entry of eth_config (EIP-7910). BlobSchedule is
// the blob config the EVM runs (go-ethereum's, which BLOBBASEFEE and the
// header's blob fields are computed with): EIP-7910 and the execution-apis
// schema require it. It describes the EVM's parameters, not a market: blob
// transactions are refused at CheckTx, so no block carries blobs, the blob
// base fee stays at its 1-wei minimum, and eth_blobBaseFee errors rather
// than invite wallets to build blob transactions.
type forkConfig struct {
	ActivationTime  uint64                    `json:"activationTime"`
	BlobSchedule    *params.BlobConfig        `json:"blobSchedule"`
	ChainID         *hexutil.Big              `json:"chainId"`
	ForkID          hexutil.Bytes             `json:"forkId"`
	Precompiles     map[string]common.Address `json:"precompiles"`
	SystemContracts map[string]common.Address `json:"systemContracts"`
}

// ConfigResult is eth_config's answer: the fork the head runs, the next
// scheduled one and the last scheduled one (both null when none is).
type ConfigResult struct {
	Current *forkConfig `json:"current"`
	Next    *forkConfig `json:"next"`
	Last    *forkConfig `json:"last"`
}

// Config answers eth_config (EIP-7910) as go-ethereum does, from the
// node's chain config: the genesis schedule with the forks upgrades
// recorded (evm.ScheduleAt), so its precompiles and system contracts are
// the ones blocks really execute with. A fork the genesis schedules at a
// later time is next until the head's time reaches it; a fork an upgrade
// plan activates becomes current in the plan's block, whose time is its
// activationTime.
func (api *API) Config() (*ConfigResult, error) {
	genesis := api.b.HeaderByNumber(0)
	if genesis == nil {
		return nil, errors.New("genesis header not found")
	}
	cfg := api.b.ChainConfig()
	head := api.b.Head()
	current := cfg.LatestFork(head.Time)
	last := cfg.LatestFork(^uint64(0))
	var next *uint64
	for f := current + 1; f <= last; f++ {
		if ts := cfg.Timestamp(f); ts != nil {
			next = ts
			break
		}
	}
	res := &ConfigResult{Current: api.forkConfig(cfg, genesis, cfg.Timestamp(current))}
	if next != nil {
		res.Next = api.forkConfig(cfg, genesis, next)
		res.Last = api.forkConfig(cfg, genesis, cfg.Timestamp(last))
	}
	return res, nil
}

// forkConfig describes the fork active from time *at (nil: none).
func (api *API) forkConfig(cfg *params.ChainConfig, genesis *types.Header, at *uint64) *forkConfig {
	if at == nil {
		return nil
	}
	t := *at
	rules := evm.Rules(cfg, cfg.LondonBlock, t)
	precompiles := make(map[string]common.Address)
	for addr, c := range vm.ActivePrecompiledContracts(rules) {
		precompiles[c.Name()] = addr
	}
	activation := t
	if genesis.Time >= t {
		activation = 0 // active from genesis
	}
	id := forkid.NewID(cfg, types.NewBlockWithHeader(genesis), ^uint64(0), t).Hash
	return &forkConfig{
		ActivationTime:  activation,
		BlobSchedule:    cfg.BlobConfig(cfg.LatestFork(t)),
		ChainID:         (*hexutil.Big)(cfg.ChainID),
		ForkID:          id[:],
		Precompiles:     precompiles,
		SystemContracts: cfg.ActiveSystemContracts(t),
	}
}

// FillTransaction completes args as eth_sendTransaction would (nonce, fees;
// a missing gas limit is estimated, as geth's eth_fillTransaction does) and
// returns the unsigned transaction, raw and as an object
// (eth_fillTransaction).
func (api *API) FillTransaction(ctx context.Context, args TransactionArgs) (*SignTransactionResult, error) {
	if args.Gas == nil {
		pending := rpc.BlockNumberOrHashWithNumber(rpc.PendingBlockNumber)
		gas, err := api.EstimateGas(ctx, args, &pending, nil, nil)
		if err != nil {
			return nil, err
		}
		args.Gas = &gas
	}
	tx, err := api.send.Fill(ctx, args)
	if err != nil {
		return nil, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &SignTransactionResult{Raw: raw, Tx: tx}, nil
}

// errNoBlockAccessLists answers eth_getBlockAccessList: block-level access
// lists (EIP-7928) come with the Amsterdam fork, which this chain does not
// run, so no block has one.
var errNoBlockAccessLists = errors.New("block access lists (EIP-7928) need the Amsterdam fork, which this chain does not run")

// GetBlockAccessList answers that no block has an access list
// (eth_getBlockAccessList).
func (api *API) GetBlockAccessList(bnh rpc.BlockNumberOrHash) (any, error) {
	return nil, errNoBlockAccessLists
}
