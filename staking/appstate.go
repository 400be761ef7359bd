package staking

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// GenesisState is app_state.staking: the validator set at genesis and the
// bonding rules. Each validator's voting power is its bonded tokens / 10^18;
// the CometBFT genesis validators must be the same set with the same powers.
type GenesisState struct {
	// Params are the SDK's x/staking params; absent fields take the
	// defaults (max_validators 100, max_entries 7).
	Params *GenesisParams `json:"params,omitempty"`
	// UnbondingTime is how long undelegated tokens stay locked, as a Go
	// duration ("60s", "504h"); params.unbonding_time wins when both are set.
	UnbondingTime string `json:"unbonding_time,omitempty"`
	// Validators are bonded from block 1 on.
	Validators []GenesisValidator `json:"validators"`
}

// GenesisParams is app_state.staking.params, as the SDK writes it (the
// unbonding time as "1814400s", rates as decimals).
type GenesisParams struct {
	UnbondingTime     string `json:"unbonding_time,omitempty"`
	MaxValidators     uint32 `json:"max_validators,omitempty"`
	MaxEntries        uint32 `json:"max_entries,omitempty"`
	HistoricalEntries uint32 `json:"historical_entries,omitempty"`
	BondDenom         string `json:"bond_denom,omitempty"`
	MinCommissionRate string `json:"min_commission_rate,omitempty"`
}

// GenesisValidator is one validator bonded at genesis. Its self-bond is
// minted at genesis into the bonded pool (it is not taken from the EVM
// allocation).
type GenesisValidator struct {
	Moniker string `json:"moniker"`
	// Operator is the account that operates the validator (embervaloper1…
	// is the bech32 spelling of the same 20 bytes).
	Operator common.Address `json:"operator_address"`
	// ConsensusPubKey is the 32-byte ed25519 key of priv_validator_key.json
	// (base64 in JSON).
	ConsensusPubKey []byte `json:"consensus_pubkey"`
	// Tokens is the self-bond in the base denomination.
	Tokens *Amount `json:"tokens"`
	// Commission is optional (none: 0, max 1, max change 1).
	Commission *GenesisCommission `json:"commission,omitempty"`
	// MinSelfDelegation is optional (none: 1).
	MinSelfDelegation *Amount `json:"min_self_delegation,omitempty"`
}

// GenesisCommission is a genesis validator's commission, decimals ("0.1").
type GenesisCommission struct {
	Rate          string `json:"rate"`
	MaxRate       string `json:"max_rate"`
	MaxChangeRate string `json:"max_change_rate"`
}

// Amount is an amount of the base denomination in genesis: written as a
// decimal string, as Cosmos writes amounts, and read from decimal or 0x hex.
type Amount big.Int

