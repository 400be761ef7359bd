package app

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/module"
	pool "github.com/emberchain/ember/txpool"
	"github.com/emberchain/ember/upgrade"
)

// OsakaUpgrade is the name of the built-in upgrade plan that moves a chain
// that runs Prague to Osaka at the plan's height: a software-upgrade
// proposal with this plan name, once passed, activates Osaka in the block
// at the plan's height (and every block after it).
const OsakaUpgrade = "osaka"

func init() {
	upgrade.RegisterBuiltin(OsakaUpgrade, activateOsaka)
}

// activateOsaka is the migration of the "osaka" plan: Osaka from the
// plan's block on. blockConfig makes that block's time strictly above its
// parent's, so the recorded time covers no earlier block.
func activateOsaka(st module.State, c *upgrade.Context) error {
	return evm.ActivateFork(st, "osaka", c.Time)
}

// blockConfig is the chain config the block of header runs: the genesis
// config with the fork times the state records. prior are the activations
// the state recorded before the block's pre-block work; one recorded since
// (an upgrade plan's migration) takes effect in this very block, so:
//   - the block's time is raised to its parent's + 1 when it repeats the
//     parent's (EVM times come from CometBFT's in seconds and may repeat),
//     and env follows it, so the parent's time is still before the fork;
//   - the activation time recorded is that header time (a migration may
//     name a later time: it stays, a fork scheduled ahead, and the block's
//     time is left alone).
//
// Every height then has one rule set, the header time's in the schedule:
// the node, a replay for a tracer and go-ethereum all agree.
func (a *App) blockConfig(header *types.Header, env *module.Env, statedb *state.StateDB, prior []evm.Activation) (*params.ChainConfig, error) {
	fresh := newActivations(prior, evm.Activations(statedb))
	if len(fresh) == 0 {
		return a.schedule(evm.ScheduleAt(a.config, statedb)), nil
	}
	if err := a.activateNow(header, env, statedb, fresh); err != nil {
		return nil, err
	}
	cfg := evm.ScheduleAt(a.config, statedb)
	if err := cfg.CheckConfigForkOrder(); err != nil { // e.g. a fork activated before the one it follows
		return nil, fmt.Errorf("block %d: fork schedule after the activation of %v: %w", header.Number, fresh, err)
	}
	return a.schedule(cfg), nil
}

// activateNow applies blockConfig's rule to the activations fresh the
// block's pre-block work recorded.
func (a *App) activateNow(header *types.Header, env *module.Env, statedb *state.StateDB, fresh []evm.Activation) error {
	parent := a.store.HeaderByHash(header.ParentHash)
	if parent == nil {
		return fmt.Errorf("block %d: parent %x not found for the fork activation", header.Number, header.ParentHash)
	}
	due := a.dueNow(fresh, header.Time, parent.Time)
	if len(due) == 0 {
		return nil
	}
	if header.Time <= parent.Time {
		header.Time = parent.Time + 1
		env.Time = time.Unix(int64(header.Time), 0).UTC()
	}
	for _, f := range due {
		if f.Time == header.Time {
			continue
		}
		if err := evm.MoveActivation(statedb, f.Fork, header.Time); err != nil {
			return err
		}
	}
	return nil
}

// dueNow are the activations of fresh that take effect by time t, the
// block's: not one recorded ahead (it waits for its time), nor one the
// genesis schedule already ran by parentTime (the earlier time wins, see
// evm.ScheduleAt: nothing changes).
func (a *App) dueNow(fresh []evm.Activation, t, parentTime uint64) []evm.Activation {
	var due []evm.Activation
	for _, f := range fresh {
		if f.Time <= t && !evm.ActiveBy(a.config, f.Fork, parentTime) {
			due = append(due, f)
		}
	}
	return due
}

// newActivations are the activations of now that prior lacks.
func newActivations(prior, now []evm.Activation) []evm.Activation {
	var fresh []evm.Activation
	for _, n := range now {
		known := false
		for _, p := range prior {
			known = known || p.Fork == n.Fork
		}
		if !known {
			fresh = append(fresh, n)
		}
	}
	return fresh
}

// schedule is cfg, or the node's current config when that schedules the
// same forks, so blocks of one schedule share one config.
func (a *App) schedule(cfg *params.ChainConfig) *params.ChainConfig {
	if cur := a.store.Config(); cur != cfg && evm.SameSchedule(cur, cfg) {
		return cur
	}
	return cfg
}

// syncConfig makes the store's config (what CheckTx, the RPC and the
// explorer read) the schedule st, the durable head's state, records: at
// start, after state sync and after each commit. A reader holds either the
// old config or the new one, never a mix.
func (a *App) syncConfig(st *state.StateDB) {
	cfg := a.schedule(evm.ScheduleAt(a.config, st))
	if cfg != a.store.Config() {
		a.store.SetConfig(cfg)
	}
}

// headIsOsaka tells whether the durable head runs Osaka.
func (a *App) headIsOsaka() bool {
	head := a.store.Head()
	return head != nil && a.store.Config().IsOsaka(head.Number, head.Time)
}

// dropOverCap removes from the pool, once the head runs Osaka (by a
// genesis time or an upgrade), the EVM transactions admitted before it
// with more gas than EIP-7825 allows: no block can run them, and their
// recheck then takes them out of CometBFT's mempool. Caller holds checkMu.
func (a *App) dropOverCap() {
	for _, raw := range a.pool.Raws() {
		ptx := a.pool.Get(pool.KeyOf(raw))
		if ptx == nil {
			continue
		}
		if tx := ptx.EVM(); tx != nil && tx.Gas() > params.MaxTxGas {
			a.pool.Remove(ptx.Key)
		}
	}
}
