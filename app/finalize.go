package app

import (
	"context"
	"fmt"
	"math/big"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/callframe"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/feemarket"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/store"
)

// finalized is a block executed by FinalizeBlock and not yet durable.
type finalized struct {
	block     *types.Block
	receipts  types.Receipts
	senders   []common.Address
	balances  map[common.Address]*big.Int
	cometHash []byte
	rawTxs    [][]byte
	calls     [][]callframe.Frame // internal transactions, when captured
	native    []store.NativeTx    // native transactions and their results
	info      []byte              // the block's encoded module.BlockInfo (blockinfo.go)
	config    *params.ChainConfig // the schedule the block ran (forks.go)
}

// FinalizeBlock executes a decided block: it builds the EVM header on the
// parent, runs every transaction in block order (EVM ones through the
// executor, native ones by the app, both on one state), commits the state
// into the trie database (in memory until Commit) and returns one result
// per transaction with its events. The app hash is the new state root.
func (a *App) FinalizeBlock(ctx context.Context, req *abci.RequestFinalizeBlock) (*abci.ResponseFinalizeBlock, error) {
	parent := a.store.Head()
	if parent == nil { // state-syncing, or InitChain never ran
		return nil, fmt.Errorf("finalize block %d: no durable head", req.Height)
	}
	if parent.Number.Int64() != req.Height-1 {
		return nil, fmt.Errorf("finalize block %d: durable head is %v", req.Height, parent.Number)
	}
	if err := a.checkHalt(req.Height); err != nil { // upgrade.go
		return nil, err
	}
	statedb, err := a.store.StateAt(parent.Root)
	if err != nil {
		return nil, fmt.Errorf("finalize block %d: open parent state: %w", req.Height, err)
	}
	header := a.newHeader(parent, req, feemarket.MinBaseFee(statedb, a.genesis.MinBaseFee()))
	a.dev.header(header, parent, req.Time.Unix(), req.Txs) // dev chains' clock and base-fee edits (dev.go)
	tracker := accounts.NewTracker()
	hooks := tracker.Hooks()
	rec := a.callRecorder(hooks)
	balances := evm.NewBalanceRecorder()
	balances.Hook(hooks)
	info := module.NewBlockInfo(req.ProposerAddress, req.DecidedLastCommit, req.Misbehavior)
	infoEnc, err := encodeBlockInfo(info)
	if err != nil {
		return nil, fmt.Errorf("finalize block %d: %w", req.Height, err)
	}
	run, err := a.startBlock(ctx, header, info, statedb, hooks)
	if err != nil {
		a.halted(req.Height, err) // upgrade.go
		return nil, fmt.Errorf("finalize block %d: %w", req.Height, err)
	}
	results := make([]*abci.ExecTxResult, len(req.Txs))
	var natives []store.NativeTx
	for i, raw := range req.Txs {
		t := a.decodeBlockTx(raw, true)
		results[i] = run.exec(t, raw)
		if t.native != nil {
			natives = append(natives, nativeRecord(i, raw, results[i]))
		}
	}
	res := run.x.Finish()
	if err := recordBurn(statedb, new(big.Int).Add(evmBurnt(header.BaseFee, res.Receipts), run.nat.burnt)); err != nil {
		return nil, fmt.Errorf("finalize block %d: %w", req.Height, err)
	}
	// Number new accounts and record first public keys before the state is
	// committed, so the AppHash covers them.
	if err := tracker.Apply(statedb, evm.Signer(run.cfg, header.Number, header.Time), a.dev.withKeys(res.Txs)); err != nil {
		return nil, fmt.Errorf("finalize block %d: native accounts: %w", req.Height, err)
	}
	updates, err := run.nat.end(statedb)
	if err != nil {
		return nil, fmt.Errorf("finalize block %d: end block: %w", req.Height, err)
	}
	changed := balances.Changed(statedb)

	root, err := statedb.Commit(evm.Rules(run.cfg, header.Number, header.Time), header.Number.Uint64())
	if err != nil {
		return nil, fmt.Errorf("finalize block %d: commit state: %w", req.Height, err)
	}
	// The trie goes to disk here, not in Commit, which CometBFT runs under
	// its mempool lock (see store.FlushState).
	if err := a.store.FlushState(root); err != nil {
		return nil, fmt.Errorf("finalize block %d: %w", req.Height, err)
	}
	header.Root = root
	header.GasUsed = res.GasUsed
	block := types.NewBlock(header, &types.Body{Transactions: res.Txs, Withdrawals: types.Withdrawals{}}, res.Receipts, trie.NewStackTrie(nil))
	fillReceipts(block, res.Receipts)

	a.mu.Lock()
	a.pending = &finalized{block: block, receipts: res.Receipts, senders: res.Senders, balances: changed, cometHash: req.Hash, rawTxs: req.Txs, native: natives, info: infoEnc, config: run.cfg}
	if rec != nil {
		a.pending.calls = rec.Frames()
	}
	a.mu.Unlock()
	return &abci.ResponseFinalizeBlock{TxResults: results, AppHash: root.Bytes(), ValidatorUpdates: updates, Events: run.nat.events.List()}, nil
}

