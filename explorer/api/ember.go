package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	emberdec "github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/slashing"
	"github.com/emberchain/ember/staking"
)

// Endpoints Blockscout lacks, which the explorer's own pages read: the
// validator set (the Cosmos side of the chain) and a failed transaction's
// revert reason.

// Validator is one item of /api/v2/validators. Amounts are decimal
// strings in the base denomination; rates and fractions are decimals with
// 18 places, as the SDK's REST spells them.
type Validator struct {
	Operator         string `json:"operator_address"`        // 0x
	OperatorBech32   string `json:"operator_address_bech32"` // embervaloper1…
	ConsensusAddress string `json:"consensus_address"`       // embervalcons1…
	Moniker          string `json:"moniker"`
	Tokens           string `json:"tokens"` // bonded, base denomination
	DelegatorShares  string `json:"delegator_shares"`
	VotingPower      int64  `json:"voting_power"`
	// VotingPowerShare is the voting power over the active set's total,
	// 0 for a validator outside it.
	VotingPowerShare string `json:"voting_power_share"`
	Status           string `json:"status"`       // BOND_STATUS_BONDED, _UNBONDING or _UNBONDED
	StatusLabel      string `json:"status_label"` // bonded, unbonding or unbonded
	Jailed           bool   `json:"jailed"`
	// Tombstoned: it double-signed and can never be unjailed.
	Tombstoned bool `json:"tombstoned"`
	// JailedUntil is the earliest unjail (RFC 3339), null when never jailed
	// for downtime.
	JailedUntil             *string `json:"jailed_until"`
	CommissionRate          string  `json:"commission_rate"`
	CommissionMaxRate       string  `json:"commission_max_rate"`
	CommissionMaxChangeRate string  `json:"commission_max_change_rate"`
	// MissedBlocks is the slashing module's missed_blocks_counter over the
	// signed_blocks_window; Uptime is 1 − MissedBlocks / window, null for
	// a validator without signing info.
	MissedBlocks      int64   `json:"missed_blocks_counter"`
	Uptime            *string `json:"uptime"`
	SelfBond          string  `json:"self_bond"` // the operator's own delegation, in tokens (truncated)
	MinSelfDelegation string  `json:"min_self_delegation"`
	DelegatorCount    int     `json:"delegator_count"`
	RewardAddress     string  `json:"reward_address"` // the blocks' fee recipient (miner)
	BlocksProposed    uint64  `json:"blocks_proposed"`
}

// ValidatorList is /api/v2/validators.
type ValidatorList struct {
	Items            []Validator `json:"items"`
	TotalVotingPower int64       `json:"total_voting_power"`
	// SignedBlocksWindow is the slashing window uptime is measured over.
	SignedBlocksWindow int64 `json:"signed_blocks_window"`
	// BlockNumber is the block whose state was read (0: the source reads
	// each slot at its latest block).
	BlockNumber uint64 `json:"block_number"`
}

// RevertReason is /api/v2/transactions/{hash}/revert-reason.
type RevertReason struct {
	RevertReason *string `json:"revert_reason"` // the decoded error's text (decode.Revert.Text), or null
	Error        *string `json:"error"`         // the EVM's error, or null (success)
}

func (h *handlers) emberRoutes(mux *http.ServeMux) {
	mux.Handle("GET /api/v2/validators", h.serve(h.validators))
	mux.Handle("GET /api/v2/transactions/{hash}/revert-reason", h.serve(h.revertReason))
}

// validators lists the staking module's validators with their
// commission, slashing record and delegators, read from the chain's state
// at the head (in-process or over JSON-RPC), with the blocks each proposed
// as the index counts them.
func (h *handlers) validators(r *request) (any, error) {
	st, err := h.openChainState(r.Context())
	if err != nil {
		return nil, err
	}
	all := staking.All(st)
	window := slashing.GetParams(st).SignedBlocksWindow
	out := ValidatorList{Items: []Validator{}, SignedBlocksWindow: window, BlockNumber: st.number}
	for _, v := range all {
		if v.ReportedPower > 0 {
			out.TotalVotingPower += v.Power()
		}
	}
	for _, v := range all {
		item, err := h.validator(r.Context(), st, v, out.TotalVotingPower, window)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, item)
	}
	if st.err != nil {
		return nil, st.err
	}
	return out, nil
}

