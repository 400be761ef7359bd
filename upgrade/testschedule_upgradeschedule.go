//go:build upgradeschedule

package upgrade

import "github.com/emberchain/ember/module"

// A binary built with -tags upgradeschedule schedules the test plan by
// itself: the cosmovisor rehearsal of test/e2e/upgrade_test.go.
func init() {
	testSchedule = func(st module.State, height int64) error {
		if height != TestScheduleAt {
			return nil
		}
		return Schedule(st, Plan{Name: TestUpgradeName, Height: TestPlanHeight, Info: `{"binaries":{}}`}, height)
	}
}
