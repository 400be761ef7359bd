package eth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/evm"
)

// API is the eth namespace.
type API struct {
	b    Backend
	cfg  Config
	keys Accounts     // the node's keyring; nil = none
	send *TxSender    // eth_sendTransaction, shared with personal
	imp  Impersonator // a dev chain's impersonated senders; nil = none
	// blocks holds encoded blocks: a committed block never changes, and
	// encoding one with its transactions costs far more than serving it.
	// A dev chain's evm_revert replaces it (see Rewound).
	blocks atomic.Pointer[lru.SizeConstrainedCache[blockKey, json.RawMessage]]
	// lastCtx is the block context calls last ran on (blockContext).
	lastCtx atomic.Pointer[headerContext]
}

type blockKey struct {
	hash   common.Hash
	fullTx bool
}

// blockCacheBytes bounds the encoded blocks kept.
const blockCacheBytes = 32 << 20

// NewAPI returns the eth namespace over b, signing with keys (nil: the node
// holds none) and sending what it signs through send (nil: its own).
func NewAPI(b Backend, cfg Config, keys Accounts, send *TxSender) *API {
	if send == nil {
		send = NewTxSender(b, cfg)
	}
	api := &API{b: b, cfg: cfg, keys: keys, send: send}
	Rewound(api)
	return api
}

// Rewound makes api forget the encoded blocks and the block context, some
// of which a dev chain's evm_revert removed. (A function, not a method:
// every exported method of the service would be served as eth_….)
func Rewound(api *API) {
	api.blocks.Store(lru.NewSizeConstrainedCache[blockKey, json.RawMessage](blockCacheBytes))
	api.lastCtx.Store(nil)
}

// ChainId is the EIP-155 chain id (eth_chainId).
func (api *API) ChainId() *hexutil.Big {
	return (*hexutil.Big)(api.b.ChainConfig().ChainID)
}

// BlockNumber is the latest block's number (eth_blockNumber).
func (api *API) BlockNumber() hexutil.Uint64 {
	return hexutil.Uint64(api.b.Head().Number.Uint64())
}

// BaseFee is the base fee per gas of the next block (eth_baseFee).
func (api *API) BaseFee() *hexutil.Big {
	return (*hexutil.Big)(api.b.NextBaseFee())
}

// headerOf resolves a block number or hash to a header. Tags resolve to the
// latest block (blocks are final as soon as CometBFT commits them).
func (api *API) headerOf(bnh rpc.BlockNumberOrHash) (*types.Header, error) {
	if hash, ok := bnh.Hash(); ok {
		h := api.b.HeaderByHash(hash)
		if h == nil {
			return nil, fmt.Errorf("header for hash %s not found", hash.Hex())
		}
		if bnh.RequireCanonical {
			if c := api.b.HeaderByNumber(h.Number.Uint64()); c == nil || c.Hash() != hash {
				return nil, fmt.Errorf("hash %s is not currently canonical", hash.Hex())
			}
		}
		return h, nil
	}
	number, _ := bnh.Number()
	h := api.headerByNumber(number)
	if h == nil {
		if err := api.missingBlock(number); err != nil { // available.go
			return nil, err
		}
		return nil, errHeaderNotFound
	}
	return h, nil
}

// headerByNumber resolves a block number or tag, or returns nil.
func (api *API) headerByNumber(number rpc.BlockNumber) *types.Header {
	switch number {
	case rpc.LatestBlockNumber, rpc.PendingBlockNumber, rpc.SafeBlockNumber, rpc.FinalizedBlockNumber:
		return api.b.Head()
	case rpc.EarliestBlockNumber:
		return api.b.HeaderByNumber(0)
	}
	if number < 0 {
		return nil
	}
	return api.b.HeaderByNumber(uint64(number))
}

// stateAt opens the state after the given block.
func (api *API) stateAt(bnh rpc.BlockNumberOrHash) (*state.StateDB, *types.Header, error) {
	h, err := api.headerOf(bnh)
	if err != nil {
		return nil, nil, err
	}
	st, err := api.b.StateAt(h)
	if err != nil {
		return nil, nil, err
	}
	return st, h, nil
}

