package e2e

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// txOpts describe a transaction to sign; zero fields get defaults.
type txOpts struct {
	Type    *byte // types.LegacyTxType or AccessListTxType; nil = DynamicFeeTxType
	Nonce   *uint64
	To      *common.Address
	Value   *big.Int
	Gas     uint64
	Tip     *big.Int // or gas price for legacy / access-list
	FeeCap  *big.Int
	Data    []byte
	ChainID *big.Int
}

// signTx builds and signs a transaction from key. The nonce defaults to the
// pending nonce.
func (n *Node) signTx(t testing.TB, key *ecdsa.PrivateKey, o txOpts) *types.Transaction {
	t.Helper()
	c := ctx(t)
	chainID := o.ChainID
	if chainID == nil {
		var err error
		if chainID, err = n.Eth.ChainID(c); err != nil {
			t.Fatal(err)
		}
	}
	var nonce uint64
	if o.Nonce != nil {
		nonce = *o.Nonce
	} else {
		var err error
		if nonce, err = n.Eth.PendingNonceAt(c, crypto.PubkeyToAddress(key.PublicKey)); err != nil {
			t.Fatal(err)
		}
	}
	if o.Value == nil {
		o.Value = new(big.Int)
	}
	if o.Gas == 0 {
		o.Gas = 21000
	}
	if o.Tip == nil {
		o.Tip = gwei(2)
	}
	if o.FeeCap == nil {
		o.FeeCap = gwei(50)
	}
	typ := byte(types.DynamicFeeTxType)
	if o.Type != nil {
		typ = *o.Type
	}
	var inner types.TxData
	switch typ {
	case types.LegacyTxType:
		inner = &types.LegacyTx{Nonce: nonce, GasPrice: o.FeeCap, Gas: o.Gas, To: o.To, Value: o.Value, Data: o.Data}
	case types.AccessListTxType:
		inner = &types.AccessListTx{ChainID: chainID, Nonce: nonce, GasPrice: o.FeeCap, Gas: o.Gas, To: o.To, Value: o.Value, Data: o.Data}
	default:
		inner = &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: o.Tip, GasFeeCap: o.FeeCap, Gas: o.Gas, To: o.To, Value: o.Value, Data: o.Data}
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), inner)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// send signs and submits a transaction, failing the test on a send error.
func (n *Node) send(t testing.TB, key *ecdsa.PrivateKey, o txOpts) *types.Transaction {
	t.Helper()
	tx := n.signTx(t, key, o)
	if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
		t.Fatalf("send %s: %v", tx.Hash().Hex(), err)
	}
	return tx
}

func ptr[T any](v T) *T { return &v }

// signTxs signs count transactions from devKeys[4] with options per index.
func (n *Node) signTxs(t testing.TB, count int, opts func(i int) txOpts) []*types.Transaction {
	out := make([]*types.Transaction, count)
	for i := range out {
		out[i] = n.signTx(t, devKeys[4].Private, opts(i))
	}
	return out
}
