package staking

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"

	"github.com/emberchain/ember/module"
)

// GenesisState is app_state.staking: the validator set at genesis and the
// bonding rules. Each validator's voting power is its bonded tokens / 10^18;
// the CometBFT genesis validators must be the same set with the same powers.
type GenesisState struct {
	// UnbondingTime is how long undelegated tokens stay locked, as a Go
	// duration ("60s", "504h").
	UnbondingTime string `json:"unbonding_time"`
	// Validators are bonded from block 1 on.
	Validators []GenesisValidator `json:"validators"`
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
func (Module) InitGenesis(g *module.Genesis) error {
	var gs *GenesisState
	if err := g.Section(Name, &gs); err != nil {
		return err
	}
	vals, unbonding, err := genesisValidators(gs, g.Validators, g.Rewards)
	if err != nil {
		return err
	}
	for _, addr := range []common.Address{StateAddress, BondedPool, UnbondingPool} {
		if _, taken := g.Alloc[addr]; taken {
			return fmt.Errorf("genesis allocation names the staking system account %s", addr.Hex())
		}
	}
	if err := InitGenesis(g.State(), vals, unbonding); err != nil {
		return fmt.Errorf("app_state.staking: %w", err)
	}
	return nil
}

// genesisValidators are the validators and the unbonding time of gs, or of
// CometBFT's validators without gs.
func genesisValidators(gs *GenesisState, cmtVals []abci.ValidatorUpdate, rewards map[string]common.Address) ([]Genesis, time.Duration, error) {
	var vals []Genesis
	unbonding := DefaultUnbondingTime
	if gs == nil {
		for _, u := range cmtVals {
			pk := u.PubKey.GetEd25519()
			if pk == nil {
				return nil, 0, fmt.Errorf("genesis validator with a %T key: only ed25519 consensus keys are supported", u.PubKey.Sum)
			}
			g := Genesis{ConsPubKey: pk, Tokens: new(big.Int).Mul(big.NewInt(u.Power), PowerReduction)}
			g.RewardAddress = common.BytesToAddress(hexBytes(consHex(pk)))
			if r, ok := rewards[consHex(pk)]; ok {
				g.RewardAddress = r
			}
			vals = append(vals, g)
		}
		return vals, unbonding, nil
	}
	if gs.UnbondingTime != "" {
		d, err := time.ParseDuration(gs.UnbondingTime)
		if err != nil || d < time.Second {
			return nil, 0, fmt.Errorf("app_state.staking.unbonding_time %q: want a duration of at least 1s, such as 504h or 60s", gs.UnbondingTime)
		}
		unbonding = d
	}
	for i, v := range gs.Validators {
		if v.Tokens == nil || (*big.Int)(v.Tokens).Cmp(PowerReduction) < 0 {
			return nil, 0, fmt.Errorf("app_state.staking.validators[%d] (%s): tokens must be at least 10^18 (power 1)", i, v.Moniker)
		}
		if len(v.ConsensusPubKey) != 32 {
			return nil, 0, fmt.Errorf("app_state.staking.validators[%d] (%s): consensus_pubkey has %d bytes, want a 32-byte ed25519 key", i, v.Moniker, len(v.ConsensusPubKey))
		}
		g := Genesis{Moniker: v.Moniker, Operator: v.Operator, HasOperator: true, ConsPubKey: v.ConsensusPubKey,
			Tokens: (*big.Int)(v.Tokens), RewardAddress: v.Operator}
		if r, ok := rewards[consHex(v.ConsensusPubKey)]; ok {
			g.RewardAddress = r
		}
		vals = append(vals, g)
	}
	if err := matchGenesisValidators(vals, cmtVals); err != nil {
		return nil, 0, err
	}
	return vals, unbonding, nil
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
