package app

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
)

// Query paths.
const (
	// QueryAccount is "/evm/account/<0x address>": the account's balance,
	// nonce and code hash at the requested height (0 = latest) as JSON.
	QueryAccount = "/evm/account/"
	// QueryBlock is "/evm/block/<number>": the EVM block hash and the
	// CometBFT block hash of a height as JSON.
	QueryBlock = "/evm/block/"
	// QueryCometBlock is "/evm/comet-block/<CometBFT block hash, hex>": the
	// same, found by the CometBFT hash.
	QueryCometBlock = "/evm/comet-block/"
	// QueryNativeAccount is "/ember/account/<address, bech32 or 0x>": the
	// account in the JSON the native REST endpoint prints.
	QueryNativeAccount = "/ember/account/"
	// QueryPendingNonce is "/ember/pending-nonce/<address, bech32 or 0x>":
	// the next sequence (= EVM nonce) the account can sign, counting the
	// transactions of its own waiting in this node's pool, as
	// eth_getTransactionCount(…, "pending") does; JSON {address, nonce}.
	QueryPendingNonce = "/ember/pending-nonce/"
)

// Query codes beyond CodeOK.
const (
	CodeUnknownQuery uint32 = 10
	CodeBadQuery     uint32 = 11
	CodeNoState      uint32 = 12
	CodeNotFound     uint32 = 13
)

// AccountJSON is the answer to QueryAccount.
type AccountJSON struct {
	Address  common.Address `json:"address"`
	Balance  *hexutil.Big   `json:"balance"`
	Nonce    hexutil.Uint64 `json:"nonce"`
	CodeHash common.Hash    `json:"codeHash"`
}

// BlockJSON is the answer to QueryBlock and QueryCometBlock.
type BlockJSON struct {
	Number    hexutil.Uint64 `json:"number"`
	Hash      common.Hash    `json:"hash"`      // EVM block hash, keccak256(RLP(header))
	CometHash string         `json:"cometHash"` // CometBFT block hash, uppercase hex
}

// Query answers read-only questions about the application state.
func (a *App) Query(ctx context.Context, req *abci.RequestQuery) (*abci.ResponseQuery, error) {
	if a.serviceQuery != nil {
		if res, ok := a.serviceQuery(ctx, req); ok {
			return res, nil
		}
	}
	if mq, ok := a.modules.Query(req.Path); ok {
		return a.moduleQuery(mq, req), nil
	}
	switch {
	case strings.HasPrefix(req.Path, QueryAccount):
		return a.queryAccount(req), nil
	case strings.HasPrefix(req.Path, QueryNativeAccount):
		return a.queryNativeAccount(req), nil
	case strings.HasPrefix(req.Path, QueryPendingNonce):
		return a.queryPendingNonce(req), nil
	case req.Path == QueryGasPrice:
		return a.queryGasPrice(), nil
	case strings.HasPrefix(req.Path, QueryBlock):
		n, err := strconv.ParseUint(strings.TrimPrefix(req.Path, QueryBlock), 10, 64)
		if err != nil {
			return badQuery("invalid block number in %q", req.Path), nil
		}
		return a.queryBlock(n), nil
	case strings.HasPrefix(req.Path, QueryCometBlock):
		h, err := hex.DecodeString(strings.TrimPrefix(req.Path, QueryCometBlock))
		if err != nil || len(h) != 32 {
			return badQuery("invalid CometBFT block hash in %q", req.Path), nil
		}
		n, ok := a.store.NumberByCometHash(h)
		if !ok {
			return &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: fmt.Sprintf("no block with CometBFT hash %X", h)}, nil
		}
		return a.queryBlock(n), nil
	}
	return &abci.ResponseQuery{Code: CodeUnknownQuery, Codespace: Codespace, Log: fmt.Sprintf("unknown query path %q", req.Path)}, nil
}

func badQuery(format string, args ...any) *abci.ResponseQuery {
	return &abci.ResponseQuery{Code: CodeBadQuery, Codespace: Codespace, Log: fmt.Sprintf(format, args...)}
}

func (a *App) queryBlock(n uint64) *abci.ResponseQuery {
	h := a.store.HeaderByNumber(n)
	if h == nil {
		return &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: fmt.Sprintf("no block %d", n)}
	}
	value, _ := json.Marshal(BlockJSON{Number: hexutil.Uint64(n), Hash: h.Hash(), CometHash: strings.ToUpper(hex.EncodeToString(a.store.CometHash(n)))})
	return &abci.ResponseQuery{Code: CodeOK, Value: value, Height: int64(n)}
}

