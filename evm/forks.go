package evm

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// ForkStateAddress is the system account whose storage records the forks an
// upgrade activated: slot i (the fork's place in Forks, from 1) holds
// 2^64 + its activation time, so an unrecorded fork (zero) and a fork
// recorded at time 0 differ. The AppHash covers it, and every node reads the
// schedule of a height from the state of that height.
var ForkStateAddress = common.HexToAddress("0x0000000000000000000000000000000000000B61")

var forkStore = slots.Account(ForkStateAddress)

// recordedBit marks a slot that holds an activation.
var recordedBit = new(big.Int).Lsh(big.NewInt(1), 64)

// fork is one go-ethereum fork an upgrade can activate, and where the
// chain config keeps its time. (go-ethereum's named forks after Prague carry
// no blob config of their own: Osaka runs Prague's.)
type fork struct {
	name string
	time func(*params.ChainConfig) **uint64
}

// forks are the forks after Prague that this binary can schedule, in order.
// The next one (Amsterdam) joins this list when go-ethereum ships its rules.
var forks = []fork{
	{
		name: "osaka",
		time: func(c *params.ChainConfig) **uint64 { return &c.OsakaTime },
	},
}

// Forks are the names of the forks an upgrade can activate, in order.
func Forks() []string {
	names := make([]string, len(forks))
	for i, f := range forks {
		names[i] = f.name
	}
	return names
}

// Activation is a fork an upgrade recorded and the EVM time it took effect.
type Activation struct {
	Fork string
	Time uint64
}

func forkSlot(i int) common.Hash { return slots.Word(uint64(i) + 1) }

func forkIndex(name string) (int, error) {
	for i, f := range forks {
		if f.name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown EVM fork %q: this binary can activate %s", name, strings.Join(Forks(), ", "))
}

// recorded reads fork i's activation time, if an upgrade recorded one.
func recorded(st module.Reader, i int) (uint64, bool) {
	v := forkStore.Big(st, forkSlot(i))
	if v.Cmp(recordedBit) < 0 {
		return 0, false
	}
	return new(big.Int).Sub(v, recordedBit).Uint64(), true
}

// ActiveBy tells whether cfg runs fork by time t without any activation
// recorded (its genesis schedule): an activation of it then changes nothing.
func ActiveBy(cfg *params.ChainConfig, fork string, t uint64) bool {
	i, err := forkIndex(fork)
	if err != nil {
		return false
	}
	at := *forks[i].time(cfg)
	return at != nil && *at <= t
}

// Activations are the forks the state records, in fork order.
func Activations(st module.Reader) []Activation {
	var out []Activation
	for i, f := range forks {
		if t, ok := recorded(st, i); ok {
			out = append(out, Activation{Fork: f.name, Time: t})
		}
	}
	return out
}

// ActivateFork records that fork takes effect at EVM time time: every block
// whose header time is at least time runs it (ScheduleAt). An upgrade's
// migration calls it with its block's time, which the app makes strictly
// above the parent's (see app.blockConfig), so no earlier block falls under
// the new rules. A fork is recorded once. Whether the forks before it run
// by then depends on the genesis schedule too: the app checks the order of
// the resulting schedule (go-ethereum's CheckConfigForkOrder).
func ActivateFork(st module.State, fork string, time uint64) error {
	i, err := forkIndex(fork)
	if err != nil {
		return err
	}
	if t, ok := recorded(st, i); ok {
		return fmt.Errorf("EVM fork %q already activated at time %d", fork, t)
	}
	setActivation(st, i, time)
	return nil
}

// MoveActivation changes the time of a fork recorded in the block being
// built to that block's final header time (app.blockConfig's rule).
func MoveActivation(st module.State, fork string, time uint64) error {
	i, err := forkIndex(fork)
	if err != nil {
		return err
	}
	if _, ok := recorded(st, i); !ok {
		return fmt.Errorf("EVM fork %q is not recorded", fork)
	}
	setActivation(st, i, time)
	return nil
}

func setActivation(st module.State, i int, time uint64) {
	if st.GetNonce(ForkStateAddress) == 0 { // an account with storage only would be empty (EIP-161)
		st.SetNonce(ForkStateAddress, 1, tracing.NonceChangeGenesis)
	}
	v := new(big.Int).Add(recordedBit, new(big.Int).SetUint64(time))
	forkStore.SetBig(st, forkSlot(i), v)
}

// ScheduleAt is base (the genesis chain config, whose fork times are the
// chain's own schedule) with the activations st records: a recorded fork
// takes the earlier of its genesis time and its recorded time. It returns
// base itself when st records nothing that changes it, so callers can tell a
// new schedule by pointer.
func ScheduleAt(base *params.ChainConfig, st module.Reader) *params.ChainConfig {
	var cfg *params.ChainConfig
	for i, f := range forks {
		t, ok := recorded(st, i)
		if !ok {
			continue
		}
		if cur := *f.time(base); cur != nil && *cur <= t {
			continue
		}
		if cfg == nil {
			c := *base // shallow: only fork times change, and they are replaced, not written through
			cfg = &c
		}
		*f.time(cfg) = &t
	}
	if cfg == nil {
		return base
	}
	return cfg
}

// SameSchedule tells whether a and b schedule every fork Forks lists at the
// same time (a swap of the node's config is needed when they do not).
func SameSchedule(a, b *params.ChainConfig) bool {
	for _, f := range forks {
		x, y := *f.time(a), *f.time(b)
		if (x == nil) != (y == nil) || (x != nil && *x != *y) {
			return false
		}
	}
	return true
}

// CheckSchedule refuses a genesis config that schedules a fork after the
// last one this binary runs (Osaka): go-ethereum carries the rules of
// forks still in development (Amsterdam, Bogota, UBT), and a chain must
// not start on them by a line in its genesis.
func CheckSchedule(cfg *params.ChainConfig) error {
	for _, f := range []struct {
		name string
		time *uint64
	}{{"amsterdam", cfg.AmsterdamTime}, {"bogota", cfg.BogotaTime}, {"ubt", cfg.UBTTime}} {
		if f.time != nil {
			return fmt.Errorf("schedules the %s fork, which this binary does not run (the last is %s)", f.name, forks[len(forks)-1].name)
		}
	}
	return nil
}
