package eth

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Impersonator executes transactions of accounts the node holds no key
// for: a development chain's impersonated accounts
// (anvil_impersonateAccount, package rpc/anvil).
type Impersonator interface {
	// Impersonating tells whether eth_sendTransaction from addr is sent
	// as addr without a signature.
	Impersonating(addr common.Address) bool
	// SendImpersonated executes tx (unsigned) with from as its sender and
	// returns its hash once it is in a committed block.
	SendImpersonated(ctx context.Context, from common.Address, tx *types.Transaction) (common.Hash, error)
}

// SetImpersonator routes eth_sendTransaction from the accounts imp
// impersonates to imp. Call before serving. (A function, not a method:
// every exported method of the service is served, and eth_setImpersonator
// with a null parameter turned impersonation off.)
func SetImpersonator(api *API, imp Impersonator) { api.imp = imp }

// impersonating tells whether a send from addr goes to the impersonator;
// it does even when the node holds addr's key, as on anvil.
func (api *API) impersonating(addr common.Address) bool {
	return api.imp != nil && api.imp.Impersonating(addr)
}

// SendImpersonated fills in args' defaults as Send does and hands the
// unsigned transaction to imp. The account's lock is held until imp
// returns, as its nonce only moves once the transaction is executed (the
// pool never holds it).
func (s *TxSender) SendImpersonated(ctx context.Context, args TransactionArgs, imp Impersonator) (common.Hash, error) {
	unlock := s.locks.lock(args.from())
	defer unlock()
	tx, err := s.Fill(ctx, args)
	if err != nil {
		return common.Hash{}, err
	}
	if err := checkTxFee(tx.GasPrice(), tx.Gas(), s.cfg.TxFeeCap); err != nil {
		return common.Hash{}, err
	}
	return imp.SendImpersonated(ctx, args.from(), tx)
}
