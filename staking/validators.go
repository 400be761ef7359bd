package staking

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"
)

// Validator is one validator as the state holds it.
type Validator struct {
	// Operator is the account that operates it (embervaloper1… spells the
	// same 20 bytes). A validator taken from a CometBFT genesis without a
	// staking section has no operator: Operator is then its CometBFT
	// address and HasOperator is false.
	Operator    common.Address
	HasOperator bool
	ConsPubKey  []byte   // 32-byte ed25519 key
	Tokens      *big.Int // bonded tokens, base denomination
	// RewardAddress receives the priority fees of the blocks it proposes.
	RewardAddress common.Address
	Moniker       string
	// ReportedPower is the power CometBFT was last told (0: not in its set).
	ReportedPower int64
}

// ConsAddress is the CometBFT validator address: sha256(pubkey)[:20].
func (v *Validator) ConsAddress() common.Address {
	return common.BytesToAddress(ed25519.PubKey(v.ConsPubKey).Address())
}

// Power is the voting power of tokens: tokens / 10^18.
func Power(tokens *big.Int) int64 {
	p := new(big.Int).Quo(tokens, PowerReduction)
	if !p.IsInt64() || p.Int64() > MaxPower {
		return MaxPower
	}
	return p.Int64()
}

// Power is the validator's current voting power.
func (v *Validator) Power() int64 { return Power(v.Tokens) }

// Status is the Cosmos bond status: bonded while CometBFT counts it.
func (v *Validator) Status() string {
	if v.ReportedPower > 0 {
		return "BOND_STATUS_BONDED"
	}
	return "BOND_STATUS_UNBONDED"
}

// Errors of staking operations, with the Cosmos staking module's texts.
var (
	ErrNoValidator      = errors.New("validator does not exist")
	ErrOperatorExists   = errors.New("validator already exist for this operator address; must use new validator operator address")
	ErrPubKeyExists     = errors.New("validator already exist for this pubkey; must use new validator pubkey")
	ErrNoDelegation     = errors.New("no delegation for (address, validator) tuple")
	ErrNotEnoughShares  = errors.New("not enough delegation shares")
	ErrEmptySet         = errors.New("the validator set would be empty")
	ErrPowerTooHigh     = errors.New("validator power would exceed the maximum")
	ErrInsufficientFund = errors.New("insufficient funds")
)

// Count is the number of validators ever created (they are never deleted).
func Count(st Reader) uint64 { return wordUint(get(st, word(slotCount))) }

// Get reads the validator operated by op.
func Get(st Reader, op common.Address) (*Validator, bool) {
	base := validatorSlot(op)
	info := get(st, base)
	if info == (common.Hash{}) {
		return nil, false
	}
	pk := get(st, offset(base, 1))
	reported := getBig(st, offset(base, 4))
	return &Validator{
		Operator:      op,
		HasOperator:   info[0] == 0,
		ConsPubKey:    append([]byte{}, pk[:]...),
		Tokens:        getBig(st, offset(base, 2)),
		RewardAddress: common.BytesToAddress(get(st, offset(base, 3)).Bytes()),
		Moniker:       readString(st, offset(base, 5)),
		ReportedPower: reported.Int64(),
	}, true
}

// ByConsAddress finds the validator with CometBFT address cons.
func ByConsAddress(st Reader, cons common.Address) (*Validator, bool) {
	op := get(st, mapSlot(addrWord(cons), word(slotByCons)))
	if op == (common.Hash{}) {
		return nil, false
	}
	return Get(st, common.BytesToAddress(op[:]))
}

// All lists every validator in creation order.
func All(st Reader) []*Validator {
	n := Count(st)
	out := make([]*Validator, 0, n)
	for i := uint64(0); i < n; i++ {
		op := common.BytesToAddress(get(st, arraySlot(slotList, i, 1)).Bytes())
		if v, ok := Get(st, op); ok {
			out = append(out, v)
		}
	}
	return out
}

