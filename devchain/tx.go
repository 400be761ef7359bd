// Package devchain holds what makes `emberd dev` a test chain: the dev
// transaction, which carries the state edits and clock changes of the
// anvil/Hardhat methods (anvil_setBalance, evm_increaseTime, ...) into a
// block, and how a block applies them. Every such change is part of the
// chain's history: it is in a CometBFT block, executed by FinalizeBlock on
// every node, covered by the AppHash, and seen alike by JSON-RPC, CometBFT's
// RPC and events, and the explorer. Only chains whose genesis says
// app_state.dev = true execute dev transactions; elsewhere their bytes are
// undecodable, like any garbage.
package devchain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// prefix starts every dev transaction. A leading 0x00 is no EIP-2718 type
// and no RLP list, and not the protobuf of a Cosmos TxRaw, so the bytes can
// never be mistaken for another kind of transaction.
var prefix = []byte("\x00ember-dev\x00")

// MaxSize bounds a dev transaction: a contract's code (24 KiB, EIP-170, or
// 48 KiB of initcode) in JSON hex with room to spare.
const MaxSize = 256 * 1024

// Tx is one dev transaction: the edits it applies in its block, in order.
// An empty Ops list only asks for a block (evm_mine). ID makes otherwise
// identical requests distinct bytes (CometBFT's mempool cache refuses bytes
// it has seen). A Tx with Send carries an impersonated EVM transaction
// (impersonate.go) and no Ops.
type Tx struct {
	ID   uint64 `json:"id"`
	Ops  []Op   `json:"ops,omitempty"`
	Send *Send  `json:"send,omitempty"`
}

// Kind names an edit.
type Kind string

// The edits. Clock and base-fee edits shape the header of the block that
// carries them; the others change the state at their place in the block.
const (
	SetBalance   Kind = "balance"
	SetCode      Kind = "code"
	SetNonce     Kind = "nonce"
	SetStorage   Kind = "storage"
	IncreaseTime Kind = "increase_time" // Seconds added to the chain's clock offset
	SetTimestamp Kind = "timestamp"     // this block's timestamp is Timestamp
	SetBaseFee   Kind = "base_fee"      // this block's base fee is BaseFee
)

// Op is one edit; which fields it uses depends on Kind.
type Op struct {
	Kind      Kind            `json:"op"`
	Address   *common.Address `json:"address,omitempty"`
	Balance   *hexutil.Big    `json:"balance,omitempty"`
	Code      hexutil.Bytes   `json:"code,omitempty"`
	Nonce     *hexutil.Uint64 `json:"nonce,omitempty"`
	Slot      *common.Hash    `json:"slot,omitempty"`
	Value     *common.Hash    `json:"value,omitempty"`
	Seconds   int64           `json:"seconds,omitempty"`
	Timestamp *hexutil.Uint64 `json:"timestamp,omitempty"`
	BaseFee   *hexutil.Big    `json:"base_fee,omitempty"`
}

// IsDev tells whether raw is shaped as a dev transaction.
func IsDev(raw []byte) bool { return bytes.HasPrefix(raw, prefix) }

// Encode returns the transaction's bytes.
func Encode(tx *Tx) []byte {
	body, err := json.Marshal(tx)
	if err != nil {
		panic(fmt.Sprintf("devchain: encode: %v", err)) // only typed fields: cannot fail
	}
	return append(append([]byte{}, prefix...), body...)
}

// Decode parses and checks raw.
func Decode(raw []byte) (*Tx, error) {
	if !IsDev(raw) {
		return nil, errors.New("not a dev transaction")
	}
	if len(raw) > MaxSize {
		return nil, fmt.Errorf("dev transaction of %d bytes over the %d-byte limit", len(raw), MaxSize)
	}
	dec := json.NewDecoder(bytes.NewReader(raw[len(prefix):]))
	dec.DisallowUnknownFields()
	var tx Tx
	if err := dec.Decode(&tx); err != nil {
		return nil, fmt.Errorf("dev transaction: %w", err)
	}
	if tx.Send != nil {
		if len(tx.Ops) > 0 {
			return nil, errors.New("dev transaction: a send carries no ops")
		}
		if err := tx.Send.decode(); err != nil {
			return nil, fmt.Errorf("dev transaction: send: %w", err)
		}
	}
	for i, op := range tx.Ops {
		if err := op.check(); err != nil {
			return nil, fmt.Errorf("dev transaction op %d: %w", i, err)
		}
	}
	return &tx, nil
}

// check makes sure op has the fields its kind needs.
func (op Op) check() error {
	need := func(ok bool, what string) error {
		if !ok {
			return fmt.Errorf("%s needs %s", op.Kind, what)
		}
		return nil
	}
	switch op.Kind {
	case SetBalance:
		return need(op.Address != nil && op.Balance != nil && op.Balance.ToInt().Sign() >= 0 && op.Balance.ToInt().BitLen() <= 256, "an address and a 256-bit balance")
	case SetCode:
		return need(op.Address != nil, "an address")
	case SetNonce:
		return need(op.Address != nil && op.Nonce != nil, "an address and a nonce")
	case SetStorage:
		return need(op.Address != nil && op.Slot != nil && op.Value != nil, "an address, a slot and a value")
	case IncreaseTime:
		return nil
	case SetTimestamp:
		return need(op.Timestamp != nil, "a timestamp")
	case SetBaseFee:
		return need(op.BaseFee != nil && op.BaseFee.ToInt().Sign() >= 0 && op.BaseFee.ToInt().BitLen() <= 256, "a 256-bit base fee")
	}
	return fmt.Errorf("unknown op %q", op.Kind)
}
