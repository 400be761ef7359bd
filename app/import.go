package app

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"

	abci "github.com/cometbft/cometbft/abci/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/staking"
	"github.com/emberchain/ember/store"
)

// initExported is InitChain for a genesis made by Export: it rebuilds the
// exported state in the store, checks its root and the validator set, and
// writes block 0 with that state. No module's InitGenesis runs: the state
// already holds what each wrote on the exported chain.
func (a *App) initExported(req *abci.RequestInitChain) (*abci.ResponseInitChain, error) {
	ex := a.genesis.Exported
	root, err := importState(a.store.NewStateImport(), ex)
	if err != nil {
		return nil, fmt.Errorf("app_state.exported: %w", err)
	}
	if root != ex.StateRoot {
		return nil, fmt.Errorf("app_state.exported: the accounts hash to state root %x, not the exported %x", root, ex.StateRoot)
	}
	sdb, err := a.store.StateAt(root)
	if err != nil {
		return nil, err
	}
	if err := checkExportedValidators(sdb, req.Validators); err != nil {
		return nil, err
	}
	if a.genesis.Dev { // a dev chain lists its state by the trie's preimages
		if err := a.store.WritePreimages(ex.preimages()); err != nil {
			return nil, err
		}
	}
	g := *a.genesis.EVM
	g.Timestamp = uint64(req.Time.Unix())
	block, err := a.store.InitGenesisRoot(&g, root, ex.named())
	if err != nil {
		return nil, err
	}
	a.log.Info("exported state imported as genesis", "from", ex.ChainID, "height", ex.Height, "hash", block.Hash(), "stateRoot", root, "accounts", len(ex.Accounts))
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	if err := a.resetCheckState(); err != nil {
		return nil, err
	}
	return &abci.ResponseInitChain{AppHash: root.Bytes()}, nil
}

// importState feeds ex to v in trie order (accounts by hash, each one's
// slots by key, then the codes) and returns the root v computes:
// store.StateImport writes the trie, a rootOnly only hashes it.
func importState(v stateBuilder, ex *ExportedState) (common.Hash, error) {
	accts := append([]ExportedAccount(nil), ex.Accounts...)
	sort.Slice(accts, func(i, j int) bool { return bytes.Compare(accts[i].Hash[:], accts[j].Hash[:]) < 0 })
	for i, acct := range accts {
		if i > 0 && acct.Hash == accts[i-1].Hash {
			return common.Hash{}, fmt.Errorf("account %x listed twice", acct.Hash)
		}
		leaf, err := acct.leaf()
		if err != nil {
			return common.Hash{}, err
		}
		if err := v.Account(acct.Hash, leaf); err != nil {
			return common.Hash{}, err
		}
		if err := importStorage(v, acct); err != nil {
			return common.Hash{}, err
		}
	}
	for hash, code := range ex.Codes {
		if err := v.Code(hash, code); err != nil {
			return common.Hash{}, err
		}
	}
	return v.Finish()
}

// importStorage feeds the storage leaves of acct, sorted by key.
func importStorage(v stateBuilder, acct ExportedAccount) error {
	if len(acct.Storage) > 0 && acct.StorageRoot == nil {
		return fmt.Errorf("account %x has storage but no storage_root", acct.Hash)
	}
	slots := append([]ExportedSlot(nil), acct.Storage...)
	sort.Slice(slots, func(i, j int) bool { return bytes.Compare(slots[i].Key[:], slots[j].Key[:]) < 0 })
	for i, s := range slots {
		if i > 0 && s.Key == slots[i-1].Key {
			return fmt.Errorf("account %x: storage slot %x listed twice", acct.Hash, s.Key)
		}
		if s.Value == (common.Hash{}) {
			return fmt.Errorf("account %x: storage slot %x is zero (the trie keeps no zero slot)", acct.Hash, s.Key)
		}
		value, _ := rlp.EncodeToBytes(common.TrimLeftZeroes(s.Value[:]))
		if err := v.Storage(s.Key, value); err != nil {
			return err
		}
	}
	return nil
}

// leaf is the account's trie leaf value.
func (acct ExportedAccount) leaf() ([]byte, error) {
	if acct.Balance == nil {
		return nil, fmt.Errorf("account %x has no balance", acct.Hash)
	}
	balance, overflow := uint256.FromBig((*big.Int)(acct.Balance))
	if overflow || (*big.Int)(acct.Balance).Sign() < 0 {
		return nil, fmt.Errorf("account %x: balance out of range", acct.Hash)
	}
	sa := types.StateAccount{Nonce: acct.Nonce, Balance: balance, Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}
	if acct.StorageRoot != nil {
		sa.Root = *acct.StorageRoot
	}
	if acct.CodeHash != nil {
		sa.CodeHash = acct.CodeHash[:]
	}
	return rlp.EncodeToBytes(&sa)
}

