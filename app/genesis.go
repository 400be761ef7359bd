package app

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/genutil"
	"github.com/emberchain/ember/gov"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/slashing"
	"github.com/emberchain/ember/staking"
)

// AppState is the app_state section of genesis.json.
type AppState struct {
	// EVM is a go-ethereum genesis: chain config, initial allocation, block
	// gas limit and initial base fee. Its timestamp is replaced by the
	// CometBFT genesis time so the two can never disagree.
	EVM *core.Genesis `json:"evm"`
	// FeeMarket holds the EIP-1559 parameters beyond go-ethereum's constants.
	FeeMarket FeeMarket `json:"fee_market"`
	// Validators maps validators to the address that receives their fees.
	Validators []ValidatorReward `json:"validators"`
	// Bech32Prefix is the human-readable part of the chain's bech32 addresses.
	Bech32Prefix string `json:"bech32_prefix"`
	// Denom is the native token's base denomination (18 decimals; the EVM
	// balance in wei is the amount in it), as Cosmos REST reports balances.
	Denom string `json:"denom"`
	// Staking is the bonded validator set at genesis and the bonding rules.
	Staking *staking.GenesisState `json:"staking,omitempty"`
	// Genutil holds the gentxs (`emberd genesis collect-gentxs`): executed
	// at InitChain after every module's genesis, they make the validator
	// set when CometBFT's genesis names none.
	Genutil *genutil.GenesisState `json:"genutil,omitempty"`
	// Mint is x/mint's section: inflation and its parameters. Without it
	// nothing is minted.
	Mint *mint.GenesisState `json:"mint,omitempty"`
	// Distribution is x/distribution's section. With it, priority fees go
	// to the fee collector and are distributed to validators and
	// delegators (see feeRecipient); without it, to the block's proposer.
	Distribution *distribution.GenesisState `json:"distribution,omitempty"`
	// Slashing is x/slashing's section: the signed-blocks window and the
	// slash fractions. Without it the SDK's defaults apply.
	Slashing *slashing.GenesisState `json:"slashing,omitempty"`
	// Gov is x/gov's section (params, starting_proposal_id), in the SDK's
	// v1 JSON. Without it the SDK's default parameters apply.
	Gov *gov.GenesisState `json:"gov,omitempty"`
	// Dev marks a development chain (made by `emberd dev`): it executes dev
	// transactions (package devchain), the state edits and clock changes of
	// the anvil/Hardhat JSON-RPC methods, which the node then serves.
	Dev bool `json:"dev,omitempty"`
	// Exported is the state of a chain's block (`emberd export`): InitChain
	// writes it as block 0's state instead of running the modules'
	// InitGenesis (import.go).
	Exported *ExportedState `json:"exported,omitempty"`
}

// FeeMarket parameters. The base fee starts at the EVM genesis baseFeePerGas
// and follows EIP-1559 (elasticity 2, change denominator 8) but never drops
// below MinBaseFee.
type FeeMarket struct {
	MinBaseFee *math.HexOrDecimal256 `json:"min_base_fee"`
}

// ValidatorReward names the EVM address credited with the priority fees of
// the blocks a validator proposes. Validators not listed are paid at their
// 20-byte CometBFT address read as an EVM address.
type ValidatorReward struct {
	ConsAddress   string         `json:"cons_address"` // CometBFT validator address, hex
	RewardAddress common.Address `json:"reward_address"`
}

var chainIDPattern = regexp.MustCompile(`^[a-z]+_[1-9][0-9]*-[1-9][0-9]*$`)

// ParseChainID checks a chain-id of the form ember_<eip155>-<n> and returns
// its EIP-155 id.
func ParseChainID(chainID string) (*big.Int, error) {
	if !chainIDPattern.MatchString(chainID) {
		return nil, fmt.Errorf("invalid chain-id %q: want <name>_<eip155 id>-<version>, e.g. ember_9000-1 (pattern %s)", chainID, chainIDPattern)
	}
	mid := chainID[strings.IndexByte(chainID, '_')+1 : strings.LastIndexByte(chainID, '-')]
	id, ok := new(big.Int).SetString(mid, 10)
	if !ok || !id.IsUint64() {
		return nil, fmt.Errorf("invalid chain-id %q: EIP-155 id %s out of range", chainID, mid)
	}
	if _, err := strconv.ParseUint(chainID[strings.LastIndexByte(chainID, '-')+1:], 10, 64); err != nil {
		return nil, fmt.Errorf("invalid chain-id %q: version: %w", chainID, err)
	}
	return id, nil
}

// GenesisParams are the knobs of a new chain's app state.
type GenesisParams struct {
	ChainID    *big.Int
	Alloc      types.GenesisAlloc
	GasLimit   uint64
	BaseFee    *big.Int // initial base fee
	MinBaseFee *big.Int
	Rewards    []ValidatorReward
	Prefix     string
	Staking    *staking.GenesisState
	Dev        bool // a development chain (AppState.Dev)
	// Mint and Distribution default to the SDK's defaults; a dev chain's
	// mint defaults to no inflation, so that an idle dev chain's state,
	// hence its AppHash, stays put and CometBFT makes no empty blocks.
	Mint         *mint.GenesisState
	Distribution *distribution.GenesisState
	Slashing     *slashing.GenesisState // the SDK's defaults when nil, none on a dev chain
	Gov          *gov.GenesisState      // the SDK's defaults when nil (a dev chain's periods are short)
}

