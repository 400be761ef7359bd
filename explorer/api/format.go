package api

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
)

// obj is a JSON object; the shapes below are built as maps so each key is
// spelled exactly as Blockscout spells it, nulls included.
type obj = map[string]any

// isoTime is Blockscout's timestamp spelling.
func isoTime(unix uint64) string {
	return time.Unix(int64(unix), 0).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// dec is a decimal string, or nil (JSON null) for a missing amount.
func dec(v *big.Int) any {
	if v == nil {
		return nil
	}
	return v.String()
}

func u64(v uint64) string { return new(big.Int).SetUint64(v).String() }

// addressParam is Blockscout's embedded address object.
func addressParam(a common.Address, isContract bool) obj {
	return obj{
		"hash":                a.Hex(), // EIP-55
		"implementation_name": nil,
		"implementations":     []any{},
		"name":                nil,
		"is_contract":         isContract,
		"is_verified":         false,
		"ens_domain_name":     nil,
		"metadata":            nil,
		"proxy_type":          nil,
		"private_tags":        []any{},
		"public_tags":         []any{},
		"watchlist_names":     []any{},
		"reputation":          "ok",
	}
}

// contracts knows which addresses of a response are contracts.
type contracts map[common.Address]bool

func (c contracts) param(a common.Address) obj { return addressParam(a, c[a]) }

func (c contracts) optParam(a *common.Address) any {
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

func blockJSON(b *explorer.Block, c contracts) obj {
	gasUsed, gasLimit := new(big.Int).SetUint64(b.GasUsed), new(big.Int).SetUint64(b.GasLimit)
	target := new(big.Int).Div(gasLimit, big.NewInt(elasticity))
	return obj{
		"height":                b.Number,
		"hash":                  b.Hash.Hex(),
		"parent_hash":           b.ParentHash.Hex(),
		"timestamp":             isoTime(b.Time),
		"transactions_count":    b.TxCount,
		"miner":                 c.param(b.Miner),
		"size":                  b.Size,
		"difficulty":            b.Difficulty.String(),
		"total_difficulty":      nil, // not tracked: a BFT chain has no fork choice by difficulty
		"gas_used":              u64(b.GasUsed),
		"gas_limit":             u64(b.GasLimit),
		"nonce":                 hexutil.Encode(big.NewInt(0).SetUint64(b.Nonce).FillBytes(make([]byte, 8))),
		"base_fee_per_gas":      dec(b.BaseFee),
		"burnt_fees":            b.BurntFees.String(),
		"priority_fee":          b.PriorityFee.String(),
		"transaction_fees":      b.TxFees.String(),
		"extra_data":            hexutil.Encode(b.ExtraData),
		"state_root":            b.StateRoot.Hex(),
		"rewards":               []any{},
		"gas_target_percentage": percent(new(big.Int).Sub(gasUsed, target), target),
		"gas_used_percentage":   percent(gasUsed, gasLimit),
		"burnt_fees_percentage": percent(b.BurntFees, b.TxFees),
		"type":                  "block",
		"uncles_hashes":         []any{},
		"withdrawals_count":     0,
		"is_pending_update":     false,
	}
}

// txResult is Blockscout's result text: the reason of a failure is only
// known once internal transactions are traced, which it words this way.
func txResult(status uint8) (string, string) {
	if status == 1 {
		return "ok", "success"
	}
	return "error", "Error: (Awaiting internal transactions for reason)"
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

func method(input []byte) any {
	if len(input) < 4 {
		return nil
	}
	return hexutil.Encode(input[:4])
}

func txJSON(t *explorer.Tx, head uint64, c contracts) obj {
	status, result := txResult(t.Status)
	confirmations := uint64(0)
	if head >= t.BlockNumber {
		confirmations = head - t.BlockNumber + 1
	}
	o := baseTxJSON(t.Hash, t.From, t.To, t.Value, t.Gas, t.Nonce, t.Type, t.Input, t.MaxFee, t.MaxTip, c)
	for k, v := range (obj{
		"block_number":          t.BlockNumber,
		"block_hash":            t.BlockHash.Hex(),
		"timestamp":             isoTime(t.Time),
		"confirmations":         confirmations,
		"position":              t.Index,
		"status":                status,
		"result":                result,
		"fee":                   obj{"type": "actual", "value": t.Fee.String()},
		"gas_price":             t.GasPrice.String(),
		"gas_used":              u64(t.GasUsed),
		"base_fee_per_gas":      dec(t.BaseFee),
		"priority_fee":          new(big.Int).Sub(t.Fee, t.BurntFee).String(),
		"transaction_burnt_fee": t.BurntFee.String(),
		"created_contract":      c.optParam(t.Created),
		"transaction_types":     txTypes(t, c),
	}) {
		o[k] = v
	}
	return o
}

// baseTxJSON holds the fields a pending and an included transaction share.
func baseTxJSON(hash common.Hash, from common.Address, to *common.Address, value *big.Int, gas, nonce uint64, typ uint8,
	input []byte, maxFee, maxTip *big.Int, c contracts) obj {
	return obj{
		"hash":                               hash.Hex(),
		"from":                               c.param(from),
		"to":                                 c.optParam(to),
		"value":                              value.String(),
		"gas_limit":                          u64(gas),
		"nonce":                              nonce,
		"type":                               typ,
		"raw_input":                          hexutil.Encode(input),
		"method":                             method(input),
		"decoded_input":                      nil, // needs verified ABIs
		"max_fee_per_gas":                    dec(maxFee),
		"max_priority_fee_per_gas":           dec(maxTip),
		"exchange_rate":                      nil,
		"token_transfers":                    []any{},
		"token_transfers_overflow":           false,
		"actions":                            []any{},
		"has_error_in_internal_transactions": nil,
		"revert_reason":                      nil,
		"confirmation_duration":              []any{},
		"transaction_tag":                    nil,
		"is_pending_update":                  false,
	}
}

func pendingTxJSON(p explorer.PendingTx, c contracts) obj {
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
	for k, v := range (obj{
		"block_number": nil, "block_hash": nil, "timestamp": nil, "confirmations": 0, "position": nil,
		"status": nil, "result": "pending", "fee": obj{"type": "maximum", "value": maxCost.String()},
		"gas_price": tx.GasFeeCap().String(), "gas_used": nil, "base_fee_per_gas": nil, "priority_fee": nil,
		"transaction_burnt_fee": nil, "created_contract": nil, "transaction_types": types,
	}) {
		o[k] = v
	}
	return o
}

func logJSON(l *explorer.Log, c contracts) obj {
	topics := make([]string, len(l.Topics))
	for i, t := range l.Topics {
		topics[i] = t.Hex()
	}
	return obj{
		"address":          c.param(l.Address),
		"smart_contract":   c.param(l.Address),
		"topics":           topics,
		"data":             hexutil.Encode(l.Data),
		"index":            l.Index,
		"decoded":          nil, // needs verified ABIs
		"transaction_hash": l.TxHash.Hex(),
		"block_number":     l.BlockNumber,
		"block_hash":       l.BlockHash.Hex(),
	}
}

func addressJSON(a *explorer.Address, hasLogs bool) obj {
	o := addressParam(a.Hash, a.IsContract)
	delete(o, "metadata")
	for k, v := range (obj{
		"coin_balance":                    a.Balance.String(),
		"exchange_rate":                   nil,
		"block_number_balance_updated_at": a.BalanceBlock,
		"creator_address_hash":            nil,
		"creation_transaction_hash":       nil,
		"has_logs":                        hasLogs,
		"has_token_transfers":             false,
		"has_tokens":                      false,
		"has_validated_blocks":            a.BlocksValidated > 0,
		"has_beacon_chain_withdrawals":    false,
		"token":                           nil,
		"watchlist_address_id":            nil,
	}) {
		o[k] = v
	}
	if a.Creator != nil {
		o["creator_address_hash"] = a.Creator.Hex()
	}
	if a.CreationTx != nil {
		o["creation_transaction_hash"] = a.CreationTx.Hex()
	}
	if a.IsContract {
		o["creation_status"] = "success"
	}
	return o
}
