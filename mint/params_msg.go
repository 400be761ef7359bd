package mint

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	mintv1beta1 "cosmossdk.io/api/cosmos/mint/v1beta1"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// TypeMsgUpdateParams is governance's message that replaces the params.
const TypeMsgUpdateParams = "/cosmos.mint.v1beta1.MsgUpdateParams"

// GasMsgUpdateParams is its fixed gas.
const GasMsgUpdateParams = 20_000

func msgUpdateParams() *module.MsgHandler {
	return module.GovOnly(TypeMsgUpdateParams, Name, GasMsgUpdateParams, func() *mintv1beta1.MsgUpdateParams { return new(mintv1beta1.MsgUpdateParams) },
		module.GovSignerError, func(st module.State, msg *mintv1beta1.MsgUpdateParams, env *module.Env) error {
			p, err := ParamsFromProto(msg.GetParams(), env.Denom)
			if err != nil {
				return err
			}
			return UpdateParams(st, p)
		})
}

// ParamsFromProto checks p as x/mint's Params.Validate does, in its order
// and with its messages (decimals arrive as the value × 10^18; an empty
// one is the SDK's nil Dec), and then Ember's rule: the mint denom is the
// chain's only coin, chainDenom.
func ParamsFromProto(p *mintv1beta1.Params, chainDenom string) (Params, error) {
	if p == nil {
		p = &mintv1beta1.Params{}
	}
	if err := ValidateMintDenom(p.MintDenom); err != nil {
		return Params{}, module.ValidationError(err)
	}
	var out Params
	for _, f := range []struct {
		name, raw string
		to        *dec.Dec
		check     func(dec.Dec) error
	}{
		{"inflation rate change", p.InflationRateChange, &out.InflationRateChange, ValidateInflationRateChange},
		{"max inflation", p.InflationMax, &out.InflationMax, ValidateInflationMax},
		{"min inflation", p.InflationMin, &out.InflationMin, ValidateInflationMin},
		{"goal bonded", p.GoalBonded, &out.GoalBonded, ValidateGoalBonded},
	} {
		n, ok := new(big.Int).SetString(f.raw, 10)
		if !ok {
			return Params{}, module.ValidationError(fmt.Errorf("%s cannot be nil: <nil>", f.name))
		}
		*f.to = dec.FromRaw(n)
		if err := f.check(*f.to); err != nil {
			return Params{}, module.ValidationError(err)
		}
	}
	out.BlocksPerYear = p.BlocksPerYear
	if err := out.ValidateSDK(); err != nil {
		return Params{}, module.ValidationError(err)
	}
	if p.MintDenom != chainDenom {
		return Params{}, module.ValidationError(fmt.Errorf("mint denom %s: the chain's only coin is %s, which mint always mints", p.MintDenom, chainDenom))
	}
	return out, nil
}

// denomPattern is the SDK's coin denomination rule (types/coin.go).
var denomPattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$`)

// ValidateMintDenom is x/mint's rule for mint_denom.
func ValidateMintDenom(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("mint denom cannot be blank")
	}
	if !denomPattern.MatchString(s) {
		return fmt.Errorf("invalid denom: %s", s)
	}
	return nil
}

func fraction(name string, d dec.Dec) error {
	if d.IsNegative() {
		return fmt.Errorf("%s cannot be negative: %s", name, d)
	}
	if d.GT(dec.One()) {
		return fmt.Errorf("%s too large: %s", name, d)
	}
	return nil
}

// ValidateInflationRateChange is x/mint's rule for inflation_rate_change.
func ValidateInflationRateChange(d dec.Dec) error { return fraction("inflation rate change", d) }

// ValidateInflationMax is x/mint's rule for inflation_max.
func ValidateInflationMax(d dec.Dec) error { return fraction("max inflation", d) }

// ValidateInflationMin is x/mint's rule for inflation_min.
func ValidateInflationMin(d dec.Dec) error { return fraction("min inflation", d) }

// ValidateGoalBonded is x/mint's rule for goal_bonded.
func ValidateGoalBonded(d dec.Dec) error {
	if !d.IsPositive() {
		return fmt.Errorf("goal bonded must be positive: %s", d)
	}
	if d.GT(dec.One()) {
		return fmt.Errorf("goal bonded too large: %s", d)
	}
	return nil
}

// ValidateBlocksPerYear is x/mint's rule for blocks_per_year.
func ValidateBlocksPerYear(n uint64) error {
	if n == 0 {
		return fmt.Errorf("blocks per year must be positive: %d", n)
	}
	return nil
}

// ValidateSDK is x/mint's Params.Validate but the denom, in its order and
// with its messages.
func (p Params) ValidateSDK() error {
	for _, err := range []error{
		ValidateInflationRateChange(p.InflationRateChange), ValidateInflationMax(p.InflationMax),
		ValidateInflationMin(p.InflationMin), ValidateGoalBonded(p.GoalBonded), ValidateBlocksPerYear(p.BlocksPerYear),
	} {
		if err != nil {
			return err
		}
	}
	if p.InflationMax.LT(p.InflationMin) {
		return fmt.Errorf("max inflation (%s) must be greater than or equal to min inflation (%s)", p.InflationMax, p.InflationMin)
	}
	return nil
}

// UpdateParams checks p (ValidateSDK) and writes it, keeping the minter:
// the next block's begin-block moves the inflation by the new rate within
// the new bounds. It refuses on a chain without the module.
func UpdateParams(st module.State, p Params) error {
	if !Enabled(st) {
		return module.SDKError(module.CodeUnknownRequest, "mint is not enabled on this chain (no app_state.mint at genesis)")
	}
	if err := p.ValidateSDK(); err != nil {
		return module.ValidationError(err)
	}
	return Init(st, p, GetMinter(st))
}
