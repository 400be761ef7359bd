// Package paramchange executes the legacy cosmos.params.v1beta1
// ParameterChangeProposal, which Evmos-era tooling and Keplr still submit:
// each change names a subspace (staking, slashing, distribution, mint,
// feemarket), a key as the SDK's legacy param store spelled it
// ("MaxValidators", "communitytax", …) and a value in the legacy amino
// JSON ("100" for a uint32, "\"1814400000000000\"" for a duration in
// nanoseconds or a 64-bit integer, "\"0.050000000000000000\"" for a
// decimal, "true", "\"aember\"").
//
// Apply checks every change, and then each touched module's params as a
// whole, before it writes any; a refusal is the SDK's params error and
// changes nothing.
package paramchange

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	paramsv1beta1 "cosmossdk.io/api/cosmos/params/v1beta1"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/feemarket"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slashing"
	"github.com/emberchain/ember/staking"
)

// ContentType is the type URL of the proposal content Apply executes.
const ContentType = "/cosmos.params.v1beta1.ParameterChangeProposal"

// Codespace is x/params's; the codes are its proposal errors.
const Codespace = "params"

// x/params/types/proposal error codes.
const (
	CodeUnknownSubspace  uint32 = 2
	CodeSettingParameter uint32 = 3
	CodeEmptyChanges     uint32 = 4
	CodeEmptySubspace    uint32 = 5
	CodeEmptyKey         uint32 = 6
	CodeEmptyValue       uint32 = 7
)

var descs = map[uint32]string{
	CodeUnknownSubspace:  "unknown subspace",
	CodeSettingParameter: "failed to set parameter",
	CodeEmptyChanges:     "submitted parameter changes are empty",
	CodeEmptySubspace:    "parameter subspace is empty",
	CodeEmptyKey:         "parameter key is empty",
	CodeEmptyValue:       "parameter value is empty",
}

func paramsErr(code uint32) *module.Error {
	return &module.Error{Codespace: Codespace, Code: code, Desc: descs[code]}
}

// settingErr is the SDK's ErrSettingParameter for change c.
func settingErr(c *paramsv1beta1.ParamChange, err error) *module.Error {
	return paramsErr(CodeSettingParameter).WithDetail("key: %s, value: %s, err: %v", c.Key, c.Value, err)
}

// Apply validates every change and each touched module's resulting params,
// then writes them. Nothing is written when anything is refused.
func Apply(st module.State, changes []*paramsv1beta1.ParamChange) error {
	if err := ValidateBasic(changes); err != nil {
		return err
	}
	p := load(st)
	for _, c := range changes {
		sub, ok := subspaces[c.Subspace]
		if !ok {
			return paramsErr(CodeUnknownSubspace).WithDetail("%s", c.Subspace)
		}
		set, ok := sub.keys[c.Key]
		if !ok {
			return settingErr(c, fmt.Errorf("parameter %s not registered", c.Key))
		}
		if err := set(p, c.Value); err != nil {
			return settingErr(c, err)
		}
		p.touched[c.Subspace] = true
	}
	for _, name := range order {
		if !p.touched[name] {
			continue
		}
		if err := subspaces[name].check(st, p); err != nil {
			return paramsErr(CodeSettingParameter).WithDetail("subspace %s: %v", name, err)
		}
	}
	snap := st.Snapshot()
	for _, name := range order {
		if !p.touched[name] {
			continue
		}
		if err := subspaces[name].save(st, p); err != nil {
			st.RevertToSnapshot(snap)
			return paramsErr(CodeSettingParameter).WithDetail("subspace %s: %v", name, err)
		}
	}
	return nil
}

// ValidateBasic is the proposal's stateless check (the SDK's
// ValidateChanges).
func ValidateBasic(changes []*paramsv1beta1.ParamChange) error {
	if len(changes) == 0 {
		return paramsErr(CodeEmptyChanges)
	}
	for _, c := range changes {
		switch {
		case c.GetSubspace() == "":
			return paramsErr(CodeEmptySubspace)
		case c.GetKey() == "":
			return paramsErr(CodeEmptyKey)
		case c.GetValue() == "":
			return paramsErr(CodeEmptyValue)
		}
	}
	return nil
}

// pending are the params of every subspace, as read and then changed.
type pending struct {
	staking      staking.Params
	slashing     slashing.Params
	distribution distribution.Params
	mint         mint.Params
	minBaseFee   *big.Int
	bondDenom    string // the chain's coin as staking records it ("" when it records none)
	touched      map[string]bool
}

func load(st module.Reader) *pending {
	fee, _ := feemarket.GetParams(st)
	p := &pending{
		staking: staking.GetParams(st), slashing: slashing.GetParams(st), distribution: distribution.GetParams(st),
		mint: mint.GetParams(st), minBaseFee: fee.MinBaseFee, touched: map[string]bool{},
	}
	p.bondDenom = p.staking.BondDenom
	return p
}

