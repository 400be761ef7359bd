package distribution

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// The staking hooks, as the SDK's distribution hooks answer them. They do
// nothing while the module is off (a genesis without its section).

// AfterValidatorCreated starts the validator's records.
func (k *Keeper) AfterValidatorCreated(st module.State, val common.Address) error {
	if Enabled(st) {
		initializeValidator(st, val)
	}
	return nil
}

// BeforeDelegationCreated closes the validator's period, so the new
// delegation counts from a period its stake took no part in.
func (k *Keeper) BeforeDelegationCreated(st module.State, _, val common.Address) error {
	if !Enabled(st) {
		return nil
	}
	_, err := k.incrementPeriod(st, val)
	return err
}

// BeforeDelegationSharesModified pays the delegation's rewards so far at
// its old stake.
func (k *Keeper) BeforeDelegationSharesModified(st module.State, del, val common.Address) error {
	if _, ok := Starting(st, del, val); !Enabled(st) || !ok {
		return nil // a delegation from before the module was on earned nothing
	}
	ev, idx := module.EventsOf(st) // the message's (or the block's) events, as the SDK emits them
	_, err := k.withdrawDelegation(st, ev, del, val, idx)
	return err
}

// AfterDelegationModified starts counting again at the new stake; a
// delegation left with no shares is gone, and so is its record.
func (k *Keeper) AfterDelegationModified(st module.State, del, val common.Address) error {
	if !Enabled(st) {
		return nil
	}
	if shares, ok := k.Staking.DelegationShares(st, del, val); !ok || shares.IsZero() {
		if si, had := Starting(st, del, val); had {
			if err := decrementReference(st, val, si.PreviousPeriod); err != nil {
				return err
			}
			deleteStarting(st, del, val)
		}
		return nil
	}
	k.initializeDelegation(st, del, val)
	return nil
}

// BeforeValidatorSlashed ends the validator's period at its stake before
// the slash and records the slash event, which later withdrawals walk.
func (k *Keeper) BeforeValidatorSlashed(st module.State, val common.Address, fraction dec.Dec) error {
	if !Enabled(st) {
		return nil
	}
	if fraction.IsNegative() || fraction.GT(dec.One()) {
		return fmt.Errorf("distribution: slash fraction %s of %s out of [0, 1]", fraction, val.Hex())
	}
	period, err := k.incrementPeriod(st, val)
	if err != nil {
		return err
	}
	incrementReference(st, val, period)
	appendSlashEvent(st, val, SlashEvent{Height: height(st), Period: period, Fraction: fraction})
	return nil
}
