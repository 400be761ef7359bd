package module

import (
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// Env is the chain context of a check or an execution.
type Env struct {
	ChainID string
	Prefix  string // the chain's bech32 prefix
	Denom   string // the base denomination
	// BaseFee is the block's base fee (execution) or the next block's
	// (CheckTx); a native fee must cover gas_limit × max(BaseFee, MinGasPrice).
	BaseFee     *big.Int
	MinGasPrice *big.Int // the node's minimum gas price; nil in execution
	GasLimit    uint64   // block gas limit
	Height      int64    // of the block the tx goes into
	Time        time.Time
	Coinbase    common.Address // receives the fee above the burnt base fee
}

// Reader is the state a check or a query reads; *state.StateDB satisfies it.
type Reader interface {
	GetState(common.Address, common.Hash) common.Hash
	GetNonce(common.Address) uint64
	GetBalance(common.Address) *uint256.Int
}

// State is the state execution changes. *state.StateDB, the hooked state
// of a block's EVM and go-ethereum's vm.StateDB (what a precompile gets)
// satisfy it.
type State interface {
	Reader
	SetState(common.Address, common.Hash, common.Hash) common.Hash
	AddBalance(common.Address, *uint256.Int, tracing.BalanceChangeReason) uint256.Int
	SubBalance(common.Address, *uint256.Int, tracing.BalanceChangeReason) uint256.Int
	SetNonce(common.Address, uint64, tracing.NonceChangeReason)
	Exist(common.Address) bool
	Snapshot() int
	RevertToSnapshot(int)
}

// Block is what begin- and end-block hooks get: the block's context, what
// CometBFT decided about it besides its transactions, and the collector of
// its block events.
type Block struct {
	Env    *Env
	Info   *BlockInfo
	Events *Events
}

// BlockInfo is what CometBFT's FinalizeBlock request says about the block
// besides its transactions: who proposed it, who signed the previous one
// (decided_last_commit) and the evidence of misbehaviour it carries. It is
// part of the block's input: a replay of the block gets the same.
type BlockInfo struct {
	// Proposer is the CometBFT address of the block's proposer.
	Proposer common.Address
	// Votes are the validators of the previous block, in CometBFT's order,
	// each with its power then and whether its vote is in this block's last
	// commit.
	Votes []Vote
	// Misbehavior is the evidence the block carries.
	Misbehavior []Misbehavior
}

// Vote is one validator's entry in a block's last commit.
type Vote struct {
	Validator common.Address // CometBFT address
	Power     int64
	// Signed is false when the validator's vote is absent from the commit
	// (a nil vote counts as signed, as the SDK's slashing counts it).
	Signed bool
}

// Misbehavior is one piece of evidence CometBFT verified.
type Misbehavior struct {
	// DuplicateVote is true for two conflicting votes (double signing),
	// false for a light-client attack.
	DuplicateVote bool
	Validator     common.Address // CometBFT address
	Power         int64          // the validator's power at Height
	Height        int64          // of the infraction
	Time          time.Time      // of the infraction's block
	// TotalVotingPower is the validator set's power at Height.
	TotalVotingPower int64
}

// NewBlockInfo converts the fields of a FinalizeBlock request.
func NewBlockInfo(proposer []byte, commit abci.CommitInfo, evidence []abci.Misbehavior) *BlockInfo {
	info := &BlockInfo{Proposer: common.BytesToAddress(proposer)}
	for _, v := range commit.Votes {
		info.Votes = append(info.Votes, Vote{
			Validator: common.BytesToAddress(v.Validator.Address), Power: v.Validator.Power,
			Signed: v.BlockIdFlag != cmtproto.BlockIDFlagAbsent && v.BlockIdFlag != cmtproto.BlockIDFlagUnknown,
		})
	}
	for _, m := range evidence {
		info.Misbehavior = append(info.Misbehavior, Misbehavior{
			DuplicateVote: m.Type == abci.MisbehaviorType_DUPLICATE_VOTE,
			Validator:     common.BytesToAddress(m.Validator.Address), Power: m.Validator.Power,
			Height: m.Height, Time: m.Time.UTC(), TotalVotingPower: m.TotalVotingPower,
		})
	}
	return info
}

// Genesis is what InitGenesis hooks get.
type Genesis struct {
	// AppState is genesis.json's app_state; a module reads its own section
	// with Section.
	AppState json.RawMessage
	// Time is the genesis time (the time of block 0).
	Time time.Time
	// Validators are CometBFT's genesis validators.
	Validators []abci.ValidatorUpdate
	// Rewards are the fee recipients app_state.validators names, by
	// CometBFT validator address in upper-case hex.
	Rewards map[string]common.Address
	// Alloc is the genesis allocation; a module adds its system accounts
	// to it, through State.
	Alloc types.GenesisAlloc
}

// State is a State over Alloc: what a module writes at genesis.
func (g *Genesis) State() *AllocState { return NewAllocState(g.Alloc) }

// Section decodes app_state's section name into v; it leaves v as it is
// when the section is absent or null.
func (g *Genesis) Section(name string, v any) error {
	var sections map[string]json.RawMessage
	if err := json.Unmarshal(g.AppState, &sections); err != nil {
		return fmt.Errorf("app_state: %w", err)
	}
	raw, ok := sections[name]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("app_state.%s: %w", name, err)
	}
	return nil
}

// Query is an abci_query path a module answers from the state at the
// requested height.
type Query struct {
	Path string // exact path, e.g. "/ember/validators"
	// Answer reads st and returns the answer's value; env holds the
	// chain's Prefix and Denom only.
	Answer func(st Reader, env *Env) ([]byte, error)
}

// GovAuthority is the gov module's account: it holds proposal deposits,
// and the messages a passed proposal carries run with it as their signer,
// so a message only governance may send (MsgUpdateParams, MsgSoftwareUpgrade,
// MsgCommunityPoolSpend) names it as its authority. It lives here, not in
// package gov, so that every module can check it without importing gov.
var GovAuthority = common.HexToAddress("0x0000000000000000000000000000000000000B50")
