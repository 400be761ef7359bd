package upgrade

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/emberchain/ember/module"
)

// Module is the upgrade module the app runs: a PreBlocker that applies
// the current plan at its height, or halts the chain there when this
// binary cannot.
type Module struct{}

// Name implements module.Module.
func (Module) Name() string { return Name }

// HaltError is a refusal of the pre-block work that stops this node at a
// height instead of running the block: the plan due there has no handler
// in this binary (Needed), this binary lacks the handler of the plan
// applied last (Downgrade: Plan is that plan, its Height where it ran), or
// this binary has the handler of a plan not yet due (the SDK's "BINARY
// UPDATED BEFORE TRIGGER"). The node exits with Error() as its message.
type HaltError struct {
	Plan   Plan
	Height int64 // the block refused
	// Needed is true when the plan is due and this binary lacks its
	// handler: upgrade-info.json is then written for cosmovisor.
	Needed bool
	// Downgrade is true for a binary older than the chain's last upgrade;
	// AppVersion is then the chain's app version.
	Downgrade  bool
	AppVersion uint64
}

func (e *HaltError) Error() string {
	switch {
	case e.Needed:
		return NeededMsg(e.Plan)
	case e.Downgrade:
		return fmt.Sprintf("wrong app version %d: upgrade %q was applied at height %d and this binary has no handler for it; run the binary of that upgrade (or a later one)",
			e.AppVersion, e.Plan.Name, e.Plan.Height)
	}
	return fmt.Sprintf("BINARY UPDATED BEFORE TRIGGER! UPGRADE %q - in binary but not executed on chain. Downgrade your binary", e.Plan.Name)
}

// NeededMsg is the SDK's log line of a node halting for plan p
// (BuildUpgradeNeededMsg).
func NeededMsg(p Plan) string {
	return fmt.Sprintf("UPGRADE %q NEEDED at %s: %s", p.Name, p.DueAt(), p.Info)
}

// AsHalt is err's HaltError, if it carries one.
func AsHalt(err error) (*HaltError, bool) {
	var h *HaltError
	ok := errors.As(err, &h)
	return h, ok
}

// PreBlock applies the plan due at this block (the SDK's PreBlocker): with
// its handler, the migration runs once, in this block, before the block's
// EVM exists; without, the node halts here. A binary holding the handler
// of a plan that is not yet due halts too (it would run the blocks before
// the plan with the new rules and fork itself off), unless the handler is
// built in (RegisterBuiltin): every binary of the chain has it.
func (Module) PreBlock(st module.State, b *module.Block) error {
	if !binaryChecked.Load() { // the first block this process runs (state sync included)
		if err := CheckBinary(st, b.Env.Height); err != nil {
			return err
		}
		binaryChecked.Store(true)
	}
	if testSchedule != nil {
		if err := testSchedule(st, b.Env.Height); err != nil {
			return err
		}
	}
	plan, ok := CurrentPlan(st)
	if !ok {
		return nil
	}
	height := b.Env.Height
	h, have := HandlerFor(plan.Name)
	if plan.Height > height {
		if have && !Builtin(plan.Name) {
			return &HaltError{Plan: plan, Height: height}
		}
		return nil
	}
	if !have {
		return &HaltError{Plan: plan, Height: height, Needed: true}
	}
	return apply(st, b, plan, h)
}

// apply runs h for plan in block b: its changes, the record of the plan as
// done, the app version bumped and the plan cleared commit with the block
// or not at all, so a crash before the commit runs it again from the
// parent state and never twice. A handler's error reverts its changes and
// halts the chain at this height.
func apply(st module.State, b *module.Block, plan Plan, h Handler) error {
	snap := st.Snapshot()
	c := &Context{Plan: plan, Height: b.Env.Height, Time: uint64(max(b.Env.Time.Unix(), 0))}
	if err := h(st, c); err != nil {
		st.RevertToSnapshot(snap)
		return fmt.Errorf("upgrade %q at height %d: %w", plan.Name, b.Env.Height, err)
	}
	clearPlan(st)
	setDone(st, plan.Name, b.Env.Height)
	b.Events.Add("upgrade", "name", plan.Name, "height", strconv.FormatInt(b.Env.Height, 10),
		"app_version", strconv.FormatUint(AppVersion(st), 10))
	return nil
}

// binaryChecked is set once CheckBinary passed in this process: the
// binary does not change while it runs.
var binaryChecked atomic.Bool

// CheckBinary refuses to run block next on st with a binary that lacks the
// handler of the plan applied last (the SDK's downgrade check): it would
// execute the blocks after that plan with the rules from before it. As in
// the SDK, a plan due at next skips the check: a new binary need not keep
// its predecessors' handlers, and the plan's own check comes in PreBlock.
func CheckBinary(st module.Reader, next int64) error {
	name, height, ok := LastApplied(st)
	if !ok {
		return nil
	}
	if p, due := CurrentPlan(st); due && p.Height <= next {
		return nil
	}
	if _, have := HandlerFor(name); !have {
		return &HaltError{Plan: Plan{Name: name, Height: height}, Height: next, Downgrade: true, AppVersion: AppVersion(st)}
	}
	return nil
}
