package module

import (
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
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

// Block is what begin- and end-block hooks get: the block's context and
// the collector of its block events.
type Block struct {
	Env    *Env
	Events *Events
}

// Genesis is what InitGenesis hooks get.
type Genesis struct {
	// AppState is genesis.json's app_state; a module reads its own section
	// with Section.
	AppState json.RawMessage
	// Validators are CometBFT's genesis validators.
	Validators []abci.ValidatorUpdate
	// Rewards are the fee recipients app_state.validators names, by
	// CometBFT validator address in upper-case hex.
	Rewards map[string]common.Address
	// Alloc is the genesis allocation; a module adds its system accounts
	// to it.
	Alloc types.GenesisAlloc
}

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
