package app

import (
	"fmt"

	"github.com/emberchain/ember/upgrade"
)

// Halt is why the app stopped executing blocks: the upgrade module refused
// a block (Upgrade is set: a plan needs another binary, or this binary came
// too early), or the node's halt height was committed (Upgrade is nil).
type Halt struct {
	Height  int64              // the block refused, or the halt height committed
	Upgrade *upgrade.HaltError // nil for the halt height
}

// SetHalt makes fn the receiver of the app's halt: the node writes
// upgrade-info.json and exits. fn runs on the ABCI goroutine, before the
// refusal goes back to CometBFT, and must not block. Call before the node
// starts.
func (a *App) SetHalt(fn func(Halt)) { a.halt = fn }

// SetHaltHeight makes the app stop after committing height (0: never), as
// the SDK's halt-height: it refuses to execute any later block, and
// reports the halt once the block of height is durable.
func (a *App) SetHaltHeight(height int64) { a.haltHeight = height }

// CheckUpgrade refuses to run the chain with a binary that lacks the
// handler of the upgrade plan its state applied last, or that is past its
// halt height: the node must not execute a block with the wrong rules.
func (a *App) CheckUpgrade() error {
	head := a.store.Head()
	if head == nil || head.Number.Sign() == 0 {
		return nil
	}
	if a.haltHeight > 0 && head.Number.Int64() >= a.haltHeight {
		return fmt.Errorf("halt height %d reached: the last block is %v; remove --halt-height (halt-height in app.toml) to go on", a.haltHeight, head.Number)
	}
	st, err := a.store.CachedStateAt(head.Root)
	if err != nil {
		return fmt.Errorf("upgrade check: open state at block %v: %w", head.Number, err)
	}
	return upgrade.CheckBinary(st, head.Number.Int64()+1)
}

// appVersion is the app version the durable head's state records.
func (a *App) appVersion() uint64 {
	head := a.store.Head()
	if head == nil {
		return upgrade.BaseAppVersion
	}
	st, err := a.store.CachedStateAt(head.Root)
	if err != nil {
		return upgrade.BaseAppVersion
	}
	return upgrade.AppVersion(st)
}

// checkHalt refuses a block past the halt height (the SDK's "halt per
// configuration").
func (a *App) checkHalt(height int64) error {
	if a.haltHeight > 0 && height > a.haltHeight {
		return fmt.Errorf("halt per configuration height %d", a.haltHeight)
	}
	return nil
}

// halted reports the upgrade module's refusal of block height (err from
// startBlock) to the node, when it is one.
func (a *App) halted(height int64, err error) {
	if h, ok := upgrade.AsHalt(err); ok && a.halt != nil {
		a.halt(Halt{Height: height, Upgrade: h})
	}
}

// committedHalt reports the halt height once its block is durable.
func (a *App) committedHalt(height int64) {
	if a.haltHeight > 0 && height == a.haltHeight && a.halt != nil {
		a.halt(Halt{Height: height})
	}
}
