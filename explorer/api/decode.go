package api

import (
	"context"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/decode"
)

// abisOf looks up the verified ABIs of addrs in one query, parsed.
func (h *handlers) abisOf(ctx context.Context, addrs []common.Address) (map[common.Address]*abi.ABI, map[common.Address]string, error) {
	m, err := h.b.Store.ContractABIs(ctx, addrs)
	if err != nil {
		return nil, nil, err
	}
	abis, names := make(map[common.Address]*abi.ABI, len(m)), make(map[common.Address]string, len(m))
	for a, c := range m {
		abis[a], names[a] = abiCache.Parse(c.ABI), c.Name
	}
	return abis, names, nil
}

// markVerified sets is_verified and name on an embedded address object
// (nil: none).
func markVerified(p *addressRef, names map[common.Address]string) {
	if p == nil {
		return
	}
	if name, ok := names[common.HexToAddress(p.Hash)]; ok {
		p.IsVerified, p.Name = true, &name
	}
}

// decodeTxs fills method (the function name when known, else the 0x
// selector) and decoded_input of rendered transactions, with the callee's
// verified ABI or the built-in table, and marks verified addresses.
func (h *handlers) decodeTxs(ctx context.Context, txs []explorer.Tx, items []*txItem) error {
	var tos []common.Address
	for i := range txs {
		if txs[i].To != nil {
			tos = append(tos, *txs[i].To)
		}
		if txs[i].Created != nil {
			tos = append(tos, *txs[i].Created)
		}
	}
	abis, names, err := h.abisOf(ctx, tos)
	if err != nil {
		return err
	}
	for i := range txs {
		t := &txs[i]
		markVerified(items[i].To, names)
		markVerified(items[i].CreatedContract, names)
		if t.To == nil { // a deployment calls no method (Blockscout: null)
			items[i].Method = nil
			continue
		}
		if len(t.Input) < 4 {
			continue
		}
		a := abis[*t.To]
		if name := decode.MethodName(a, t.Input); name != "" {
			items[i].Method = &name
		}
		if d := decode.Input(a, t.Input); d != nil {
			items[i].DecodedInput = d.JSON()
		}
	}
	return nil
}

// decodeLogs fills decoded of rendered logs with the emitter's verified ABI
// or the built-in table.
func (h *handlers) decodeLogs(ctx context.Context, logs []explorer.Log, items []*logItem) error {
	addrs := make([]common.Address, len(logs))
	for i := range logs {
		addrs[i] = logs[i].Address
	}
	abis, names, err := h.abisOf(ctx, addrs)
	if err != nil {
		return err
	}
	for i := range logs {
		markVerified(items[i].Address, names)
		markVerified(items[i].SmartContract, names)
		if d := decode.Log(abis[logs[i].Address], logs[i].Topics, logs[i].Data); d != nil {
			items[i].Decoded = d.JSON()
		}
	}
	return nil
}

// decodePending is decodeTxs for the pool's transactions.
func (h *handlers) decodePending(ctx context.Context, pending []explorer.PendingTx, items []*txItem) error {
	txs := make([]explorer.Tx, len(pending))
	for i, p := range pending {
		txs[i] = explorer.Tx{To: p.Tx.To(), Input: p.Tx.Data()}
	}
	return h.decodeTxs(ctx, txs, items)
}