// nativeRecord is what the store keeps of a native transaction at position
// i of the block and its result, for the explorer.
func nativeRecord(i int, raw []byte, res *abci.ExecTxResult) store.NativeTx {
	return store.NativeTx{
		Position: uint32(i), Raw: raw, Code: res.Code, Codespace: res.Codespace, Log: res.Log,
		GasWanted: uint64(max(res.GasWanted, 0)), GasUsed: uint64(max(res.GasUsed, 0)),
	}
}

// newHeader is the EVM header of the block CometBFT decided, before
// execution fills in the roots and gas used. Its timestamp is the CometBFT
// block time in seconds, never below the parent's; PREVRANDAO is the
// CometBFT block hash. Its base fee follows EIP-1559 from the parent, never
// below minBaseFee, the floor the parent's state records (package
// feemarket).
func (a *App) newHeader(parent *types.Header, req *abci.RequestFinalizeBlock, minBaseFee *big.Int) *types.Header {
	t := uint64(max(req.Time.Unix(), 0))
	if t < parent.Time {
		t = parent.Time
	}
	zero := uint64(0)
	return &types.Header{
		ParentHash:       parent.Hash(),
		UncleHash:        types.EmptyUncleHash,
		Coinbase:         a.blockCoinbase(req.Txs, req.ProposerAddress),
		Difficulty:       new(big.Int),
		Number:           big.NewInt(req.Height),
		GasLimit:         parent.GasLimit,
		Time:             t,
		MixDigest:        common.BytesToHash(req.Hash),
		BaseFee:          evm.NextBaseFee(a.config, parent, minBaseFee),
		WithdrawalsHash:  &types.EmptyWithdrawalsHash,
		BlobGasUsed:      &zero,
		ExcessBlobGas:    &zero,
		ParentBeaconRoot: &common.Hash{},
		RequestsHash:     &types.EmptyRequestsHash,
	}
}

// fillReceipts sets the fields only known once the header is complete: the
// block hash, and each log's block hash and block-wide index.
func fillReceipts(block *types.Block, receipts types.Receipts) {
	hash := block.Hash()
	logIndex := uint(0)
	for _, r := range receipts {
		r.BlockHash = hash
		for _, l := range r.Logs {
			l.BlockHash = hash
			l.Index = logIndex
			logIndex++
		}
	}
}

// Commit makes the finalized block durable, drops its transactions from the
// pool, moves CheckTx to the new state and publishes the block.
func (a *App) Commit(context.Context, *abci.RequestCommit) (*abci.ResponseCommit, error) {
	a.mu.Lock()
	p := a.pending
	a.pending = nil
	listeners := a.onCommit
	a.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("commit without a finalized block")
	}
	parentRoot := a.store.Head().Root
	wasOsaka := a.headIsOsaka() // forks.go
	// A block that activates a fork swaps the config before it becomes the
	// head: a reader of the old head then sees the fork as next, never the
	// new head under the old rules.
	if p.config != a.store.Config() {
		a.store.SetConfig(p.config)
		a.log.Info("EVM fork schedule changed", "height", p.block.Number(), "time", p.block.Time(), "fork", p.config.LatestFork(p.block.Time()).String())
	}
	if err := a.store.WriteBlockInfo(p.block.NumberU64(), p.info); err != nil {
		return nil, err
	}
	if err := a.store.CommitBlockNative(p.block, p.receipts, p.cometHash, p.native, p.calls...); err != nil {
		return nil, err
	}
	a.checkMu.Lock()
	err := a.resetCheckState()
	if err == nil {
		if !wasOsaka && a.headIsOsaka() {
			a.dropOverCap() // forks.go
		}
		a.resetPool(p.rawTxs)
		a.localCommitted(p.block.Root() != parentRoot) // local.go
	}
	a.checkMu.Unlock()
	if err != nil {
		return nil, err
	}
	committed := &CommittedBlock{Block: p.block, Receipts: p.receipts, Senders: p.senders, Balances: p.balances}
	for _, fn := range listeners {
		fn(committed)
	}
	a.dev.committed(p.rawTxs, p.block, p.block.Root() != parentRoot) // after the listeners: a caller woken sees the block everywhere
	a.committedHalt(p.block.Number().Int64())                        // upgrade.go
	return &abci.ResponseCommit{}, nil
}
