package slashing

import (
	"fmt"
	"math/big"

	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// TypeMsgUpdateParams is governance's message that replaces the params.
const TypeMsgUpdateParams = "/cosmos.slashing.v1beta1.MsgUpdateParams"

// GasMsgUpdateParams is its fixed gas.
const GasMsgUpdateParams = 20_000

func msgUpdateParams() *module.MsgHandler {
	return module.GovOnly(TypeMsgUpdateParams, Name, GasMsgUpdateParams, func() *slashingv1beta1.MsgUpdateParams { return new(slashingv1beta1.MsgUpdateParams) },
		module.GovSignerError, func(st module.State, msg *slashingv1beta1.MsgUpdateParams, env *module.Env) error {
			p, err := ParamsFromProto(msg.GetParams())
			if err != nil {
				return err
			}
			return UpdateParams(st, p)
		})
}

// ParamsFromProto reads p and checks it as x/slashing's Params.Validate
// does, in its order and with its messages (decimals arrive as the value
// × 10^18; an empty one is the SDK's nil Dec).
func ParamsFromProto(p *slashingv1beta1.Params) (Params, error) {
	if p == nil {
		p = &slashingv1beta1.Params{}
	}
	out := Params{SignedBlocksWindow: p.SignedBlocksWindow, DowntimeJailDuration: p.GetDowntimeJailDuration().AsDuration()}
	if out.SignedBlocksWindow <= 0 {
		return Params{}, module.ValidationError(fmt.Errorf("signed blocks window must be positive: %d", out.SignedBlocksWindow))
	}
	var err error
	if out.MinSignedPerWindow, err = protoDec("min signed per window", p.MinSignedPerWindow); err != nil {
		return Params{}, module.ValidationError(err)
	}
	if out.DowntimeJailDuration <= 0 {
		return Params{}, module.ValidationError(fmt.Errorf("downtime jail duration must be positive: %s", out.DowntimeJailDuration))
	}
	if out.SlashFractionDoubleSign, err = protoDec("double sign slash fraction", p.SlashFractionDoubleSign); err != nil {
		return Params{}, module.ValidationError(err)
	}
	if out.SlashFractionDowntime, err = protoDec("downtime slash fraction", p.SlashFractionDowntime); err != nil {
		return Params{}, module.ValidationError(err)
	}
	return out, nil
}

// protoDec reads and bounds one fraction, with the SDK's message for a
// nil, negative or too large one.
func protoDec(name string, raw []byte) (dec.Dec, error) {
	if len(raw) == 0 {
		return dec.Zero(), fmt.Errorf("%s cannot be nil: <nil>", name)
	}
	n, ok := new(big.Int).SetString(string(raw), 10)
	if !ok {
		return dec.Zero(), fmt.Errorf("%s %q: want a LegacyDec (the value × 10^18)", name, raw)
	}
	d := dec.FromRaw(n)
	return d, checkFraction(name, d)
}

func checkFraction(name string, d dec.Dec) error {
	if d.IsNegative() {
		return fmt.Errorf("%s cannot be negative: %s", name, d)
	}
	if d.GT(dec.One()) {
		return fmt.Errorf("%s too large: %s", name, d)
	}
	return nil
}

// UpdateParams checks p (Params.Validate: the SDK's rules and messages)
// and writes it, switching the module on if the genesis had left it off.
// Fractions and the jail duration apply from the next block's liveness
// and evidence handling. A new signed_blocks_window restarts every
// validator's window (bitmap cleared, counter and index 0), as a downtime
// jail restarts one: each bit keeps meaning one block of the current
// window, and the counter stays the number of bits set. The SDK leaves
// the old bits where they are, so after a shrink its counter can count
// misses no index reaches any more.
func UpdateParams(st module.State, p Params) error {
	if err := p.Validate(); err != nil {
		return module.ValidationError(err)
	}
	old := GetParams(st)
	if Enabled(st) && old.SignedBlocksWindow != p.SignedBlocksWindow {
		restartWindows(st, old.SignedBlocksWindow)
	}
	setParams(st, p)
	return nil
}

// restartWindows clears every validator's missed-blocks bitmap of a
// window of the given size and zeroes its counter and index.
func restartWindows(st module.State, window int64) {
	for _, info := range SigningInfos(st, 0, SigningInfoCount(st)) {
		if info.IndexOffset == 0 && info.MissedBlocksCounter == 0 {
			continue
		}
		clearMissed(st, info.Address, window, info.MissedBlocksCounter)
		info.MissedBlocksCounter, info.IndexOffset = 0, 0
		setSigningInfo(st, &info)
	}
}