// accountAt is address's account at the given block, read without a
// StateDB (a tenth of a balance read's time went to building one); an
// account the state lacks reads as the empty one.
func (api *API) accountAt(bnh rpc.BlockNumberOrHash, address common.Address) (*types.StateAccount, error) {
	h, err := api.headerOf(bnh)
	if err != nil {
		return nil, err
	}
	acct, err := api.b.AccountAt(h, address)
	if err != nil {
		return nil, err
	}
	if acct == nil {
		return types.NewEmptyStateAccount(), nil
	}
	return acct, nil
}

// GetBalance is the balance of address in wei at the given block.
func (api *API) GetBalance(address common.Address, bnh rpc.BlockNumberOrHash) (*hexutil.Big, error) {
	acct, err := api.accountAt(bnh, address)
	if err != nil {
		return nil, err
	}
	return (*hexutil.Big)(acct.Balance.ToBig()), nil
}

// GetTransactionCount is the nonce of address at the given block; with
// "pending", the next nonce counting the txs waiting in the pool.
func (api *API) GetTransactionCount(address common.Address, bnh rpc.BlockNumberOrHash) (*hexutil.Uint64, error) {
	acct, err := api.accountAt(bnh, address)
	if err != nil {
		return nil, err
	}
	nonce := acct.Nonce
	if n, ok := bnh.Number(); ok && n == rpc.PendingBlockNumber {
		nonce = api.b.PendingNonce(address, nonce)
	}
	return (*hexutil.Uint64)(&nonce), nil
}

// GetCode is the code at address at the given block.
func (api *API) GetCode(address common.Address, bnh rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	st, _, err := api.stateAt(bnh)
	if err != nil {
		return nil, err
	}
	return st.GetCode(address), nil
}

// GetStorageAt is the storage slot of address at the given block.
func (api *API) GetStorageAt(address common.Address, slot string, bnh rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	key, _, err := decodeStorageKey(slot)
	if err != nil {
		return nil, invalidParams("%v: %q", err, slot)
	}
	st, _, err := api.stateAt(bnh)
	if err != nil {
		return nil, err
	}
	v := st.GetState(address, key)
	return v[:], nil
}

// maxStorageValues bounds the slots of one eth_getStorageValues, as in geth.
const maxStorageValues = 1024

// GetStorageValues reads many slots of many accounts at one block (default
// latest) in one request. Keys may be short (left-padded), as in
// eth_getStorageAt.
func (api *API) GetStorageValues(requests map[common.Address][]string, bnh *rpc.BlockNumberOrHash) (map[common.Address][]hexutil.Bytes, error) {
	keys := make(map[common.Address][]common.Hash, len(requests))
	total := 0
	for addr, slots := range requests {
		if total += len(slots); total > maxStorageValues {
			return nil, &limitError{fmt.Sprintf("too many slots (max %d)", maxStorageValues)}
		}
		keys[addr] = make([]common.Hash, 0, len(slots))
		for _, slot := range slots {
			key, _, err := decodeStorageKey(slot)
			if err != nil {
				return nil, invalidParams("invalid argument 0: %v: %q", err, slot)
			}
			keys[addr] = append(keys[addr], key)
		}
	}
	if total == 0 {
		return nil, invalidParams("empty request")
	}
	st, _, err := api.stateAt(orLatest(bnh))
	if err != nil {
		return nil, err
	}
	out := make(map[common.Address][]hexutil.Bytes, len(keys))
	for addr, slots := range keys {
		vals := make([]hexutil.Bytes, len(slots))
		for i, key := range slots {
			v := st.GetState(addr, key)
			vals[i] = v[:]
		}
		out[addr] = vals
	}
	return out, st.Error()
}

// GetBlockByNumber returns a block with tx hashes or full txs; null when the
// chain has no such block.
func (api *API) GetBlockByNumber(number rpc.BlockNumber, fullTx bool) (json.RawMessage, error) {
	h := api.headerByNumber(number)
	if h == nil {
		return nil, api.missingBlock(number) // available.go
	}
	return api.marshalBlockAt(h.Hash(), fullTx)
}

// GetBlockByHash returns a block with tx hashes or full txs; null when
// unknown.
func (api *API) GetBlockByHash(hash common.Hash, fullTx bool) (json.RawMessage, error) {
	return api.marshalBlockAt(hash, fullTx)
}

