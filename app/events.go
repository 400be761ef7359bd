package app

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/evm"
)

// Event types and attribute keys. Addresses and hashes are lowercase 0x hex
// (CometBFT matches event values exactly), except txHash, which is the
// CometBFT tx hash in the uppercase hex CometBFT itself prints.
const (
	EventTypeEthereumTx = "ethereum_tx"
	EventTypeEthereum   = "ethereum"

	AttrEthereumTxHash   = "ethereumTxHash"
	AttrTxIndex          = "txIndex"
	AttrTxGasUsed        = "txGasUsed"
	AttrTxHash           = "txHash"
	AttrRecipient        = "recipient"
	AttrEthereumTxFailed = "ethereumTxFailed"
	AttrSender           = "sender"
	AttrAmount           = "amount"
)

// txResult is the ABCI result of one transaction of a finalized block.
func txResult(tx *types.Transaction, out *evm.TxOutcome, raw []byte) *abci.ExecTxResult {
	if out.Rejected != nil {
		return &abci.ExecTxResult{Code: codeOf(out.Rejected), Codespace: Codespace, Log: out.Rejected.Error(), GasWanted: int64(tx.Gas())}
	}
	r := out.Receipt
	res := &abci.ExecTxResult{
		Code:      CodeOK,
		GasWanted: int64(tx.Gas()),
		GasUsed:   int64(r.GasUsed),
		Events:    txEvents(tx, out, raw),
	}
	if out.VMErr != nil {
		res.Code, res.Codespace, res.Log = CodeExecutionFailed, Codespace, out.VMErr.Error()
	}
	return res
}

// txEvents are the ethereum_tx and ethereum events of an executed tx, indexed
// so tx_search and subscriptions can match on them.
func txEvents(tx *types.Transaction, out *evm.TxOutcome, raw []byte) []abci.Event {
	r := out.Receipt
	recipient := r.ContractAddress
	if to := tx.To(); to != nil {
		recipient = *to
	}
	cometHash := sha256.Sum256(raw)
	ethTx := []abci.EventAttribute{
		attr(AttrEthereumTxHash, tx.Hash().Hex()),
		attr(AttrTxIndex, strconv.FormatUint(uint64(r.TransactionIndex), 10)),
		unindexed(AttrTxGasUsed, strconv.FormatUint(r.GasUsed, 10)),
		unindexed(AttrTxHash, strings.ToUpper(hex.EncodeToString(cometHash[:]))),
		unindexed(AttrRecipient, lowerHex(recipient)),
	}
	if out.VMErr != nil {
		ethTx = append(ethTx, attr(AttrEthereumTxFailed, out.VMErr.Error()))
	}
	return []abci.Event{
		{Type: EventTypeEthereumTx, Attributes: ethTx},
		{Type: EventTypeEthereum, Attributes: []abci.EventAttribute{
			attr(AttrSender, lowerHex(out.Sender)),
			attr(AttrRecipient, lowerHex(recipient)),
			unindexed(AttrAmount, tx.Value().String()),
		}},
	}
}

func attr(k, v string) abci.EventAttribute {
	return abci.EventAttribute{Key: k, Value: v, Index: true}
}

func unindexed(k, v string) abci.EventAttribute {
	return abci.EventAttribute{Key: k, Value: v}
}

func lowerHex(a common.Address) string {
	return "0x" + hex.EncodeToString(a[:])
}
