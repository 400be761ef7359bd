package app

import (
	"context"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
	"github.com/emberchain/ember/upgrade"
)

// scheduler is a test module standing in for gov: at block At it
// schedules Plan with upgrade.Schedule, as a passed proposal's
// MsgSoftwareUpgrade does.
type scheduler struct {
	At   int64
	Plan upgrade.Plan
}

func (scheduler) Name() string               { return "scheduler" }
func (scheduler) Msgs() []*module.MsgHandler { return nil }
func (s scheduler) BeginBlock(st module.State, b *module.Block) error {
	if b.Env.Height != s.At {
		return nil
	}
	return upgrade.Schedule(st, s.Plan, b.Env.Height)
}

// upgradeChain is an app over a store directory that a test closes and
// opens again, as a node restarted with another binary would.
type upgradeChain struct {
	t     *testing.T
	dir   string
	gs    *AppState
	sched scheduler
	st    *store.Store
	*App
	halts []Halt
	now   time.Time
}

func newUpgradeChain(t *testing.T, sched scheduler) *upgradeChain {
	key, _ := crypto.GenerateKey()
	// No inflation: the supply moves only if the migration moves coins.
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Mint: mint.ZeroGenesis(DefaultDenom), Alloc: types.GenesisAlloc{
		crypto.PubkeyToAddress(key.PublicKey): {Balance: new(big.Int).Lsh(big.NewInt(1), 100)}}})
	c := &upgradeChain{t: t, dir: t.TempDir(), gs: gs, sched: sched, now: time.Unix(1_700_000_000, 0)}
	c.open()
	if _, err := c.InitChain(context.Background(), &abci.RequestInitChain{ChainId: "ember_9000-1", Time: c.now, InitialHeight: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.st.Close() })
	return c
}

