package api

import (
	"context"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"

	"github.com/emberchain/ember/explorer/decode"
)

// coinSymbol and coinDecimals name the chain's native coin in summaries
// (the base denomination is aember: 18 decimals).
const (
	coinSymbol   = "EMBER"
	coinDecimals = 18
)

// maxSummaryLogs bounds the logs one summary reads.
const maxSummaryLogs = 200

// formatUnits spells v/10^decimals as a plain decimal, trailing zeros cut.
func formatUnits(v *big.Int, decimals int) string {
	if decimals <= 0 {
		return v.String()
	}
	neg := v.Sign() < 0
	s := new(big.Int).Abs(v).String()
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals-len(s)+1) + s
	}
	whole, frac := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
	if frac != "" {
		whole += "." + frac
	}
	if neg {
		whole = "-" + whole
	}
	return whole
}

func variable(typ string, value any) summaryVar { return summaryVar{Type: typ, Value: value} }

func summary(template string, vars summaryVars) summaryItem {
	return summaryItem{Template: template, Vars: vars}
}

// tokenFacts are what calls tell of a token, for summaries.
type tokenFacts struct {
	name, symbol *string // nil when unknown
	decimals     *int
}

var (
	sumSelName     = common.FromHex("06fdde03")
	sumSelSymbol   = common.FromHex("95d89b41")
	sumSelDecimals = common.FromHex("313ce567")
	sumStringType  = sumMustType("string")
	sumUint8Type   = sumMustType("uint8")
	// sumBatchArgs are TransferBatch's data: ids and values.
	sumBatchArgs = abi.Arguments{{Type: sumMustType("uint256[]")}, {Type: sumMustType("uint256[]")}}
)

func sumMustType(t string) abi.Type {
	typ, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return typ
}

// tokenFacts calls name(), symbol() and decimals() on the token at the
// head; what fails stays unknown.
func (h *handlers) tokenFacts(ctx context.Context, addr common.Address, cache map[common.Address]*tokenFacts) *tokenFacts {
	if f, ok := cache[addr]; ok {
		return f
	}
	f := &tokenFacts{}
	cache[addr] = f
	if h.b.Chain == nil {
		return f
	}
	str := func(sel []byte) *string {
		out, err := h.b.Chain.CallContract(ctx, addr, sel)
		if err != nil {
			return nil
		}
		if v, err := (abi.Arguments{{Type: sumStringType}}).Unpack(out); err == nil && len(v) == 1 {
			if s, ok := v[0].(string); ok {
				return &s
			}
		}
		return nil
	}
	f.name, f.symbol = str(sumSelName), str(sumSelSymbol)
	if out, err := h.b.Chain.CallContract(ctx, addr, sumSelDecimals); err == nil {
		if v, err := (abi.Arguments{{Type: sumUint8Type}}).Unpack(out); err == nil && len(v) == 1 {
			d := int(v[0].(uint8))
			f.decimals = &d
		}
	}
	return f
}

// tokenVar is a summary's token variable: TokenInfo as far as known.
func tokenVar(addr common.Address, typ string, f *tokenFacts) summaryVar {
	t := summaryToken{AddressHash: addr.Hex(), Name: f.name, Symbol: f.symbol, Type: typ}
	if f.decimals != nil {
		t.Decimals = ptr(u64(uint64(*f.decimals)))
	}
	return variable("token", t)
}

// txSummary is /api/v2/transactions/{hash}/summary: readable sentences
// built from templates — native transfers, token transfers, mints, burns
// and approvals read from the transaction's own logs, contract deployments
// and method calls.
// multiMove is the sentence of an ERC-1155 move of value of id: a mint
// (from the zero address), a burn (to it) or a transfer.
func multiMove(tok summaryVar, from, to common.Address, param func(common.Address) summaryVar, id, value *big.Int) summaryItem {
	vars := summaryVars{"amount": variable("currency", value.String()), "token": tok, "token_id": variable("string", id.String())}
	switch {
	case from == common.Address{}:
		vars["action_type"], vars["to_address"] = variable("string", "Mint"), param(to)
		return summary("{action_type} {amount} of {token} #{token_id} to {to_address}", vars)
	case to == common.Address{}:
		vars["action_type"], vars["from_address"] = variable("string", "Burn"), param(from)
		return summary("{action_type} {amount} of {token} #{token_id} from {from_address}", vars)
	}
	vars["action_type"], vars["from_address"], vars["to_address"] = variable("string", "Transfer"), param(from), param(to)
	return summary("{action_type} {amount} of {token} #{token_id} from {from_address} to {to_address}", vars)
}

