package anvil

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/devchain"
)

// Anvil is the anvil_ namespace; Hardhat's hardhat_ names are the same
// methods (the node registers it under both, as anvil accepts both).
type Anvil struct{ api *API }

// EVM is the evm_ namespace.
type EVM struct{ api *API }

// Namespaces returns the anvil_ and evm_ services over api.
func (api *API) Namespaces() (*Anvil, *EVM) { return &Anvil{api}, &EVM{api} }

// Mine is anvil_mine(count, interval): count blocks (default 1), the clock
// moved interval seconds before each.
func (a *Anvil) Mine(ctx context.Context, count, interval *Quantity) error {
	return a.api.anvilMine(ctx, count, interval)
}

// SetBalance is anvil_setBalance.
func (a *Anvil) SetBalance(ctx context.Context, addr common.Address, balance Quantity) error {
	return a.api.edit(ctx, devchain.Op{Kind: devchain.SetBalance, Address: &addr, Balance: (*hexutil.Big)(balance.Big())})
}

// SetCode is anvil_setCode.
func (a *Anvil) SetCode(ctx context.Context, addr common.Address, code hexutil.Bytes) error {
	return a.api.edit(ctx, devchain.Op{Kind: devchain.SetCode, Address: &addr, Code: code})
}

// SetNonce is anvil_setNonce.
func (a *Anvil) SetNonce(ctx context.Context, addr common.Address, nonce Quantity) error {
	n, err := nonce.Uint64("nonce")
	if err != nil {
		return err
	}
	v := hexutil.Uint64(n)
	return a.api.edit(ctx, devchain.Op{Kind: devchain.SetNonce, Address: &addr, Nonce: &v})
}

// SetStorageAt is anvil_setStorageAt(address, slot, value); true, as anvil.
func (a *Anvil) SetStorageAt(ctx context.Context, addr common.Address, slot Quantity, value common.Hash) (bool, error) {
	key := common.BigToHash(slot.Big())
	if err := a.api.edit(ctx, devchain.Op{Kind: devchain.SetStorage, Address: &addr, Slot: &key, Value: &value}); err != nil {
		return false, err
	}
	return true, nil
}

// SetNextBlockBaseFeePerGas is anvil_setNextBlockBaseFeePerGas.
func (a *Anvil) SetNextBlockBaseFeePerGas(fee Quantity) error {
	a.api.b.QueueDev(devchain.Op{Kind: devchain.SetBaseFee, BaseFee: (*hexutil.Big)(fee.Big())})
	return nil
}

// SetMinGasPrice is anvil_setMinGasPrice, refused as anvil refuses it on a
// chain with EIP-1559 (every Ember chain): miner_setGasPrice sets the
// node's minimum tip.
func (a *Anvil) SetMinGasPrice(Quantity) error {
	return invalidParams("anvil_setMinGasPrice is not supported when EIP-1559 is active")
}

// SetCoinbase is anvil_setCoinbase: the fee recipient of the next blocks.
func (a *Anvil) SetCoinbase(addr common.Address) error {
	a.api.b.SetEtherbase(addr)
	return nil
}

// DropTransaction is anvil_dropTransaction: the hash if a pooled
// transaction was dropped, else null.
func (a *Anvil) DropTransaction(hash common.Hash) *common.Hash {
	if a.api.b.DropTransaction(hash) {
		return &hash
	}
	return nil
}

// DropAllTransactions is anvil_dropAllTransactions.
func (a *Anvil) DropAllTransactions() error {
	a.api.b.DropAllTransactions()
	return nil
}

// IncreaseTime is anvil_increaseTime, evm_increaseTime's alias.
func (a *Anvil) IncreaseTime(seconds Quantity) (int64, error) { return a.api.increaseTime(seconds) }

// SetNextBlockTimestamp is anvil_setNextBlockTimestamp.
func (a *Anvil) SetNextBlockTimestamp(t Quantity) error { return a.api.setNextBlockTimestamp(t) }

