package api

import (
	"context"
	"errors"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
)

// rawTrace is /api/v2/transactions/{hash}/raw-trace: the transaction's call
// tree, traced on demand, as a Parity-style list in depth-first order.
// Without a tracer (an endpoint lacking debug_traceTransaction) it is an
// empty list.
func (h *handlers) rawTrace(r *request) (any, error) {
	hash, err := r.hashParam()
	if err != nil {
		return nil, err
	}
	if _, err := h.b.Store.Tx(r.Context(), hash); err != nil {
		return nil, err
	}
	if h.b.Tracer == nil {
		return []rawTraceItem{}, nil
	}
	top, err := h.b.Tracer.CallTrace(r.Context(), hash)
	if errors.Is(err, explorer.ErrCannotTrace) {
		return []rawTraceItem{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []rawTraceItem{}
	var walk func(f *explorer.CallTrace, addr []int)
	walk = func(f *explorer.CallTrace, addr []int) {
		out = append(out, rawTraceJSON(f, addr))
		for i := range f.Calls {
			walk(&f.Calls[i], append(append([]int{}, addr...), i))
		}
	}
	walk(top, []int{})
	return out, nil
}

func hexBig(v *hexutil.Big) string {
	if v == nil {
		return "0x0"
	}
	return v.String()
}

// rawTraceJSON is one RawTrace item: call, create or selfdestruct.
func rawTraceJSON(f *explorer.CallTrace, addr []int) rawTraceItem {
	typ := strings.ToLower(f.Type)
	to := common.Address{}
	if f.To != nil {
		to = *f.To
	}
	item := rawTraceItem{Error: f.Error, Subtraces: len(f.Calls), TraceAddress: addr}
	switch typ {
	case "create", "create2":
		item.Type = "create"
		item.Action = createAction{CreationMethod: typ, From: strings.ToLower(f.From.Hex()), Gas: f.Gas.String(),
			Init: f.Input.String(), Value: hexBig(f.Value)}
		if f.Error == "" {
			item.Result = createResult{Address: strings.ToLower(to.Hex()), Code: f.Output.String(), GasUsed: f.GasUsed.String()}
		}
	case "selfdestruct":
		item.Type = "selfdestruct"
		item.Action = selfdestructAction{Address: strings.ToLower(f.From.Hex()), Balance: hexBig(f.Value),
			RefundAddress: strings.ToLower(to.Hex())}
	default:
		item.Type = "call"
		item.Action = callAction{CallType: typ, From: strings.ToLower(f.From.Hex()), Gas: f.Gas.String(),
			Input: f.Input.String(), To: strings.ToLower(to.Hex()), Value: hexBig(f.Value)}
		if f.Error == "" {
			output := f.Output
			if output == nil {
				output = hexutil.Bytes{}
			}
			item.Result = callResult{GasUsed: f.GasUsed.String(), Output: output.String()}
		}
	}
	return item
}

// Event signatures of the token transfers state changes follow.
var (
	transferTopic       = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	transferSingleTopic = crypto.Keccak256Hash([]byte("TransferSingle(address,address,address,uint256,uint256)"))
	transferBatchTopic  = crypto.Keccak256Hash([]byte("TransferBatch(address,address,address,uint256[],uint256[])"))
)

// Selectors of the read calls run around the transaction.
var (
	selBalanceOf     = crypto.Keccak256([]byte("balanceOf(address)"))[:4]
	selBalanceOf1155 = crypto.Keccak256([]byte("balanceOf(address,uint256)"))[:4]
	selName          = crypto.Keccak256([]byte("name()"))[:4]
	selSymbol        = crypto.Keccak256([]byte("symbol()"))[:4]
	selDecimals      = crypto.Keccak256([]byte("decimals()"))[:4]
	selTotalSupply   = crypto.Keccak256([]byte("totalSupply()"))[:4]
)

// tokenMove is one holder's side of a token transfer.
type tokenMove struct {
	token  common.Address
	kind   string // ERC-20, ERC-721, ERC-1155
	holder common.Address
	id     *big.Int // ERC-721 and ERC-1155
	out    bool     // the holder sent it
}

// tokenMoves reads the token transfers of a transaction's logs.
func tokenMoves(logs []explorer.Log) []tokenMove {
	var out []tokenMove
	side := func(m tokenMove, from, to common.Address) {
		if from != (common.Address{}) {
			f := m
			f.holder, f.out = from, true
			out = append(out, f)
		}
		if to != (common.Address{}) {
			t := m
			t.holder = to
			out = append(out, t)
		}
	}
	for _, l := range logs {
		if len(l.Topics) == 0 {
			continue
		}
		switch {
		case l.Topics[0] == transferTopic && len(l.Topics) == 3 && len(l.Data) == 32:
			side(tokenMove{token: l.Address, kind: "ERC-20"}, common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:]))
		case l.Topics[0] == transferTopic && len(l.Topics) == 4 && len(l.Data) == 0:
			side(tokenMove{token: l.Address, kind: "ERC-721", id: l.Topics[3].Big()}, common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:]))
		case l.Topics[0] == transferSingleTopic && len(l.Topics) == 4 && len(l.Data) == 64:
			side(tokenMove{token: l.Address, kind: "ERC-1155", id: new(big.Int).SetBytes(l.Data[:32])},
				common.BytesToAddress(l.Topics[2][:]), common.BytesToAddress(l.Topics[3][:]))
		case l.Topics[0] == transferBatchTopic && len(l.Topics) == 4:
			for _, id := range batchIDs(l.Data) {
				side(tokenMove{token: l.Address, kind: "ERC-1155", id: id}, common.BytesToAddress(l.Topics[2][:]), common.BytesToAddress(l.Topics[3][:]))
			}
		}
	}
	return out
}

