package api

import (
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	emberdec "github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
)

// An account's stake: /api/v2/addresses/{hash}/staking, read from the
// staking and distribution records at one block as the validators list is.

// ValidatorRef names the validator an item is about.
type ValidatorRef struct {
	Operator       string `json:"validator_address"`        // 0x
	OperatorBech32 string `json:"validator_address_bech32"` // embervaloper1…
	Moniker        string `json:"moniker"`
}

// StakeDelegation is one delegation: its shares and the tokens they are
// worth (truncated, as the SDK's delegation balance).
type StakeDelegation struct {
	ValidatorRef
	Shares  string `json:"shares"`
	Balance string `json:"balance"`
}

// StakeUnbonding is one unbonding entry.
type StakeUnbonding struct {
	ValidatorRef
	CreationHeight int64  `json:"creation_height"`
	CompletionTime string `json:"completion_time"` // RFC 3339, UTC
	InitialBalance string `json:"initial_balance"`
	Balance        string `json:"balance"`
}

// StakeReward is the rewards one delegation has accrued and not
// withdrawn, a decimal with 18 places in the base denomination (what
// withdrawing now would compute before truncation).
type StakeReward struct {
	ValidatorRef
	Reward string `json:"reward"`
}

// AddressStaking is /api/v2/addresses/{hash}/staking.
type AddressStaking struct {
	Delegations    []StakeDelegation `json:"delegations"`
	Unbondings     []StakeUnbonding  `json:"unbonding_entries"`
	Rewards        []StakeReward     `json:"rewards"`
	TotalDelegated string            `json:"total_delegated"` // Σ delegation balances
	TotalUnbonding string            `json:"total_unbonding"` // Σ unbonding balances
	TotalRewards   string            `json:"total_rewards"`   // Σ rewards
	BlockNumber    uint64            `json:"block_number"`    // as ValidatorList's
}

func (h *handlers) stakingRoutes(mux *http.ServeMux) {
	mux.Handle("GET /api/v2/addresses/{hash}/staking", h.serve(h.addressStaking))
}

func (h *handlers) addressStaking(r *request) (any, error) {
	del, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	st, err := h.openChainState(r.Context())
	if err != nil {
		return nil, err
	}
	out := AddressStaking{Delegations: []StakeDelegation{}, Unbondings: []StakeUnbonding{}, Rewards: []StakeReward{}, BlockNumber: st.number}
	refs := validatorRefs{st: st, p: accounts.NewPrefixes(h.b.Prefix), known: map[common.Address]*staking.Validator{}}
	if err := h.addDelegations(st, &refs, del, &out); err != nil {
		return nil, err
	}
	if err := addUnbondings(st, &refs, del, &out); err != nil {
		return nil, err
	}
	if st.err != nil {
		return nil, st.err
	}
	return out, nil
}

// addDelegations fills the delegations and their pending rewards.
func (h *handlers) addDelegations(st *chainState, refs *validatorRefs, del common.Address, out *AddressStaking) error {
	delegated, rewards := emberdec.Zero(), emberdec.Zero()
	for _, op := range staking.DelegatorValidators(st, del) {
		v, ref, err := refs.get(op)
		if err != nil {
			return err
		}
		shares, ok := staking.DelegationShares(st, del, op)
		if !ok || v == nil {
			continue
		}
		balance := v.TokensFromShares(shares).TruncateInt()
		delegated = delegated.Add(emberdec.FromInt(balance))
		out.Delegations = append(out.Delegations, StakeDelegation{ValidatorRef: ref, Shares: shares.String(), Balance: balance.String()})
		r, _, err := native.Distribution.PendingRewards(st, del, op)
		if err != nil {
			return err
		}
		rewards = rewards.Add(r)
		out.Rewards = append(out.Rewards, StakeReward{ValidatorRef: ref, Reward: r.String()})
	}
	out.TotalDelegated, out.TotalRewards = delegated.TruncateInt().String(), rewards.String()
	return nil
}

// addUnbondings fills the unbonding entries, validator by validator,
// oldest first.
func addUnbondings(st *chainState, refs *validatorRefs, del common.Address, out *AddressStaking) error {
	total := emberdec.Zero()
	for _, op := range staking.UnbondingValidators(st, del) {
		_, ref, err := refs.get(op)
		if err != nil {
			return err
		}
		for _, e := range staking.UnbondingEntries(st, del, op) {
			total = total.Add(emberdec.FromInt(e.Balance))
			out.Unbondings = append(out.Unbondings, StakeUnbonding{ValidatorRef: ref, CreationHeight: e.CreationHeight,
				CompletionTime: e.CompletionTime.UTC().Format(time.RFC3339Nano), InitialBalance: e.InitialBalance.String(), Balance: e.Balance.String()})
		}
	}
	out.TotalUnbonding = total.TruncateInt().String()
	return nil
}

// validatorRefs reads each validator once per request.
type validatorRefs struct {
	st    *chainState
	p     accounts.Prefixes
	known map[common.Address]*staking.Validator
}

// get is op's validator (nil if none) and its reference.
func (r *validatorRefs) get(op common.Address) (*staking.Validator, ValidatorRef, error) {
	v, seen := r.known[op]
	if !seen {
		v, _ = staking.Get(r.st, op)
		r.known[op] = v
	}
	bech, err := r.p.Encode(accounts.KindValidator, op[:])
	if err != nil {
		return nil, ValidatorRef{}, err
	}
	ref := ValidatorRef{Operator: op.Hex(), OperatorBech32: bech}
	if v != nil {
		ref.Moniker = v.Moniker()
	}
	return v, ref, nil
}
