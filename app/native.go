package app

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/legacypool"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
	pool "github.com/emberchain/ember/txpool"
)

// DefaultUnbondingTime is the unbonding time of a genesis without a staking
// section: Cosmos's default of 21 days.
const DefaultUnbondingTime = staking.DefaultUnbondingTime

// QueryValidators is "/ember/validators": the validator set and the
// pending unbonding entries as JSON (ValidatorsJSON).
const QueryValidators = "/ember/validators"

// SetChainID tells the app the CometBFT chain id, which native
// transactions sign (InitChain also sets it; after a restart it is not
// called).
func (a *App) SetChainID(id string) { a.chainID.Store(&id) }

func (a *App) chainIDString() string {
	if p := a.chainID.Load(); p != nil {
		return *p
	}
	return ""
}

// nativeRefusal is the CheckTx answer to a refused native transaction.
func nativeRefusal(err error) *abci.ResponseCheckTx {
	e := native.AsError(err)
	return &abci.ResponseCheckTx{Code: e.Code, Codespace: e.Codespace, Log: e.Error()}
}

// nativeItem is how the pool sees a native tx (txpool.Item): nonce =
// sequence, gas = gas limit, fee cap = tip cap = fee / gas limit, cost =
// all it may spend (fee and message amounts).
type nativeItem struct{ tx *native.Tx }

func (n nativeItem) Nonce() uint64       { return n.tx.Sequence }
func (n nativeItem) Gas() uint64         { return n.tx.GasLimit }
func (n nativeItem) GasFeeCap() *big.Int { return n.price() }
func (n nativeItem) GasTipCap() *big.Int { return n.price() }
func (n nativeItem) Cost() *big.Int      { return n.tx.Spend() }

func (n nativeItem) price() *big.Int {
	return new(big.Int).Quo(n.tx.Fee, new(big.Int).SetUint64(n.tx.GasLimit))
}

// checkEnv is the context CheckTx checks native transactions in: the next
// block on the durable head.
func (a *App) checkEnv() *native.Env {
	head := a.store.Head()
	return &native.Env{
		ChainID: a.chainIDString(), Prefix: a.genesis.Bech32Prefix, Denom: a.genesis.Denom,
		BaseFee: a.nextBaseFee(), MinGasPrice: a.MinTip(), GasLimit: head.GasLimit,
		Height: head.Number.Int64() + 1, Time: time.Unix(int64(head.Time), 0),
	}
}

// checkNative admits a native transaction to the pool: decoded, the ante
// checks against the durable head, a sequence that extends (or replaces,
// with the pool's price bump) the sender's pending run, funds for it and
// the sender's pending transactions, and its messages' preconditions.
func (a *App) checkNative(raw []byte, key pool.Key) *abci.ResponseCheckTx {
	tx, err := native.Decode(raw, a.genesis.Bech32Prefix, a.genesis.Denom)
	if err != nil {
		return nativeRefusal(err)
	}
	st := a.checkState
	if _, err := native.Ante(st, tx, a.checkEnv()); err != nil {
		return nativeRefusal(err)
	}
	stateNonce := st.GetNonce(tx.Signer)
	pending := a.pool.PendingNonce(tx.Signer, stateNonce)
	if tx.Sequence < stateNonce || tx.Sequence > pending {
		return nativeRefusal(native.SequenceError(pending, tx.Sequence))
	}
	spend := new(big.Int).Add(a.pool.Spent(tx.Signer), tx.Spend())
	if replaced := a.pool.PendingCost(tx.Signer, tx.Sequence); replaced != nil {
		spend.Sub(spend, replaced)
	}
	if bal := st.GetBalance(tx.Signer).ToBig(); bal.Cmp(spend) < 0 {
		return nativeRefusal(native.FundsError(bal, spend, a.genesis.Denom))
	}
	if err := native.CheckMsgs(st, tx); err != nil {
		return nativeRefusal(err)
	}
	ptx := pool.NewTx(nativeItem{tx}, tx.Signer, key, raw)
	added, err := a.pool.Add(ptx, stateNonce, a.nextBaseFee())
	if err != nil {
		return nativeRefusal(poolError(err))
	}
	res := a.admitted(ptx, added)
	res.GasWanted = int64(tx.GasLimit)
	return res
}

