// Package txsender sets the sender of a transaction whose signature does
// not give it: a dev chain's impersonated transactions (devchain.Send) bear
// a fake signature. It is a leaf below the dev chain, which makes such
// transactions, and the store, which keeps their senders beside the block
// and sets them again on the transactions it decodes; neither needs to know
// the other.
package txsender

import (
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Set makes from the sender of tx for every reader and returns tx:
// go-ethereum caches a transaction's sender with the signer that derived
// it, and returns the cached one to any signer the cached one calls equal.
// A knownSender calls every signer equal, so types.Sender answers from
// whatever signer the caller (execution, the RPC, the explorer) uses.
func Set(tx *types.Transaction, from common.Address) *types.Transaction {
	_, _ = types.Sender(knownSender{from: from}, tx)
	return tx
}

// Get is the sender Set set on tx, if any: false for a transaction whose
// sender is (or would be) recovered from its signature.
func Get(tx *types.Transaction) (common.Address, bool) {
	from, err := types.Sender(probe{}, tx)
	return from, err == nil
}

// knownSender is a signer that knows the sender instead of recovering it.
type knownSender struct {
	types.Signer // not used: only Sender and Equal are called on a cached signer
	from         common.Address
}

func (k knownSender) Sender(*types.Transaction) (common.Address, error) { return k.from, nil }
func (k knownSender) Equal(types.Signer) bool                           { return true }

// probe finds a cached knownSender: any other cached signer calls it
// unequal, and it recovers nothing itself.
type probe struct{ types.Signer }

var errNotSet = errors.New("no sender set on the transaction")

func (probe) Sender(*types.Transaction) (common.Address, error) { return common.Address{}, errNotSet }
func (probe) Equal(types.Signer) bool                           { return false }
