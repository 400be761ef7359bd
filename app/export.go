package app

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/cometbft/cometbft/crypto/ed25519"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/staking"
	"github.com/emberchain/ember/store"
)

// ExportedState is app_state.exported: the whole state of one block of a
// chain, every account leaf of its trie with its storage leaves and the
// contract codes. All of the native modules' state (staking, distribution,
// slashing, mint, bank supply, the account registry, gov, upgrade, the
// fork schedule, the fee market) lives in the storage of system accounts
// of that trie, so this is all of it. A genesis carrying it starts a new
// chain at height 1 whose block 0 has exactly this state: InitChain
// rebuilds the trie leaf for leaf and runs no module's InitGenesis (which
// would write their state a second time), so block 0's state root is
// StateRoot.
type ExportedState struct {
	ChainID   string                        `json:"chain_id"` // the chain exported from
	Height    uint64                        `json:"height"`   // its block whose state this is
	BlockHash common.Hash                   `json:"block_hash"`
	StateRoot common.Hash                   `json:"state_root"`
	Accounts  []ExportedAccount             `json:"accounts"` // in trie order (by Hash)
	Codes     map[common.Hash]hexutil.Bytes `json:"codes"`    // by code hash
}

// ExportedAccount is one account leaf. The trie keys accounts by the
// keccak256 of their address (Hash); Address is there when the exporter
// knew it (a system account, a validator, a delegator, a genesis account,
// or any account on a chain that keeps preimages), for readers only.
type ExportedAccount struct {
	Hash        common.Hash           `json:"hash"`
	Address     *common.Address       `json:"address,omitempty"`
	Nonce       uint64                `json:"nonce"`
	Balance     *math.HexOrDecimal256 `json:"balance"`
	CodeHash    *common.Hash          `json:"code_hash,omitempty"`    // absent: no code
	StorageRoot *common.Hash          `json:"storage_root,omitempty"` // absent: no storage
	Storage     []ExportedSlot        `json:"storage,omitempty"`      // in trie order (by Key)
}

// ExportedSlot is one storage leaf: keccak256 of the slot (Key), the slot
// itself when known, and its value.
type ExportedSlot struct {
	Key   common.Hash  `json:"key"`
	Slot  *common.Hash `json:"slot,omitempty"`
	Value common.Hash  `json:"value"`
}

// ExportOptions choose what Export writes.
type ExportOptions struct {
	Height  uint64 // the block whose state is exported; 0: the head
	ChainID string // the new chain's id; "" keeps the exported chain's
}

// Export writes the genesis of a new chain whose state is the state of
// block opts.Height of the chain of doc (this node's genesis) in st:
//   - app_state.exported holds the state (ExportedState);
//   - app_state.evm is the chain config the block ran (blockConfig: with
//     the fork times an upgrade recorded in the state, which the new chain
//     also reads there as the old one did), an empty allocation, the
//     block's gas limit and, as base fee, the one the block after it would
//     have had;
//   - the module sections stay as doc has them, for the settings read from
//     genesis (whether fees are shared), but no InitGenesis runs on them;
//     gentxs are dropped;
//   - the CometBFT validators are the set staking reported to CometBFT at
//     that block, with their powers;
//   - the genesis time is the block's time, so that the times the state
//     holds (unbonding completions, jail releases) keep their meaning.
//
// The new chain starts at height 1 (block numbers are heights).
func Export(ctx context.Context, st *store.Store, doc *cmttypes.GenesisDoc, opts ExportOptions) (*cmttypes.GenesisDoc, error) {
	gs, err := ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		return nil, err
	}
	header, err := exportHeader(st, opts.Height)
	if err != nil {
		return nil, err
	}
	sdb, err := st.StateAt(header.Root)
	if err != nil {
		return nil, fmt.Errorf("open the state of block %d: %w", header.Number, err)
	}
	// The genesis config with the fork times the state of the block records
	// (evm.ScheduleAt, the rule every block runs by), so that readers of the
	// exported genesis see them too.
	base := evm.ScheduleAt(gs.EVM.Config, sdb)
	chainID, config, err := exportChainID(doc.ChainID, opts.ChainID, base)
	if err != nil {
		return nil, err
	}
	vals, err := exportValidators(sdb)
	if err != nil {
		return nil, err
	}
	ex, err := exportState(ctx, st, sdb, gs, header)
	if err != nil {
		return nil, err
	}
	ex.ChainID = doc.ChainID
	raw, err := exportedAppState(gs, config, header, ex)
	if err != nil {
		return nil, err
	}
	out := &cmttypes.GenesisDoc{
		GenesisTime:     time.Unix(int64(header.Time), 0).UTC(),
		ChainID:         chainID,
		InitialHeight:   1,
		ConsensusParams: doc.ConsensusParams,
		Validators:      vals,
		AppHash:         header.Root.Bytes(),
		AppState:        raw,
	}
	if err := out.ValidateAndComplete(); err != nil {
		return nil, fmt.Errorf("exported genesis: %w", err)
	}
	return out, nil
}

// exportedAppState is gs with ex, an EVM genesis of config with no
// allocation, header's gas limit and the base fee of the block after it,
// and no gentxs.
func exportedAppState(gs *AppState, config *params.ChainConfig, header *types.Header, ex *ExportedState) (json.RawMessage, error) {
	next := *gs
	next.EVM = &core.Genesis{Config: config, GasLimit: header.GasLimit, Difficulty: big.NewInt(0),
		BaseFee: evm.NextBaseFee(gs.EVM.Config, header, gs.MinBaseFee()), Alloc: types.GenesisAlloc{}}
	next.Genutil = nil
	next.Exported = ex
	return json.Marshal(&next)
}

