package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"

	"github.com/emberchain/ember/devchain"
)

// DumpState lists the state at the head (anvil_dumpState, --dump-state):
// every account the trie holds with its nonce, balance, code and storage.
// A dev chain's store keeps the preimages of the trie's hashed keys, which
// give the addresses and slots back.
func (c Chain) DumpState() (*devchain.State, error) {
	head := c.Store.Head()
	st, err := c.Store.StateAt(head.Root)
	if err != nil {
		return nil, err
	}
	dump := st.RawDump(&state.DumpConfig{})
	out := &devchain.State{Accounts: make(map[common.Address]*devchain.Account, len(dump.Accounts)),
		Blocks: []json.RawMessage{}, Transactions: []json.RawMessage{}}
	num := hexutil.Uint64(head.Number.Uint64())
	out.BestBlockNumber = &num
	for key, acc := range dump.Accounts {
		if acc.Address == nil {
			return nil, fmt.Errorf("state dump: no preimage for account key %s (a chain made before preimages were kept)", key)
		}
		bal, ok := new(big.Int).SetString(acc.Balance, 10) // RawDump writes it in decimal
		if !ok {
			return nil, fmt.Errorf("state dump: balance %q of %s", acc.Balance, acc.Address.Hex())
		}
		storage := make(map[string]string, len(acc.Storage))
		for slot, v := range acc.Storage {
			value, _ := new(big.Int).SetString("0"+v, 16) // RawDump writes the value's hex without 0x, empty for zero
			storage[hexutil.EncodeBig(slot.Big())] = hexutil.EncodeBig(value)
		}
		out.Accounts[*acc.Address] = &devchain.Account{Nonce: acc.Nonce, Balance: (*hexutil.Big)(bal), Code: acc.Code, Storage: storage}
	}
	return out, nil
}

// LoadState applies a state (anvil_loadState, --load-state) as dev
// transactions, each one block of edits; it returns once all are
// committed.
func (c Chain) LoadState(ctx context.Context, s *devchain.State) error {
	if !c.App.Dev() {
		return errors.New("not a development chain: states load on chains made by `emberd dev`")
	}
	blocks, err := s.Edits()
	if err != nil {
		return err
	}
	return c.mineDev(ctx, blocks)
}