func (a *App) queryAccount(req *abci.RequestQuery) *abci.ResponseQuery {
	hexAddr := strings.TrimPrefix(req.Path, QueryAccount)
	if !common.IsHexAddress(hexAddr) {
		return badQuery("invalid address %q", hexAddr)
	}
	st, header, fail := a.stateAt(req.Height)
	if fail != nil {
		return fail
	}
	addr := common.HexToAddress(hexAddr)
	acc := AccountJSON{
		Address:  addr,
		Balance:  (*hexutil.Big)(st.GetBalance(addr).ToBig()),
		Nonce:    hexutil.Uint64(st.GetNonce(addr)),
		CodeHash: st.GetCodeHash(addr),
	}
	value, _ := json.Marshal(acc)
	return &abci.ResponseQuery{Code: CodeOK, Key: addr.Bytes(), Value: value, Height: header.Number.Int64()}
}

// stateAt opens the state after block height (0 = the latest).
func (a *App) stateAt(height int64) (*state.StateDB, *types.Header, *abci.ResponseQuery) {
	header := a.store.Head()
	if height > 0 {
		header = a.store.HeaderByNumber(uint64(height))
	}
	if header == nil {
		return nil, nil, &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: fmt.Sprintf("no state at height %d", height)}
	}
	st, err := a.store.CachedStateOf(header)
	if err != nil {
		return nil, nil, &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: err.Error()}
	}
	return st, header, nil
}

func (a *App) queryNativeAccount(req *abci.RequestQuery) *abci.ResponseQuery {
	prefix := a.genesis.Bech32Prefix
	addr, err := accounts.ParseAddress(prefix, strings.TrimPrefix(req.Path, QueryNativeAccount))
	if err != nil {
		return badQuery("%v", err)
	}
	st, header, fail := a.stateAt(req.Height)
	if fail != nil {
		return fail
	}
	acc, ok := accounts.LookupAccount(st, prefix, addr)
	if !ok {
		return &abci.ResponseQuery{Code: CodeNotFound, Codespace: Codespace, Log: fmt.Sprintf("account %s not found", accounts.Bech32(prefix, addr)), Height: header.Number.Int64()}
	}
	return &abci.ResponseQuery{Code: CodeOK, Key: addr.Bytes(), Value: accounts.MarshalAccount(acc), Height: header.Number.Int64()}
}

// PendingNonceJSON is the answer to QueryPendingNonce.
type PendingNonceJSON struct {
	Address common.Address `json:"address"`
	Nonce   string         `json:"nonce"` // decimal, as Cosmos writes sequences
}

// queryPendingNonce answers from the pool and the check state, under the
// check lock, so it is consistent with CheckTx.
func (a *App) queryPendingNonce(req *abci.RequestQuery) *abci.ResponseQuery {
	addr, err := accounts.ParseAddress(a.genesis.Bech32Prefix, strings.TrimPrefix(req.Path, QueryPendingNonce))
	if err != nil {
		return badQuery("%v", err)
	}
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	head := a.store.Head()
	if head == nil || a.checkState == nil {
		return &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: "no state"}
	}
	nonce := a.pool.PendingNonce(addr, a.checkState.GetNonce(addr))
	value, _ := json.Marshal(PendingNonceJSON{Address: addr, Nonce: strconv.FormatUint(nonce, 10)})
	return &abci.ResponseQuery{Code: CodeOK, Key: addr.Bytes(), Value: value, Height: head.Number.Int64()}
}

// SetServiceQuery routes abci_query paths that are gRPC method paths
// ("/cosmos.bank.v1beta1.Query/Balance") to route, which answers ok=false
// for paths it does not serve. Set before CometBFT starts.
func (a *App) SetServiceQuery(route func(context.Context, *abci.RequestQuery) (*abci.ResponseQuery, bool)) {
	a.serviceQuery = route
}

// moduleQuery answers a query a module registered, from the state at the
// requested height.
func (a *App) moduleQuery(q module.Query, req *abci.RequestQuery) *abci.ResponseQuery {
	st, header, fail := a.stateAt(req.Height)
	if fail != nil {
		return fail
	}
	value, err := q.Answer(st, &module.Env{Prefix: a.genesis.Bech32Prefix, Denom: a.genesis.Denom})
	if err != nil {
		return badQuery("%s: %v", req.Path, err)
	}
	return &abci.ResponseQuery{Code: CodeOK, Value: value, Height: header.Number.Int64()}
}

// QueryGasPrice is "/ember/gas-price": the next block's base fee and this
// node's minimum gas price, decimal strings in the base denomination
// (GasPriceJSON). A native tx's fee must be at least gas limit × the larger.
const QueryGasPrice = "/ember/gas-price"

// GasPriceJSON is the answer to QueryGasPrice.
type GasPriceJSON struct {
	BaseFee     string `json:"base_fee"`
	MinGasPrice string `json:"min_gas_price"`
	Denom       string `json:"denom"`
}

func (a *App) queryGasPrice() *abci.ResponseQuery {
	head := a.store.Head()
	if head == nil {
		return &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: "no state"}
	}
	value, _ := json.Marshal(GasPriceJSON{BaseFee: a.nextBaseFee().String(), MinGasPrice: a.MinTip().String(), Denom: a.genesis.Denom})
	return &abci.ResponseQuery{Code: CodeOK, Value: value, Height: head.Number.Int64()}
}
