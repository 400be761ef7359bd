package sqlstore

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

func optString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func lowerOpt(s *string) any {
	if s == nil {
		return nil
	}
	return strings.ToLower(*s)
}

// balanceKey is one row of token_balances.
type balanceKey struct {
	token, holder common.Address
	hasID         bool
	id            string // decimal; "0" without an id
}

// tokens records a block's token transfers and what it learnt of its
// tokens: transfer rows, per-address transfer rows, counters, holder
// balances and NFT instances. Everything derives from the block alone, and
// WriteBlocks skips replayed blocks, so nothing is counted twice.
func (w *writer) tokens(b *explorer.IndexedBlock) error {
	if len(b.TokenTransfers) == 0 && len(b.Tokens) == 0 {
		return nil
	}
	n := int64(b.Block.Number)
	if err := w.tokenMeta(b.Tokens, n); err != nil {
		return err
	}
	transfers := map[common.Address]int64{}
	deltas := map[balanceKey]*big.Int{}
	var deltaOrder []balanceKey
	addDelta := func(k balanceKey, v *big.Int) {
		if d, ok := deltas[k]; ok {
			d.Add(d, v)
			return
		}
		deltas[k] = new(big.Int).Set(v)
		deltaOrder = append(deltaOrder, k)
	}
	type instKey struct {
		token common.Address
		id    string
	}
	instances := map[instKey]*explorer.TokenTransfer{}
	var instOrder []instKey
	for i := range b.TokenTransfers {
		t := &b.TokenTransfers[i]
		var id any
		if t.TokenID != nil {
			id = w.wei(t.TokenID)
		}
		batch := 0
		if t.Batch {
			batch = 1
		}
		if err := w.insert(&w.tokenTransferRows, int64(t.BlockNumber), int64(t.LogIndex), t.BatchIndex, batch, key(t.BlockHash[:]),
			key(t.TxHash[:]), int64(t.TxIndex), int64(t.Time), addrKey(t.Token), t.Type, addrKey(t.From), addrKey(t.To),
			id, w.wei(t.Amount)); err != nil {
			return err
		}
		if err := w.addressTokenTransfer(t); err != nil {
			return err
		}
		transfers[t.Token]++
		k := balanceKey{token: t.Token, id: "0"}
		if t.Type == explorer.ERC1155 {
			k.hasID, k.id = true, t.TokenID.String()
		}
		if (t.From != common.Address{}) {
			k.holder = t.From
			addDelta(k, new(big.Int).Neg(t.Amount))
		}
		if (t.To != common.Address{}) {
			k.holder = t.To
			addDelta(k, t.Amount)
		}
		if t.TokenID != nil {
			ik := instKey{t.Token, t.TokenID.String()}
			if _, ok := instances[ik]; !ok {
				instOrder = append(instOrder, ik)
			}
			instances[ik] = t // the last transfer of the block decides the owner
		}
	}
	for token, c := range transfers {
		// A token whose calls all failed still gets its row, typed by the
		// shape of its logs.
		if err := w.exec(`UPDATE tokens SET transfers_count = transfers_count + ? WHERE address = ?`, c, addrKey(token)); err != nil {
			return err
		}
	}
	var instRows [][]any
	for _, ik := range instOrder {
		t := instances[ik]
		var owner any
		if t.Type == explorer.ERC721 {
			owner = addrKey(t.To)
		}
		instRows = append(instRows, []any{addrKey(t.Token), w.wei(t.TokenID), t.Type, owner, 0, n})
	}
	if err := w.execRows(`INSERT INTO token_instances (token, token_id, token_type, owner, fetched, first_block) VALUES `,
		instRows, ` ON CONFLICT (token, token_id) DO UPDATE SET owner = COALESCE(excluded.owner, token_instances.owner)`); err != nil {
		return err
	}
	return w.balances(deltas, deltaOrder, n, b.TokenTransfers)
}

// addressTokenTransfer lists t under its sender and its recipient (once
// when they are the same address).
func (w *writer) addressTokenTransfer(t *explorer.TokenTransfer) error {
	n, log := int64(t.BlockNumber), int64(t.LogIndex)
	if t.From == t.To {
		return w.insert(&w.addrTokenRows, addrKey(t.From), n, log, t.BatchIndex, 1, 1)
	}
	if err := w.insert(&w.addrTokenRows, addrKey(t.From), n, log, t.BatchIndex, 1, 0); err != nil {
		return err
	}
	return w.insert(&w.addrTokenRows, addrKey(t.To), n, log, t.BatchIndex, 0, 1)
}

// tokenMeta upserts the tokens of a block: a new one gets its row, and the
// facts the calls read replace the stored ones.
func (w *writer) tokenMeta(metas []explorer.TokenMeta, n int64) error {
	for i := range metas {
		m := &metas[i]
		var sets []string
		if m.Info {
			sets = append(sets, `type = excluded.type, name = excluded.name, symbol = excluded.symbol,
				name_lower = excluded.name_lower, symbol_lower = excluded.symbol_lower, decimals = excluded.decimals`)
		}
		if m.Supply {
			sets = append(sets, `total_supply = excluded.total_supply`)
		}
		conflict := ` ON CONFLICT (address) DO NOTHING`
		if len(sets) > 0 {
			conflict = ` ON CONFLICT (address) DO UPDATE SET ` + strings.Join(sets, ", ")
		}
		var decimals any
		if m.Decimals != nil {
			decimals = m.Decimals.String()
		}
		if _, err := w.tx.ExecContext(w.ctx, w.s.d.rebind(`INSERT INTO tokens (address, type, name, symbol, name_lower,
			symbol_lower, decimals, total_supply, holders_count, transfers_count, first_block)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?)`+conflict),
			addrKey(m.Address), m.Type, optString(m.Name), optString(m.Symbol), lowerOpt(m.Name), lowerOpt(m.Symbol),
			decimals, w.wei(m.TotalSupply), n); err != nil {
			return fmt.Errorf("token %s: %w", m.Address.Hex(), err)
		}
	}
	return nil
}

