package eth

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/evm"
)

// The shapes below are go-ethereum's (internal/ethapi) field for field, so
// every client that parses geth parses Ember.

// MarshalHeader is a header as geth's RPC writes it.
func MarshalHeader(head *types.Header) map[string]any {
	result := map[string]any{
		"number":           (*hexutil.Big)(head.Number),
		"hash":             head.Hash(),
		"parentHash":       head.ParentHash,
		"nonce":            head.Nonce,
		"mixHash":          head.MixDigest,
		"sha3Uncles":       head.UncleHash,
		"logsBloom":        head.Bloom,
		"stateRoot":        head.Root,
		"miner":            head.Coinbase,
		"difficulty":       (*hexutil.Big)(head.Difficulty),
		"extraData":        hexutil.Bytes(head.Extra),
		"gasLimit":         hexutil.Uint64(head.GasLimit),
		"gasUsed":          hexutil.Uint64(head.GasUsed),
		"timestamp":        hexutil.Uint64(head.Time),
		"transactionsRoot": head.TxHash,
		"receiptsRoot":     head.ReceiptHash,
	}
	if head.BaseFee != nil {
		result["baseFeePerGas"] = (*hexutil.Big)(head.BaseFee)
	}
	if head.WithdrawalsHash != nil {
		result["withdrawalsRoot"] = head.WithdrawalsHash
	}
	if head.BlobGasUsed != nil {
		result["blobGasUsed"] = hexutil.Uint64(*head.BlobGasUsed)
	}
	if head.ExcessBlobGas != nil {
		result["excessBlobGas"] = hexutil.Uint64(*head.ExcessBlobGas)
	}
	if head.ParentBeaconRoot != nil {
		result["parentBeaconBlockRoot"] = head.ParentBeaconRoot
	}
	if head.RequestsHash != nil {
		result["requestsHash"] = head.RequestsHash
	}
	return result
}

// MarshalBlock is a block with tx hashes (fullTx false) or tx objects.
func MarshalBlock(block *types.Block, fullTx bool, config *params.ChainConfig) map[string]any {
	fields := MarshalHeader(block.Header())
	fields["size"] = hexutil.Uint64(block.Size())
	txs := block.Transactions()
	list := make([]any, len(txs))
	for i, tx := range txs {
		if fullTx {
			list[i] = NewRPCTransaction(tx, block.Hash(), block.NumberU64(), block.Time(), uint64(i), block.BaseFee(), config)
		} else {
			list[i] = tx.Hash()
		}
	}
	fields["transactions"] = list
	fields["uncles"] = []common.Hash{}
	if block.Withdrawals() != nil {
		fields["withdrawals"] = block.Withdrawals()
	}
	return fields
}

// RPCTransaction is a transaction as geth's RPC writes it.
type RPCTransaction struct {
	BlockHash         *common.Hash                 `json:"blockHash"`
	BlockNumber       *hexutil.Big                 `json:"blockNumber"`
	BlockTimestamp    *hexutil.Uint64              `json:"blockTimestamp"`
	From              common.Address               `json:"from"`
	Gas               hexutil.Uint64               `json:"gas"`
	GasPrice          *hexutil.Big                 `json:"gasPrice"`
	GasFeeCap         *hexutil.Big                 `json:"maxFeePerGas,omitempty"`
	GasTipCap         *hexutil.Big                 `json:"maxPriorityFeePerGas,omitempty"`
	Hash              common.Hash                  `json:"hash"`
	Input             hexutil.Bytes                `json:"input"`
	Nonce             hexutil.Uint64               `json:"nonce"`
	To                *common.Address              `json:"to"`
	TransactionIndex  *hexutil.Uint64              `json:"transactionIndex"`
	Value             *hexutil.Big                 `json:"value"`
	Type              hexutil.Uint64               `json:"type"`
	Accesses          *types.AccessList            `json:"accessList,omitempty"`
	ChainID           *hexutil.Big                 `json:"chainId,omitempty"`
	AuthorizationList []types.SetCodeAuthorization `json:"authorizationList,omitempty"`
	V                 *hexutil.Big                 `json:"v"`
	R                 *hexutil.Big                 `json:"r"`
	S                 *hexutil.Big                 `json:"s"`
	YParity           *hexutil.Uint64              `json:"yParity,omitempty"`
}