// validator is one item of the list; total is the active set's power.
func (h *handlers) validator(ctx context.Context, st *chainState, v *staking.Validator, total, window int64) (Validator, error) {
	p := accounts.NewPrefixes(h.b.Prefix)
	opBech, err := p.Encode(accounts.KindValidator, v.Operator[:])
	if err != nil {
		return Validator{}, err
	}
	cons := v.ConsAddress()
	consBech, err := p.Encode(accounts.KindConsensus, cons[:])
	if err != nil {
		return Validator{}, err
	}
	proposed, err := h.blocksProposed(ctx, v.RewardAddress)
	if err != nil {
		return Validator{}, err
	}
	c := v.Commission
	item := Validator{Operator: v.Operator.Hex(), OperatorBech32: opBech, ConsensusAddress: consBech, Moniker: v.Moniker(),
		Tokens: v.Tokens.String(), DelegatorShares: v.DelegatorShares.String(), VotingPower: v.Power(), VotingPowerShare: emberdec.Zero().String(),
		Status: v.Status.String(), StatusLabel: statusLabel(v.Status), Jailed: v.Jailed,
		CommissionRate: c.Rate.String(), CommissionMaxRate: c.MaxRate.String(), CommissionMaxChangeRate: c.MaxChangeRate.String(),
		SelfBond: staking.SelfDelegationTokens(st, v.Operator).String(), MinSelfDelegation: v.MinSelfDelegation.String(),
		DelegatorCount: len(staking.ValidatorDelegators(st, v.Operator)), RewardAddress: v.RewardAddress.Hex(), BlocksProposed: proposed}
	if v.ReportedPower > 0 && total > 0 {
		item.VotingPowerShare = emberdec.FromInt64(item.VotingPower).Quo(emberdec.FromInt64(total)).String()
	}
	if info, ok := slashing.GetSigningInfo(st, cons); ok {
		item.Tombstoned, item.MissedBlocks = info.Tombstoned, info.MissedBlocksCounter
		up := emberdec.One().Sub(emberdec.FromInt64(info.MissedBlocksCounter).Quo(emberdec.FromInt64(window))).String()
		item.Uptime = &up
		if info.JailedUntil.Unix() > 0 {
			until := info.JailedUntil.Format(time.RFC3339Nano)
			item.JailedUntil = &until
		}
	}
	return item, nil
}

// statusLabel is the bond status as the pages name it.
func statusLabel(s staking.BondStatus) string {
	switch s {
	case staking.Bonded:
		return "bonded"
	case staking.Unbonding:
		return "unbonding"
	}
	return "unbonded"
}

func (h *handlers) blocksProposed(ctx context.Context, miner common.Address) (uint64, error) {
	a, err := h.b.Store.Address(ctx, miner)
	if errors.Is(err, explorer.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return a.BlocksValidated, nil
}

// revertReason re-executes a transaction (as the raw trace does) and
// reports why its top call failed.
func (h *handlers) revertReason(r *request) (any, error) {
	hash, err := r.hashParam()
	if err != nil {
		return nil, err
	}
	t, err := h.b.Store.Tx(r.Context(), hash)
	if err != nil {
		return nil, err
	}
	out := RevertReason{}
	if t.Status == 1 {
		return out, nil
	}
	f, err := h.failure(r.Context(), hash) // revert.go
	if err != nil || f == nil {
		return out, err
	}
	if f.evmError != "" {
		out.Error = &f.evmError
	}
	if f.revert != nil {
		out.RevertReason = &f.revert.Text
	}
	return out, nil
}
