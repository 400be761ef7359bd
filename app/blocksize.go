package app

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/devchain"
	"github.com/emberchain/ember/native"
)

// blockSizeHeadroom is what the EVM transactions of an Osaka block leave
// of EIP-7934's cap on the RLP-encoded block (params.MaxBlockSize) for the
// header and the encoding's list and string prefixes: go-ethereum's miner
// keeps the same margin (its maxBlockSizeBufferZone).
const blockSizeHeadroom = 1_000_000

// nextIsOsaka tells whether the block after the head, decided at decided,
// runs Osaka: its EVM time is decided's seconds, never below the head's
// (newHeader's rule), in the node's schedule.
func (a *App) nextIsOsaka(decided time.Time) bool {
	head := a.store.Head()
	if head == nil {
		return false
	}
	t := uint64(max(decided.Unix(), 0))
	if t < head.Time {
		t = head.Time
	}
	return a.store.Config().IsOsaka(new(big.Int).Add(head.Number, common.Big1), t)
}

// evmBytesCap is the most bytes of EVM transactions a block decided at
// decided may carry, and whether a cap applies: under Osaka (EIP-7934),
// params.MaxBlockSize less the headroom; before it, CometBFT's byte budget
// alone bounds a block.
func (a *App) evmBytesCap(decided time.Time) (int, bool) {
	if !a.nextIsOsaka(decided) {
		return 0, false
	}
	return params.MaxBlockSize - blockSizeHeadroom, true
}

// isEVMRaw tells whether raw, a transaction of a CometBFT block, goes into
// the EVM block (native and dev transactions and the coinbase marker do
// not).
func isEVMRaw(raw []byte) bool {
	if devchain.IsDev(raw) || native.IsNative(raw) {
		return false
	}
	_, marker, _ := parseCoinbaseMarker(raw)
	return !marker
}

// evmBytes is the size of txs' EVM transactions.
func evmBytes(txs [][]byte) int {
	n := 0
	for _, raw := range txs {
		if isEVMRaw(raw) {
			n += len(raw)
		}
	}
	return n
}