// add stores a new validator. The caller checked that neither its operator
// nor its key is taken.
func add(st State, v *Validator) {
	ensureSystemAccounts(st)
	n := Count(st)
	base := validatorSlot(v.Operator)
	info := word(n + 1)
	if !v.HasOperator {
		info[0] = 1
	}
	set(st, base, info)
	set(st, offset(base, 1), common.BytesToHash(v.ConsPubKey))
	setBig(st, offset(base, 2), v.Tokens)
	set(st, offset(base, 3), addrWord(v.RewardAddress))
	setBig(st, offset(base, 4), big.NewInt(v.ReportedPower))
	writeString(st, offset(base, 5), v.Moniker)
	set(st, arraySlot(slotList, n, 1), addrWord(v.Operator))
	set(st, word(slotCount), word(n+1))
	set(st, mapSlot(addrWord(v.ConsAddress()), word(slotByCons)), addrWord(v.Operator))
}

func setTokens(st State, op common.Address, tokens *big.Int) {
	setBig(st, offset(validatorSlot(op), 2), tokens)
}

// Delegation is the tokens del has bonded to the validator op.
func Delegation(st Reader, del, op common.Address) *big.Int {
	return getBig(st, delegationSlot(del, op))
}

// DefaultUnbondingTime applies to a chain whose genesis recorded none (a
// home made before staking existed): Cosmos's 21 days.
const DefaultUnbondingTime = 21 * 24 * time.Hour

// UnbondingTime is the unbonding period recorded at genesis, whole seconds.
func UnbondingTime(st Reader) time.Duration {
	if s := wordUint(get(st, word(slotUnbonding))); s > 0 {
		return time.Duration(s) * time.Second
	}
	return DefaultUnbondingTime
}

// transfer moves amount between accounts, failing when from lacks it.
func transfer(st State, from, to common.Address, amount *big.Int) error {
	a, overflow := uint256.FromBig(amount)
	if overflow {
		return fmt.Errorf("amount %v out of range", amount)
	}
	if st.GetBalance(from).Cmp(a) < 0 {
		return fmt.Errorf("spendable balance %s is smaller than %s: %w", st.GetBalance(from).Dec(), a.Dec(), ErrInsufficientFund)
	}
	st.SubBalance(from, a, tracing.BalanceChangeTransfer)
	st.AddBalance(to, a, tracing.BalanceChangeTransfer)
	return nil
}

// CheckCreate reports why a validator with operator op and key pub cannot be
// created with amount, without changing anything.
func CheckCreate(st Reader, op common.Address, pub []byte, amount *big.Int) error {
	if _, ok := Get(st, op); ok {
		return ErrOperatorExists
	}
	if _, ok := ByConsAddress(st, common.BytesToAddress(ed25519.PubKey(pub).Address())); ok {
		return ErrPubKeyExists
	}
	if Power(amount) >= MaxPower {
		return ErrPowerTooHigh
	}
	return nil
}

// Create makes op a validator with consensus key pub, self-bonding amount
// from op's balance. Its reward address is op until edited.
func Create(st State, op common.Address, pub []byte, moniker string, amount *big.Int) error {
	if err := CheckCreate(st, op, pub, amount); err != nil {
		return err
	}
	ensureSystemAccounts(st)
	if err := transfer(st, op, BondedPool, amount); err != nil {
		return err
	}
	add(st, &Validator{Operator: op, HasOperator: true, ConsPubKey: pub, Tokens: new(big.Int).Set(amount), RewardAddress: op, Moniker: moniker})
	setBig(st, delegationSlot(op, op), amount)
	return nil
}

// Edit changes a validator's moniker (when moniker is not nil) and reward
// address (when reward is not nil).
func Edit(st State, op common.Address, moniker *string, reward *common.Address) error {
	v, ok := Get(st, op)
	if !ok || !v.HasOperator {
		return ErrNoValidator
	}
	base := validatorSlot(op)
	if moniker != nil {
		writeString(st, offset(base, 5), *moniker)
	}
	if reward != nil {
		set(st, offset(base, 3), addrWord(*reward))
	}
	return nil
}

