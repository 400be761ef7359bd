// Package app is Ember's ABCI application: CometBFT hands it transactions to
// check, blocks to propose and blocks to execute; it executes them with
// go-ethereum (package evm) on the node's store and keeps the tx pool in step
// with CometBFT's mempool.
//
// The native modules (native.Modules) run in the order package module
// documents. What a development chain adds (dev transactions, clock edits,
// automine, the proof-block wait) comes through one devChain (dev.go), nil
// on a real chain.
package app

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/feemarket"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
	"github.com/emberchain/ember/upgrade"
)

// Name and AppVersion are reported in Info: AppVersion until an upgrade
// plan is applied, then the version the upgrade state records.
const (
	Name       = "ember"
	AppVersion = upgrade.BaseAppVersion
)

// CommittedBlock is what the application publishes after each commit.
type CommittedBlock struct {
	Block    *types.Block
	Receipts types.Receipts              // with block hash and log positions filled in
	Senders  []common.Address            // sender of each EVM transaction of Block, recovered once at admission
	Balances map[common.Address]*big.Int // end-of-block balance of every account the block changed (EVM and native txs, fee recipients); nil when not tracked
}

// App implements abci.Application. The node runs it behind CometBFT's
// connection-synchronized local client: calls on one ABCI connection
// (consensus, mempool, query) are serialized, calls on different ones run
// concurrently, so CheckTx admits transactions while FinalizeBlock executes
// a block. The app does its own locking: checkMu guards the check state,
// mu the block awaiting Commit and the listeners; the pool and the store
// lock themselves.
type App struct {
	abci.BaseApplication // vote extensions: not used

	store   *store.Store
	pool    *txpool.Pool
	genesis *AppState
	config  *params.ChainConfig
	rewards map[string]common.Address // CometBFT validator address (upper hex) -> fee recipient
	modules *module.Manager           // the native modules, in their order (package module)
	log     *slog.Logger
	miner   minerSettings // this node's etherbase and minimum tip
	hooks   MempoolHooks  // changes to CometBFT's mempool, made off the ABCI goroutine

	dev  *devChain     // a dev chain's additions (dev.go); nil on a real chain
	snap snapshotState // state-sync snapshots served and restored (snapshot.go)

	captureCalls atomic.Bool            // record internal transactions (see CaptureInternalCalls)
	chainID      atomic.Pointer[string] // CometBFT chain id, signed by native transactions

	// prechecked holds transactions decoded with their sender recovered
	// before they enter CometBFT's mempool (Precheck), by mempool key, so
	// CheckTx does not recover them again.
	prechecked sync.Map // pool.Key -> *types.Transaction

	arrived arrivals       // a tx admitted as pending, for an empty dev proposal (proofwait.go)
	local   localAdmission // a dev chain's admission without CometBFT's mempool (local.go); guarded by checkMu

	checkMu    sync.Mutex
	checkState *state.StateDB // state at the durable head, for CheckTx; guarded by checkMu

	halt       func(Halt) // receives the app's halt (upgrade.go); nil: none
	haltHeight int64      // stop after committing this height (0: never)

	// serviceQuery answers abci_query for the Cosmos services' method
	// paths (see SetServiceQuery); nil until the node sets it.
	serviceQuery func(context.Context, *abci.RequestQuery) (*abci.ResponseQuery, bool)

	// floor caches the base-fee floor of the durable head's state (see
	// minBaseFeeAt).
	floor struct {
		mu   sync.Mutex
		head common.Hash
		fee  *big.Int
	}

	mu        sync.Mutex
	pending   *finalized // executed by FinalizeBlock, awaiting Commit
	onCommit  []func(*CommittedBlock)
	onPending []func(*types.Transaction)
}

// New returns the application for a chain whose genesis app state is gs.
func New(st *store.Store, pool *txpool.Pool, gs *AppState, log *slog.Logger) *App {
	rewards := make(map[string]common.Address, len(gs.Validators))
	for _, v := range gs.Validators {
		rewards[strings.ToUpper(v.ConsAddress)] = v.RewardAddress
	}
	a := &App{
		store:   st,
		pool:    pool,
		genesis: gs,
		config:  gs.EVM.Config,
		rewards: rewards,
		modules: native.Modules,
		log:     log,
		arrived: newArrivals(),
	}
	if gs.Dev {
		a.dev = newDevChain(a)
	}
	a.loadConfig()
	return a
}

// loadConfig reads the fork schedule back from the head state of a store
// that has one (a restart), so the RPC serves it before any block runs.
func (a *App) loadConfig() {
	head := a.store.Head()
	if head == nil {
		return
	}
	st, err := a.store.StateAt(head.Root)
	if err != nil {
		a.log.Error("fork schedule: open head state", "block", head.Number, "err", err)
		return
	}
	a.syncConfig(st)
}

// OnCommit registers fn to be called, on the ABCI goroutine, after each block
// is durable. fn must not block.
func (a *App) OnCommit(fn func(*CommittedBlock)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onCommit = append(a.onCommit, fn)
}

// OnPendingTx registers fn to be called, on the ABCI goroutine, with each
// transaction CheckTx admits to the mempool. fn must not block.
func (a *App) OnPendingTx(fn func(*types.Transaction)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onPending = append(a.onPending, fn)
}

