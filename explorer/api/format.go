package api

import (
	"encoding/hex"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
)

// obj is a JSON object whose members are not ours to fix: a verified
// contract's ABI entries (methods-read/-write), passed through as the
// compiler wrote them with method_id and values added. Every other answer
// is a struct of responses.go.
type obj = map[string]any

// isoTime is Blockscout's timestamp spelling.
func isoTime(unix uint64) string {
	return time.Unix(int64(unix), 0).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// dec is a decimal string, or nil (JSON null) for a missing amount.
func dec(v *big.Int) *string {
	if v == nil {
		return nil
	}
	s := v.String()
	return &s
}

// ptr is v's address, for members that are null when unset.
func ptr[T any](v T) *T { return &v }

func u64(v uint64) string { return new(big.Int).SetUint64(v).String() }

// addressParam is Blockscout's embedded address object.
func addressParam(a common.Address, isContract bool) *addressRef {
	return &addressRef{Hash: a.Hex(), IsContract: isContract, Implementations: []implementation{}, Reputation: "ok"}
}

// contracts knows which addresses of a response are contracts.
type contracts map[common.Address]bool

func (c contracts) param(a common.Address) *addressRef { return addressParam(a, c[a]) }

func (c contracts) optParam(a *common.Address) *addressRef {
	if a == nil {
		return nil
	}
	return c.param(*a)
}

// percent is part/whole×100, 0 when whole is 0.
func percent(part, whole *big.Int) float64 {
	if whole.Sign() == 0 {
		return 0
	}
	f, _ := new(big.Rat).SetFrac(new(big.Int).Mul(part, big.NewInt(100)), whole).Float64()
	return f
}

// elasticity is EIP-1559's: the gas target is half the limit.
const elasticity = 2

func blockJSON(b *explorer.Block, c contracts) *blockItem {
	gasUsed, gasLimit := new(big.Int).SetUint64(b.GasUsed), new(big.Int).SetUint64(b.GasLimit)
	target := new(big.Int).Div(gasLimit, big.NewInt(elasticity))
	return &blockItem{
		Height:              b.Number,
		Hash:                b.Hash.Hex(),
		ParentHash:          b.ParentHash.Hex(),
		Timestamp:           isoTime(b.Time),
		TxCount:             b.TxCount,
		Miner:               c.param(b.Miner),
		Size:                b.Size,
		Difficulty:          b.Difficulty.String(),
		GasUsed:             u64(b.GasUsed),
		GasLimit:            u64(b.GasLimit),
		Nonce:               hexutil.Encode(big.NewInt(0).SetUint64(b.Nonce).FillBytes(make([]byte, 8))),
		BaseFee:             dec(b.BaseFee),
		BurntFees:           b.BurntFees.String(),
		PriorityFee:         b.PriorityFee.String(),
		TxFees:              b.TxFees.String(),
		ExtraData:           hexutil.Encode(b.ExtraData),
		StateRoot:           b.StateRoot.Hex(),
		GasTargetPercentage: percent(new(big.Int).Sub(gasUsed, target), target),
		GasUsedPercentage:   percent(gasUsed, gasLimit),
		BurntFeesPercentage: percent(b.BurntFees, b.TxFees),
		Type:                "block",
		CometBFTHash:        strings.ToUpper(hex.EncodeToString(b.CometHash)),
	}
}

// txResult is Blockscout's status and result text; a failure's result is
// its reason, which fillFailures (revert.go) reads by re-executing it.
func txResult(status uint8) (string, string) {
	if status == 1 {
		return "ok", "success"
	}
	return "error", resultReverted
}

func txTypes(t *explorer.Tx, c contracts) []string {
	types := []string{}
	if t.To == nil {
		types = append(types, "contract_creation")
	} else if c[*t.To] {
		types = append(types, "contract_call")
	}
	if t.Value.Sign() > 0 {
		types = append(types, "coin_transfer")
	}
	return types
}

func method(input []byte) *string {
	if len(input) < 4 {
		return nil
	}
	return ptr(hexutil.Encode(input[:4]))
}

func txJSON(t *explorer.Tx, head uint64, c contracts) *txItem {
	status, result := txResult(t.Status)
	confirmations := uint64(0)
	if head >= t.BlockNumber {
		confirmations = head - t.BlockNumber + 1
	}
	o := baseTxJSON(t.Hash, t.From, t.To, t.Value, t.Gas, t.Nonce, t.Type, t.Input, t.MaxFee, t.MaxTip, c)
	o.BlockNumber = &t.BlockNumber
	o.BlockHash = ptr(t.BlockHash.Hex())
	o.Timestamp = ptr(isoTime(t.Time))
	o.Confirmations = confirmations
	o.Position = &t.Index
	o.Status = &status
	o.Result = result
	o.Fee = fee{Type: "actual", Value: t.Fee.String()}
	o.GasPrice = t.GasPrice.String()
	o.GasUsed = ptr(u64(t.GasUsed))
	o.BaseFee = dec(t.BaseFee)
	o.PriorityFee = ptr(new(big.Int).Sub(t.Fee, t.BurntFee).String())
	o.BurntFee = ptr(t.BurntFee.String())
	o.CreatedContract = c.optParam(t.Created)
	o.TxTypes = txTypes(t, c)
	return o
}

// baseTxJSON holds the fields a pending and an included transaction share.
func baseTxJSON(hash common.Hash, from common.Address, to *common.Address, value *big.Int, gas, nonce uint64, typ uint8,
	input []byte, maxFee, maxTip *big.Int, c contracts) *txItem {
	return &txItem{
		Hash:           hash.Hex(),
		From:           c.param(from),
		To:             c.optParam(to),
		Value:          value.String(),
		GasLimit:       u64(gas),
		Nonce:          nonce,
		Type:           &typ,
		RawInput:       hexutil.Encode(input),
		Method:         method(input),
		MaxFee:         dec(maxFee),
		MaxTip:         dec(maxTip),
		TokenTransfers: []*transferItem{},
	}
}

func pendingTxJSON(p explorer.PendingTx, c contracts) *txItem {
	tx := p.Tx
	var maxFee, maxTip *big.Int
	if tx.Type() >= 2 {
		maxFee, maxTip = tx.GasFeeCap(), tx.GasTipCap()
	}
	o := baseTxJSON(tx.Hash(), p.From, tx.To(), tx.Value(), tx.Gas(), tx.Nonce(), tx.Type(), tx.Data(), maxFee, maxTip, c)
	maxCost := new(big.Int).Mul(new(big.Int).SetUint64(tx.Gas()), tx.GasFeeCap())
	types := []string{}
	if tx.To() == nil {
		types = append(types, "contract_creation")
	}
	if tx.Value().Sign() > 0 {
		types = append(types, "coin_transfer")
	}
	o.Result = "pending"
	o.Fee = fee{Type: "maximum", Value: maxCost.String()}
	o.GasPrice = tx.GasFeeCap().String()
	o.TxTypes = types
	return o
}

func logJSON(l *explorer.Log, c contracts) *logItem {
	topics := make([]string, len(l.Topics))
	for i, t := range l.Topics {
		topics[i] = t.Hex()
	}
	return &logItem{
		Address:       c.param(l.Address),
		SmartContract: c.param(l.Address),
		Topics:        topics,
		Data:          hexutil.Encode(l.Data),
		Index:         l.Index,
		TxHash:        l.TxHash.Hex(),
		BlockNumber:   l.BlockNumber,
		BlockHash:     l.BlockHash.Hex(),
	}
}

func addressJSON(a *explorer.Address, hasLogs bool) *addressItem {
	o := &addressItem{
		Hash:            a.Hash.Hex(),
		IsContract:      a.IsContract,
		Implementations: []implementation{},
		Reputation:      "ok",
		CoinBalance:     a.Balance.String(),
		BalanceBlock:    a.BalanceBlock,
		FirstSeen:       a.FirstSeen,
		LastSeen:        a.LastSeen,
		HasLogs:         hasLogs,
		HasValidated:    a.BlocksValidated > 0,
	}
	if a.Creator != nil {
		o.Creator = ptr(a.Creator.Hex())
	}
	if a.CreationTx != nil {
		o.CreationTx = ptr(a.CreationTx.Hex())
	}
	if a.IsContract {
		o.CreationStatus = "success"
	}
	return o
}