// poolError gives a pool refusal its Cosmos code.
func poolError(err error) error {
	e := &native.Error{Codespace: native.CodespaceSDK, Detail: err.Error()}
	switch {
	case errors.Is(err, gethpool.ErrAlreadyKnown):
		e.Code, e.Desc = native.CodeTxInMempool, "tx already in mempool"
	case errors.Is(err, gethpool.ErrReplaceUnderpriced):
		e.Code, e.Desc = native.CodeInsufficientFee, "insufficient fee"
	case errors.Is(err, gethpool.ErrAccountLimitExceeded), errors.Is(err, legacypool.ErrTxPoolOverflow), errors.Is(err, gethpool.ErrUnderpriced):
		e.Code, e.Desc = native.CodeMempoolFull, "mempool is full"
	case errors.Is(err, core.ErrNonceTooLow):
		e.Code, e.Desc = native.CodeWrongSequence, "incorrect account sequence"
	default:
		e.Code, e.Desc = native.CodeInvalidRequest, "invalid request"
	}
	return e
}

// nativeBlock runs a block's native transactions in their places among
// its EVM transactions, on the executor's state, matures unbonding entries
// first and computes the validator updates last.
type nativeBlock struct {
	x      *evm.Executor
	env    *native.Env
	events []abci.Event // block events (matured unbonding entries)
}

func (a *App) newNativeBlock(x *evm.Executor, header *types.Header) *nativeBlock {
	return &nativeBlock{
		x: x,
		env: &native.Env{
			ChainID: a.chainIDString(), Prefix: a.genesis.Bech32Prefix, Denom: a.genesis.Denom,
			BaseFee: header.BaseFee, GasLimit: header.GasLimit, Height: header.Number.Int64(),
			Time: time.Unix(int64(header.Time), 0).UTC(), Coinbase: header.Coinbase,
		},
	}
}

// begin pays back matured unbonding entries, through the block's hooks.
func (b *nativeBlock) begin() error {
	done, err := staking.Mature(b.x.State(), b.env.Time)
	if err != nil {
		return err
	}
	b.x.Settle()
	b.events = append(b.events, native.MatureEvents(done, b.env.Prefix, b.env.Denom)...)
	return nil
}

// run executes a native transaction in its place in the block.
func (b *nativeBlock) run(tx *native.Tx) *abci.ExecTxResult {
	res, err := native.Execute(b.x.State(), tx, b.env)
	if err != nil {
		e := native.AsError(err)
		res = &abci.ExecTxResult{Code: e.Code, Codespace: e.Codespace, Log: e.Error(), GasWanted: int64(tx.GasLimit)}
	}
	b.x.Settle()
	return res
}

// end computes the validator updates of the block.
func (b *nativeBlock) end(st *state.StateDB) []abci.ValidatorUpdate {
	return staking.Updates(st)
}

// decodeResult is the result of bytes that did not decode.
func decodeResult(err error) *abci.ExecTxResult {
	var e *native.Error
	if errors.As(err, &e) {
		return &abci.ExecTxResult{Code: e.Code, Codespace: e.Codespace, Log: e.Error()}
	}
	return &abci.ExecTxResult{Code: CodeDecode, Codespace: Codespace, Log: err.Error()}
}

