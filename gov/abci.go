package gov

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"

	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	abci "github.com/cometbft/cometbft/abci/types"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/module"
)

// Values of the proposal_result attribute, as the SDK's.
const (
	ResultDropped  = "proposal_dropped"
	ResultPassed   = "proposal_passed"
	ResultRejected = "proposal_rejected"
	ResultFailed   = "proposal_failed"
)

// EndBlock is the SDK's gov EndBlocker: proposals whose deposit period
// ended (deposit_end_time ≤ block time) are deleted, their deposits
// refunded or burned (burn_proposal_deposit_prevote); proposals whose
// voting period ended are tallied, their deposits refunded or burned,
// and a passed one's messages executed. Each queue in (end time, id)
// order, as the SDK's queues are keyed.
func (m *Module) EndBlock(st module.State, b *module.Block) ([]abci.ValidatorUpdate, error) {
	list := pending(st)
	if len(list) == 0 {
		return nil, nil
	}
	now := b.Env.Time
	var inactive, active []*govv1.Proposal
	for _, p := range list {
		switch {
		case p.Status == govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD && !p.DepositEndTime.AsTime().After(now):
			inactive = append(inactive, p)
		case p.Status == govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD && !p.VotingEndTime.AsTime().After(now):
			active = append(active, p)
		}
	}
	byEnd(inactive, func(p *govv1.Proposal) *big.Int { return big.NewInt(p.DepositEndTime.AsTime().UnixNano()) })
	byEnd(active, func(p *govv1.Proposal) *big.Int { return big.NewInt(p.VotingEndTime.AsTime().UnixNano()) })
	params := GetParams(st)
	for _, p := range inactive {
		if err := dropProposal(st, params, p, b.Events); err != nil {
			return nil, err
		}
	}
	for _, p := range active {
		if err := m.endVoting(st, params, p, b); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func byEnd(ps []*govv1.Proposal, end func(*govv1.Proposal) *big.Int) {
	sort.SliceStable(ps, func(i, j int) bool {
		if c := end(ps[i]).Cmp(end(ps[j])); c != 0 {
			return c < 0
		}
		return ps[i].Id < ps[j].Id
	})
}

// dropProposal ends a proposal whose deposit period ended short of
// min_deposit.
func dropProposal(st module.State, params Params, p *govv1.Proposal, ev *module.Events) error {
	if err := settleDeposits(st, p.Id, params.BurnProposalDepositPrevote, ev); err != nil {
		return err
	}
	deleteProposal(st, p.Id)
	ev.Add("inactive_proposal", "proposal_id", strconv.FormatUint(p.Id, 10), "proposal_result", ResultDropped)
	return nil
}

// settleDeposits burns or refunds every deposit on id and deletes them.
func settleDeposits(st module.State, id uint64, burnThem bool, ev *module.Events) error {
	deps := Deposits(st, id)
	total := new(big.Int)
	for _, d := range deps {
		total.Add(total, d.Amount)
	}
	if burnThem {
		if total.Sign() > 0 {
			if err := burn(st, total, ev, ""); err != nil {
				return err
			}
		}
	} else {
		for _, d := range deps {
			move(st, module.GovAuthority, d.Depositor, d.Amount)
			ev.Coins(module.GovAuthority, d.Depositor, d.Amount, "")
		}
	}
	deleteDeposits(st, id)
	return nil
}

// endVoting tallies a proposal whose voting period ended, settles its
// deposits and, when it passes, runs its messages in order on a snapshot
// of the state: all of them take effect, or none and it FAILED.
func (m *Module) endVoting(st module.State, params Params, p *govv1.Proposal, b *module.Block) error {
	out := tally(st, m.staking(), params, p.Id)
	deleteVotes(st, p.Id)
	if err := settleDeposits(st, p.Id, out.burn, b.Events); err != nil {
		return err
	}
	result, log := ResultRejected, "rejected"
	p.Status = govv1.ProposalStatus_PROPOSAL_STATUS_REJECTED
	if out.passes {
		idx, typeURL, err := m.execMessages(st, p.Messages, b)
		if err == nil {
			result, log = ResultPassed, "passed"
			p.Status = govv1.ProposalStatus_PROPOSAL_STATUS_PASSED
		} else {
			result, log = ResultFailed, fmt.Sprintf("passed, but msg %d (%s) failed on execution: %s", idx, typeURL, err)
			p.Status = govv1.ProposalStatus_PROPOSAL_STATUS_FAILED
			p.FailedReason = err.Error()
		}
	}
	p.FinalTallyResult = out.result
	if err := setProposal(st, p); err != nil {
		return err
	}
	b.Events.Add("active_proposal", "proposal_id", strconv.FormatUint(p.Id, 10), "proposal_result", result, "proposal_log", log)
	return nil
}

// execMessages runs msgs with the gov account as signer on a snapshot of
// st; on the first failure it reverts them all and reports which failed.
// The messages' events join the block's only when all succeed.
func (m *Module) execMessages(st module.State, msgs []*anypb.Any, b *module.Block) (int, string, error) {
	snap := st.Snapshot()
	ev := module.NewEvents(b.Env.Prefix, b.Env.Denom)
	codec := module.Codec{Prefix: b.Env.Prefix, Denom: b.Env.Denom}
	for i, a := range msgs {
		if err := m.execMessage(module.WithEvents(st, ev, ""), a, codec, b.Env, ev); err != nil {
			st.RevertToSnapshot(snap)
			return i, a.TypeUrl, err
		}
	}
	for _, e := range ev.List() {
		kv := make([]string, 0, 2*len(e.Attributes))
		for _, a := range e.Attributes {
			kv = append(kv, a.Key, a.Value)
		}
		b.Events.Add(e.Type, kv...)
	}
	return 0, "", nil
}

func (m *Module) execMessage(st module.State, a *anypb.Any, codec module.Codec, env *module.Env, ev *module.Events) error {
	if m.Router == nil {
		return Err(CodeUnroutableProposalMsg).WithDetail("%s", a.TypeUrl)
	}
	msg, err := m.Router().Decode(a, codec)
	if err != nil {
		return err
	}
	if msg.Signer != module.GovAuthority {
		return Err(CodeInvalidSigner).WithDetail("%s", ev.Acc(msg.Signer))
	}
	h, _ := m.Router().Handler(a.TypeUrl)
	return h.Exec(st, msg, &module.MsgContext{Env: env, Events: ev, Index: ""})
}