// subspace is one module's legacy param set: a setter per key, the check
// of the module's params as a whole, and their write.
type subspace struct {
	keys  map[string]func(p *pending, value string) error
	check func(st module.Reader, p *pending) error
	save  func(st module.State, p *pending) error
}

// order is the order touched subspaces are checked and written in.
var order = []string{staking.Name, slashing.Name, distribution.Name, mint.Name, feemarket.Name}

var subspaces = map[string]*subspace{
	staking.Name: {
		keys: map[string]func(*pending, string) error{
			"UnbondingTime": func(p *pending, v string) error {
				return setDuration(v, &p.staking.UnbondingTime, staking.ValidateUnbondingTime)
			},
			"MaxValidators": func(p *pending, v string) error {
				return setUint32(v, &p.staking.MaxValidators, staking.ValidateMaxValidators)
			},
			"MaxEntries": func(p *pending, v string) error {
				return setUint32(v, &p.staking.MaxEntries, staking.ValidateMaxEntries)
			},
			"HistoricalEntries": func(p *pending, v string) error {
				return setUint32(v, &p.staking.HistoricalEntries, func(uint64) error { return nil })
			},
			"BondDenom": func(p *pending, v string) error {
				return setDenom(v, p, &p.staking.BondDenom, staking.ValidateBondDenom)
			},
			"MinCommissionRate": func(p *pending, v string) error {
				return setDec(v, &p.staking.MinCommissionRate, staking.ValidateMinCommissionRate)
			},
		},
		check: func(_ module.Reader, p *pending) error { return p.staking.Validate() },
		save:  func(st module.State, p *pending) error { return staking.UpdateParams(st, p.staking) },
	},
	slashing.Name: {
		keys: map[string]func(*pending, string) error{
			"SignedBlocksWindow": func(p *pending, v string) error {
				return setInt64(v, &p.slashing.SignedBlocksWindow, func(n int64) error {
					if n <= 0 {
						return fmt.Errorf("signed blocks window must be positive: %d", n)
					}
					return nil
				})
			},
			"MinSignedPerWindow": func(p *pending, v string) error {
				return setDec(v, &p.slashing.MinSignedPerWindow, fractionRule("min signed per window"))
			},
			"DowntimeJailDuration": func(p *pending, v string) error {
				return setDuration(v, &p.slashing.DowntimeJailDuration, func(d time.Duration) error {
					if d <= 0 {
						return fmt.Errorf("downtime jail duration must be positive: %s", d)
					}
					return nil
				})
			},
			"SlashFractionDoubleSign": func(p *pending, v string) error {
				return setDec(v, &p.slashing.SlashFractionDoubleSign, fractionRule("double sign slash fraction"))
			},
			"SlashFractionDowntime": func(p *pending, v string) error {
				return setDec(v, &p.slashing.SlashFractionDowntime, fractionRule("downtime slash fraction"))
			},
		},
		check: func(_ module.Reader, p *pending) error { return p.slashing.Validate() },
		save:  func(st module.State, p *pending) error { return slashing.UpdateParams(st, p.slashing) },
	},
	distribution.Name: {
		keys: map[string]func(*pending, string) error{
			"communitytax": func(p *pending, v string) error {
				return setDec(v, &p.distribution.CommunityTax, legacyRate("community tax"))
			},
			"baseproposerreward": func(p *pending, v string) error {
				return setDec(v, &p.distribution.BaseProposerReward, legacyRate("base proposer reward"))
			},
			"bonusproposerreward": func(p *pending, v string) error {
				return setDec(v, &p.distribution.BonusProposerReward, legacyRate("bonus proposer reward"))
			},
			"withdrawaddrenabled": func(p *pending, v string) error {
				return json.Unmarshal([]byte(v), &p.distribution.WithdrawAddrEnabled)
			},
		},
		check: func(st module.Reader, p *pending) error {
			if !distribution.Enabled(st) {
				return fmt.Errorf("distribution is not enabled on this chain (no app_state.distribution at genesis)")
			}
			return p.distribution.Validate()
		},
		save: func(st module.State, p *pending) error { return distribution.UpdateParams(st, p.distribution) },
	},
	mint.Name: {
		keys: map[string]func(*pending, string) error{
			"MintDenom": func(p *pending, v string) error {
				var denom string
				return setDenom(v, p, &denom, mint.ValidateMintDenom)
			},
			"InflationRateChange": func(p *pending, v string) error {
				return setDec(v, &p.mint.InflationRateChange, mint.ValidateInflationRateChange)
			},
			"InflationMax": func(p *pending, v string) error { return setDec(v, &p.mint.InflationMax, mint.ValidateInflationMax) },
			"InflationMin": func(p *pending, v string) error { return setDec(v, &p.mint.InflationMin, mint.ValidateInflationMin) },
			"GoalBonded":   func(p *pending, v string) error { return setDec(v, &p.mint.GoalBonded, mint.ValidateGoalBonded) },
			"BlocksPerYear": func(p *pending, v string) error {
				return setUint64(v, &p.mint.BlocksPerYear, mint.ValidateBlocksPerYear)
			},
		},
		check: func(st module.Reader, p *pending) error {
			if !mint.Enabled(st) {
				return fmt.Errorf("mint is not enabled on this chain (no app_state.mint at genesis)")
			}
			return p.mint.ValidateSDK()
		},
		save: func(st module.State, p *pending) error { return mint.UpdateParams(st, p.mint) },
	},
	feemarket.Name: {
		keys: map[string]func(*pending, string) error{
			"MinBaseFee": func(p *pending, v string) error { return setInt(v, &p.minBaseFee) },
		},
		check: func(_ module.Reader, p *pending) error { return feemarket.Params{MinBaseFee: p.minBaseFee}.Validate() },
		save: func(st module.State, p *pending) error {
			return feemarket.SetParams(st, feemarket.Params{MinBaseFee: p.minBaseFee})
		},
	},
}

