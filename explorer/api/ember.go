package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/staking"
)

// Endpoints Blockscout lacks, which the explorer's own pages read: the
// validator set (the Cosmos side of the chain) and a failed transaction's
// revert reason.

// Validator is one item of /api/v2/validators.
type Validator struct {
	Operator         string `json:"operator_address"`        // 0x
	OperatorBech32   string `json:"operator_address_bech32"` // embervaloper1…
	ConsensusAddress string `json:"consensus_address"`       // embervalcons1…
	Moniker          string `json:"moniker"`
	Tokens           string `json:"tokens"` // bonded, base denomination
	VotingPower      int64  `json:"voting_power"`
	Status           string `json:"status"`         // BOND_STATUS_BONDED or _UNBONDED
	RewardAddress    string `json:"reward_address"` // the blocks' fee recipient (miner)
	BlocksProposed   uint64 `json:"blocks_proposed"`
}

// ValidatorList is /api/v2/validators.
type ValidatorList struct {
	Items            []Validator `json:"items"`
	TotalVotingPower int64       `json:"total_voting_power"`
}

// RevertReason is /api/v2/transactions/{hash}/revert-reason.
type RevertReason struct {
	RevertReason *string `json:"revert_reason"` // decoded Error(string)/Panic, or null
	Error        *string `json:"error"`         // the EVM's error, or null (success)
}

func (h *handlers) emberRoutes(mux *http.ServeMux) {
	mux.Handle("GET /api/v2/validators", h.serve(h.validators))
	mux.Handle("GET /api/v2/transactions/{hash}/revert-reason", h.serve(h.revertReason))
}

// storageReader reads the staking state through the chain reader; the
// staking package's Reader has no error, so the first one is kept.
type storageReader struct {
	ctx   context.Context
	chain explorer.ChainReader
	err   error
}

func (s *storageReader) GetState(addr common.Address, slot common.Hash) common.Hash {
	if s.err != nil {
		return common.Hash{}
	}
	v, err := s.chain.StorageAt(s.ctx, addr, slot)
	if err != nil {
		s.err = err
	}
	return v
}

// GetNonce and GetBalance complete module.Reader; staking's validator
// reads use storage only.
func (s *storageReader) GetNonce(common.Address) uint64 { return 0 }

func (s *storageReader) GetBalance(common.Address) *uint256.Int { return new(uint256.Int) }

// validators lists the staking module's validators, read from the chain's
// state at the head (in-process or over JSON-RPC), with the blocks each
// proposed as the index counts them.
func (h *handlers) validators(r *request) (any, error) {
	if h.b.Chain == nil {
		return nil, &apiError{status: http.StatusNotImplemented, msg: "this explorer's source cannot read the chain's state"}
	}
	rd := &storageReader{ctx: r.Context(), chain: h.b.Chain}
	all := staking.All(rd)
	if rd.err != nil {
		return nil, rd.err
	}
	p := accounts.NewPrefixes(h.b.Prefix)
	out := ValidatorList{Items: []Validator{}}
	for _, v := range all {
		opBech, err := p.Encode(accounts.KindValidator, v.Operator[:])
		if err != nil {
			return nil, err
		}
		cons := v.ConsAddress()
		consBech, err := p.Encode(accounts.KindConsensus, cons[:])
		if err != nil {
			return nil, err
		}
		proposed, err := h.blocksProposed(r.Context(), v.RewardAddress)
		if err != nil {
			return nil, err
		}
		item := Validator{Operator: v.Operator.Hex(), OperatorBech32: opBech, ConsensusAddress: consBech, Moniker: v.Moniker(),
			Tokens: v.Tokens.String(), VotingPower: v.Power(), Status: v.Status.String(), RewardAddress: v.RewardAddress.Hex(), BlocksProposed: proposed}
		if v.ReportedPower > 0 {
			out.TotalVotingPower += item.VotingPower
		}
		out.Items = append(out.Items, item)
	}
	return out, nil
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
	if t.Status == 1 || h.b.Tracer == nil {
		return out, nil
	}
	top, err := h.b.Tracer.CallTrace(r.Context(), hash)
	if errors.Is(err, explorer.ErrCannotTrace) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if top.Error != "" {
		out.Error = &top.Error
	}
	reason := top.RevertReason
	if reason == "" && len(top.Output) > 0 {
		// Error(string) or Panic(uint256) in the revert data.
		if r, err := abi.UnpackRevert(top.Output); err == nil {
			reason = r
		}
	}
	if reason != "" {
		out.RevertReason = &reason
	}
	return out, nil
}
