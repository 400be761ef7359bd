package staking

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
)

// QueryValidators is "/ember/validators": the validator set and the
// pending unbonding entries as JSON (ValidatorsJSON).
const QueryValidators = "/ember/validators"

// ValidatorJSON is one validator in the answer to QueryValidators.
type ValidatorJSON struct {
	OperatorAddress string     `json:"operator_address"` // embervaloper1…; "" without operator
	Operator        string     `json:"operator"`         // the same 20 bytes, 0x hex
	ConsensusPubKey PubKeyJSON `json:"consensus_pubkey"`
	ConsAddress     string     `json:"cons_address"` // CometBFT address, uppercase hex
	Moniker         string     `json:"moniker"`
	Tokens          string     `json:"tokens"`
	Power           string     `json:"power"`
	Status          string     `json:"status"` // BOND_STATUS_…
	Jailed          bool       `json:"jailed"`
	DelegatorShares string     `json:"delegator_shares"` // decimal
	Commission      string     `json:"commission"`       // rate, decimal
	RewardAddress   string     `json:"reward_address"`   // 0x hex
}

// PubKeyJSON is a key as the Cosmos JSON writes an Any.
type PubKeyJSON struct {
	Type string `json:"@type"`
	Key  []byte `json:"key"`
}

// UnbondingJSON is one pending unbonding entry (its balance).
type UnbondingJSON struct {
	DelegatorAddress string `json:"delegator_address"`
	ValidatorAddress string `json:"validator_address"`
	Amount           string `json:"amount"`
	CompletionTime   string `json:"completion_time"`
}

// ValidatorsJSON is the answer to QueryValidators.
type ValidatorsJSON struct {
	Validators    []ValidatorJSON `json:"validators"`
	Unbonding     []UnbondingJSON `json:"unbonding"`
	UnbondingTime string          `json:"unbonding_time"`
}

func queryValidators(st module.Reader, env *module.Env) ([]byte, error) {
	p := accounts.NewPrefixes(env.Prefix)
	out := ValidatorsJSON{Validators: []ValidatorJSON{}, Unbonding: []UnbondingJSON{}, UnbondingTime: UnbondingTime(st).String()}
	for _, v := range All(st) {
		j := ValidatorJSON{
			ConsensusPubKey: PubKeyJSON{Type: ConsensusPubKeyType, Key: v.ConsPubKey},
			ConsAddress:     consHex(v.ConsPubKey),
			Moniker:         v.Moniker(),
			Tokens:          v.Tokens.String(),
			Power:           strconv.FormatInt(v.ReportedPower, 10),
			Status:          v.Status.String(),
			Jailed:          v.Jailed,
			DelegatorShares: v.DelegatorShares.String(),
			Commission:      v.Commission.Rate.String(),
			RewardAddress:   v.RewardAddress.Hex(),
		}
		if v.HasOperator {
			j.OperatorAddress, _ = p.Encode(accounts.KindValidator, v.Operator[:])
			j.Operator = v.Operator.Hex()
		}
		out.Validators = append(out.Validators, j)
	}
	for _, op := range Operators(st) {
		val, _ := p.Encode(accounts.KindValidator, op[:])
		for _, del := range UnbondingDelegators(st, op) {
			for _, e := range UnbondingEntries(st, del, op) {
				out.Unbonding = append(out.Unbonding, UnbondingJSON{
					DelegatorAddress: accounts.Bech32(env.Prefix, del), ValidatorAddress: val,
					Amount: e.Balance.String(), CompletionTime: e.CompletionTime.Format(time.RFC3339),
				})
			}
		}
	}
	return json.Marshal(out)
}