// Info reports the last durable block so CometBFT replays what comes after.
func (a *App) Info(context.Context, *abci.RequestInfo) (*abci.ResponseInfo, error) {
	res := &abci.ResponseInfo{Data: Name, Version: Version, AppVersion: a.appVersion()}
	if head := a.store.Head(); head != nil && head.Number.Sign() > 0 {
		res.LastBlockHeight = head.Number.Int64()
		res.LastBlockAppHash = head.Root.Bytes()
	}
	return res, nil
}

// InitChain writes the genesis block (EVM block 0) and state.
func (a *App) InitChain(_ context.Context, req *abci.RequestInitChain) (*abci.ResponseInitChain, error) {
	if req.InitialHeight > 1 {
		return nil, fmt.Errorf("initial_height %d unsupported: EVM block numbers equal CometBFT heights and start at 1", req.InitialHeight)
	}
	if id, err := ParseChainID(req.ChainId); err != nil {
		return nil, err
	} else if id.Cmp(a.config.ChainID) != 0 {
		return nil, fmt.Errorf("chain-id %s does not match the EVM chain id %v", req.ChainId, a.config.ChainID)
	}
	a.SetChainID(req.ChainId)
	if a.genesis.Exported != nil {
		return a.initExported(req) // import.go
	}
	g, validators, err := genesisState(a.genesis, a.modules, a.rewards, req)
	if err != nil {
		return nil, err
	}
	genesisSupply(g.Alloc) // last: after anything that writes genesis balances (burn.go)
	block, err := a.store.InitGenesis(g)
	if err != nil {
		return nil, err
	}
	a.log.Info("genesis written", "hash", block.Hash(), "stateRoot", block.Root(), "accounts", len(g.Alloc))
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	if err := a.resetCheckState(); err != nil {
		return nil, err
	}
	return &abci.ResponseInitChain{AppHash: block.Root().Bytes(), Validators: validators}, nil
}

// resetCheckState points CheckTx at the durable head's state. Caller holds
// checkMu.
func (a *App) resetCheckState() error {
	head := a.store.Head()
	if head == nil {
		return errors.New("no genesis block")
	}
	st, err := a.store.StateAt(head.Root)
	if err != nil {
		return fmt.Errorf("open state at block %d: %w", head.Number, err)
	}
	a.checkState = st
	a.syncConfig(st) // forks.go
	return nil
}

// ensureCheckState opens the check state lazily (after a restart CometBFT
// may call CheckTx before any block is executed). Caller holds checkMu.
func (a *App) ensureCheckState() error {
	if a.checkState != nil {
		return nil
	}
	return a.resetCheckState()
}

// nextBaseFee is the base fee of the block after the durable head, with
// the floor the head's state records (package feemarket), as
// FinalizeBlock will compute it.
func (a *App) nextBaseFee() *big.Int {
	head := a.store.Head()
	return evm.NextBaseFee(a.config, head, a.minBaseFeeAt(head))
}

// minBaseFeeAt is the base-fee floor the state after head records, read
// once per head: CheckTx, proposals and queries ask for it many times a
// block. A head whose state cannot be opened gets the genesis value.
func (a *App) minBaseFeeAt(head *types.Header) *big.Int {
	if head == nil {
		return a.genesis.MinBaseFee()
	}
	a.floor.mu.Lock()
	defer a.floor.mu.Unlock()
	if a.floor.fee != nil && a.floor.head == head.Hash() {
		return a.floor.fee
	}
	fee := a.genesis.MinBaseFee()
	if st, err := a.store.StateAt(head.Root); err == nil {
		fee = feemarket.MinBaseFee(st, fee)
	}
	a.floor.head, a.floor.fee = head.Hash(), fee
	return fee
}

// RewardAddress is the fee recipient of blocks proposed by the validator
// with the given CometBFT address: the fee collector when distribution
// shares the fees (see Fee routing in miner.go).
func (a *App) RewardAddress(proposer []byte) common.Address {
	if a.sharesFees() {
		return distribution.FeeCollector
	}
	if addr, ok := a.stakingReward(proposer); ok { // set by staking
		return addr
	}
	if addr, ok := a.rewards[strings.ToUpper(hex.EncodeToString(proposer))]; ok {
		return addr
	}
	return common.BytesToAddress(proposer)
}

// stakingReward is the reward address the staking state records for the
// validator with CometBFT address proposer.
func (a *App) stakingReward(proposer []byte) (common.Address, bool) {
	head := a.store.Head()
	if head == nil {
		return common.Address{}, false
	}
	st, err := a.store.CachedStateAt(head.Root)
	if err != nil {
		return common.Address{}, false
	}
	v, ok := staking.ByConsAddress(st, common.BytesToAddress(proposer))
	if ok && v.HasOperator && distribution.Enabled(st) {
		// A dev chain: a withdraw address the operator set
		// (MsgSetWithdrawAddress) receives the fees; else the genesis one.
		if w := distribution.WithdrawAddress(st, v.Operator); w != v.Operator {
			return w, true
		}
	}
	if !ok || v.RewardAddress == (common.Address{}) {
		return common.Address{}, false
	}
	return v.RewardAddress, true
}

// SetChainID tells the app the CometBFT chain id, which native
// transactions sign (InitChain also sets it; after a restart it is not
// called).
func (a *App) SetChainID(id string) { a.chainID.Store(&id) }

func (a *App) chainIDString() string {
	if p := a.chainID.Load(); p != nil {
		return *p
	}
	return ""
}
