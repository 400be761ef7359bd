package gov

import (
	"fmt"
	"math/big"
	"time"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Params are the module's parameters (the SDK's x/gov v1 Params). The
// chain has one coin, so the deposit amounts are amounts of it.
type Params struct {
	MinDeposit             *big.Int
	MaxDepositPeriod       time.Duration
	VotingPeriod           time.Duration
	Quorum                 dec.Dec
	Threshold              dec.Dec
	VetoThreshold          dec.Dec
	MinInitialDepositRatio dec.Dec
	ProposalCancelRatio    dec.Dec
	// ProposalCancelDest receives the cancellation charge; nil: it is
	// burned (the SDK's empty proposal_cancel_dest).
	ProposalCancelDest *common.Address
	// The expedited fields are kept and validated as the SDK's, but an
	// expedited proposal is refused (see submit.go).
	ExpeditedVotingPeriod      time.Duration
	ExpeditedThreshold         dec.Dec
	ExpeditedMinDeposit        *big.Int
	BurnVoteQuorum             bool
	BurnProposalDepositPrevote bool
	BurnVoteVeto               bool
	MinDepositRatio            dec.Dec
}

// DefaultParams are the SDK's defaults (x/gov/types/v1/params.go).
func DefaultParams() Params {
	return Params{
		MinDeposit:             big.NewInt(10_000_000),
		MaxDepositPeriod:       48 * time.Hour,
		VotingPeriod:           48 * time.Hour,
		Quorum:                 dec.MustParse("0.334"),
		Threshold:              dec.MustParse("0.5"),
		VetoThreshold:          dec.MustParse("0.334"),
		MinInitialDepositRatio: dec.Zero(),
		ProposalCancelRatio:    dec.MustParse("0.5"),
		ExpeditedVotingPeriod:  24 * time.Hour,
		ExpeditedThreshold:     dec.MustParse("0.667"),
		ExpeditedMinDeposit:    big.NewInt(50_000_000),
		BurnVoteVeto:           true,
		MinDepositRatio:        dec.MustParse("0.01"),
	}
}

// Validate applies the SDK's Params.ValidateBasic, with its texts.
func (p Params) Validate() error {
	if p.MinDeposit == nil || p.MinDeposit.Sign() <= 0 {
		return fmt.Errorf("invalid minimum deposit: %v", p.MinDeposit)
	}
	if p.ExpeditedMinDeposit == nil || p.ExpeditedMinDeposit.Sign() <= 0 {
		return fmt.Errorf("invalid expedited minimum deposit: %v", p.ExpeditedMinDeposit)
	}
	if p.ExpeditedMinDeposit.Cmp(p.MinDeposit) <= 0 {
		return fmt.Errorf("expedited minimum deposit must be greater than minimum deposit: %v", p.ExpeditedMinDeposit)
	}
	if p.MaxDepositPeriod <= 0 {
		return fmt.Errorf("maximum deposit period must be positive: %s", p.MaxDepositPeriod)
	}
	if err := p.validateRatios(); err != nil {
		return err
	}
	if p.VotingPeriod <= 0 {
		return fmt.Errorf("voting period must be positive: %s", p.VotingPeriod)
	}
	if p.ExpeditedVotingPeriod <= 0 {
		return fmt.Errorf("expedited voting period must be positive: %s", p.ExpeditedVotingPeriod)
	}
	if p.ExpeditedVotingPeriod >= p.VotingPeriod {
		return fmt.Errorf("expedited voting period %s must be strictly less that the regular voting period %s", p.ExpeditedVotingPeriod, p.VotingPeriod)
	}
	return nil
}

func (p Params) validateRatios() error {
	one := dec.One()
	switch {
	case p.Quorum.IsNegative():
		return fmt.Errorf("quorom cannot be negative: %s", p.Quorum)
	case p.Quorum.GT(one):
		return fmt.Errorf("quorom too large: %s", p.Quorum)
	case !p.Threshold.IsPositive():
		return fmt.Errorf("vote threshold must be positive: %s", p.Threshold)
	case p.Threshold.GT(one):
		return fmt.Errorf("vote threshold too large: %s", p.Threshold)
	case !p.ExpeditedThreshold.IsPositive():
		return fmt.Errorf("expedited vote threshold must be positive: %s", p.ExpeditedThreshold)
	case p.ExpeditedThreshold.GT(one):
		return fmt.Errorf("expedited vote threshold too large: %s", p.ExpeditedThreshold)
	case !p.ExpeditedThreshold.GT(p.Threshold):
		return fmt.Errorf("expedited vote threshold %s, must be greater than the regular threshold %s", p.ExpeditedThreshold, p.Threshold)
	case !p.VetoThreshold.IsPositive():
		return fmt.Errorf("veto threshold must be positive: %s", p.VetoThreshold)
	case p.VetoThreshold.GT(one):
		return fmt.Errorf("veto threshold too large: %s", p.VetoThreshold)
	case p.MinInitialDepositRatio.IsNegative():
		return fmt.Errorf("mininum initial deposit ratio of proposal must be positive: %s", p.MinInitialDepositRatio)
	case p.MinInitialDepositRatio.GT(one):
		return fmt.Errorf("mininum initial deposit ratio of proposal is too large: %s", p.MinInitialDepositRatio)
	case p.ProposalCancelRatio.IsNegative():
		return fmt.Errorf("burn rate of cancel proposal must be positive: %s", p.ProposalCancelRatio)
	case p.ProposalCancelRatio.GT(one):
		return fmt.Errorf("burn rate of cancel proposal is too large: %s", p.ProposalCancelRatio)
	case p.MinDepositRatio.IsNegative():
		return fmt.Errorf("min deposit ratio cannot be negative: %s", p.MinDepositRatio)
	case p.MinDepositRatio.GT(one):
		return fmt.Errorf("min deposit ratio too large: %s", p.MinDepositRatio)
	}
	return nil
}

