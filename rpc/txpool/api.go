// Package txpool implements the txpool_ JSON-RPC namespace: the node's
// pending and queued transactions in go-ethereum's shapes (internal/ethapi
// TxPoolAPI), so tools that read geth's pool read Ember's.
package txpool

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/rpc/eth"
)

// Backend is what the namespace needs from the node.
type Backend interface {
	ChainConfig() *params.ChainConfig
	// Head is the latest block; pending transactions are shown after it.
	Head() *types.Header
	// TxPoolContent is every pooled tx by sender, each list in nonce order.
	TxPoolContent() (pending, queued map[common.Address][]*types.Transaction)
	// TxPoolContentFrom is one sender's pooled txs in nonce order.
	TxPoolContentFrom(addr common.Address) (pending, queued []*types.Transaction)
	// TxPoolStats counts pending and queued txs.
	TxPoolStats() (pending, queued int)
}

// API is the txpool namespace.
type API struct{ b Backend }

// NewAPI returns the txpool namespace over b.
func NewAPI(b Backend) *API { return &API{b: b} }

// Content is {pending, queued}, each {address: {nonce: tx}}.
func (api *API) Content() map[string]map[string]map[string]*eth.RPCTransaction {
	pending, queued := api.b.TxPoolContent()
	return map[string]map[string]map[string]*eth.RPCTransaction{
		"pending": api.byAccount(pending),
		"queued":  api.byAccount(queued),
	}
}

// ContentFrom is {pending, queued}, each {nonce: tx}, for one sender.
func (api *API) ContentFrom(addr common.Address) map[string]map[string]*eth.RPCTransaction {
	pending, queued := api.b.TxPoolContentFrom(addr)
	return map[string]map[string]*eth.RPCTransaction{
		"pending": api.byNonce(pending),
		"queued":  api.byNonce(queued),
	}
}

// Status counts pending and queued transactions.
func (api *API) Status() map[string]hexutil.Uint {
	pending, queued := api.b.TxPoolStats()
	return map[string]hexutil.Uint{"pending": hexutil.Uint(pending), "queued": hexutil.Uint(queued)}
}

// Inspect is Content with each tx summarized as geth writes it:
// "0xTo: 1 wei + 21000 gas × 2 wei" (the price is the fee cap).
func (api *API) Inspect() map[string]map[string]map[string]string {
	pending, queued := api.b.TxPoolContent()
	return map[string]map[string]map[string]string{
		"pending": summarize(pending),
		"queued":  summarize(queued),
	}
}

// byAccount flattens per-sender lists, keyed by checksummed address.
func (api *API) byAccount(txs map[common.Address][]*types.Transaction) map[string]map[string]*eth.RPCTransaction {
	out := make(map[string]map[string]*eth.RPCTransaction, len(txs))
	for addr, list := range txs {
		out[addr.Hex()] = api.byNonce(list)
	}
	return out
}

// byNonce keys txs by decimal nonce, as pending transactions after the
// head (no block fields, gasPrice = fee cap), as geth's
// NewRPCPendingTransaction writes them.
func (api *API) byNonce(txs []*types.Transaction) map[string]*eth.RPCTransaction {
	head, cfg := api.b.Head(), api.b.ChainConfig()
	out := make(map[string]*eth.RPCTransaction, len(txs))
	for _, tx := range txs {
		out[fmt.Sprintf("%d", tx.Nonce())] = eth.NewRPCTransaction(tx, common.Hash{}, head.Number.Uint64(), head.Time, 0, nil, cfg)
	}
	return out
}

func summarize(txs map[common.Address][]*types.Transaction) map[string]map[string]string {
	out := make(map[string]map[string]string, len(txs))
	for addr, list := range txs {
		dump := make(map[string]string, len(list))
		for _, tx := range list {
			dump[fmt.Sprintf("%d", tx.Nonce())] = inspect(tx)
		}
		out[addr.Hex()] = dump
	}
	return out
}

// inspect is geth's one-line summary of a transaction.
func inspect(tx *types.Transaction) string {
	if to := tx.To(); to != nil {
		return fmt.Sprintf("%s: %v wei + %v gas × %v wei", to.Hex(), tx.Value(), tx.Gas(), tx.GasPrice())
	}
	return fmt.Sprintf("contract creation: %v wei + %v gas × %v wei", tx.Value(), tx.Gas(), tx.GasPrice())
}