// stakingGenesis adds the staking state to the genesis allocation and
// checks that CometBFT's genesis validators are the same set with power =
// tokens / 10^18. Without a staking section, the CometBFT validators are
// the set, without operators.
func (a *App) stakingGenesis(alloc types.GenesisAlloc, cmtVals []abci.ValidatorUpdate) error {
	rewards := a.rewards
	var vals []staking.Genesis
	unbonding := DefaultUnbondingTime
	if s := a.genesis.Staking; s != nil {
		if s.UnbondingTime != "" {
			d, err := time.ParseDuration(s.UnbondingTime)
			if err != nil || d < time.Second {
				return fmt.Errorf("app_state.staking.unbonding_time %q: want a duration of at least 1s, such as 504h or 60s", s.UnbondingTime)
			}
			unbonding = d
		}
		for i, v := range s.Validators {
			if v.Tokens == nil || (*big.Int)(v.Tokens).Cmp(staking.PowerReduction) < 0 {
				return fmt.Errorf("app_state.staking.validators[%d] (%s): tokens must be at least 10^18 (power 1)", i, v.Moniker)
			}
			if len(v.ConsensusPubKey) != 32 {
				return fmt.Errorf("app_state.staking.validators[%d] (%s): consensus_pubkey has %d bytes, want a 32-byte ed25519 key", i, v.Moniker, len(v.ConsensusPubKey))
			}
			g := staking.Genesis{Moniker: v.Moniker, Operator: v.Operator, HasOperator: true, ConsPubKey: v.ConsensusPubKey,
				Tokens: (*big.Int)(v.Tokens), RewardAddress: v.Operator}
			if r, ok := rewards[consHex(v.ConsensusPubKey)]; ok {
				g.RewardAddress = r
			}
			vals = append(vals, g)
		}
		if err := matchGenesisValidators(vals, cmtVals); err != nil {
			return err
		}
	} else {
		for _, u := range cmtVals {
			pk := u.PubKey.GetEd25519()
			if pk == nil {
				return fmt.Errorf("genesis validator with a %T key: only ed25519 consensus keys are supported", u.PubKey.Sum)
			}
			g := staking.Genesis{ConsPubKey: pk, Tokens: new(big.Int).Mul(big.NewInt(u.Power), staking.PowerReduction)}
			g.RewardAddress = common.BytesToAddress(hexBytes(consHex(pk)))
			if r, ok := rewards[consHex(pk)]; ok {
				g.RewardAddress = r
			}
			vals = append(vals, g)
		}
	}
	sys, err := staking.GenesisAlloc(vals, unbonding)
	if err != nil {
		return fmt.Errorf("app_state.staking: %w", err)
	}
	for addr, acc := range sys {
		if _, taken := alloc[addr]; taken {
			return fmt.Errorf("genesis allocation names the staking system account %s", addr.Hex())
		}
		alloc[addr] = types.Account{Nonce: acc.Nonce, Balance: acc.Balance, Storage: acc.Storage}
	}
	return nil
}

