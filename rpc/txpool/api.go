// Package txpool implements the txpool_ JSON-RPC namespace: the node's
// pending and queued transactions in go-ethereum's shapes (internal/ethapi
// TxPoolAPI), so tools that read geth's pool read Ember's.
package txpool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/lru"
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
type API struct {
	b Backend
	// encoded holds each pooled tx's JSON by hash: a pending tx's object
	// never changes (no block fields, gasPrice = fee cap), and encoding
	// thousands of them per txpool_content call costs far more than
	// copying their bytes.
	encoded *lru.SizeConstrainedCache[common.Hash, json.RawMessage]
}

// encodedCacheBytes bounds the encoded txs kept.
const encodedCacheBytes = 64 << 20

// txJSONSize is about what one transfer's JSON and its key take, to size
// the answer's buffer once.
const txJSONSize = 640

func count(txs map[common.Address][]*types.Transaction) int {
	n := 0
	for _, list := range txs {
		n += len(list)
	}
	return n
}

// NewAPI returns the txpool namespace over b.
func NewAPI(b Backend) *API {
	return &API{b: b, encoded: lru.NewSizeConstrainedCache[common.Hash, json.RawMessage](encodedCacheBytes)}
}

// Content is {pending, queued}, each {address: {nonce: tx}}. The answer
// is written directly, keys in encoding/json's order (as geth's map
// answer), from each tx's cached encoding: with 10,000 txs, encoding maps
// of them took most of the call.
func (api *API) Content() (json.RawMessage, error) {
	pending, queued := api.b.TxPoolContent()
	var buf bytes.Buffer
	buf.Grow(txJSONSize * (count(pending) + count(queued)))
	buf.WriteString(`{"pending":`)
	if err := api.writeAccounts(&buf, pending); err != nil {
		return nil, err
	}
	buf.WriteString(`,"queued":`)
	if err := api.writeAccounts(&buf, queued); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// ContentFrom is {pending, queued}, each {nonce: tx}, for one sender.
func (api *API) ContentFrom(addr common.Address) (json.RawMessage, error) {
	pending, queued := api.b.TxPoolContentFrom(addr)
	var buf bytes.Buffer
	buf.WriteString(`{"pending":`)
	if err := api.writeNonces(&buf, pending); err != nil {
		return nil, err
	}
	buf.WriteString(`,"queued":`)
	if err := api.writeNonces(&buf, queued); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
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

// keyed is a JSON object member: its key and what it holds.
type keyed[T any] struct {
	key string
	val T
}

// sortedMembers orders members by key as encoding/json orders map keys.
func sortedMembers[T any](members []keyed[T]) []keyed[T] {
	slices.SortFunc(members, func(a, b keyed[T]) int { return strings.Compare(a.key, b.key) })
	return members
}

// writeAccounts writes {address: {nonce: tx}}, checksummed addresses.
func (api *API) writeAccounts(buf *bytes.Buffer, txs map[common.Address][]*types.Transaction) error {
	members := make([]keyed[[]*types.Transaction], 0, len(txs))
	for addr, list := range txs {
		members = append(members, keyed[[]*types.Transaction]{addr.Hex(), list})
	}
	buf.WriteByte('{')
	for i, m := range sortedMembers(members) {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`"` + m.key + `":`)
		if err := api.writeNonces(buf, m.val); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeNonces writes {nonce: tx}, decimal nonces, each tx encoded as a
// pending transaction (see encode).
func (api *API) writeNonces(buf *bytes.Buffer, txs []*types.Transaction) error {
	members := make([]keyed[*types.Transaction], len(txs))
	for i, tx := range txs {
		members[i] = keyed[*types.Transaction]{strconv.FormatUint(tx.Nonce(), 10), tx}
	}
	buf.WriteByte('{')
	for i, m := range sortedMembers(members) {
		enc, err := api.encode(m.val)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`"` + m.key + `":`)
		buf.Write(enc)
	}
	buf.WriteByte('}')
	return nil
}

// encode is tx as geth's NewRPCPendingTransaction writes it (block fields
// null, gasPrice the fee cap, the sender recovered with the head's signer),
// from the cache when it was encoded before.
func (api *API) encode(tx *types.Transaction) (json.RawMessage, error) {
	if enc, ok := api.encoded.Get(tx.Hash()); ok {
		return enc, nil
	}
	head := api.b.Head()
	enc, err := json.Marshal(eth.NewRPCTransaction(tx, common.Hash{}, head.Number.Uint64(), head.Time, 0, nil, api.b.ChainConfig()))
	if err != nil {
		return nil, err
	}
	api.encoded.Add(tx.Hash(), enc)
	return enc, nil
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
