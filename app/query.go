package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Query paths.
const (
	// QueryAccount is "/evm/account/<0x address>": the account's balance,
	// nonce and code hash at the requested height (0 = latest) as JSON.
	QueryAccount = "/evm/account/"
)

// Query codes beyond CodeOK.
const (
	CodeUnknownQuery uint32 = 10
	CodeBadQuery     uint32 = 11
	CodeNoState      uint32 = 12
)

// AccountJSON is the answer to QueryAccount.
type AccountJSON struct {
	Address  common.Address `json:"address"`
	Balance  *hexutil.Big   `json:"balance"`
	Nonce    hexutil.Uint64 `json:"nonce"`
	CodeHash common.Hash    `json:"codeHash"`
}

// Query answers read-only questions about the application state.
func (a *App) Query(_ context.Context, req *abci.RequestQuery) (*abci.ResponseQuery, error) {
	if !strings.HasPrefix(req.Path, QueryAccount) {
		return &abci.ResponseQuery{Code: CodeUnknownQuery, Codespace: Codespace, Log: fmt.Sprintf("unknown query path %q", req.Path)}, nil
	}
	hexAddr := strings.TrimPrefix(req.Path, QueryAccount)
	if !common.IsHexAddress(hexAddr) {
		return &abci.ResponseQuery{Code: CodeBadQuery, Codespace: Codespace, Log: fmt.Sprintf("invalid address %q", hexAddr)}, nil
	}
	header := a.store.Head()
	if req.Height > 0 {
		header = a.store.HeaderByNumber(uint64(req.Height))
	}
	if header == nil {
		return &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: fmt.Sprintf("no state at height %d", req.Height)}, nil
	}
	st, err := a.store.StateAt(header.Root)
	if err != nil {
		return &abci.ResponseQuery{Code: CodeNoState, Codespace: Codespace, Log: err.Error()}, nil
	}
	addr := common.HexToAddress(hexAddr)
	acc := AccountJSON{
		Address:  addr,
		Balance:  (*hexutil.Big)(st.GetBalance(addr).ToBig()),
		Nonce:    hexutil.Uint64(st.GetNonce(addr)),
		CodeHash: st.GetCodeHash(addr),
	}
	value, _ := json.Marshal(acc)
	return &abci.ResponseQuery{Code: CodeOK, Key: addr.Bytes(), Value: value, Height: header.Number.Int64()}, nil
}