// CheckDelegate reports why del cannot bond amount to op.
func CheckDelegate(st Reader, op common.Address, amount *big.Int) error {
	v, ok := Get(st, op)
	if !ok {
		return ErrNoValidator
	}
	if Power(new(big.Int).Add(v.Tokens, amount)) >= MaxPower {
		return ErrPowerTooHigh
	}
	return nil
}

// Delegate bonds amount of del's balance to op.
func Delegate(st State, del, op common.Address, amount *big.Int) error {
	if err := CheckDelegate(st, op, amount); err != nil {
		return err
	}
	v, _ := Get(st, op)
	ensureSystemAccounts(st)
	if err := transfer(st, del, BondedPool, amount); err != nil {
		return err
	}
	setTokens(st, op, new(big.Int).Add(v.Tokens, amount))
	slot := delegationSlot(del, op)
	setBig(st, slot, new(big.Int).Add(getBig(st, slot), amount))
	return nil
}

// CheckUndelegate reports why del cannot unbond amount from op.
func CheckUndelegate(st Reader, del, op common.Address, amount *big.Int) error {
	v, ok := Get(st, op)
	if !ok {
		return ErrNoValidator
	}
	d := Delegation(st, del, op)
	if d.Sign() == 0 {
		return ErrNoDelegation
	}
	if d.Cmp(amount) < 0 {
		return ErrNotEnoughShares
	}
	// The set must keep some power: CometBFT halts on an empty set.
	total := int64(0)
	for _, other := range All(st) {
		if other.Operator != op {
			total += other.Power()
		}
	}
	if total+Power(new(big.Int).Sub(v.Tokens, amount)) == 0 {
		return ErrEmptySet
	}
	return nil
}

// Undelegate unbonds amount of del's delegation to op: the tokens move to
// the unbonding pool and are paid back to del at the first block whose time
// is at or after the returned completion time.
func Undelegate(st State, del, op common.Address, amount *big.Int, now time.Time) (time.Time, error) {
	if err := CheckUndelegate(st, del, op, amount); err != nil {
		return time.Time{}, err
	}
	v, _ := Get(st, op)
	ensureSystemAccounts(st)
	if err := transfer(st, BondedPool, UnbondingPool, amount); err != nil {
		return time.Time{}, err
	}
	setTokens(st, op, new(big.Int).Sub(v.Tokens, amount))
	slot := delegationSlot(del, op)
	setBig(st, slot, new(big.Int).Sub(getBig(st, slot), amount))
	done := now.Add(UnbondingTime(st)).Truncate(time.Second)
	tail := wordUint(get(st, word(slotQueueTail)))
	e := arraySlot(slotQueue, tail, 4)
	set(st, e, addrWord(del))
	set(st, offset(e, 1), addrWord(op))
	setBig(st, offset(e, 2), amount)
	set(st, offset(e, 3), word(uint64(done.Unix())))
	set(st, word(slotQueueTail), word(tail+1))
	return done, nil
}

// Unbonding is one entry of the unbonding queue.
type Unbonding struct {
	Delegator, Operator common.Address
	Amount              *big.Int
	CompletionTime      time.Time
}

func readEntry(st Reader, i uint64) Unbonding {
	e := arraySlot(slotQueue, i, 4)
	return Unbonding{
		Delegator:      common.BytesToAddress(get(st, e).Bytes()),
		Operator:       common.BytesToAddress(get(st, offset(e, 1)).Bytes()),
		Amount:         getBig(st, offset(e, 2)),
		CompletionTime: time.Unix(int64(wordUint(get(st, offset(e, 3)))), 0).UTC(),
	}
}

