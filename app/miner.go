package app

import (
	"bytes"
	"math/big"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/txpool"
)

// minerSettings are this node's own choices as a block proposer, set over
// the miner namespace. They never change how a block executes on other
// nodes except through what this node puts in its proposals.
type minerSettings struct {
	minTip    atomic.Pointer[big.Int]        // lowest tip cap CheckTx admits; nil = 0
	etherbase atomic.Pointer[common.Address] // fee recipient this node proposes; nil = genesis reward address
}

// MempoolHooks are how the app asks for changes to CometBFT's mempool that
// it cannot make from inside an ABCI call (the local client holds one lock
// across calls, and the mempool calls the app under its own lock). They are
// called on the ABCI goroutine and must not block.
type MempoolHooks struct {
	// Remove takes out pending transactions the pool displaced (replaced
	// or evicted).
	Remove func([]*txpool.Tx)
	// Promote asks for the pool's promotable queued transactions to be
	// resubmitted through CheckTx (see txpool.Pool.Promotable).
	Promote func()
	// Wake resubmits a pending transaction through CheckTx so that
	// CometBFT's mempool holds one and CometBFT starts a block (local.go).
	Wake func(raw []byte)
}

// SetMempoolHooks installs the hooks; call it before CometBFT starts.
func (a *App) SetMempoolHooks(h MempoolHooks) { a.hooks = h }

// SetMinTip sets the lowest tip cap per gas (legacy gas price) CheckTx
// admits, as geth's miner.gasprice. Pooled transactions below it are dropped
// after the next block.
func (a *App) SetMinTip(tip *big.Int) { a.miner.minTip.Store(new(big.Int).Set(tip)) }

// MinTip is the lowest tip cap CheckTx admits.
func (a *App) MinTip() *big.Int {
	if tip := a.miner.minTip.Load(); tip != nil {
		return new(big.Int).Set(tip)
	}
	return new(big.Int)
}

// SetEtherbase makes addr the fee recipient of the blocks this node
// proposes from now on.
func (a *App) SetEtherbase(addr common.Address) { a.miner.etherbase.Store(&addr) }

// Etherbase is the fee recipient set with SetEtherbase, if any.
func (a *App) Etherbase() (common.Address, bool) {
	if addr := a.miner.etherbase.Load(); addr != nil {
		return *addr, true
	}
	return common.Address{}, false
}

// The fee recipient reaches every validator inside the block: a proposer
// with an etherbase puts a marker first in its proposal, "\x00ember-coinbase"
// followed by the 20-byte address. FinalizeBlock reads the coinbase from the
// block's own bytes, so every node executes the block alike whatever its own
// settings; the marker is not an Ethereum transaction (a leading 0x00 is no
// EIP-2718 type and no RLP list), so CheckTx never admits it and it gets the
// result code of undecodable bytes, without a receipt. A block without a
// marker pays the genesis reward address of its proposer.
var coinbaseMarker = []byte("\x00ember-coinbase")

// coinbaseMarkerTx is the marker naming addr.
func coinbaseMarkerTx(addr common.Address) []byte {
	return append(append([]byte{}, coinbaseMarker...), addr.Bytes()...)
}

// parseCoinbaseMarker returns the address a marker names; ok is false for
// bytes that do not start like a marker, malformed is set for bytes that do
// but have the wrong length.
func parseCoinbaseMarker(raw []byte) (addr common.Address, ok, malformed bool) {
	if !bytes.HasPrefix(raw, coinbaseMarker) {
		return common.Address{}, false, false
	}
	if len(raw) != len(coinbaseMarker)+common.AddressLength {
		return common.Address{}, false, true
	}
	return common.BytesToAddress(raw[len(coinbaseMarker):]), true, false
}

// Fee routing. On a real chain whose genesis has a distribution section
// (every home `emberd init`, `testnet` and the gentx flow make) the
// priority fees of EVM and native transactions are shared: the header's
// coinbase is the fee collector, whose balance distribution allocates at
// the next block to the validators that signed and their delegators. A
// proposer cannot divert them: ProcessProposal refuses a proposal with a
// coinbase marker, PrepareProposal puts none in, and eth_coinbase is the
// fee collector.
//
// A dev chain (`emberd dev`: one local validator, no one to share with)
// keeps anvil's model: its coinbase is the marker's address
// (miner_setEtherbase, anvil_setCoinbase) or the validator's reward
// address, which earns the tips as anvil's coinbase does. Sharing there
// would also cost a block: the allocation one block later changes the
// state again, and CometBFT (no empty blocks) makes one more block to
// prove it. A dev user who wants rewards to distribute points the
// coinbase at the fee collector with anvil_setCoinbase.
//
// A chain without a distribution section pays the proposer's reward
// address, marker or not, as before. The base fee is burnt everywhere and
// recorded as such (burn.go).

// sharesFees tells whether priority fees go to the fee collector.
func (a *App) sharesFees() bool { return a.genesis.Distribution != nil && a.dev == nil }

// markersHonoured tells whether a coinbase marker may name the fee
// recipient (see Fee routing).
func (a *App) markersHonoured() bool { return !a.sharesFees() }

// blockCoinbase is the fee recipient of a decided block: the fee
// collector where fees are shared, else the address its first
// transaction's marker names or the proposer's reward address.
func (a *App) blockCoinbase(txs [][]byte, proposer []byte) common.Address {
	if len(txs) > 0 && a.markersHonoured() {
		if addr, ok, _ := parseCoinbaseMarker(txs[0]); ok {
			return addr
		}
	}
	return a.RewardAddress(proposer)
}

// validMarkers accepts a proposal whose only marker, if any, is a
// well-formed first transaction, on a chain that honours markers.
func (a *App) validMarkers(txs [][]byte) bool {
	for i, raw := range txs {
		_, ok, malformed := parseCoinbaseMarker(raw)
		if malformed || (ok && (i > 0 || !a.markersHonoured())) {
			return false
		}
	}
	return true
}