// named is the genesis allocation block 0 lists: the exported accounts
// whose addresses are known, with their balances and nonces.
func (ex *ExportedState) named() types.GenesisAlloc {
	out := types.GenesisAlloc{}
	for _, acct := range ex.Accounts {
		if acct.Address != nil && acct.Balance != nil {
			out[*acct.Address] = types.Account{Balance: (*big.Int)(acct.Balance), Nonce: acct.Nonce}
		}
	}
	return out
}

// preimages are the addresses and slots the export named, by hash.
func (ex *ExportedState) preimages() map[common.Hash][]byte {
	out := map[common.Hash][]byte{}
	for _, acct := range ex.Accounts {
		if acct.Address != nil {
			out[acct.Hash] = acct.Address.Bytes()
		}
		for _, s := range acct.Storage {
			if s.Slot != nil {
				out[s.Key] = s.Slot.Bytes()
			}
		}
	}
	return out
}

// stateBuilder rebuilds a state from its leaves: store.StateImport, or
// rootOnly.
type stateBuilder interface {
	store.StateVisitor
	Finish() (common.Hash, error)
}

// rootOnly computes the root of an exported state without writing it
// (ValidateGenesis), with the checks store.StateImport makes.
type rootOnly struct {
	accounts, storage *trie.StackTrie
	cur               types.StateAccount
	curHash           common.Hash
	codes             map[common.Hash]bool
}

func newRootOnly() *rootOnly {
	return &rootOnly{accounts: trie.NewStackTrie(nil), codes: map[common.Hash]bool{}}
}

func (r *rootOnly) Account(hash common.Hash, value []byte) error {
	if err := r.endAccount(); err != nil {
		return err
	}
	if err := rlp.DecodeBytes(value, &r.cur); err != nil {
		return err
	}
	r.curHash = hash
	if r.cur.Root != types.EmptyRootHash {
		r.storage = trie.NewStackTrie(nil)
	}
	if ch := common.BytesToHash(r.cur.CodeHash); ch != types.EmptyCodeHash && !r.codes[ch] {
		r.codes[ch] = false
	}
	return r.accounts.Update(hash[:], value)
}

func (r *rootOnly) Storage(key common.Hash, value []byte) error {
	if r.storage == nil {
		return fmt.Errorf("storage slot %x outside an account with storage", key)
	}
	return r.storage.Update(key[:], value)
}

func (r *rootOnly) Code(hash common.Hash, code []byte) error {
	if got := crypto.Keccak256Hash(code); got != hash {
		return fmt.Errorf("code hashes to %x, not %x", got, hash)
	}
	r.codes[hash] = true
	return nil
}

func (r *rootOnly) endAccount() error {
	if r.storage == nil {
		return nil
	}
	if got := r.storage.Hash(); got != r.cur.Root {
		return fmt.Errorf("storage of account %x hashes to %x, its storage_root says %x", r.curHash, got, r.cur.Root)
	}
	r.storage = nil
	return nil
}

func (r *rootOnly) Finish() (common.Hash, error) {
	if err := r.endAccount(); err != nil {
		return common.Hash{}, err
	}
	for hash, ok := range r.codes {
		if !ok {
			return common.Hash{}, fmt.Errorf("code %x missing", hash)
		}
	}
	return r.accounts.Hash(), nil
}

// validateExported is ValidateGenesis of an exported genesis: the state
// hashes to its root and CometBFT's genesis names validators.
func validateExported(gs *AppState, doc *cmttypes.GenesisDoc) ([]abci.ValidatorUpdate, error) {
	root, err := importState(newRootOnly(), gs.Exported)
	if err != nil {
		return nil, fmt.Errorf("app_state.exported: %w", err)
	}
	if root != gs.Exported.StateRoot {
		return nil, fmt.Errorf("app_state.exported: the accounts hash to state root %x, not the exported %x", root, gs.Exported.StateRoot)
	}
	if len(doc.Validators) == 0 {
		return nil, fmt.Errorf("exported genesis names no validators")
	}
	out := make([]abci.ValidatorUpdate, len(doc.Validators))
	for i, v := range doc.Validators {
		out[i] = abci.Ed25519ValidatorUpdate(v.PubKey.Bytes(), v.Power)
	}
	return out, nil
}

// checkExportedValidators requires CometBFT's genesis validators to be
// the set the exported staking state reported to CometBFT, key for key
// and power for power: staking computes its next updates against it.
func checkExportedValidators(sdb *state.StateDB, vals []abci.ValidatorUpdate) error {
	want := map[string]int64{}
	for _, v := range staking.All(sdb) {
		if v.ReportedPower > 0 {
			want[string(v.ConsPubKey)] = v.ReportedPower
		}
	}
	if len(vals) != len(want) {
		return fmt.Errorf("genesis has %d validators, the exported staking state %d", len(vals), len(want))
	}
	for _, v := range vals {
		key := v.PubKey.GetEd25519()
		if p, ok := want[string(key)]; !ok || p != v.Power {
			return fmt.Errorf("genesis validator %x with power %d is not in the exported staking state's set (power %d)", key, v.Power, p)
		}
	}
	return nil
}