// NewRPCTransaction describes tx; blockHash zero means pending.
func NewRPCTransaction(tx *types.Transaction, blockHash common.Hash, blockNumber, blockTime, index uint64, baseFee *big.Int, config *params.ChainConfig) *RPCTransaction {
	signer := types.MakeSigner(config, new(big.Int).SetUint64(blockNumber), blockTime)
	from, _ := types.Sender(signer, tx)
	v, r, s := tx.RawSignatureValues()
	result := &RPCTransaction{
		Type:     hexutil.Uint64(tx.Type()),
		From:     from,
		Gas:      hexutil.Uint64(tx.Gas()),
		GasPrice: (*hexutil.Big)(tx.GasPrice()),
		Hash:     tx.Hash(),
		Input:    hexutil.Bytes(tx.Data()),
		Nonce:    hexutil.Uint64(tx.Nonce()),
		To:       tx.To(),
		Value:    (*hexutil.Big)(tx.Value()),
		V:        (*hexutil.Big)(v),
		R:        (*hexutil.Big)(r),
		S:        (*hexutil.Big)(s),
	}
	mined := blockHash != (common.Hash{})
	if mined {
		result.BlockHash = &blockHash
		result.BlockNumber = (*hexutil.Big)(new(big.Int).SetUint64(blockNumber))
		result.BlockTimestamp = (*hexutil.Uint64)(&blockTime)
		result.TransactionIndex = (*hexutil.Uint64)(&index)
	}
	if tx.Type() == types.LegacyTxType {
		if id := tx.ChainId(); id.Sign() != 0 {
			result.ChainID = (*hexutil.Big)(id)
		}
		return result
	}
	al := tx.AccessList()
	yparity := hexutil.Uint64(v.Sign())
	result.Accesses = &al
	result.ChainID = (*hexutil.Big)(tx.ChainId())
	result.YParity = &yparity
	if tx.Type() == types.AccessListTxType {
		return result
	}
	// EIP-1559 fee fields (dynamic-fee and set-code txs).
	result.GasFeeCap = (*hexutil.Big)(tx.GasFeeCap())
	result.GasTipCap = (*hexutil.Big)(tx.GasTipCap())
	if mined && baseFee != nil {
		result.GasPrice = (*hexutil.Big)(evm.EffectiveGasPrice(tx, baseFee))
	} else {
		result.GasPrice = (*hexutil.Big)(tx.GasFeeCap())
	}
	if tx.Type() == types.SetCodeTxType {
		result.AuthorizationList = tx.SetCodeAuthorizations()
	}
	return result
}

// marshalReceipt is a receipt as geth's RPC writes it.
func marshalReceipt(receipt *types.Receipt, tx *types.Transaction, signer types.Signer) map[string]any {
	from, _ := types.Sender(signer, tx)
	fields := map[string]any{
		"blockHash":         receipt.BlockHash,
		"blockNumber":       hexutil.Uint64(receipt.BlockNumber.Uint64()),
		"transactionHash":   tx.Hash(),
		"transactionIndex":  hexutil.Uint64(receipt.TransactionIndex),
		"from":              from,
		"to":                tx.To(),
		"gasUsed":           hexutil.Uint64(receipt.GasUsed),
		"cumulativeGasUsed": hexutil.Uint64(receipt.CumulativeGasUsed),
		"contractAddress":   nil,
		"logs":              receipt.Logs,
		"logsBloom":         receipt.Bloom,
		"type":              hexutil.Uint(tx.Type()),
		"effectiveGasPrice": (*hexutil.Big)(receipt.EffectiveGasPrice),
		"status":            hexutil.Uint(receipt.Status),
	}
	if receipt.Logs == nil {
		fields["logs"] = []*types.Log{}
	}
	if receipt.ContractAddress != (common.Address{}) {
		fields["contractAddress"] = receipt.ContractAddress
	}
	return fields
}