// Proto is p as the SDK's v1 Params, in the chain's prefix and denom.
func (p Params) Proto(prefix, denom string) *govv1.Params {
	dest := ""
	if p.ProposalCancelDest != nil {
		dest = accounts.Bech32(prefix, *p.ProposalCancelDest)
	}
	return &govv1.Params{
		MinDeposit:                 coins(p.MinDeposit, denom),
		MaxDepositPeriod:           durationpb.New(p.MaxDepositPeriod),
		VotingPeriod:               durationpb.New(p.VotingPeriod),
		Quorum:                     p.Quorum.String(),
		Threshold:                  p.Threshold.String(),
		VetoThreshold:              p.VetoThreshold.String(),
		MinInitialDepositRatio:     p.MinInitialDepositRatio.String(),
		ProposalCancelRatio:        p.ProposalCancelRatio.String(),
		ProposalCancelDest:         dest,
		ExpeditedVotingPeriod:      durationpb.New(p.ExpeditedVotingPeriod),
		ExpeditedThreshold:         p.ExpeditedThreshold.String(),
		ExpeditedMinDeposit:        coins(p.ExpeditedMinDeposit, denom),
		BurnVoteQuorum:             p.BurnVoteQuorum,
		BurnProposalDepositPrevote: p.BurnProposalDepositPrevote,
		BurnVoteVeto:               p.BurnVoteVeto,
		MinDepositRatio:            p.MinDepositRatio.String(),
	}
}

// coins is amount of denom as a Cosmos coin list.
func coins(amount *big.Int, denom string) []*basev1beta1.Coin {
	if amount == nil || amount.Sign() == 0 {
		return []*basev1beta1.Coin{}
	}
	return []*basev1beta1.Coin{{Denom: denom, Amount: amount.String()}}
}

// ParamsFromProto reads the SDK's v1 Params (every field required, as
// the SDK's MsgUpdateParams requires them) and validates them.
func ParamsFromProto(m *govv1.Params, c module.Codec) (Params, error) {
	if m == nil {
		return Params{}, fmt.Errorf("params cannot be nil")
	}
	var p Params
	var err error
	if p.MinDeposit, err = depositCoins("minimum deposit", m.MinDeposit, c.Denom); err != nil {
		return Params{}, err
	}
	if p.ExpeditedMinDeposit, err = depositCoins("expedited minimum deposit", m.ExpeditedMinDeposit, c.Denom); err != nil {
		return Params{}, err
	}
	if m.MaxDepositPeriod == nil {
		return Params{}, fmt.Errorf("maximum deposit period must not be nil: 0")
	}
	if m.VotingPeriod == nil {
		return Params{}, fmt.Errorf("voting period must not be nil: 0")
	}
	if m.ExpeditedVotingPeriod == nil {
		return Params{}, fmt.Errorf("expedited voting period must not be nil: 0")
	}
	p.MaxDepositPeriod, p.VotingPeriod, p.ExpeditedVotingPeriod = m.MaxDepositPeriod.AsDuration(), m.VotingPeriod.AsDuration(), m.ExpeditedVotingPeriod.AsDuration()
	for _, f := range []struct {
		name, s string
		to      *dec.Dec
	}{
		{"quorum", m.Quorum, &p.Quorum},
		{"threshold", m.Threshold, &p.Threshold},
		{"veto threshold", m.VetoThreshold, &p.VetoThreshold},
		{"mininum initial deposit ratio of proposal", m.MinInitialDepositRatio, &p.MinInitialDepositRatio},
		{"burn rate of cancel proposal", m.ProposalCancelRatio, &p.ProposalCancelRatio},
		{"expedited threshold", m.ExpeditedThreshold, &p.ExpeditedThreshold},
		{"min deposit ratio", m.MinDepositRatio, &p.MinDepositRatio},
	} {
		if *f.to, err = dec.Parse(f.s); err != nil {
			return Params{}, fmt.Errorf("invalid %s string: %w", f.name, err)
		}
	}
	if m.ProposalCancelDest != "" {
		a, err := accounts.ParseAddress(c.Prefix, m.ProposalCancelDest)
		if err != nil {
			return Params{}, fmt.Errorf("deposits destination address is invalid: %s", m.ProposalCancelDest)
		}
		p.ProposalCancelDest = &a
	}
	p.BurnVoteQuorum, p.BurnProposalDepositPrevote, p.BurnVoteVeto = m.BurnVoteQuorum, m.BurnProposalDepositPrevote, m.BurnVoteVeto
	return p, p.Validate()
}