// Default genesis parameters.
const (
	DefaultGasLimit = 30_000_000
	DefaultPrefix   = "ember"
	DefaultDenom    = "aember"
)

// DefaultBaseFee is the initial and minimum base fee: 1 gwei.
var DefaultBaseFee = big.NewInt(params.GWei)

// NewAppState builds the app state of a new chain.
func NewAppState(p GenesisParams) *AppState {
	if p.GasLimit == 0 {
		p.GasLimit = DefaultGasLimit
	}
	if p.BaseFee == nil {
		p.BaseFee = DefaultBaseFee
	}
	if p.MinBaseFee == nil {
		p.MinBaseFee = DefaultBaseFee
	}
	if p.Prefix == "" {
		p.Prefix = DefaultPrefix
	}
	if p.Alloc == nil {
		p.Alloc = types.GenesisAlloc{}
	}
	if p.Mint == nil {
		p.Mint = mint.DefaultGenesis(DefaultDenom)
		if p.Dev {
			p.Mint = mint.ZeroGenesis(DefaultDenom)
		}
	}
	if p.Distribution == nil {
		p.Distribution = distribution.DefaultGenesis()
	}
	if p.Slashing == nil && !p.Dev { // a dev chain has no one to punish (see slashing.Enabled)
		p.Slashing = &slashing.GenesisState{Params: slashing.DefaultParams().JSON()}
	}
	if p.Gov == nil {
		p.Gov = defaultGov(p.Prefix, p.Dev)
	}
	return &AppState{
		EVM: &core.Genesis{
			Config:     evm.ChainConfig(p.ChainID),
			GasLimit:   p.GasLimit,
			BaseFee:    new(big.Int).Set(p.BaseFee),
			Difficulty: big.NewInt(0),
			Alloc:      p.Alloc,
		},
		FeeMarket:    FeeMarket{MinBaseFee: (*math.HexOrDecimal256)(new(big.Int).Set(p.MinBaseFee))},
		Validators:   p.Rewards,
		Bech32Prefix: p.Prefix,
		Denom:        DefaultDenom,
		Staking:      p.Staking,
		Mint:         p.Mint,
		Distribution: p.Distribution,
		Slashing:     p.Slashing,
		Gov:          p.Gov,
		Dev:          p.Dev,
	}
}

// defaultGov is the SDK's default gov section; a dev chain's deposit and
// voting periods are short enough to try a proposal by hand.
func defaultGov(prefix string, dev bool) *gov.GenesisState {
	params := gov.DefaultParams()
	if dev {
		params.MaxDepositPeriod, params.VotingPeriod, params.ExpeditedVotingPeriod = 5*time.Minute, 5*time.Minute, 2*time.Minute
	}
	return &gov.GenesisState{StartingProposalID: 1, Params: params.Proto(prefix, DefaultDenom)}
}

// ParseAppState decodes and checks an app state against the chain-id.
func ParseAppState(raw json.RawMessage, chainID string) (*AppState, error) {
	var s AppState
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decode app_state: %w", err)
	}
	if s.EVM == nil || s.EVM.Config == nil {
		return nil, fmt.Errorf("app_state.evm.config is missing")
	}
	id, err := ParseChainID(chainID)
	if err != nil {
		return nil, err
	}
	if s.EVM.Config.ChainID == nil || s.EVM.Config.ChainID.Cmp(id) != 0 {
		return nil, fmt.Errorf("app_state.evm.config.chainId %v does not match chain-id %s (EIP-155 id %v)", s.EVM.Config.ChainID, chainID, id)
	}
	if err := s.EVM.Config.CheckConfigForkOrder(); err != nil {
		return nil, fmt.Errorf("app_state.evm.config: %w", err)
	}
	if err := evm.CheckSchedule(s.EVM.Config); err != nil {
		return nil, fmt.Errorf("app_state.evm.config: %w", err)
	}
	if s.EVM.GasLimit == 0 {
		return nil, fmt.Errorf("app_state.evm.gasLimit must be positive")
	}
	if s.EVM.BaseFee == nil {
		s.EVM.BaseFee = new(big.Int).Set(DefaultBaseFee)
	}
	if s.Bech32Prefix == "" {
		s.Bech32Prefix = DefaultPrefix
	}
	if s.Denom == "" {
		s.Denom = DefaultDenom
	}
	return &s, nil
}

// modulesJSON is the app state the modules read their genesis sections
// from: all of it but the EVM genesis, which no module reads and whose
// allocation can be large.
func (s *AppState) modulesJSON() (json.RawMessage, error) {
	return json.Marshal(struct {
		*AppState
		EVM *core.Genesis `json:"evm,omitempty"`
	}{AppState: s})
}

