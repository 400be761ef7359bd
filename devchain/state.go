package devchain

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// State is anvil's state dump (anvil_dumpState, --dump-state), in anvil
// 1.7.1's JSON shape: the accounts with their nonce, balance, code and
// storage, and the head's number. anvil also writes its blocks and
// transactions; Ember's history is the chain itself, so a loaded state
// is applied as new blocks of edits and those lists are left empty.
type State struct {
	BestBlockNumber *hexutil.Uint64             `json:"best_block_number,omitempty"`
	Accounts        map[common.Address]*Account `json:"accounts"`
	Blocks          []json.RawMessage           `json:"blocks"`
	Transactions    []json.RawMessage           `json:"transactions"`
}

// Account is one account of a State.
type Account struct {
	Nonce   uint64            `json:"nonce"`
	Balance *hexutil.Big      `json:"balance"`
	Code    hexutil.Bytes     `json:"code"`
	Storage map[string]string `json:"storage"` // slot -> value, hex U256s ("0x2a")
}

// Encode is the state as anvil_dumpState answers it: gzip-compressed JSON.
func (s *State) Encode() ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(s); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxStateBytes bounds a state to load (decompressed).
const maxStateBytes = 256 << 20

// DecodeState reads a state as anvil_loadState and --load-state take it:
// gzip-compressed or plain JSON.
func DecodeState(raw []byte) (*State, error) {
	if zr, err := gzip.NewReader(bytes.NewReader(raw)); err == nil {
		plain, err := io.ReadAll(io.LimitReader(zr, maxStateBytes+1))
		if err != nil {
			return nil, fmt.Errorf("state: %w", err)
		}
		raw = plain
	}
	if len(raw) > maxStateBytes {
		return nil, fmt.Errorf("state over %d bytes", maxStateBytes)
	}
	var s State
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	for addr, acc := range s.Accounts {
		if acc == nil || acc.Balance == nil || acc.Balance.ToInt().Sign() < 0 || acc.Balance.ToInt().BitLen() > 256 {
			return nil, fmt.Errorf("state: account %s needs a 256-bit balance", addr.Hex())
		}
	}
	return &s, nil
}

// opsBudget is how many bytes of JSON the edits of one dev transaction
// take at most, well under MaxSize.
const opsBudget = MaxSize / 2

// Blocks turns the state into edits, grouped into dev transactions (one
// block each) that each stay under the size limit: every account's
// balance, nonce, code and storage slots, in address order.
func (s *State) Edits() ([][]Op, error) {
	addrs := make([]common.Address, 0, len(s.Accounts))
	for a := range s.Accounts {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return bytes.Compare(addrs[i][:], addrs[j][:]) < 0 })
	var blocks [][]Op
	var cur []Op
	size := 0
	add := func(op Op) {
		n := 200 + 2*len(op.Code) // the JSON of an op: hex code plus the fixed fields
		if size+n > opsBudget && len(cur) > 0 {
			blocks, cur, size = append(blocks, cur), nil, 0
		}
		cur, size = append(cur, op), size+n
	}
	for _, a := range addrs {
		acc := s.Accounts[a]
		nonce := hexutil.Uint64(acc.Nonce)
		add(Op{Kind: SetBalance, Address: &a, Balance: acc.Balance})
		add(Op{Kind: SetNonce, Address: &a, Nonce: &nonce})
		if len(acc.Code) > 0 {
			add(Op{Kind: SetCode, Address: &a, Code: acc.Code})
		}
		slots := make([][2]common.Hash, 0, len(acc.Storage))
		for k, v := range acc.Storage {
			slot, err1 := word(k)
			value, err2 := word(v)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("state: account %s: storage %q: %q: want 256-bit hex numbers", a.Hex(), k, v)
			}
			slots = append(slots, [2]common.Hash{slot, value})
		}
		sort.Slice(slots, func(i, j int) bool { return bytes.Compare(slots[i][0][:], slots[j][0][:]) < 0 })
		for _, kv := range slots {
			add(Op{Kind: SetStorage, Address: &a, Slot: &kv[0], Value: &kv[1]})
		}
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	return blocks, nil
}

// word reads a 256-bit hex number ("0x2a", "0x05", or 32 bytes).
func word(s string) (common.Hash, error) {
	h, ok := strings.CutPrefix(s, "0x")
	v, okNum := new(big.Int).SetString(h, 16)
	if !ok || !okNum || v.Sign() < 0 || v.BitLen() > 256 {
		return common.Hash{}, fmt.Errorf("invalid word %q", s)
	}
	return common.BigToHash(v), nil
}