// open starts the app on the store, as a node (re)starting does.
func (c *upgradeChain) open() {
	st, err := store.Open(c.dir, c.gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		c.t.Fatal(err)
	}
	c.st = st
	c.App = New(st, txpool.New(txpool.Config{}), c.gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	c.App.modules = module.NewManager(append(native.Modules.Modules(), c.sched)...)
	c.App.SetChainID("ember_9000-1")
	c.halts = nil
	c.App.SetHalt(func(h Halt) { c.halts = append(c.halts, h) })
}

// restart closes the store (a crash drops the block not committed) and
// opens the app again.
func (c *upgradeChain) restart() {
	c.st.Close()
	c.open()
}

func (c *upgradeChain) finalize(h int64) (*abci.ResponseFinalizeBlock, error) {
	return c.FinalizeBlock(context.Background(), &abci.RequestFinalizeBlock{Height: h, Time: c.now.Add(time.Duration(h) * time.Second),
		ProposerAddress: make([]byte, 20), Hash: make([]byte, 32)})
}

func (c *upgradeChain) block(h int64) *abci.ResponseFinalizeBlock {
	c.t.Helper()
	res, err := c.finalize(h)
	if err != nil {
		c.t.Fatalf("block %d: %v", h, err)
	}
	if _, err := c.Commit(context.Background(), &abci.RequestCommit{}); err != nil {
		c.t.Fatal(err)
	}
	return res
}

func (c *upgradeChain) head() *state.StateDB {
	c.t.Helper()
	st, err := c.st.StateAt(c.st.Head().Root)
	if err != nil {
		c.t.Fatal(err)
	}
	return st
}

func (c *upgradeChain) info() *abci.ResponseInfo {
	res, _ := c.Info(context.Background(), &abci.RequestInfo{})
	return res
}

// TestUpgradeHaltThenApply plays one plan through three binaries on one
// store: the old one halts at the plan's height (again after a restart),
// the new one applies it exactly once, also when it crashes in the block of
// the plan and replays it, and the app version moves from 1 to 2.
func TestUpgradeHaltThenApply(t *testing.T) {
	const name = "app-test-switch"
	plan := upgrade.Plan{Name: name, Height: 5, Info: `{"binaries":{}}`}
	c := newUpgradeChain(t, scheduler{At: 2, Plan: plan})
	for h := int64(1); h <= 4; h++ {
		c.block(h)
	}
	if p, ok := upgrade.CurrentPlan(c.head()); !ok || p != plan {
		t.Fatalf("plan %+v %v", p, ok)
	}
	supply := bank.Supply(c.head())

	// The old binary: no handler, so block 5 is refused, twice.
	for run := 0; run < 2; run++ {
		_, err := c.finalize(5)
		want := `finalize block 5: UPGRADE "app-test-switch" NEEDED at height: 5: {"binaries":{}}`
		if err == nil || err.Error() != want {
			t.Fatalf("run %d: %v, want %s", run, err, want)
		}
		if len(c.halts) != 1 || c.halts[0].Height != 5 || c.halts[0].Upgrade == nil || !c.halts[0].Upgrade.Needed || c.halts[0].Upgrade.Plan != plan {
			t.Fatalf("halts %+v", c.halts)
		}
		if got := c.st.Head().Number.Int64(); got != 4 {
			t.Fatalf("head %d after the halt", got)
		}
		if v := c.info().AppVersion; v != 1 {
			t.Fatalf("Info app version %d, want 1", v)
		}
		c.restart()
	}

	// The new binary. Its first try crashes before the commit.
	runs := 0
	upgrade.Register(name, func(st module.State, ctx *upgrade.Context) error {
		runs++
		return upgrade.TestMigration(st, ctx)
	})
	if err := c.CheckUpgrade(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.finalize(5); err != nil {
		t.Fatal(err)
	}
	c.restart()
	res := c.block(5)
	if runs != 2 {
		t.Fatalf("handler ran %d times in this process, want 2 (once per execution of block 5)", runs)
	}
	st := c.head()
	if at, n := upgrade.TestMarker(st); at != 5 || n != 1 {
		t.Fatalf("marker: ran at %d, %d times in the state; want 5, once", at, n)
	}
	if at, ok := upgrade.Applied(st, name); !ok || at != 5 {
		t.Fatalf("applied %d %v", at, ok)
	}
	if _, ok := upgrade.CurrentPlan(st); ok {
		t.Fatal("plan left after it applied")
	}
	if v := c.info().AppVersion; v != 2 {
		t.Fatalf("Info app version %d, want 2", v)
	}
	if got := bank.Supply(st); got.Cmp(supply) != 0 {
		t.Fatalf("supply %v, want %v", got, supply)
	}
	if !hasEvent(res.Events, "upgrade", "name", name) {
		t.Fatalf("no upgrade event in %v", res.Events)
	}
	// Later blocks and a restart do not run it again.
	c.block(6)
	c.restart()
	if err := c.CheckUpgrade(); err != nil {
		t.Fatal(err)
	}
	c.block(7)
	if _, n := upgrade.TestMarker(c.head()); n != 1 || runs != 2 {
		t.Fatalf("marker runs %d, handler calls %d after blocks 6 and 7", n, runs)
	}
	if v := c.info().AppVersion; v != 2 {
		t.Fatalf("Info app version %d after a restart, want 2", v)
	}
}

// TestUpgradeEarlyBinary: a binary that has the handler of a plan not yet
// due refuses the blocks before it (the SDK's "BINARY UPDATED BEFORE
// TRIGGER"), and applies it at its height.
func TestUpgradeEarlyBinary(t *testing.T) {
	const name = "app-test-early"
	upgrade.Register(name, upgrade.TestMigration)
	c := newUpgradeChain(t, scheduler{At: 1, Plan: upgrade.Plan{Name: name, Height: 3}})
	c.block(1)
	_, err := c.finalize(2)
	if err == nil || !strings.Contains(err.Error(), `BINARY UPDATED BEFORE TRIGGER! UPGRADE "app-test-early" - in binary but not executed on chain`) {
		t.Fatalf("block 2: %v", err)
	}
	if len(c.halts) != 1 || c.halts[0].Upgrade.Needed {
		t.Fatalf("halts %+v", c.halts)
	}
}

// TestHaltHeight: the node's halt height stops the app after that block is
// durable; the next block is refused, and so is a start at that height.
func TestHaltHeight(t *testing.T) {
	c := newUpgradeChain(t, scheduler{})
	c.SetHaltHeight(3)
	c.block(1)
	c.block(2)
	if len(c.halts) != 0 {
		t.Fatalf("halted early: %+v", c.halts)
	}
	c.block(3)
	if len(c.halts) != 1 || c.halts[0].Height != 3 || c.halts[0].Upgrade != nil {
		t.Fatalf("halts %+v", c.halts)
	}
	if _, err := c.finalize(4); err == nil || err.Error() != "halt per configuration height 3" {
		t.Fatalf("block 4: %v", err)
	}
	err := c.CheckUpgrade()
	if err == nil || err.Error() != "halt height 3 reached: the last block is 3; remove --halt-height (halt-height in app.toml) to go on" {
		t.Fatalf("start: %v", err)
	}
	c.SetHaltHeight(0)
	c.block(4)
}

func hasEvent(evs []abci.Event, typ, key, value string) bool {
	for _, e := range evs {
		if e.Type != typ {
			continue
		}
		for _, a := range e.Attributes {
			if a.Key == key && a.Value == value {
				return true
			}
		}
	}
	return false
}