// marshalBlockAt is the block's JSON (what encoding MarshalBlock's map
// gives), or nil (null) when unknown.
func (api *API) marshalBlockAt(hash common.Hash, fullTx bool) (json.RawMessage, error) {
	key := blockKey{hash, fullTx}
	cache := api.blocks.Load()
	if enc, ok := cache.Get(key); ok {
		return enc, nil
	}
	block := api.b.BlockByHash(hash)
	if block == nil {
		return nil, nil
	}
	enc, err := json.Marshal(MarshalBlock(block, fullTx, api.b.ChainConfig()))
	if err != nil {
		return nil, err
	}
	cache.Add(key, enc)
	return enc, nil
}

// GetTransactionByHash returns a mined or pending transaction, or null.
func (api *API) GetTransactionByHash(hash common.Hash) *RPCTransaction {
	if tx, loc := api.b.Transaction(hash); tx != nil {
		h := api.b.GetHeader(loc.BlockHash, loc.BlockNumber)
		if h == nil {
			return nil
		}
		return NewRPCTransaction(tx, loc.BlockHash, loc.BlockNumber, h.Time, loc.Index, h.BaseFee, api.b.ChainConfig())
	}
	if tx := api.b.PendingTransaction(hash); tx != nil {
		head := api.b.Head()
		return NewRPCTransaction(tx, common.Hash{}, head.Number.Uint64(), head.Time, 0, nil, api.b.ChainConfig())
	}
	return nil
}

// GetTransactionReceipt returns the receipt of a mined transaction, or null.
func (api *API) GetTransactionReceipt(hash common.Hash) (map[string]any, error) {
	tx, loc := api.b.Transaction(hash)
	if tx == nil {
		return nil, nil
	}
	h := api.b.GetHeader(loc.BlockHash, loc.BlockNumber)
	if h == nil {
		return nil, nil
	}
	receipts := api.b.Receipts(h)
	if uint64(len(receipts)) <= loc.Index {
		return nil, fmt.Errorf("receipt of %s missing from block %d", hash.Hex(), loc.BlockNumber)
	}
	signer := types.MakeSigner(api.b.ChainConfig(), h.Number, h.Time)
	return marshalReceipt(receipts[loc.Index], tx, signer), nil
}

// SendRawTransaction submits a signed transaction and returns its hash once
// CheckTx has accepted it into the mempool.
func (api *API) SendRawTransaction(ctx context.Context, input hexutil.Bytes) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(input); err != nil {
		return common.Hash{}, err
	}
	if !api.cfg.AllowUnprotectedTxs && !tx.Protected() {
		return common.Hash{}, errors.New("only replay-protected (EIP-155) transactions allowed over RPC")
	}
	if err := checkTxFee(tx.GasPrice(), tx.Gas(), api.cfg.TxFeeCap); err != nil {
		return common.Hash{}, err
	}
	if err := api.b.SendTransaction(ctx, tx, input); err != nil {
		return common.Hash{}, err
	}
	return tx.Hash(), nil
}

// checkTxFee refuses a tx whose worst-case fee exceeds the cap (in ether),
// with geth's message.
func checkTxFee(gasPrice *big.Int, gas uint64, capEther float64) error {
	if capEther == 0 {
		return nil
	}
	feeEth := new(big.Float).Quo(new(big.Float).SetInt(new(big.Int).Mul(gasPrice, new(big.Int).SetUint64(gas))), new(big.Float).SetInt(big.NewInt(params.Ether)))
	feeFloat, _ := feeEth.Float64()
	if feeFloat > capEther {
		return fmt.Errorf("tx fee (%.2f ether) exceeds the configured cap (%.2f ether)", feeFloat, capEther)
	}
	return nil
}

// Call executes a message call on the state of the given block (default
// latest) without creating a transaction. State and block overrides, in
// geth's format, change a private copy of the state and the block first.
func (api *API) Call(ctx context.Context, args TransactionArgs, bnh *rpc.BlockNumberOrHash, overrides *StateOverride, blockOverrides *BlockOverrides) (hexutil.Bytes, error) {
	env, err := api.prepareCall(args, bnh, overrides, blockOverrides, overrides == nil)
	if err != nil {
		return nil, err
	}
	result, err := evm.Call(ctx, api.b.ChainConfig(), env.blockCtx, env.state, env.msg,
		evm.CallOptions{Timeout: api.cfg.EVMTimeout, Precompiles: env.precompiles})
	// Not deferred: a run that panicked may have left the state half
	// changed, and it is not lent again.
	env.done()
	if err != nil {
		var timeout *evm.TimeoutError
		if errors.As(err, &timeout) {
			return nil, err
		}
		return nil, fmt.Errorf("err: %w (supplied gas %d)", err, env.msg.GasLimit)
	}
	if errors.Is(result.Err, vm.ErrExecutionReverted) || len(result.Revert()) > 0 {
		return nil, newRevertError(result.Revert())
	}
	return result.Return(), result.Err
}