// batchIDs decodes the ids array of TransferBatch's data (uint256[] ids,
// uint256[] values); nil when malformed.
func batchIDs(data []byte) []*big.Int {
	word := func(off uint64) (*big.Int, bool) {
		if off+32 > uint64(len(data)) || off+32 < off {
			return nil, false
		}
		return new(big.Int).SetBytes(data[off : off+32]), true
	}
	head, ok := word(0)
	if !ok || !head.IsUint64() {
		return nil
	}
	n, ok := word(head.Uint64())
	if !ok || !n.IsUint64() || n.Uint64() > uint64(len(data))/32 {
		return nil
	}
	ids := make([]*big.Int, 0, n.Uint64())
	for i := uint64(0); i < n.Uint64(); i++ {
		id, ok := word(head.Uint64() + 32 + 32*i)
		if !ok {
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// stateChanges is /api/v2/transactions/{hash}/state-changes: every coin
// balance the transaction changed (and the fee recipient's), then every
// token balance its transfer events changed, each read from the state
// just before and just after the transaction, so deltas are exact. Empty
// when the source cannot re-execute transactions.
func (h *handlers) stateChanges(r *request) (any, error) {
	hash, err := r.hashParam()
	if err != nil {
		return nil, err
	}
	if _, err := h.b.Store.Tx(r.Context(), hash); err != nil {
		return nil, err
	}
	empty := onePage[stateChange](nil)
	if h.b.Tracer == nil {
		return empty, nil
	}
	logs, err := h.allTxLogs(r.Context(), hash)
	if err != nil {
		return nil, err
	}
	moves := tokenMoves(logs)

	// One balance call per (token, holder, id), and the metadata calls of
	// each token, in first-seen order.
	type holding struct {
		token, holder common.Address
		id            string
	}
	var (
		calls    []explorer.StateCall
		holdings []holding
		balCall  = map[holding]int{}
		tokens   []common.Address
		kinds    = map[common.Address]string{}
		metaCall = map[common.Address]int{}
	)
	for _, m := range moves {
		if _, ok := kinds[m.token]; !ok {
			kinds[m.token] = m.kind
			tokens = append(tokens, m.token)
			metaCall[m.token] = len(calls)
			for _, sel := range [][]byte{selName, selSymbol, selDecimals, selTotalSupply} {
				calls = append(calls, explorer.StateCall{To: m.token, Data: sel})
			}
		}
		k := holding{token: m.token, holder: m.holder}
		data := append(append([]byte{}, selBalanceOf...), common.LeftPadBytes(m.holder[:], 32)...)
		if m.kind == "ERC-1155" {
			k.id = m.id.String()
			data = append(append(append([]byte{}, selBalanceOf1155...), common.LeftPadBytes(m.holder[:], 32)...), common.LeftPadBytes(m.id.Bytes(), 32)...)
		}
		if _, ok := balCall[k]; !ok {
			balCall[k] = len(calls)
			holdings = append(holdings, k)
			calls = append(calls, explorer.StateCall{To: m.token, Data: data})
		}
	}
	st, err := h.b.Tracer.StateAround(r.Context(), hash, calls)
	if errors.Is(err, explorer.ErrCannotTrace) {
		return empty, nil
	}
	if err != nil {
		return nil, err
	}

	addrs := []common.Address{}
	for _, c := range st.Coins {
		addrs = append(addrs, c.Address)
	}
	for _, k := range holdings {
		addrs = append(addrs, k.holder)
	}
	c, err := h.contractsOf(r.Context(), addrs)
	if err != nil {
		return nil, err
	}
	// Coins in address order, whichever way the tracer found them.
	coins := append([]explorer.CoinState{}, st.Coins...)
	sort.Slice(coins, func(i, j int) bool { return coins[i].Address.Cmp(coins[j].Address) < 0 })
	items := []stateChange{}
	for _, cs := range coins {
		miner := cs.Address == st.Miner
		if cs.Before.Cmp(cs.After) == 0 && !miner {
			continue
		}
		items = append(items, stateChange{
			Address: c.param(cs.Address), IsMiner: miner, Type: "coin",
			BalanceBefore: cs.Before.String(), BalanceAfter: cs.After.String(),
			Change: new(big.Int).Sub(cs.After, cs.Before).String(),
		})
	}
	info := map[common.Address]*tracedToken{}
	for _, t := range tokens {
		info[t] = tokenInfoJSON(t, kinds[t], st.After, metaCall[t])
	}
	for _, k := range holdings {
		i := balCall[k]
		before, after := callUint(st.Before, i), callUint(st.After, i)
		if before == nil || after == nil {
			continue // the balance could not be read around the transaction
		}
		kind := kinds[k.token]
		item := stateChange{
			Address: c.param(k.holder), IsMiner: k.holder == st.Miner, Type: "token", Token: info[k.token],
			BalanceBefore: before.String(), BalanceAfter: after.String(),
		}
		switch kind {
		case "ERC-721":
			var changes []nftChange // null when none
			for _, m := range moves {
				if m.token == k.token && m.holder == k.holder {
					dir := "to"
					if m.out {
						dir = "from"
					}
					changes = append(changes, nftChange{Direction: dir, Total: nftTotal{TokenID: m.id.String()}})
				}
			}
			item.Change = changes
		case "ERC-1155":
			item.TokenID = &k.id
			item.Change = new(big.Int).Sub(after, before).String()
		default:
			item.Change = new(big.Int).Sub(after, before).String()
		}
		if kind != "ERC-721" && before.Cmp(after) == 0 {
			continue
		}
		items = append(items, item)
	}
	return onePage(items), nil
}

// allTxLogs reads every log of a transaction.
func (h *handlers) allTxLogs(ctx context.Context, hash common.Hash) ([]explorer.Log, error) {
	var out []explorer.Log
	from := uint(0)
	for {
		logs, err := h.b.Store.TxLogs(ctx, hash, from, 1000)
		if err != nil {
			return nil, err
		}
		out = append(out, logs...)
		if len(logs) < 1000 {
			return out, nil
		}
		from = logs[len(logs)-1].Index + 1
	}
}

// callUint reads result i as one uint256 word; nil when missing.
func callUint(results [][]byte, i int) *big.Int {
	if i >= len(results) || len(results[i]) < 32 {
		return nil
	}
	return new(big.Int).SetBytes(results[i][:32])
}

// callString decodes an ABI string result (or a bytes32 one, as old tokens
// return); nil when missing.
func callString(results [][]byte, i int) *string {
	if i >= len(results) {
		return nil
	}
	b := results[i]
	if len(b) == 32 {
		return ptr(strings.TrimRight(string(b), "\x00"))
	}
	if len(b) < 64 {
		return nil
	}
	off := new(big.Int).SetBytes(b[:32])
	if !off.IsUint64() || off.Uint64()+32 > uint64(len(b)) {
		return nil
	}
	n := new(big.Int).SetBytes(b[off.Uint64() : off.Uint64()+32])
	start := off.Uint64() + 32
	if !n.IsUint64() || start+n.Uint64() > uint64(len(b)) {
		return nil
	}
	return ptr(string(b[start : start+n.Uint64()]))
}

// tokenInfoJSON is a minimal TokenInfo read through the token's own calls
// after the transaction (metadata comes from the token tables elsewhere).
func tokenInfoJSON(token common.Address, kind string, after [][]byte, meta int) *tracedToken {
	t := &tracedToken{Address: token.Hex(), AddressHash: token.Hex(), Type: kind, Reputation: "ok",
		Name: callString(after, meta), Symbol: callString(after, meta+1)}
	if kind == "ERC-20" {
		if d := callUint(after, meta+2); d != nil {
			t.Decimals = ptr(d.String())
		}
	}
	if s := callUint(after, meta+3); s != nil {
		t.TotalSupply = ptr(s.String())
	}
	return t
}
