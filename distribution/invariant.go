package distribution

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Invariant checks that the pool holds exactly what the records account
// for: its balance equals the community pool plus the outstanding rewards
// of validators (every validator distribution ever credited). Allocation
// splits what comes in into Decs that sum to it, and every payment takes
// from the records exactly the whole units it pays, so the sum of the
// records is always an integer equal to the balance.
func Invariant(st module.Reader, validators []common.Address) error {
	records := CommunityPool(st)
	for _, op := range validators {
		records = records.Add(Outstanding(st, op))
	}
	if pool := dec.FromInt(st.GetBalance(Pool).ToBig()); !pool.Equal(records) {
		return fmt.Errorf("distribution pool holds %s, its records %s", pool, records)
	}
	return nil
}