// Unbondings lists the entries not yet paid, oldest first.
func Unbondings(st Reader) []Unbonding {
	head, tail := wordUint(get(st, word(slotQueueHead))), wordUint(get(st, word(slotQueueTail)))
	out := make([]Unbonding, 0, tail-head)
	for i := head; i < tail; i++ {
		out = append(out, readEntry(st, i))
	}
	return out
}

// Mature pays back every unbonding entry whose completion time is at or
// before now and returns them. Entries complete in queue order: the
// unbonding time is fixed and block times never decrease.
func Mature(st State, now time.Time) ([]Unbonding, error) {
	head, tail := wordUint(get(st, word(slotQueueHead))), wordUint(get(st, word(slotQueueTail)))
	var done []Unbonding
	for ; head < tail; head++ {
		e := readEntry(st, head)
		if e.CompletionTime.After(now) {
			break
		}
		if err := transfer(st, UnbondingPool, e.Delegator, e.Amount); err != nil {
			return nil, fmt.Errorf("unbonding entry %d: %w", head, err)
		}
		base := arraySlot(slotQueue, head, 4)
		for k := uint64(0); k < 4; k++ {
			set(st, offset(base, k), common.Hash{})
		}
		done = append(done, e)
	}
	if len(done) > 0 {
		set(st, word(slotQueueHead), word(head))
	}
	return done, nil
}

// Updates compares every validator's power with the power CometBFT was last
// told, records the new power and returns the changes (power 0 removes a
// validator from CometBFT's set), in creation order.
func Updates(st State) []abci.ValidatorUpdate {
	var out []abci.ValidatorUpdate
	for _, v := range All(st) {
		p := v.Power()
		if p == v.ReportedPower {
			continue
		}
		setBig(st, offset(validatorSlot(v.Operator), 4), big.NewInt(p))
		out = append(out, abci.Ed25519ValidatorUpdate(v.ConsPubKey, p))
	}
	return out
}

// Genesis is one validator bonded at genesis.
type Genesis struct {
	Moniker       string
	Operator      common.Address // zero with HasOperator false: taken from CometBFT's genesis
	HasOperator   bool
	ConsPubKey    []byte
	Tokens        *big.Int
	RewardAddress common.Address
}

// InitGenesis writes the genesis validator set and the unbonding time. The
// self-bonds of validators with an operator are minted into the bonded pool
// and recorded as their operator's delegation; a validator without an
// operator has unbacked tokens (power × 10^18) that nobody can unbond.
func InitGenesis(st State, vals []Genesis, unbonding time.Duration) error {
	ensureSystemAccounts(st)
	set(st, word(slotUnbonding), word(uint64(unbonding/time.Second)))
	bonded := new(big.Int)
	for _, g := range vals {
		if len(g.ConsPubKey) != ed25519.PubKeySize {
			return fmt.Errorf("validator %q: consensus key has %d bytes, want %d", g.Moniker, len(g.ConsPubKey), ed25519.PubKeySize)
		}
		op := g.Operator
		if !g.HasOperator {
			op = common.BytesToAddress(ed25519.PubKey(g.ConsPubKey).Address())
		}
		if err := CheckCreate(st, op, g.ConsPubKey, g.Tokens); err != nil {
			return fmt.Errorf("validator %q: %w", g.Moniker, err)
		}
		add(st, &Validator{Operator: op, HasOperator: g.HasOperator, ConsPubKey: g.ConsPubKey, Tokens: new(big.Int).Set(g.Tokens),
			RewardAddress: g.RewardAddress, Moniker: g.Moniker, ReportedPower: Power(g.Tokens)})
		if g.HasOperator {
			setBig(st, delegationSlot(op, op), new(big.Int).Add(Delegation(st, op, op), g.Tokens))
			bonded.Add(bonded, g.Tokens)
		}
	}
	if bonded.Sign() > 0 {
		a, overflow := uint256.FromBig(bonded)
		if overflow {
			return fmt.Errorf("genesis bonded tokens %v out of range", bonded)
		}
		st.AddBalance(BondedPool, a, tracing.BalanceIncreaseGenesisBalance)
	}
	return nil
}
