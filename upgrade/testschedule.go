package upgrade

import "github.com/emberchain/ember/module"

// Heights of the plan a binary built with -tags upgradeschedule schedules
// by itself (testschedule_upgradeschedule.go): at block
// TestScheduleAt it schedules TestUpgradeName for TestPlanHeight, as a
// passed gov proposal would, so that a single node can rehearse an upgrade
// under cosmovisor without governance. The plan height leaves a loaded
// machine time to start the nodes and their load before it.
const (
	TestScheduleAt = 2
	TestPlanHeight = 25
)

// testSchedule is the pre-block work of an upgradeschedule build; nil in
// every other build.
var testSchedule func(st module.State, height int64) error