func (h *handlers) txSummary(r *request) (any, error) {
	hash, err := r.hashParam()
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	t, err := h.b.Store.Tx(ctx, hash)
	if err != nil {
		return nil, err
	}
	logs, err := h.b.Store.TxLogs(ctx, hash, 0, maxSummaryLogs)
	if err != nil {
		return nil, err
	}
	addrs := []common.Address{t.From}
	if t.To != nil {
		addrs = append(addrs, *t.To)
	}
	if t.Created != nil {
		addrs = append(addrs, *t.Created)
	}
	for _, l := range logs {
		addrs = append(addrs, l.Address)
		for _, tp := range l.Topics[min(1, len(l.Topics)):] {
			addrs = append(addrs, common.BytesToAddress(tp[12:]))
		}
	}
	c, err := h.contractsOf(ctx, addrs)
	if err != nil {
		return nil, err
	}
	abis, names, err := h.abisOf(ctx, addrs)
	if err != nil {
		return nil, err
	}
	param := func(a common.Address) summaryVar {
		p := c.param(a)
		markVerified(p, names)
		return variable("address", p)
	}
	facts := map[common.Address]*tokenFacts{}
	var out []summaryItem

	// Contract deployment.
	if t.To == nil {
		if t.Created != nil {
			out = append(out, summary("{action_type} contract {contract_address}", summaryVars{
				"action_type": variable("string", "Deployed"), "contract_address": param(*t.Created)}))
		} else {
			out = append(out, summary("{action_type} contract failed", summaryVars{"action_type": variable("string", "Deploying")}))
		}
	}

	// Token facts from the logs.
	zero := common.Address{}
	for i := range logs {
		l := &logs[i]
		d := decode.Log(abis[l.Address], l.Topics, l.Data)
		if d == nil {
			continue
		}
		args := map[string]any{}
		for _, p := range d.Params {
			args[p.Name] = p.Value
		}
		addrArg := func(i int) common.Address { return common.BytesToAddress(l.Topics[i][12:]) }
		switch {
		case d.Name == "Transfer" && len(l.Topics) == 3 && len(l.Data) == 32: // ERC-20
			f := h.tokenFacts(ctx, l.Address, facts)
			from, to := addrArg(1), addrArg(2)
			amount := variable("currency", new(big.Int).SetBytes(l.Data).String())
			if f.decimals != nil {
				amount = variable("currency", formatUnits(new(big.Int).SetBytes(l.Data), *f.decimals))
			}
			vars := summaryVars{"amount": amount, "token": tokenVar(l.Address, "ERC-20", f)}
			switch {
			case from == zero:
				vars["action_type"], vars["to_address"] = variable("string", "Mint"), param(to)
				out = append(out, summary("{action_type} {amount} {token} to {to_address}", vars))
			case to == zero:
				vars["action_type"], vars["from_address"] = variable("string", "Burn"), param(from)
				out = append(out, summary("{action_type} {amount} {token} from {from_address}", vars))
			default:
				vars["action_type"], vars["from_address"], vars["to_address"] = variable("string", "Transfer"), param(from), param(to)
				out = append(out, summary("{action_type} {amount} {token} from {from_address} to {to_address}", vars))
			}
		case d.Name == "Transfer" && len(l.Topics) == 4: // ERC-721
			f := h.tokenFacts(ctx, l.Address, facts)
			from, to := addrArg(1), addrArg(2)
			vars := summaryVars{"token": tokenVar(l.Address, "ERC-721", f), "token_id": variable("string", l.Topics[3].Big().String())}
			switch {
			case from == zero:
				vars["action_type"], vars["to_address"] = variable("string", "Mint"), param(to)
				out = append(out, summary("{action_type} {token} #{token_id} to {to_address}", vars))
			case to == zero:
				vars["action_type"], vars["from_address"] = variable("string", "Burn"), param(from)
				out = append(out, summary("{action_type} {token} #{token_id} from {from_address}", vars))
			default:
				vars["action_type"], vars["from_address"], vars["to_address"] = variable("string", "Transfer"), param(from), param(to)
				out = append(out, summary("{action_type} {token} #{token_id} from {from_address} to {to_address}", vars))
			}
		case d.Name == "TransferSingle" && len(l.Topics) == 4 && len(l.Data) == 64: // ERC-1155
			f := h.tokenFacts(ctx, l.Address, facts)
			out = append(out, multiMove(tokenVar(l.Address, "ERC-1155", f), addrArg(2), addrArg(3), param,
				new(big.Int).SetBytes(l.Data[:32]), new(big.Int).SetBytes(l.Data[32:])))
		case d.Name == "TransferBatch" && len(l.Topics) == 4: // ERC-1155: one sentence per (id, value)
			vals, err := sumBatchArgs.Unpack(l.Data)
			if err != nil {
				continue
			}
			ids, values := vals[0].([]*big.Int), vals[1].([]*big.Int)
			if len(ids) != len(values) {
				continue
			}
			f := h.tokenFacts(ctx, l.Address, facts)
			tok := tokenVar(l.Address, "ERC-1155", f)
			for k := range ids {
				out = append(out, multiMove(tok, addrArg(2), addrArg(3), param, ids[k], values[k]))
			}
		case d.Name == "Approval" && len(l.Topics) == 3 && len(l.Data) == 32: // ERC-20
			f := h.tokenFacts(ctx, l.Address, facts)
			v := new(big.Int).SetBytes(l.Data)
			amount := variable("currency", v.String())
			if v.Cmp(math.MaxBig256) == 0 {
				amount = variable("string", "unlimited")
			} else if f.decimals != nil {
				amount = variable("currency", formatUnits(v, *f.decimals))
			}
			out = append(out, summary("{action_type} {spender_address} to spend {amount} {token}", summaryVars{
				"action_type": variable("string", "Approve"), "spender_address": param(addrArg(2)), "amount": amount,
				"token": tokenVar(l.Address, "ERC-20", f)}))
		case d.Name == "ApprovalForAll" && len(l.Topics) == 3:
			f := h.tokenFacts(ctx, l.Address, facts)
			vars := summaryVars{"operator_address": param(addrArg(2)), "token": tokenVar(l.Address, "ERC-721", f)}
			if approved, _ := args["approved"].(bool); approved {
				vars["action_type"] = variable("string", "Approve")
				out = append(out, summary("{action_type} {operator_address} to transfer all {token}", vars))
			} else {
				vars["action_type"] = variable("string", "Revoke")
				out = append(out, summary("{action_type} approval of {operator_address} for all {token}", vars))
			}
		}
	}

	// A call whose logs told nothing readable: the method and the callee.
	if t.To != nil && c[*t.To] && len(t.Input) >= 4 && len(out) == 0 {
		name := decode.MethodName(abis[*t.To], t.Input)
		if name == "" {
			name = hexutil.Encode(t.Input[:4])
		}
		action := "Called"
		if t.Status != 1 {
			action = "Failed to call"
		}
		out = append(out, summary("{action_type} {method} on {to_address}", summaryVars{
			"action_type": variable("string", action), "method": variable("method", name), "to_address": param(*t.To)}))
	}
	// Native coin moved (alone, or alongside a call).
	if t.To != nil && (t.Value.Sign() > 0 || (!c[*t.To] && len(t.Input) == 0)) {
		out = append(out, summary("{action_type} {amount} {native} to {to_address}", summaryVars{
			"action_type": variable("string", "Transfer"), "amount": variable("currency", formatUnits(t.Value, coinDecimals)),
			"native": variable("string", coinSymbol), "to_address": param(*t.To)}))
	}
	if out == nil {
		out = []summaryItem{}
	}
	answer := summaryJSON{Success: true}
	answer.Data.Summaries = out
	return answer, nil
}
