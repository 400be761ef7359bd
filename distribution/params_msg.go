package distribution

import (
	"fmt"
	"math/big"

	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Governance's messages.
const (
	TypeMsgUpdateParams       = "/cosmos.distribution.v1beta1.MsgUpdateParams"
	TypeMsgCommunityPoolSpend = "/cosmos.distribution.v1beta1.MsgCommunityPoolSpend"
)

// Fixed gas of governance's messages.
const (
	GasMsgUpdateParams       = 20_000
	GasMsgCommunityPoolSpend = 50_000
)

// Codes of x/distribution's errors these messages return.
const (
	CodeBadDistribution uint32 = 9
	CodeInvalidSigner   uint32 = 15
)

// ErrBadDistribution is the refusal of a spend above the community pool.
var ErrBadDistribution = codedErr(CodeBadDistribution, "community pool does not have sufficient coins to distribute")

// authorityError is x/distribution's ErrInvalidSigner for an authority
// other than the gov account.
func authorityError(prefix, got string) *module.Error {
	return codedErr(CodeInvalidSigner, "expected authority account as only signer for proposal message").
		WithDetail("invalid authority; expected %s, got %s", module.NewEvents(prefix, "").Acc(module.GovAuthority), got)
}

// decodeAuthority sets the signer to the message's authority, refused as
// the SDK's validateAuthority refuses an address it cannot decode.
func decodeAuthority(m *module.Msg, c module.Codec, authority string) error {
	a, err := accounts.ParseAddress(c.Prefix, authority)
	if err != nil {
		return module.SDKError(module.CodeInvalidAddress, "invalid authority address: %v", err)
	}
	m.Signer = a
	return nil
}

// checkGov refuses a governance message whose authority is not the gov
// account, and any on a chain without the module.
func checkGov(st module.Reader, m *module.Msg, prefix, authority string) error {
	if m.Signer != module.GovAuthority {
		return authorityError(prefix, authority)
	}
	return checkEnabled(st)
}

func govMsgs() []*module.MsgHandler {
	return []*module.MsgHandler{
		{
			TypeURL: TypeMsgUpdateParams, Module: Name, Gas: GasMsgUpdateParams,
			New: func() proto.Message { return new(distrv1beta1.MsgUpdateParams) },
			Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
				return decodeAuthority(m, c, p.(*distrv1beta1.MsgUpdateParams).Authority)
			},
			Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
				msg := m.Proto.(*distrv1beta1.MsgUpdateParams)
				if err := checkGov(st, m, c.Env.Prefix, msg.Authority); err != nil {
					return err
				}
				p, err := ParamsFromProto(msg.GetParams())
				if err != nil {
					return err
				}
				setParams(st, p)
				return nil
			},
		},
		{
			TypeURL: TypeMsgCommunityPoolSpend, Module: Name, Gas: GasMsgCommunityPoolSpend,
			New: func() proto.Message { return new(distrv1beta1.MsgCommunityPoolSpend) },
			Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
				msg := p.(*distrv1beta1.MsgCommunityPoolSpend)
				if err := decodeAuthority(m, c, msg.Authority); err != nil {
					return err
				}
				if msg.Amount == nil {
					return module.SDKError(module.CodeInvalidCoins, "amount cannot be nil")
				}
				var err error
				if m.Amount, err = module.CoinsAmount(msg.Amount, c.Denom); err != nil {
					return err
				}
				m.To, err = c.Account("recipient", msg.Recipient)
				return err
			},
			Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
				msg := m.Proto.(*distrv1beta1.MsgCommunityPoolSpend)
				if err := checkGov(st, m, c.Env.Prefix, msg.Authority); err != nil {
					return err
				}
				return SpendCommunityPool(st, m.To, m.Amount)
			},
		},
	}
}

