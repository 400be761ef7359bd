package upgrade

import (
	"fmt"

	"github.com/emberchain/ember/module"
)

// Name is the module's name.
const Name = "upgrade"

// CodespaceUpgrade is the codespace of the module's errors.
const CodespaceUpgrade = "upgrade"

// Upgrade module error codes (x/upgrade/types/errors.go).
const (
	CodeNoUpgradePlanFound uint32 = 3
	CodeInvalidSigner      uint32 = 6
)

var errDesc = map[uint32]string{
	CodeNoUpgradePlanFound: "upgrade plan not found",
	CodeInvalidSigner:      "expected authority account as only signer for proposal message",
}

// NewError is the module's error of code with its registered description.
func NewError(code uint32) *module.Error {
	return &module.Error{Codespace: CodespaceUpgrade, Code: code, Desc: errDesc[code]}
}

// ValidateBasic checks p as the SDK's Plan.ValidateBasic does (the time
// and IBC fields do not exist here: the messages' handlers check them).
func (p Plan) ValidateBasic() error {
	if p.Name == "" {
		return module.SDKError(module.CodeInvalidRequest, "name cannot be empty")
	}
	if p.Height <= 0 {
		return module.SDKError(module.CodeInvalidRequest, "height must be greater than 0")
	}
	return nil
}

// DueAt is where the plan applies, as the SDK's Plan.DueAt writes it.
func (p Plan) DueAt() string { return fmt.Sprintf("height: %d", p.Height) }

// Schedule validates p and stores it as the current plan, replacing any
// other (the SDK's Keeper.ScheduleUpgrade), in the block at height. A plan
// must apply after that block: its pre-block work has already run, so a
// plan for height itself would never apply.
func Schedule(st module.State, p Plan, height int64) error {
	if err := p.ValidateBasic(); err != nil {
		return err
	}
	if err := checkSchedule(st, p, height); err != nil {
		return err
	}
	setPlan(st, p)
	return nil
}

// checkSchedule is Schedule's check against the state.
func checkSchedule(st module.Reader, p Plan, height int64) error {
	if p.Height <= height {
		return module.SDKError(module.CodeInvalidRequest, "upgrade cannot be scheduled in the past")
	}
	if _, done := Applied(st, p.Name); done {
		return module.SDKError(module.CodeInvalidRequest, "upgrade with name %s has already been completed", p.Name)
	}
	return nil
}

// Cancel drops the current plan, if any (the SDK's ClearUpgradePlan: no
// plan is not an error).
func Cancel(st module.State) error {
	clearPlan(st)
	return nil
}