// blockContext is the EVM block context of header, shared by the calls on
// the same header (the head, mostly): building one computes the blob base
// fee in big-number math, a few percent of a light eth_call. Its big.Int
// fields are only read (overrides replace them in the caller's copy).
func (api *API) blockContext(header *types.Header) vm.BlockContext {
	if last := api.lastCtx.Load(); last != nil && last.header == header {
		return last.ctx
	}
	ctx := evm.BlockContext(api.b.ChainConfig(), header, api.b)
	api.lastCtx.Store(&headerContext{header: header, ctx: ctx})
	return ctx
}

// headerContext is a header and its EVM block context.
type headerContext struct {
	header *types.Header
	ctx    vm.BlockContext
}

// callEnv is everything one call, estimate or access-list run executes in.
type callEnv struct {
	state       *state.StateDB
	header      *types.Header // with the block overrides applied
	blockCtx    vm.BlockContext
	precompiles vm.PrecompiledContracts
	msg         *core.Message
	// giveBack returns a borrowed state (Backend.BorrowState); nil for an
	// opened one.
	giveBack func()
}

// done ends the run: a borrowed state goes back.
func (env *callEnv) done() {
	if env.giveBack != nil {
		env.giveBack()
	}
}

// prepareCall opens the state of the given block (default latest), applies
// the overrides and builds the message to execute. borrow, for a single run
// without state overrides, borrows the state instead (Backend.BorrowState):
// the caller ends the run with env.done.
func (api *API) prepareCall(args TransactionArgs, bnh *rpc.BlockNumberOrHash, overrides *StateOverride, blockOverrides *BlockOverrides, borrow bool) (*callEnv, error) {
	if err := blockOverrides.check(); err != nil {
		return nil, err
	}
	header, err := api.headerOf(orLatest(bnh))
	if err != nil {
		return nil, err
	}
	env := &callEnv{blockCtx: api.blockContext(header)}
	if borrow && overrides == nil {
		env.state, env.giveBack, err = api.b.BorrowState(header)
	} else {
		env.state, err = api.b.StateAt(header)
	}
	if err != nil {
		return nil, err
	}
	blockOverrides.applyContext(&env.blockCtx)
	env.header = blockOverrides.applyHeader(header)
	if overrides != nil {
		// A private copy of the precompiles, which overrides may move;
		// without overrides the EVM takes its own (uncopied) set.
		rules := evm.Rules(api.b.ChainConfig(), env.blockCtx.BlockNumber, env.blockCtx.Time)
		env.precompiles = vm.ActivePrecompiledContracts(rules)
		if err := overrides.apply(env.state, env.precompiles); err != nil {
			return nil, err
		}
	}
	if env.msg, err = args.toMessage(env.header.BaseFee, api.cfg.GasCap); err != nil {
		env.done()
		return nil, err
	}
	return env, nil
}

// EstimateGas returns the lowest gas limit with which the call succeeds,
// using geth's estimator on the given block's state (default latest), with
// the same overrides as eth_call.
func (api *API) EstimateGas(ctx context.Context, args TransactionArgs, bnh *rpc.BlockNumberOrHash, overrides *StateOverride, blockOverrides *BlockOverrides) (hexutil.Uint64, error) {
	env, err := api.prepareCall(args, bnh, overrides, blockOverrides, false)
	if err != nil {
		return 0, err
	}
	if args.Gas == nil {
		env.msg.GasLimit = 0 // let the estimator search up to the block gas limit
	}
	gas, revert, err := evm.Estimate(ctx, api.b.ChainConfig(), env.header, api.b, env.state, env.msg, api.cfg.GasCap, blockOverrides.blobBaseFee())
	if err != nil {
		if len(revert) > 0 {
			return 0, newRevertError(revert)
		}
		return 0, err
	}
	return hexutil.Uint64(gas), nil
}

func orLatest(bnh *rpc.BlockNumberOrHash) rpc.BlockNumberOrHash {
	if bnh == nil {
		return rpc.BlockNumberOrHashWithNumber(rpc.LatestBlockNumber)
	}
	return *bnh
}