// exportHeader is the header of block n (the head when 0), whose state
// must be held.
func exportHeader(st *store.Store, n uint64) (*types.Header, error) {
	head := st.Head()
	if head == nil {
		return nil, fmt.Errorf("the store has no blocks")
	}
	if n == 0 {
		n = head.Number.Uint64()
	}
	return st.ExportableState(n)
}

// exportChainID is the new chain's id and chain config: the old ones, or
// newID with the config's EIP-155 id set to the one newID names.
func exportChainID(oldID, newID string, config *params.ChainConfig) (string, *params.ChainConfig, error) {
	if newID == "" {
		return oldID, config, nil
	}
	id, err := ParseChainID(newID)
	if err != nil {
		return "", nil, err
	}
	c := *config
	c.ChainID = id
	return newID, &c, nil
}

// exportValidators is the validator set staking last reported to CometBFT.
func exportValidators(sdb *state.StateDB) ([]cmttypes.GenesisValidator, error) {
	var out []cmttypes.GenesisValidator
	for _, v := range staking.All(sdb) {
		if v.ReportedPower <= 0 {
			continue
		}
		if len(v.ConsPubKey) != ed25519.PubKeySize {
			return nil, fmt.Errorf("validator %s has a %d-byte consensus key", v.Operator, len(v.ConsPubKey))
		}
		pub := ed25519.PubKey(v.ConsPubKey)
		out = append(out, cmttypes.GenesisValidator{Address: pub.Address(), PubKey: pub, Power: v.ReportedPower, Name: v.Moniker()})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the state has no validator in CometBFT's set")
	}
	return out, nil
}

// exportState walks the state of header into an ExportedState.
func exportState(ctx context.Context, st *store.Store, sdb *state.StateDB, gs *AppState, header *types.Header) (*ExportedState, error) {
	w := &stateWriter{
		out:   &ExportedState{Height: header.Number.Uint64(), BlockHash: header.Hash(), StateRoot: header.Root, Codes: map[common.Hash]hexutil.Bytes{}},
		names: knownAddresses(st, sdb, gs),
		st:    st,
	}
	if err := st.ExportState(ctx, header.Root, w); err != nil {
		return nil, fmt.Errorf("export the state of block %d: %w", header.Number, err)
	}
	return w.out, nil
}

// stateWriter is the store.StateVisitor that decodes the leaves.
type stateWriter struct {
	out   *ExportedState
	names map[common.Hash]common.Address
	st    *store.Store
}

func (w *stateWriter) Account(hash common.Hash, value []byte) error {
	var acct types.StateAccount
	if err := rlp.DecodeBytes(value, &acct); err != nil {
		return fmt.Errorf("account %x: %w", hash, err)
	}
	a := ExportedAccount{Hash: hash, Nonce: acct.Nonce, Balance: (*math.HexOrDecimal256)(acct.Balance.ToBig())}
	if addr, ok := w.names[hash]; ok {
		a.Address = &addr
	} else if pre := w.st.Preimage(hash); len(pre) == common.AddressLength {
		addr := common.BytesToAddress(pre)
		a.Address = &addr
	}
	if code := common.BytesToHash(acct.CodeHash); code != types.EmptyCodeHash {
		a.CodeHash = &code
	}
	if acct.Root != types.EmptyRootHash {
		root := acct.Root
		a.StorageRoot = &root
	}
	w.out.Accounts = append(w.out.Accounts, a)
	return nil
}

func (w *stateWriter) Storage(key common.Hash, value []byte) error {
	a := &w.out.Accounts[len(w.out.Accounts)-1]
	_, content, _, err := rlp.Split(value)
	if err != nil || len(content) > common.HashLength {
		return fmt.Errorf("storage slot %x of account %x: bad leaf %x", key, a.Hash, value)
	}
	s := ExportedSlot{Key: key, Value: common.BytesToHash(content)}
	if pre := w.st.Preimage(key); len(pre) == common.HashLength {
		slot := common.BytesToHash(pre)
		s.Slot = &slot
	}
	a.Storage = append(a.Storage, s)
	return nil
}

func (w *stateWriter) Code(hash common.Hash, code []byte) error {
	w.out.Codes[hash] = code
	return nil
}

// knownAddresses are the addresses the exporter can name without
// preimages, by their hash: Ember's system accounts (0x…0A00–0x…0BFF), the
// genesis accounts, and every validator operator, reward address and
// delegator.
func knownAddresses(st *store.Store, sdb *state.StateDB, gs *AppState) map[common.Hash]common.Address {
	out := make(map[common.Hash]common.Address)
	add := func(a common.Address) { out[crypto.Keccak256Hash(a[:])] = a }
	for i := 0x0A00; i < 0x0C00; i++ {
		add(common.BigToAddress(big.NewInt(int64(i))))
	}
	add(accounts.RegistryAddress)
	for _, a := range SystemAccounts() {
		add(a)
	}
	for a := range gs.EVM.Alloc {
		add(a)
	}
	if genesis, err := st.GenesisAccounts(); err == nil {
		for _, a := range genesis {
			add(a)
		}
	}
	for _, v := range staking.All(sdb) {
		add(v.Operator)
		add(v.RewardAddress)
		for _, d := range staking.ValidatorDelegators(sdb, v.Operator) {
			add(d)
		}
		for _, d := range staking.UnbondingDelegators(sdb, v.Operator) {
			add(d)
		}
	}
	return out
}
