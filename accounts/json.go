package accounts

import (
	"encoding/json"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// Type URLs of the JSON forms, as Ethermint-aware tools parse them.
const (
	EthAccountType = "/ethermint.types.v1.EthAccount"
	PubKeyType     = "/ethermint.crypto.v1.ethsecp256k1.PubKey"
)

// EthAccount is an account as the Cosmos auth REST endpoint and
// `emberd query account` print it; field order is the wire order.
type EthAccount struct {
	Type        string      `json:"@type"`
	BaseAccount BaseAccount `json:"base_account"`
	CodeHash    string      `json:"code_hash"`
}

// BaseAccount is the Cosmos part of an account. Numbers are decimal strings
// as protobuf's JSON mapping writes 64-bit integers.
type BaseAccount struct {
	Address       string  `json:"address"`
	PubKey        *PubKey `json:"pub_key"` // null before the first signed tx
	AccountNumber string  `json:"account_number"`
	Sequence      string  `json:"sequence"`
}

// PubKey is an eth_secp256k1 public key; Key is base64 in JSON.
type PubKey struct {
	Type string `json:"@type"`
	Key  []byte `json:"key"`
}

// AccountState is what an account view reads; *state.StateDB satisfies it.
type AccountState interface {
	StateReader
	GetNonce(common.Address) uint64
	GetCodeHash(common.Address) common.Hash
	GetBalance(common.Address) *uint256.Int
}

// LookupAccount returns addr's account in st, and false when it has no
// account number (the chain never saw it).
func LookupAccount(st AccountState, prefix string, addr common.Address) (*EthAccount, bool) {
	n, ok := ReadNative(st, addr)
	if !ok {
		return nil, false
	}
	acc := &EthAccount{
		Type: EthAccountType,
		BaseAccount: BaseAccount{
			Address:       Bech32(prefix, addr),
			AccountNumber: strconv.FormatUint(n.Number, 10),
			Sequence:      strconv.FormatUint(st.GetNonce(addr), 10),
		},
		CodeHash: types.EmptyCodeHash.Hex(),
	}
	if n.PubKey != nil {
		acc.BaseAccount.PubKey = &PubKey{Type: PubKeyType, Key: n.PubKey}
	}
	// A numbered account missing from the EVM state (nothing left in it)
	// has the empty code hash, not the zero hash GetCodeHash reports.
	if h := st.GetCodeHash(addr); h != (common.Hash{}) {
		acc.CodeHash = h.Hex()
	}
	return acc, true
}

// MarshalAccount is the JSON both REST and the CLI print.
func MarshalAccount(acc *EthAccount) []byte {
	out, err := json.Marshal(acc)
	if err != nil {
		panic(err) // unreachable: plain strings and bytes
	}
	return out
}