// SetAutomine is anvil_setAutomine (evm_setAutomine).
func (a *Anvil) SetAutomine(ctx context.Context, on bool) error { return a.api.setAutomine(ctx, on) }

// GetAutomine is anvil_getAutomine.
func (a *Anvil) GetAutomine() bool { return a.api.b.Automine() }

// SetIntervalMining is anvil_setIntervalMining (evm_setIntervalMining).
func (a *Anvil) SetIntervalMining(secs Quantity) error { return a.api.setIntervalMining(secs) }

// GetIntervalMining is anvil_getIntervalMining: the seconds between
// interval-mined blocks, or null when off.
func (a *Anvil) GetIntervalMining() *uint64 {
	a.api.mu.Lock()
	defer a.api.mu.Unlock()
	if a.api.interval == 0 {
		return nil
	}
	s := uint64(a.api.interval / time.Second)
	return &s
}

// NodeInfo is anvil_nodeInfo.
func (a *Anvil) NodeInfo(ctx context.Context) (*NodeInfo, error) { return a.api.nodeInfo(ctx) }

// Mine is evm_mine: blocks (default 1), the first at the given timestamp;
// the answer is "0x0", as anvil's.
func (e *EVM) Mine(ctx context.Context, opts *MineOptions) (string, error) {
	if err := e.api.evmMine(ctx, opts); err != nil {
		return "", err
	}
	return "0x0", nil
}

// IncreaseTime is evm_increaseTime: the total clock offset in seconds.
func (e *EVM) IncreaseTime(seconds Quantity) (int64, error) { return e.api.increaseTime(seconds) }

// SetNextBlockTimestamp is evm_setNextBlockTimestamp.
func (e *EVM) SetNextBlockTimestamp(t Quantity) error { return e.api.setNextBlockTimestamp(t) }

// SetAutomine is evm_setAutomine.
func (e *EVM) SetAutomine(ctx context.Context, on bool) error { return e.api.setAutomine(ctx, on) }

// SetIntervalMining is evm_setIntervalMining.
func (e *EVM) SetIntervalMining(secs Quantity) error { return e.api.setIntervalMining(secs) }

// setAutomine turns automine off (transactions wait in the pool for
// evm_mine / anvil_mine) or on again; turning it on mines the waiting
// transactions at once, in one block, so none is left behind. As on
// anvil, automine and interval mining exclude each other: turning
// automine on stops interval mining, and turning it off while interval
// mining changes nothing.
func (api *API) setAutomine(ctx context.Context, on bool) error {
	if on {
		api.setInterval(0)
	}
	if held := api.b.SetAutomine(on); on && held {
		return api.b.MineDev(ctx, [][]devchain.Op{nil})
	}
	return nil
}

// setIntervalMining is anvil's: a block every secs seconds, taking the
// transactions sent meanwhile (automine off: a send answers at admission);
// 0 stops it and leaves no mining at all, as anvil's mining mode "none",
// until evm_mine or evm_setAutomine(true).
func (api *API) setIntervalMining(secs Quantity) error {
	s, err := secs.Uint64("interval")
	if err != nil || s > 1<<30 {
		return invalidParams("interval out of range")
	}
	api.b.SetAutomine(false)
	api.setInterval(time.Duration(s) * time.Second)
	return nil
}

// DumpState is anvil_dumpState: the state at the head, gzip-compressed
// JSON in anvil's shape (devchain.State).
func (a *Anvil) DumpState() (hexutil.Bytes, error) {
	st, err := a.api.b.DumpState()
	if err != nil {
		return nil, err
	}
	return st.Encode()
}

// LoadState is anvil_loadState: applies a dumped state (gzip-compressed
// or plain JSON) as blocks of edits; true once they are committed.
func (a *Anvil) LoadState(ctx context.Context, raw hexutil.Bytes) (bool, error) {
	st, err := devchain.DecodeState(raw)
	if err != nil {
		return false, invalidParams(err.Error())
	}
	if err := a.api.b.LoadState(ctx, st); err != nil {
		return false, err
	}
	return true, nil
}
