package devchain

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/txsender"
)

// An impersonated transaction (anvil_impersonateAccount) is an EVM
// transaction executed with a sender whose key nobody used: a dev
// transaction carries it with its sender (Send), and the chain executes it
// as any EVM transaction, in the EVM block with a receipt. It bears a fake
// signature: r is the sender's address, s is 1, y-parity 0. Its hash is
// then keccak256 of its bytes as for every transaction (so every surface
// finds it by that hash), and two senders' otherwise equal transactions
// differ. (anvil 1.7.1 zero-signs and hashes rlp(tx) ‖ sender instead; the
// signature is never checked, the sender is not recovered from it.)

// Send is the impersonated transaction a dev transaction carries.
type Send struct {
	From common.Address `json:"from"`
	Tx   hexutil.Bytes  `json:"tx"` // the fake-signed transaction's canonical encoding

	tx *types.Transaction // decoded, its sender set
}

// NewSend fake-signs tx (unsigned) for chainID as sent by from.
func NewSend(tx *types.Transaction, from common.Address, chainID *big.Int) (*Send, error) {
	sig := make([]byte, 65)
	copy(sig[12:32], from[:])
	sig[63] = 1
	signed, err := tx.WithSignature(types.LatestSignerForChainID(chainID), sig)
	if err != nil {
		return nil, err
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &Send{From: from, Tx: raw, tx: txsender.Set(signed, from)}, nil
}

// Transaction is the decoded transaction, its sender set (see txsender.Set).
func (s *Send) Transaction() *types.Transaction { return s.tx }

// decode parses Tx and sets its sender.
func (s *Send) decode() error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(s.Tx); err != nil {
		return err
	}
	if tx.Type() == types.BlobTxType {
		return errors.New("blob transactions are not supported")
	}
	s.tx = txsender.Set(tx, s.From)
	return nil
}