// MarshalText implements encoding.TextMarshaler.
func (a *Amount) MarshalText() ([]byte, error) { return []byte((*big.Int)(a).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Amount) UnmarshalText(b []byte) error { return (*math.HexOrDecimal256)(a).UnmarshalText(b) }

// InitGenesis adds the staking state to the genesis allocation and checks
// that CometBFT's genesis validators are the same set with power =
// tokens / 10^18. Without a staking section, the CometBFT validators are
// the set, without operators.
func (m Module) InitGenesis(g *module.Genesis) error {
	var gs *GenesisState
	if err := g.Section(Name, &gs); err != nil {
		return err
	}
	vals, params, err := genesisValidators(gs, g.Validators, g.Rewards)
	if err != nil {
		return err
	}
	for _, addr := range []common.Address{StateAddress, BondedPool, NotBondedPool} {
		if _, taken := g.Alloc[addr]; taken {
			return fmt.Errorf("genesis allocation names the staking system account %s", addr.Hex())
		}
	}
	for i := range vals { // created at genesis: a commission change waits 24 hours from then
		if vals[i].Commission.UpdateTime.IsZero() {
			vals[i].Commission.UpdateTime = g.Time
		}
	}
	if err := m.keeper().InitGenesis(g.State(), vals, params); err != nil {
		return fmt.Errorf("app_state.staking: %w", err)
	}
	return nil
}

// genesisParams reads gs's params over the defaults.
func genesisParams(gs *GenesisState) (Params, error) {
	p := DefaultParams()
	unbonding := gs.UnbondingTime
	if gp := gs.Params; gp != nil {
		if gp.UnbondingTime != "" {
			unbonding = gp.UnbondingTime
		}
		if gp.MaxValidators > 0 {
			p.MaxValidators = uint64(gp.MaxValidators)
		}
		if gp.MaxEntries > 0 {
			p.MaxEntries = uint64(gp.MaxEntries)
		}
		p.HistoricalEntries, p.BondDenom = uint64(gp.HistoricalEntries), gp.BondDenom
		if gp.MinCommissionRate != "" {
			r, err := dec.Parse(gp.MinCommissionRate)
			if err != nil || r.IsNegative() || r.GT(dec.One()) {
				return p, fmt.Errorf("app_state.staking.params.min_commission_rate %q: want a decimal in [0, 1]", gp.MinCommissionRate)
			}
			p.MinCommissionRate = r
		}
	}
	if unbonding != "" {
		d, err := time.ParseDuration(unbonding)
		if err != nil || d < time.Second {
			return p, fmt.Errorf("app_state.staking.unbonding_time %q: want a duration of at least 1s, such as 504h or 60s", unbonding)
		}
		p.UnbondingTime = d
	}
	return p, nil
}

// genesisValidators are the validators and the params of gs, or of
// CometBFT's validators without gs.
func genesisValidators(gs *GenesisState, cmtVals []abci.ValidatorUpdate, rewards map[string]common.Address) ([]Genesis, Params, error) {
	var vals []Genesis
	if gs == nil {
		for _, u := range cmtVals {
			pk := u.PubKey.GetEd25519()
			if pk == nil {
				return nil, Params{}, fmt.Errorf("genesis validator with a %T key: only ed25519 consensus keys are supported", u.PubKey.Sum)
			}
			g := Genesis{ConsPubKey: pk, Tokens: new(big.Int).Mul(big.NewInt(u.Power), PowerReduction)}
			g.RewardAddress = common.BytesToAddress(hexBytes(consHex(pk)))
			if r, ok := rewards[consHex(pk)]; ok {
				g.RewardAddress = r
			}
			vals = append(vals, g)
		}
		return vals, DefaultParams(), nil
	}
	params, err := genesisParams(gs)
	if err != nil {
		return nil, params, err
	}
	for i, v := range gs.Validators {
		g, err := genesisValidator(i, v)
		if err != nil {
			return nil, params, err
		}
		if r, ok := rewards[consHex(v.ConsensusPubKey)]; ok {
			g.RewardAddress = r
		}
		vals = append(vals, g)
	}
	if err := matchGenesisValidators(vals, cmtVals); err != nil {
		return nil, params, err
	}
	return vals, params, nil
}

// genesisValidator checks and converts app_state.staking.validators[i].
func genesisValidator(i int, v GenesisValidator) (Genesis, error) {
	if v.Tokens == nil || (*big.Int)(v.Tokens).Cmp(PowerReduction) < 0 {
		return Genesis{}, fmt.Errorf("app_state.staking.validators[%d] (%s): tokens must be at least 10^18 (power 1)", i, v.Moniker)
	}
	if len(v.ConsensusPubKey) != 32 {
		return Genesis{}, fmt.Errorf("app_state.staking.validators[%d] (%s): consensus_pubkey has %d bytes, want a 32-byte ed25519 key", i, v.Moniker, len(v.ConsensusPubKey))
	}
	g := Genesis{Moniker: v.Moniker, Operator: v.Operator, HasOperator: true, ConsPubKey: v.ConsensusPubKey,
		Tokens: (*big.Int)(v.Tokens), RewardAddress: v.Operator, Commission: Commission{Rate: dec.Zero(), MaxRate: dec.One(), MaxChangeRate: dec.One()},
		MinSelfDelegation: big.NewInt(1)}
	if c := v.Commission; c != nil {
		var errs [3]error
		g.Commission.Rate, errs[0] = dec.Parse(c.Rate)
		g.Commission.MaxRate, errs[1] = dec.Parse(c.MaxRate)
		g.Commission.MaxChangeRate, errs[2] = dec.Parse(c.MaxChangeRate)
		if err := errors.Join(errs[:]...); err != nil {
			return Genesis{}, fmt.Errorf("app_state.staking.validators[%d] (%s): commission: %w", i, v.Moniker, err)
		}
		if err := validateCommission(g.Commission); err != nil {
			return Genesis{}, fmt.Errorf("app_state.staking.validators[%d] (%s): commission: %w", i, v.Moniker, err)
		}
	}
	if v.MinSelfDelegation != nil {
		g.MinSelfDelegation = new(big.Int).Set((*big.Int)(v.MinSelfDelegation))
		if g.MinSelfDelegation.Sign() <= 0 || g.MinSelfDelegation.Cmp(g.Tokens) > 0 {
			return Genesis{}, fmt.Errorf("app_state.staking.validators[%d] (%s): min_self_delegation must be positive and at most tokens", i, v.Moniker)
		}
	}
	return g, nil
}

// matchGenesisValidators checks the staking validators against CometBFT's.
func matchGenesisValidators(vals []Genesis, cmtVals []abci.ValidatorUpdate) error {
	want := make(map[string]int64, len(vals))
	for _, v := range vals {
		want[hex.EncodeToString(v.ConsPubKey)] = Power(v.Tokens)
	}
	got := make(map[string]int64, len(cmtVals))
	for _, u := range cmtVals {
		got[hex.EncodeToString(u.PubKey.GetEd25519())] = u.Power
	}
	for k, p := range want {
		if g, ok := got[k]; !ok {
			return fmt.Errorf("genesis: app_state.staking validator with consensus key %s is not a CometBFT genesis validator", base64Key(k))
		} else if g != p {
			return fmt.Errorf("genesis: validator %s has power %d in the CometBFT genesis but tokens/10^18 = %d in app_state.staking", base64Key(k), g, p)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("genesis: CometBFT genesis validator %s is missing from app_state.staking.validators", base64Key(k))
		}
	}
	return nil
}

func base64Key(hexKey string) string { return base64.StdEncoding.EncodeToString(hexBytes(hexKey)) }

func hexBytes(s string) []byte { b, _ := hex.DecodeString(s); return b }

// consHex is the CometBFT address of an ed25519 key, uppercase hex.
func consHex(pub []byte) string {
	v := Validator{ConsPubKey: pub}
	a := v.ConsAddress()
	return strings.ToUpper(hex.EncodeToString(a[:]))
}