// ParamsFromProto reads p as x/distribution's MsgUpdateParams does: the
// deprecated proposer rewards must be unset or zero, and the community
// tax in [0, 1] (decimals arrive as the value × 10^18).
func ParamsFromProto(p *distrv1beta1.Params) (Params, error) {
	if p == nil {
		p = &distrv1beta1.Params{}
	}
	for _, r := range []string{p.BaseProposerReward, p.BonusProposerReward} {
		if v, ok := new(big.Int).SetString(r, 10); r != "" && (!ok || v.Sign() != 0) {
			return Params{}, module.SDKError(module.CodeInvalidRequest, "cannot update base or bonus proposer reward because these are deprecated fields")
		}
	}
	tax, ok := new(big.Int).SetString(p.CommunityTax, 10)
	if !ok {
		return Params{}, module.ValidationError(fmt.Errorf("community tax should be non-negative and less than one: <nil>"))
	}
	out := Params{CommunityTax: dec.FromRaw(tax), BaseProposerReward: dec.Zero(), BonusProposerReward: dec.Zero(), WithdrawAddrEnabled: p.WithdrawAddrEnabled}
	if err := ValidateCommunityTax(out.CommunityTax); err != nil {
		return Params{}, module.ValidationError(err)
	}
	return out, nil
}

// ValidateCommunityTax is x/distribution's Params.ValidateBasic.
func ValidateCommunityTax(d dec.Dec) error {
	if d.IsNegative() || d.GT(dec.One()) {
		return fmt.Errorf("community tax should be non-negative and less than one: %s", d)
	}
	return nil
}

// UpdateParams checks p (Validate: each rate in [0, 1], their sum at most
// 1, which allocation needs) and writes it; the next block's allocation
// uses it. It refuses on a chain without the module.
func UpdateParams(st module.State, p Params) error {
	if err := checkEnabled(st); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return module.ValidationError(err)
	}
	setParams(st, p)
	return nil
}

// SpendCommunityPool pays amount of the community pool to recipient, as
// the SDK's DistributeFromFeePool does for MsgCommunityPoolSpend and the
// legacy CommunityPoolSpendProposal: the community pool record (a Dec)
// goes down by amount and the coins leave the distribution pool's balance,
// so the pool still holds exactly its records and nothing is minted. It
// refuses (changing nothing) an amount that is not positive, a recipient
// that may not receive funds (a module or precompile account: the SDK's
// blocked addresses) and an amount above the community pool.
func SpendCommunityPool(st module.State, recipient common.Address, amount *big.Int) error {
	if err := checkEnabled(st); err != nil {
		return err
	}
	if amount == nil || amount.Sign() <= 0 {
		return module.SDKError(module.CodeInvalidCoins, "amount %v must be positive", amount)
	}
	if blocked(recipient) {
		return module.SDKError(module.CodeUnauthorized, "%s is not allowed to receive external funds", recipient.Hex())
	}
	spend := dec.FromInt(amount)
	pool := CommunityPool(st)
	if pool.LT(spend) {
		return ErrBadDistribution
	}
	ev, idx := module.EventsOf(st)
	if err := pay(st, ev, recipient, amount, idx); err != nil {
		return err
	}
	addCommunityPool(st, spend.Neg())
	return nil
}

// Codes of the legacy proposal's errors.
const (
	CodeInvalidProposalAmount  uint32 = 10
	CodeEmptyProposalRecipient uint32 = 11
)

// SpendProposal executes the legacy CommunityPoolSpendProposal (gov
// v1beta1 content) on a chain whose bech32 prefix and coin are prefix and
// denom: the SDK's checks of its recipient and amount, then
// SpendCommunityPool.
func SpendProposal(st module.State, p *distrv1beta1.CommunityPoolSpendProposal, prefix, denom string) error {
	if p.GetRecipient() == "" {
		return codedErr(CodeEmptyProposalRecipient, "invalid community pool spend proposal recipient")
	}
	amount, err := module.CoinsAmount(p.GetAmount(), denom)
	if err != nil || amount.Sign() <= 0 {
		return codedErr(CodeInvalidProposalAmount, "invalid community pool spend proposal amount")
	}
	to, err := accounts.ParseAddress(prefix, p.Recipient)
	if err != nil {
		return module.SDKError(module.CodeInvalidAddress, "invalid recipient %s: %v", p.Recipient, err)
	}
	return SpendCommunityPool(st, to, amount)
}