// matchGenesisValidators checks the staking validators against CometBFT's.
func matchGenesisValidators(vals []staking.Genesis, cmtVals []abci.ValidatorUpdate) error {
	want := make(map[string]int64, len(vals))
	for _, v := range vals {
		want[hex.EncodeToString(v.ConsPubKey)] = staking.Power(v.Tokens)
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
	v := staking.Validator{ConsPubKey: pub}
	a := v.ConsAddress()
	return strings.ToUpper(hex.EncodeToString(a[:]))
}

// stakingReward is the reward address the staking state records for the
// validator with CometBFT address proposer.
func (a *App) stakingReward(proposer []byte) (common.Address, bool) {
	head := a.store.Head()
	if head == nil {
		return common.Address{}, false
	}
	st, err := a.store.CachedStateAt(head.Root)
	if err != nil {
		return common.Address{}, false
	}
	v, ok := staking.ByConsAddress(st, common.BytesToAddress(proposer))
	if !ok || v.RewardAddress == (common.Address{}) {
		return common.Address{}, false
	}
	return v.RewardAddress, true
}

// ValidatorJSON is one validator in the answer to QueryValidators.
type ValidatorJSON struct {
	OperatorAddress string     `json:"operator_address"` // embervaloper1…; "" without operator
	Operator        string     `json:"operator"`         // the same 20 bytes, 0x hex
	ConsensusPubKey PubKeyJSON `json:"consensus_pubkey"`
	ConsAddress     string     `json:"cons_address"` // CometBFT address, uppercase hex
	Moniker         string     `json:"moniker"`
	Tokens          string     `json:"tokens"`
	Power           string     `json:"power"`
	Status          string     `json:"status"`
	RewardAddress   string     `json:"reward_address"` // 0x hex
}

// PubKeyJSON is a key as the Cosmos JSON writes an Any.
type PubKeyJSON struct {
	Type string `json:"@type"`
	Key  []byte `json:"key"`
}

// UnbondingJSON is one pending unbonding entry.
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

func (a *App) queryValidators(req *abci.RequestQuery) *abci.ResponseQuery {
	st, header, fail := a.stateAt(req.Height)
	if fail != nil {
		return fail
	}
	p := accounts.NewPrefixes(a.genesis.Bech32Prefix)
	out := ValidatorsJSON{Validators: []ValidatorJSON{}, Unbonding: []UnbondingJSON{}, UnbondingTime: staking.UnbondingTime(st).String()}
	for _, v := range staking.All(st) {
		j := ValidatorJSON{
			ConsensusPubKey: PubKeyJSON{Type: native.ConsensusPubKeyType, Key: v.ConsPubKey},
			ConsAddress:     consHex(v.ConsPubKey),
			Moniker:         v.Moniker,
			Tokens:          v.Tokens.String(),
			Power:           strconv.FormatInt(v.Power(), 10),
			Status:          v.Status(),
			RewardAddress:   v.RewardAddress.Hex(),
		}
		if v.HasOperator {
			j.OperatorAddress, _ = p.Encode(accounts.KindValidator, v.Operator[:])
			j.Operator = v.Operator.Hex()
		}
		out.Validators = append(out.Validators, j)
	}
	for _, e := range staking.Unbondings(st) {
		val, _ := p.Encode(accounts.KindValidator, e.Operator[:])
		out.Unbonding = append(out.Unbonding, UnbondingJSON{
			DelegatorAddress: accounts.Bech32(a.genesis.Bech32Prefix, e.Delegator), ValidatorAddress: val,
			Amount: e.Amount.String(), CompletionTime: e.CompletionTime.Format(time.RFC3339),
		})
	}
	value, _ := json.Marshal(out)
	return &abci.ResponseQuery{Code: CodeOK, Value: value, Height: header.Number.Int64()}
}

// QueryGasPrice is "/ember/gas-price": the next block's base fee and this
// node's minimum gas price, decimal strings in the base denomination
// (GasPriceJSON). A native tx's fee must be at least gas limit × the larger.
const QueryGasPrice = "/ember/gas-price"

// GasPriceJSON is the answer to QueryGasPrice.
type GasPriceJSON struct {
	BaseFee     string `json:"base_fee"`
	MinGasPrice string `json:"min_gas_price"`
	Denom       string `json:"denom"`
}

func (a *App) queryGasPrice() *abci.ResponseQuery {
	head := a.store.Head()
	if head == nil {
		return &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: "no state"}
	}
	value, _ := json.Marshal(GasPriceJSON{BaseFee: a.nextBaseFee().String(), MinGasPrice: a.MinTip().String(), Denom: a.genesis.Denom})
	return &abci.ResponseQuery{Code: CodeOK, Value: value, Height: head.Number.Int64()}
}

// Simulate checks a native tx as a client simulates it before signing (no
// signature, maybe no fee) against the check state and the pool, and
// reports the gas limit it names and the gas it will be charged.
func (a *App) Simulate(raw []byte) (gasWanted, gasUsed uint64, err error) {
	sim, err := native.DecodeSimulation(raw, a.genesis.Bech32Prefix, a.genesis.Denom)
	if err != nil {
		return 0, 0, err
	}
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	if err := a.ensureCheckState(); err != nil {
		return sim.GasWanted, 0, err
	}
	st := a.checkState
	pending := a.pool.PendingNonce(sim.Tx.Signer, st.GetNonce(sim.Tx.Signer))
	if err := native.CheckSimulation(st, sim.Tx, a.checkEnv(), pending); err != nil {
		return sim.GasWanted, 0, err
	}
	return sim.GasWanted, sim.Tx.GasUsed(), nil
}