// depositCoins is a deposit parameter: exactly one positive coin of the
// chain's denom.
func depositCoins(name string, cs []*basev1beta1.Coin, denom string) (*big.Int, error) {
	if len(cs) != 1 {
		return nil, fmt.Errorf("invalid %s: %v: want one coin of %s", name, cs, denom)
	}
	a, err := module.CoinAmount(cs[0], denom)
	if err != nil || a.Sign() <= 0 {
		return nil, fmt.Errorf("invalid %s: %s%s", name, cs[0].GetAmount(), cs[0].GetDenom())
	}
	return a, nil
}

// Storage of the parameters (see state.go for the layout).
const (
	slotMinDeposit = iota
	slotMaxDepositPeriod
	slotVotingPeriod
	slotQuorum
	slotThreshold
	slotVeto
	slotMinInitialRatio
	slotCancelRatio
	slotCancelDest // address; bit 160 set when present
	slotExpeditedPeriod
	slotExpeditedThreshold
	slotExpeditedMinDeposit
	slotFlags // bit 0 burn_vote_quorum, 1 burn_proposal_deposit_prevote, 2 burn_vote_veto
	slotMinDepositRatio
	paramSlots
)

// GetParams reads the parameters; a chain without a gov section stored
// none and runs on the SDK's defaults.
func GetParams(st module.Reader) Params {
	if store.Big(st, slots.Word(slotMinDeposit)).Sign() == 0 {
		return DefaultParams()
	}
	w := func(n uint64) common.Hash { return slots.Word(n) }
	flags := store.Uint(st, w(slotFlags))
	p := Params{
		MinDeposit:                 store.Big(st, w(slotMinDeposit)),
		MaxDepositPeriod:           time.Duration(store.Uint(st, w(slotMaxDepositPeriod))),
		VotingPeriod:               time.Duration(store.Uint(st, w(slotVotingPeriod))),
		Quorum:                     store.Dec(st, w(slotQuorum)),
		Threshold:                  store.Dec(st, w(slotThreshold)),
		VetoThreshold:              store.Dec(st, w(slotVeto)),
		MinInitialDepositRatio:     store.Dec(st, w(slotMinInitialRatio)),
		ProposalCancelRatio:        store.Dec(st, w(slotCancelRatio)),
		ExpeditedVotingPeriod:      time.Duration(store.Uint(st, w(slotExpeditedPeriod))),
		ExpeditedThreshold:         store.Dec(st, w(slotExpeditedThreshold)),
		ExpeditedMinDeposit:        store.Big(st, w(slotExpeditedMinDeposit)),
		BurnVoteQuorum:             flags&1 != 0,
		BurnProposalDepositPrevote: flags&2 != 0,
		BurnVoteVeto:               flags&4 != 0,
		MinDepositRatio:            store.Dec(st, w(slotMinDepositRatio)),
	}
	if d := store.Get(st, w(slotCancelDest)); d[11] == 1 {
		a := slots.WordAddr(d)
		p.ProposalCancelDest = &a
	}
	return p
}

// SetParams writes valid parameters.
func SetParams(st module.State, p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	ensureAccount(st)
	w := func(n uint64) common.Hash { return slots.Word(n) }
	store.SetBig(st, w(slotMinDeposit), p.MinDeposit)
	store.SetUint(st, w(slotMaxDepositPeriod), uint64(p.MaxDepositPeriod))
	store.SetUint(st, w(slotVotingPeriod), uint64(p.VotingPeriod))
	store.SetDec(st, w(slotQuorum), p.Quorum)
	store.SetDec(st, w(slotThreshold), p.Threshold)
	store.SetDec(st, w(slotVeto), p.VetoThreshold)
	store.SetDec(st, w(slotMinInitialRatio), p.MinInitialDepositRatio)
	store.SetDec(st, w(slotCancelRatio), p.ProposalCancelRatio)
	var dest common.Hash
	if p.ProposalCancelDest != nil {
		dest = slots.AddrWord(*p.ProposalCancelDest)
		dest[11] = 1
	}
	store.Set(st, w(slotCancelDest), dest)
	store.SetUint(st, w(slotExpeditedPeriod), uint64(p.ExpeditedVotingPeriod))
	store.SetDec(st, w(slotExpeditedThreshold), p.ExpeditedThreshold)
	store.SetBig(st, w(slotExpeditedMinDeposit), p.ExpeditedMinDeposit)
	var flags uint64
	for i, b := range []bool{p.BurnVoteQuorum, p.BurnProposalDepositPrevote, p.BurnVoteVeto} {
		if b {
			flags |= 1 << i
		}
	}
	store.SetUint(st, w(slotFlags), flags)
	store.SetDec(st, w(slotMinDepositRatio), p.MinDepositRatio)
	return nil
}
