package anvil

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/devchain"
)

// impersonation is the set of accounts eth_sendTransaction sends from
// without a key (anvil_impersonateAccount), or all of them
// (anvil_autoImpersonateAccount). It is the node's own setting, as on
// anvil: not part of the chain.
type impersonation struct {
	auto  bool
	addrs map[common.Address]struct{}
}

// Impersonating tells whether eth_sendTransaction from addr is sent as
// addr without a signature (eth.Impersonator).
func (api *API) Impersonating(addr common.Address) bool {
	api.mu.Lock()
	defer api.mu.Unlock()
	_, ok := api.imp.addrs[addr]
	return ok || api.imp.auto
}

// SendImpersonated executes tx with from as its sender: in a dev
// transaction (devchain.Send), returning once its block is committed
// (eth.Impersonator).
func (api *API) SendImpersonated(ctx context.Context, from common.Address, tx *types.Transaction) (common.Hash, error) {
	send, err := devchain.NewSend(tx, from, api.b.ChainConfig().ChainID)
	if err != nil {
		return common.Hash{}, err
	}
	if err := api.b.SendDev(ctx, send); err != nil {
		return common.Hash{}, err
	}
	return send.Transaction().Hash(), nil
}

func (api *API) impersonate(addr common.Address, on bool) {
	api.mu.Lock()
	defer api.mu.Unlock()
	if !on {
		delete(api.imp.addrs, addr)
		return
	}
	if api.imp.addrs == nil {
		api.imp.addrs = make(map[common.Address]struct{})
	}
	api.imp.addrs[addr] = struct{}{}
}

// ImpersonateAccount is anvil_impersonateAccount: eth_sendTransaction
// from addr needs no key from now on.
func (a *Anvil) ImpersonateAccount(addr common.Address) error {
	a.api.impersonate(addr, true)
	return nil
}

// StopImpersonatingAccount is anvil_stopImpersonatingAccount.
func (a *Anvil) StopImpersonatingAccount(addr common.Address) error {
	a.api.impersonate(addr, false)
	return nil
}

// AutoImpersonateAccount is anvil_autoImpersonateAccount: with true, every
// eth_sendTransaction is sent as its from without a key.
func (a *Anvil) AutoImpersonateAccount(on bool) error {
	a.api.mu.Lock()
	a.api.imp.auto = on
	a.api.mu.Unlock()
	return nil
}
