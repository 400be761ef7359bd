package homes

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"

	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/genutil"
)

// GenesisFile is a genesis.json being edited by the genesis commands. The
// app_state sections it does not edit are written back as they were read,
// so sections of modules this package does not know survive an edit.
type GenesisFile struct {
	Path     string
	Doc      *cmttypes.GenesisDoc
	State    *app.AppState
	sections map[string]json.RawMessage
}

// LoadGenesis reads and checks path.
func LoadGenesis(path string) (*GenesisFile, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNotInitialized, err)
	}
	doc, err := cmttypes.GenesisDocFromFile(path)
	if err != nil {
		return nil, err
	}
	st, err := app.ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var sections map[string]json.RawMessage
	if err := json.Unmarshal(doc.AppState, &sections); err != nil {
		return nil, fmt.Errorf("%s: app_state: %w", path, err)
	}
	return &GenesisFile{Path: path, Doc: doc, State: st, sections: sections}, nil
}

// Balance is addr's balance in the genesis allocation; false when addr is
// not in it.
func (g *GenesisFile) Balance(addr common.Address) (*big.Int, bool) {
	acc, ok := g.State.EVM.Alloc[addr]
	if !ok {
		return nil, false
	}
	if acc.Balance == nil {
		return new(big.Int), true
	}
	return acc.Balance, true
}

// AddAccount funds addr with amount at genesis. An address already in the
// allocation is refused, as the SDK's add-genesis-account refuses one.
func (g *GenesisFile) AddAccount(addr common.Address, amount *big.Int) error {
	if amount == nil || amount.Sign() <= 0 {
		return fmt.Errorf("invalid amount %v: want a positive number of %s", amount, g.State.Denom)
	}
	if _, ok := g.State.EVM.Alloc[addr]; ok {
		return fmt.Errorf("cannot add account at existing address %s: it is already in the genesis allocation", addr.Hex())
	}
	if g.State.EVM.Alloc == nil {
		g.State.EVM.Alloc = types.GenesisAlloc{}
	}
	g.State.EVM.Alloc[addr] = types.Account{Balance: new(big.Int).Set(amount)}
	return g.set("evm", g.State.EVM)
}

// SetGenTxs writes app_state.genutil.gen_txs and leaves the validator set
// to them: CometBFT's genesis validators, the staking section's genesis
// validators and the reward addresses `emberd init` wrote for its own
// validator are removed. It returns how many validators it removed.
func (g *GenesisFile) SetGenTxs(txs []json.RawMessage) (int, error) {
	removed := len(g.Doc.Validators)
	g.Doc.Validators = nil
	g.State.Genutil = &genutil.GenesisState{GenTxs: txs}
	if err := g.set(genutil.Name, g.State.Genutil); err != nil {
		return 0, err
	}
	if g.State.Staking != nil && len(g.State.Staking.Validators) > 0 {
		g.State.Staking.Validators = nil
		if err := g.set("staking", g.State.Staking); err != nil {
			return 0, err
		}
	}
	g.State.Validators = []app.ValidatorReward{}
	return removed, g.set("validators", g.State.Validators)
}

func (g *GenesisFile) set(section string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("app_state.%s: %w", section, err)
	}
	g.sections[section] = raw
	return nil
}

// Save writes the file back.
func (g *GenesisFile) Save() error {
	raw, err := json.MarshalIndent(g.sections, "", "  ")
	if err != nil {
		return err
	}
	g.Doc.AppState = raw
	if err := g.Doc.ValidateAndComplete(); err != nil {
		return err
	}
	return g.Doc.SaveAs(g.Path)
}