// MinBaseFee is the base-fee floor (zero when unset).
func (s *AppState) MinBaseFee() *big.Int {
	if s.FeeMarket.MinBaseFee == nil {
		return new(big.Int)
	}
	return (*big.Int)(s.FeeMarket.MinBaseFee)
}

// genesisState is the EVM genesis of block 0 for req: the allocation with
// the accounts numbered, every module's genesis and then the gentxs
// written into it. It returns the validator set the gentxs bonded (nil
// without gentxs: CometBFT keeps its genesis validators).
func genesisState(gs *AppState, modules *module.Manager, rewards map[string]common.Address, req *abci.RequestInitChain) (*core.Genesis, []abci.ValidatorUpdate, error) {
	g := *gs.EVM
	g.Timestamp = uint64(req.Time.Unix())
	g.Alloc = accounts.GenesisAlloc(g.Alloc) // genesis accounts get numbers 0…n-1
	sections, err := gs.modulesJSON()
	if err != nil {
		return nil, nil, fmt.Errorf("app_state: %w", err)
	}
	if err := checkGenTxsAlone(gs, req); err != nil {
		return nil, nil, err
	}
	if err := modules.InitGenesis(&module.Genesis{AppState: sections, Time: req.Time, Validators: req.Validators, Rewards: rewards, Alloc: g.Alloc}); err != nil {
		return nil, nil, err
	}
	validators, err := deliverGenTxs(gs, req, &g)
	if err != nil {
		return nil, nil, err
	}
	return &g, validators, nil
}

// ValidateGenesis runs what InitChain runs on doc, without writing
// anything: the app state's checks, every module's genesis and the gentxs.
// It returns the validator set the chain starts with.
func ValidateGenesis(doc *cmttypes.GenesisDoc) ([]abci.ValidatorUpdate, error) {
	gs, err := ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		return nil, err
	}
	if gs.Exported != nil {
		return validateExported(gs, doc) // import.go
	}
	req := &abci.RequestInitChain{ChainId: doc.ChainID, Time: doc.GenesisTime, InitialHeight: doc.InitialHeight}
	for _, v := range doc.Validators {
		req.Validators = append(req.Validators, abci.Ed25519ValidatorUpdate(v.PubKey.Bytes(), v.Power))
	}
	rewards := make(map[string]common.Address, len(gs.Validators))
	for _, v := range gs.Validators {
		rewards[strings.ToUpper(v.ConsAddress)] = v.RewardAddress
	}
	_, validators, err := genesisState(gs, native.Modules, rewards, req)
	if err != nil {
		return nil, err
	}
	if validators == nil {
		validators = req.Validators
	}
	if len(validators) == 0 {
		return nil, fmt.Errorf("genesis has no validators: CometBFT's genesis names none and app_state.genutil has no gen_txs (emberd genesis gentx, collect-gentxs)")
	}
	return validators, nil
}

// deliverGenTxs executes app_state.genutil.gen_txs on the genesis
// allocation, after every module's InitGenesis, and returns the validator
// set staking then computes: CometBFT's genesis names no validators when
// gentxs make them (collect-gentxs leaves its list empty, as the SDK's).
// Without gentxs it returns nil: CometBFT keeps its genesis validators.
func deliverGenTxs(gs0 *AppState, req *abci.RequestInitChain, g *core.Genesis) ([]abci.ValidatorUpdate, error) {
	gs := gs0.Genutil
	if gs == nil || len(gs.GenTxs) == 0 {
		return nil, nil
	}
	st := module.NewAllocState(g.Alloc)
	env := &module.Env{ChainID: req.ChainId, Prefix: gs0.Bech32Prefix, Denom: gs0.Denom,
		BaseFee: new(big.Int), GasLimit: g.GasLimit, Height: 0, Time: req.Time}
	if err := genutil.Deliver(st, gs.GenTxs, env); err != nil {
		return nil, fmt.Errorf("app_state.genutil: %w", err)
	}
	// The gentxs' validators are created unbonded; the set staking computes
	// at genesis bonds them, as the SDK's genesis EndBlocker does.
	updates, err := staking.ApplyValidatorSet(st, nil, 0, req.Time)
	if err != nil {
		return nil, fmt.Errorf("app_state.genutil: %w", err)
	}
	if len(updates) == 0 {
		return nil, fmt.Errorf("app_state.genutil: the gen_txs bonded no validator")
	}
	return updates, nil
}

// checkGenTxsAlone refuses gentxs beside CometBFT genesis validators: the
// gentxs make the set, so the two could disagree.
func checkGenTxsAlone(s *AppState, req *abci.RequestInitChain) error {
	if gs := s.Genutil; gs != nil && len(gs.GenTxs) > 0 && len(req.Validators) > 0 {
		return fmt.Errorf("genesis has %d CometBFT validators and %d gen_txs: the gentxs make the validator set, so genesis.json's validators must be empty", len(req.Validators), len(gs.GenTxs))
	}
	return nil
}