// balanceChunk is how many balances one lookup or delete names.
const balanceChunk = 100

// balanceWhere names balanceChunk balances. Every lookup and delete names
// that many (balanceChunkArgs pads a short chunk), so each has one text,
// prepared once per batch: parsing a new 100-term clause for every block's
// last chunk was a visible part of indexing an ERC-20 burst.
var balanceWhere = strings.TrimSuffix(strings.Repeat(`(token = ? AND has_id = ? AND token_id = ? AND address = ?) OR `, balanceChunk), " OR ")

// balanceChunkArgs are balanceWhere's arguments for chunk (1 to
// balanceChunk keys), its last key repeated to fill the clause: a repeated
// term matches the same row, so lookups and deletes see no difference.
func (w *writer) balanceChunkArgs(chunk []balanceKey) []any {
	args := make([]any, 0, 4*balanceChunk)
	var last []any
	for _, k := range chunk {
		last = w.balanceArgs(k)
		args = append(args, last...)
	}
	for range balanceChunk - len(chunk) {
		args = append(args, last...) // converted once, not once per copy
	}
	return args
}

// balances applies a block's balance changes: reads the current values of
// the rows it touches (a few statements, not one per row), writes the new
// ones, deletes those that reached zero and moves the holder counts.
func (w *writer) balances(deltas map[balanceKey]*big.Int, order []balanceKey, n int64, transfers []explorer.TokenTransfer) error {
	current := map[balanceKey]*big.Int{}
	for start := 0; start < len(order); start += balanceChunk {
		chunk := order[start:min(len(order), start+balanceChunk)]
		rows, err := w.query(`SELECT token, has_id, token_id, address, value FROM token_balances WHERE `+balanceWhere,
			w.balanceChunkArgs(chunk)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var token, id, holder, value string
			var hasID int
			if err := rows.Scan(&token, &hasID, &id, &holder, &value); err != nil {
				rows.Close()
				return err
			}
			c := decoder{d: w.s.d}
			k := balanceKey{token: c.addr(token), holder: c.addr(holder), hasID: hasID == 1, id: c.wei(id).String()}
			current[k] = c.wei(value)
			if c.err != nil {
				rows.Close()
				return c.err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	types := map[common.Address]string{}
	for i := range transfers {
		types[transfers[i].Token] = transfers[i].Type
	}
	holders := map[common.Address]int64{}
	multi := map[common.Address]bool{}
	var upserts [][]any
	var zeros []balanceKey
	for _, k := range order {
		before := current[k]
		if before == nil {
			before = new(big.Int)
		}
		after := new(big.Int).Add(before, deltas[k])
		if after.Sign() < 0 {
			after.SetInt64(0) // a token whose events overspend; its balances cannot go below zero
		}
		if k.hasID {
			multi[k.token] = true
		} else if before.Sign() == 0 && after.Sign() > 0 {
			holders[k.token]++
		} else if before.Sign() > 0 && after.Sign() == 0 {
			holders[k.token]--
		}
		if after.Sign() == 0 {
			if before.Sign() > 0 {
				zeros = append(zeros, k)
			}
			continue
		}
		upserts = append(upserts, append(w.balanceArgs(k), types[k.token], w.wei(after), n))
	}
	if err := w.execRows(`INSERT INTO token_balances (token, has_id, token_id, address, token_type, value, block_number) VALUES `,
		upserts, ` ON CONFLICT (token, has_id, token_id, address) DO UPDATE SET value = excluded.value,
		block_number = excluded.block_number`); err != nil {
		return err
	}
	for start := 0; start < len(zeros); start += balanceChunk {
		chunk := zeros[start:min(len(zeros), start+balanceChunk)]
		if err := w.exec(`DELETE FROM token_balances WHERE `+balanceWhere, w.balanceChunkArgs(chunk)...); err != nil {
			return err
		}
	}
	for token, d := range holders {
		if d == 0 {
			continue
		}
		if err := w.exec(`UPDATE tokens SET holders_count = holders_count + ? WHERE address = ?`, d, addrKey(token)); err != nil {
			return err
		}
	}
	// An ERC-1155 holder is an address with a balance of any id: counted
	// again for the tokens the block moved.
	for token := range multi {
		if err := w.exec(`UPDATE tokens SET holders_count = (SELECT COUNT(DISTINCT address) FROM token_balances
			WHERE token = ?) WHERE address = ?`, addrKey(token), addrKey(token)); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) balanceArgs(k balanceKey) []any {
	id, _ := new(big.Int).SetString(k.id, 10)
	hasID := 0
	if k.hasID {
		hasID = 1
	}
	return []any{addrKey(k.token), hasID, w.wei(id), addrKey(k.holder)}
}
