package staking

import (
	"math/big"
	"time"

	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// BondStatus is a validator's status, numbered as cosmos.staking.v1beta1.BondStatus.
type BondStatus uint8

// The statuses.
const (
	Unbonded  BondStatus = 1
	Unbonding BondStatus = 2
	Bonded    BondStatus = 3
)

func (s BondStatus) String() string {
	switch s {
	case Bonded:
		return "BOND_STATUS_BONDED"
	case Unbonding:
		return "BOND_STATUS_UNBONDING"
	}
	return "BOND_STATUS_UNBONDED"
}

// Description is a validator's self-description.
type Description struct {
	Moniker, Identity, Website, SecurityContact, Details string
}

// Commission is a validator's commission and its bounds.
type Commission struct {
	Rate, MaxRate, MaxChangeRate dec.Dec
	UpdateTime                   time.Time
}

// Validator is one validator as the state holds it.
type Validator struct {
	// Operator is the account that operates it (embervaloper1… spells the
	// same 20 bytes). A validator taken from a CometBFT genesis without a
	// staking section has no operator: Operator is then its CometBFT
	// address, HasOperator is false and its tokens are in no pool.
	Operator          common.Address
	HasOperator       bool
	ConsPubKey        []byte // 32-byte ed25519 key
	Jailed            bool
	Status            BondStatus
	Tokens            *big.Int
	DelegatorShares   dec.Dec
	Description       Description
	UnbondingHeight   int64
	UnbondingTime     time.Time
	Commission        Commission
	MinSelfDelegation *big.Int
	CreationHeight    int64
	// RewardAddress receives the priority fees of the blocks it proposes
	// (the operator for a new validator).
	RewardAddress common.Address
	// ReportedPower is the power CometBFT was last told (0: not in its set).
	ReportedPower int64
}

// Moniker is the description's moniker.
func (v *Validator) Moniker() string { return v.Description.Moniker }

// ConsAddress is the CometBFT validator address: sha256(pubkey)[:20].
func (v *Validator) ConsAddress() common.Address {
	return common.BytesToAddress(ed25519.PubKey(v.ConsPubKey).Address())
}

// Power is the voting power of tokens: tokens / 10^18, capped at MaxPower.
func Power(tokens *big.Int) int64 {
	p := new(big.Int).Quo(tokens, PowerReduction)
	if !p.IsInt64() || p.Int64() > MaxPower {
		return MaxPower
	}
	return p.Int64()
}

// Power is the validator's potential voting power (its tokens').
func (v *Validator) Power() int64 { return Power(v.Tokens) }

// IsBonded tells whether the validator is in the bonded set.
func (v *Validator) IsBonded() bool { return v.Status == Bonded }

// pool is where the validator's tokens are (none for one without operator).
func (v *Validator) pool() common.Address {
	if v.IsBonded() {
		return BondedPool
	}
	return NotBondedPool
}

// TokensFromShares is shares × tokens / totalShares (SDK TokensFromShares:
// the product exact, the quotient rounded half to even).
func TokensFromShares(tokens *big.Int, totalShares, shares dec.Dec) dec.Dec {
	if totalShares.IsZero() {
		return dec.Zero()
	}
	return shares.MulInt(tokens).Quo(totalShares)
}

// TokensFromShares is the tokens behind shares of v.
func (v *Validator) TokensFromShares(shares dec.Dec) dec.Dec {
	return TokensFromShares(v.Tokens, v.DelegatorShares, shares)
}

// TokensFromSharesTruncated is the tokens behind shares, cut toward zero.
func (v *Validator) TokensFromSharesTruncated(shares dec.Dec) dec.Dec {
	if v.DelegatorShares.IsZero() {
		return dec.Zero()
	}
	return shares.MulInt(v.Tokens).QuoTruncate(v.DelegatorShares)
}

// SharesFromTokens is the shares amount tokens buys (SDK: shares × amount
// / tokens, integer division of the raw value); ok is false when the
// validator has no tokens.
func (v *Validator) SharesFromTokens(amount *big.Int) (dec.Dec, bool) {
	if v.Tokens.Sign() == 0 {
		return dec.Zero(), false
	}
	return v.DelegatorShares.MulInt(amount).QuoInt(v.Tokens), true
}

// SharesFromTokensTruncated is SharesFromTokens cut toward zero as a Dec
// quotient.
func (v *Validator) SharesFromTokensTruncated(amount *big.Int) (dec.Dec, bool) {
	if v.Tokens.Sign() == 0 {
		return dec.Zero(), false
	}
	return v.DelegatorShares.MulInt(amount).QuoTruncate(dec.FromInt(v.Tokens)), true
}

// invalidExRate tells whether the validator has shares but no tokens.
func (v *Validator) invalidExRate() bool {
	return v.Tokens.Sign() == 0 && v.DelegatorShares.IsPositive()
}

func validatorSlot(op common.Address) common.Hash {
	return slots.Map(slots.AddrWord(op), slots.Word(slotVals))
}

func timeWord(t time.Time) common.Hash {
	if t.IsZero() || t.UnixNano() <= 0 {
		return common.Hash{}
	}
	return slots.Word(uint64(t.UnixNano()))
}

func wordTime(h common.Hash) time.Time { return time.Unix(0, int64(slots.WordUint(h))).UTC() }

// Count is the number of validators ever created (they are never deleted).
func Count(st module.Reader) uint64 { return store.Uint(st, slots.Word(slotCount)) }

// Get reads the validator operated by op.
func Get(st module.Reader, op common.Address) (*Validator, bool) {
	base := validatorSlot(op)
	info := store.Get(st, base)
	if info == (common.Hash{}) {
		return nil, false
	}
	pk := store.Get(st, slots.Offset(base, 1))
	at := func(n uint64) common.Hash { return store.Get(st, slots.Offset(base, n)) }
	return &Validator{
		Operator:        op,
		HasOperator:     info[0] == 0,
		Status:          BondStatus(info[1]),
		Jailed:          info[2] == 1,
		ConsPubKey:      append([]byte{}, pk[:]...),
		Tokens:          store.Big(st, slots.Offset(base, 2)),
		DelegatorShares: store.Dec(st, slots.Offset(base, 3)),
		RewardAddress:   slots.WordAddr(at(4)),
		ReportedPower:   int64(slots.WordUint(at(5))),
		UnbondingHeight: int64(slots.WordUint(at(6))),
		UnbondingTime:   wordTime(at(7)),
		Commission: Commission{
			Rate: store.Dec(st, slots.Offset(base, 8)), MaxRate: store.Dec(st, slots.Offset(base, 9)), MaxChangeRate: store.Dec(st, slots.Offset(base, 10)),
			UpdateTime: wordTime(at(11)),
		},
		MinSelfDelegation: store.Big(st, slots.Offset(base, 12)),
		CreationHeight:    int64(slots.WordUint(at(13))),
		Description: Description{
			Moniker: readString(st, slots.Offset(base, 14)), Identity: readString(st, slots.Offset(base, 15)), Website: readString(st, slots.Offset(base, 16)),
			SecurityContact: readString(st, slots.Offset(base, 17)), Details: readString(st, slots.Offset(base, 18)),
		},
	}, true
}

// setValidator writes every field of v but its index (see add).
func setValidator(st module.State, v *Validator) {
	base := validatorSlot(v.Operator)
	info := store.Get(st, base)
	info[0], info[1], info[2] = 0, byte(v.Status), 0
	if !v.HasOperator {
		info[0] = 1
	}
	if v.Jailed {
		info[2] = 1
	}
	store.Set(st, base, info)
	store.Set(st, slots.Offset(base, 1), common.BytesToHash(v.ConsPubKey))
	store.SetBig(st, slots.Offset(base, 2), v.Tokens)
	store.SetDec(st, slots.Offset(base, 3), v.DelegatorShares)
	store.Set(st, slots.Offset(base, 4), slots.AddrWord(v.RewardAddress))
	store.SetUint(st, slots.Offset(base, 5), uint64(v.ReportedPower))
	store.SetUint(st, slots.Offset(base, 6), uint64(v.UnbondingHeight))
	store.Set(st, slots.Offset(base, 7), timeWord(v.UnbondingTime))
	store.SetDec(st, slots.Offset(base, 8), v.Commission.Rate)
	store.SetDec(st, slots.Offset(base, 9), v.Commission.MaxRate)
	store.SetDec(st, slots.Offset(base, 10), v.Commission.MaxChangeRate)
	store.Set(st, slots.Offset(base, 11), timeWord(v.Commission.UpdateTime))
	store.SetBig(st, slots.Offset(base, 12), v.MinSelfDelegation)
	store.SetUint(st, slots.Offset(base, 13), uint64(v.CreationHeight))
	d := v.Description
	for i, s := range []string{d.Moniker, d.Identity, d.Website, d.SecurityContact, d.Details} {
		writeString(st, slots.Offset(base, 14+uint64(i)), s)
	}
}

// add stores a new validator. The caller checked that neither its operator
// nor its key is taken.
func add(st module.State, v *Validator) {
	ensureSystemAccounts(st)
	n := Count(st)
	store.Set(st, validatorSlot(v.Operator), slots.Word(n+1))
	setValidator(st, v)
	store.Set(st, slots.Elem(slots.Word(slotList), n, 1), slots.AddrWord(v.Operator))
	store.SetUint(st, slots.Word(slotCount), n+1)
	store.Set(st, slots.Map(slots.AddrWord(v.ConsAddress()), slots.Word(slotByCons)), slots.AddrWord(v.Operator))
}

// ByConsAddress finds the validator with CometBFT address cons.
func ByConsAddress(st module.Reader, cons common.Address) (*Validator, bool) {
	op := store.Get(st, slots.Map(slots.AddrWord(cons), slots.Word(slotByCons)))
	if op == (common.Hash{}) {
		return nil, false
	}
	return Get(st, slots.WordAddr(op))
}

// Operators lists every validator's operator in creation order.
func Operators(st module.Reader) []common.Address {
	n := Count(st)
	out := make([]common.Address, 0, n)
	for i := uint64(0); i < n; i++ {
		out = append(out, slots.WordAddr(store.Get(st, slots.Elem(slots.Word(slotList), i, 1))))
	}
	return out
}

// All lists every validator in creation order.
func All(st module.Reader) []*Validator {
	var out []*Validator
	for _, op := range Operators(st) {
		if v, ok := Get(st, op); ok {
			out = append(out, v)
		}
	}
	return out
}
