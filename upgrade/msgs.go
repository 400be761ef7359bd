package upgrade

import (
	upgradev1beta1 "cosmossdk.io/api/cosmos/upgrade/v1beta1"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
)

// Type URLs of the module's messages.
const (
	TypeMsgSoftwareUpgrade = "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade"
	TypeMsgCancelUpgrade   = "/cosmos.upgrade.v1beta1.MsgCancelUpgrade"
)

// Fixed gas of the module's messages.
const (
	GasMsgSoftwareUpgrade = 30_000
	GasMsgCancelUpgrade   = 20_000
)

// Msgs implements module.Module: MsgSoftwareUpgrade and MsgCancelUpgrade,
// which only the gov account may send.
func (Module) Msgs() []*module.MsgHandler {
	return []*module.MsgHandler{msgSoftwareUpgrade(), msgCancelUpgrade()}
}

func msgSoftwareUpgrade() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgSoftwareUpgrade, Module: Name, Gas: GasMsgSoftwareUpgrade,
		New: func() proto.Message { return new(upgradev1beta1.MsgSoftwareUpgrade) },
		Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
			msg := p.(*upgradev1beta1.MsgSoftwareUpgrade)
			if err := decodeAuthority(msg.Authority, m, c); err != nil {
				return err
			}
			_, err := planOf(msg.Plan)
			return err
		},
		Check: func(st module.Reader, m *module.Msg) error {
			p, _ := planOf(m.Proto.(*upgradev1beta1.MsgSoftwareUpgrade).Plan)
			// The block the message runs in is not known here: the height
			// check waits for execution.
			return checkSchedule(st, p, 0)
		},
		Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
			p, _ := planOf(m.Proto.(*upgradev1beta1.MsgSoftwareUpgrade).Plan)
			return Schedule(st, p, c.Env.Height)
		},
	}
}

func msgCancelUpgrade() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgCancelUpgrade, Module: Name, Gas: GasMsgCancelUpgrade,
		New: func() proto.Message { return new(upgradev1beta1.MsgCancelUpgrade) },
		Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
			return decodeAuthority(p.(*upgradev1beta1.MsgCancelUpgrade).Authority, m, c)
		},
		Exec: func(st module.State, _ *module.Msg, _ *module.MsgContext) error { return Cancel(st) },
	}
}

// decodeAuthority makes the gov account the message's signer, or refuses
// with the SDK's ErrInvalidSigner ("expected <gov> got <authority>").
func decodeAuthority(authority string, m *module.Msg, c module.Codec) error {
	gov := accounts.Bech32(c.Prefix, module.GovAuthority)
	a, err := accounts.ParseAddress(c.Prefix, authority)
	if err != nil || a != module.GovAuthority {
		return NewError(CodeInvalidSigner).WithDetail("expected %s got %s", gov, authority)
	}
	m.Signer = a
	return nil
}

// planOf converts and validates the message's plan as the SDK's
// MsgSoftwareUpgrade.ValidateBasic does ("plan: ..." wrapping).
func planOf(p *upgradev1beta1.Plan) (Plan, error) {
	if p == nil {
		p = new(upgradev1beta1.Plan)
	}
	out := Plan{Name: p.Name, Height: p.Height, Info: p.Info}
	var err error
	switch {
	case p.Time != nil && !noTime(p.Time.Seconds, p.Time.Nanos):
		err = module.SDKError(module.CodeInvalidRequest, "time-based upgrades have been deprecated in the SDK")
	case p.UpgradedClientState != nil:
		err = module.SDKError(module.CodeInvalidRequest, "upgrade logic for IBC has been moved to the IBC module")
	default:
		err = out.ValidateBasic()
	}
	if err != nil {
		e := module.AsError(err)
		return out, e.WithDetail("plan: %s", e.Detail)
	}
	return out, nil
}

// zeroTimeSeconds is Go's zero time.Time (0001-01-01T00:00:00Z) as Unix
// seconds: the SDK's CLI writes it for an unset plan time.
const zeroTimeSeconds = -62135596800

// noTime tells whether a plan's time is unset: Go's zero time, or an empty
// Timestamp (what cosmjs writes for a plan without one).
func noTime(sec int64, nanos int32) bool {
	return nanos == 0 && (sec == zeroTimeSeconds || sec == 0)
}

// NewMsgSoftwareUpgrade is the message a gov proposal carries to schedule
// p, with the gov account (bech32 with prefix) as its authority.
func NewMsgSoftwareUpgrade(prefix string, p Plan) *upgradev1beta1.MsgSoftwareUpgrade {
	return &upgradev1beta1.MsgSoftwareUpgrade{Authority: accounts.Bech32(prefix, module.GovAuthority),
		Plan: &upgradev1beta1.Plan{Name: p.Name, Height: p.Height, Info: p.Info}}
}

// NewMsgCancelUpgrade is the message a gov proposal carries to drop the
// current plan.
func NewMsgCancelUpgrade(prefix string) *upgradev1beta1.MsgCancelUpgrade {
	return &upgradev1beta1.MsgCancelUpgrade{Authority: accounts.Bech32(prefix, module.GovAuthority)}
}