// fractionRule is the SDK's rule for a fraction in [0, 1] named name
// ("… cannot be negative", "… too large").
func fractionRule(name string) func(dec.Dec) error {
	return func(d dec.Dec) error {
		if d.IsNegative() {
			return fmt.Errorf("%s cannot be negative: %s", name, d)
		}
		if d.GT(dec.One()) {
			return fmt.Errorf("%s too large: %s", name, d)
		}
		return nil
	}
}

// legacyRate is x/distribution's legacy param-store rule for a rate
// ("… must be positive", "… too large").
func legacyRate(name string) func(dec.Dec) error {
	return func(d dec.Dec) error {
		if d.IsNegative() {
			return fmt.Errorf("%s must be positive: %s", name, d)
		}
		if d.GT(dec.One()) {
			return fmt.Errorf("%s too large: %s", name, d)
		}
		return nil
	}
}

// quoted is the string an amino JSON value holds: 64-bit integers,
// durations, decimals, big integers and strings are all quoted.
func quoted(v, what string) (string, error) {
	var s string
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return "", fmt.Errorf("invalid %s %s: amino JSON writes it as a quoted string", what, v)
	}
	return s, nil
}

func setDuration(v string, to *time.Duration, rule func(time.Duration) error) error {
	var n int64
	if err := setInt64(v, &n, func(int64) error { return nil }); err != nil {
		return err
	}
	*to = time.Duration(n)
	return rule(*to)
}

func setInt64(v string, to *int64, rule func(int64) error) error {
	s, err := quoted(v, "int64")
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("invalid int64 %q", s)
	}
	*to = n
	return rule(n)
}

func setUint64(v string, to *uint64, rule func(uint64) error) error {
	s, err := quoted(v, "uint64")
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("invalid uint64 %q", s)
	}
	*to = n
	return rule(n)
}

// setUint32 reads a uint32, which amino JSON writes as a bare number.
func setUint32(v string, to *uint64, rule func(uint64) error) error {
	var n uint32
	if err := json.Unmarshal([]byte(v), &n); err != nil {
		return fmt.Errorf("invalid uint32 %s: amino JSON writes it as a bare number", v)
	}
	*to = uint64(n)
	return rule(*to)
}

func setDec(v string, to *dec.Dec, rule func(dec.Dec) error) error {
	s, err := quoted(v, "decimal")
	if err != nil {
		return err
	}
	d, err := dec.Parse(s)
	if err != nil {
		return err
	}
	*to = d
	return rule(d)
}

func setInt(v string, to **big.Int) error {
	s, err := quoted(v, "integer")
	if err != nil {
		return err
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return fmt.Errorf("invalid integer %q", s)
	}
	*to = n
	return feemarket.Params{MinBaseFee: n}.Validate()
}

// setDenom reads a denom under the SDK's rule, then Ember's: the chain has
// one coin, so the value must be the one staking records.
func setDenom(v string, p *pending, to *string, rule func(string) error) error {
	s, err := quoted(v, "string")
	if err != nil {
		return err
	}
	if err := rule(s); err != nil {
		return err
	}
	if p.bondDenom == "" || s != p.bondDenom {
		return fmt.Errorf("denom %s: the chain's only coin%s is its bond and mint denom, which cannot change", s, strings.TrimSuffix(" "+p.bondDenom, " "))
	}
	*to = s
	return nil
}

// Exec is Apply for a proposal's content, in the shape gov's content
// executors take: content must be a ParameterChangeProposal.
func Exec(st module.State, content proto.Message) error {
	p, ok := content.(*paramsv1beta1.ParameterChangeProposal)
	if !ok {
		return module.SDKError(module.CodeInvalidRequest, "%s is not a %s", proto.MessageName(content), ContentType[1:])
	}
	return Apply(st, p.GetChanges())
}
