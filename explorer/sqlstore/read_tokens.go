package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

var _ explorer.TokenStore = (*Store)(nil)

const (
	tokenCols = `address, type, name, symbol, decimals, total_supply, holders_count, transfers_count`
	// transferCols are read from token_transfers as tt.
	transferCols = `tt.block_number, tt.log_index, tt.batch_index, tt.is_batch, tt.block_hash, tt.tx_hash, tt.tx_index,
		tt.timestamp, tt.token, tt.token_type, tt.from_addr, tt.to_addr, tt.token_id, tt.amount`
	instanceCols = `token, token_id, token_type, owner, token_uri, metadata, metadata_error, fetched`
)

func (s *Store) scanToken(r scanner) (*explorer.Token, error) {
	var (
		t                     explorer.Token
		addr                  string
		name, symbol, dec, ts sql.NullString
		holders, transfers    int64
	)
	if err := r.Scan(&addr, &t.Type, &name, &symbol, &dec, &ts, &holders, &transfers); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	t.Address, t.TotalSupply = c.addr(addr), c.optWei(ts)
	if name.Valid {
		t.Name = &name.String
	}
	if symbol.Valid {
		t.Symbol = &symbol.String
	}
	if dec.Valid {
		t.Decimals, _ = new(big.Int).SetString(dec.String, 10)
	}
	t.HoldersCount, t.TransfersCount = uint64(max(holders, 0)), uint64(transfers)
	return &t, c.err
}

func (s *Store) scanTransfer(r scanner) (*explorer.TokenTransfer, error) {
	var (
		t                                          explorer.TokenTransfer
		num, logIdx, txIdx, ts                     int64
		isBatch                                    int
		blockHash, txHash, token, from, to, amount string
		id                                         sql.NullString
	)
	if err := r.Scan(&num, &logIdx, &t.BatchIndex, &isBatch, &blockHash, &txHash, &txIdx, &ts, &token, &t.Type, &from, &to,
		&id, &amount); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	t.BlockNumber, t.LogIndex, t.TxIndex, t.Time, t.Batch = uint64(num), uint(logIdx), uint(txIdx), uint64(ts), isBatch == 1
	t.BlockHash, t.TxHash, t.Token, t.From, t.To = c.hash(blockHash), c.hash(txHash), c.addr(token), c.addr(from), c.addr(to)
	t.TokenID, t.Amount = c.optWei(id), c.wei(amount)
	return &t, c.err
}

func (s *Store) scanInstance(r scanner) (*explorer.TokenInstance, error) {
	var (
		in                      explorer.TokenInstance
		token, id               string
		owner, uri, meta, errMs sql.NullString
		fetched                 int
	)
	if err := r.Scan(&token, &id, &in.Type, &owner, &uri, &meta, &errMs, &fetched); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	in.Token, in.TokenID, in.Owner, in.Fetched = c.addr(token), c.wei(id), c.optAddr(owner), fetched == 1
	if uri.Valid {
		in.TokenURI = &uri.String
	}
	if meta.Valid {
		in.Metadata = []byte(meta.String)
	}
	if errMs.Valid {
		in.MetadataError = &errMs.String
	}
	return &in, c.err
}

// inList is " AND col IN (?, …)" for vals, or "" when there are none.
func inList(col string, vals []string) (string, []any) {
	if len(vals) == 0 {
		return "", nil
	}
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = v
	}
	return ` AND ` + col + ` IN (?` + strings.Repeat(", ?", len(vals)-1) + `)`, args
}

// Token implements explorer.TokenStore.
func (s *Store) Token(ctx context.Context, addr common.Address) (*explorer.Token, error) {
	return one(ctx, s, s.scanToken, `SELECT `+tokenCols+` FROM tokens WHERE address = ?`, addrKey(addr))
}

// TokensOf implements explorer.TokenStore.
func (s *Store) TokensOf(ctx context.Context, addrs []common.Address) (map[common.Address]*explorer.Token, error) {
	out := map[common.Address]*explorer.Token{}
	uniq := map[common.Address]bool{}
	var keys []string
	for _, a := range addrs {
		if !uniq[a] {
			uniq[a] = true
			keys = append(keys, addrKey(a))
		}
	}
	if len(keys) == 0 {
		return out, nil
	}
	cond, args := inList("address", keys)
	list, err := many(ctx, s, s.scanToken, `SELECT `+tokenCols+` FROM tokens WHERE 1 = 1`+cond, args...)
	if err != nil {
		return nil, err
	}
	for i := range list {
		out[list[i].Address] = &list[i]
	}
	return out, nil
}

// likeEscape makes q a LIKE pattern matching it as a substring.
func likeEscape(q string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(q)) + "%"
}

// Tokens implements explorer.TokenStore.
func (s *Store) Tokens(ctx context.Context, q string, types []string, after explorer.TokenCursor, limit int) ([]explorer.Token, error) {
	query, args := `SELECT `+tokenCols+` FROM tokens WHERE 1 = 1`, []any{}
	if q != "" {
		p := likeEscape(q)
		query += ` AND (name_lower LIKE ? ESCAPE '\' OR symbol_lower LIKE ? ESCAPE '\')`
		args = append(args, p, p)
	}
	cond, targs := inList("type", types)
	query += cond
	args = append(args, targs...)
	if after.Set {
		query += ` AND holders_count <= ? AND (holders_count < ? OR address < ?)`
		args = append(args, int64(after.Holders), int64(after.Holders), addrKey(after.Address))
	}
	return many(ctx, s, s.scanToken, query+` ORDER BY holders_count DESC, address DESC LIMIT ?`, append(args, limit)...)
}

// transferKeyset is "strictly after" in (block, log, batch) order.
func transferKeyset(p string, after explorer.TransferCursor, asc bool) (string, []any) {
	if !after.Set {
		return "", nil
	}
	b, l, i := int64(after.BlockNumber), int64(after.LogIndex), after.BatchIndex
	if asc {
		return ` AND ` + p + `block_number >= ? AND (` + p + `block_number > ? OR ` + p + `log_index > ? OR (` + p +
			`log_index = ? AND ` + p + `batch_index > ?))`, []any{b, b, l, l, i}
	}
	return ` AND ` + p + `block_number <= ? AND (` + p + `block_number < ? OR ` + p + `log_index < ? OR (` + p +
		`log_index = ? AND ` + p + `batch_index < ?))`, []any{b, b, l, l, i}
}

// TokenTransfers implements explorer.TokenStore.
func (s *Store) TokenTransfers(ctx context.Context, f explorer.TransferFilter, after explorer.TransferCursor, limit int) ([]explorer.TokenTransfer, error) {
	var q strings.Builder
	var args []any
	p := "tt."
	if f.Address != nil {
		p = "a."
		q.WriteString(`SELECT ` + transferCols + ` FROM address_token_transfers a JOIN token_transfers tt
			ON tt.block_number = a.block_number AND tt.log_index = a.log_index AND tt.batch_index = a.batch_index
			WHERE a.address = ?`)
		args = append(args, addrKey(*f.Address))
		switch f.Side {
		case explorer.FromSide:
			q.WriteString(` AND a.sent = 1`)
		case explorer.ToSide:
			q.WriteString(` AND a.received = 1`)
		}
	} else {
		q.WriteString(`SELECT ` + transferCols + ` FROM token_transfers tt WHERE 1 = 1`)
	}
	if f.Token != nil {
		q.WriteString(` AND tt.token = ?`)
		args = append(args, addrKey(*f.Token))
	}
	if f.TokenID != nil {
		q.WriteString(` AND tt.token_id = ?`)
		args = append(args, s.d.encodeWei(f.TokenID))
	}
	if f.TxHash != nil {
		q.WriteString(` AND tt.tx_hash = ?`)
		args = append(args, key(f.TxHash[:]))
	}
	cond, targs := inList("tt.token_type", f.Types)
	q.WriteString(cond)
	args = append(args, targs...)
	asc := f.TxHash != nil
	cond, kargs := transferKeyset(p, after, asc)
	q.WriteString(cond)
	args = append(args, kargs...)
	dir := " DESC"
	if asc {
		dir = ""
	}
	q.WriteString(` ORDER BY ` + p + `block_number` + dir + `, ` + p + `log_index` + dir + `, ` + p + `batch_index` + dir + ` LIMIT ?`)
	return many(ctx, s, s.scanTransfer, q.String(), append(args, limit)...)
}

// CountTokenTransfers implements explorer.TokenStore.
func (s *Store) CountTokenTransfers(ctx context.Context, f explorer.TransferFilter) (uint64, error) {
	var q string
	var args []any
	switch {
	case f.Address != nil:
		q, args = `SELECT COUNT(*) FROM address_token_transfers WHERE address = ?`, []any{addrKey(*f.Address)}
	case f.Token != nil && f.TokenID != nil:
		q, args = `SELECT COUNT(*) FROM token_transfers WHERE token = ? AND token_id = ?`, []any{addrKey(*f.Token), s.d.encodeWei(f.TokenID)}
	case f.Token != nil:
		q, args = `SELECT transfers_count FROM tokens WHERE address = ?`, []any{addrKey(*f.Token)}
	default:
		q = `SELECT COUNT(*) FROM token_transfers`
	}
	var n int64
	err := s.db.QueryRowContext(ctx, s.d.rebind(q), args...).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return uint64(n), err
}

// TxTokenTransfers implements explorer.TokenStore.
func (s *Store) TxTokenTransfers(ctx context.Context, txs []common.Hash, limit int) (map[common.Hash][]explorer.TokenTransfer, error) {
	out := map[common.Hash][]explorer.TokenTransfer{}
	if len(txs) == 0 {
		return out, nil
	}
	keys := make([]string, len(txs))
	for i, h := range txs {
		keys[i] = key(h[:])
	}
	cond, args := inList("tt.tx_hash", keys)
	list, err := many(ctx, s, s.scanTransfer, `SELECT `+transferCols+` FROM token_transfers tt WHERE 1 = 1`+cond+
		` ORDER BY tt.tx_hash, tt.log_index, tt.batch_index`, args...)
	if err != nil {
		return nil, err
	}
	for _, t := range list {
		if len(out[t.TxHash]) < limit {
			out[t.TxHash] = append(out[t.TxHash], t)
		}
	}
	return out, nil
}

func (s *Store) scanTokenBalance(r scanner) (*explorer.TokenBalance, error) {
	var (
		b                        explorer.TokenBalance
		token, holder, id, value string
		hasID                    int
	)
	if err := r.Scan(&token, &holder, &b.Type, &hasID, &id, &value); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	b.Token, b.Holder, b.Value = c.addr(token), c.addr(holder), c.wei(value)
	if hasID == 1 {
		b.TokenID = c.wei(id)
	}
	return &b, c.err
}

const balanceCols = `token, address, token_type, has_id, token_id, value`

// TokenHolders implements explorer.TokenStore.
func (s *Store) TokenHolders(ctx context.Context, token common.Address, id *big.Int, after explorer.HolderPosition, limit int) ([]explorer.TokenBalance, error) {
	q, args := `SELECT `+balanceCols+` FROM token_balances WHERE token = ?`, []any{addrKey(token)}
	if id != nil {
		q += ` AND has_id = 1 AND token_id = ?`
		args = append(args, s.d.encodeWei(id))
	}
	if after.Set {
		v, a := s.d.encodeWei(after.Value), addrKey(after.Address)
		tid := s.d.encodeWei(orZeroInt(after.TokenID))
		q += ` AND value <= ? AND (value < ? OR address < ? OR (address = ? AND token_id < ?))`
		args = append(args, v, v, a, a, tid)
	}
	return many(ctx, s, s.scanTokenBalance, q+` ORDER BY value DESC, address DESC, token_id DESC LIMIT ?`, append(args, limit)...)
}

func orZeroInt(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// AddressTokenBalances implements explorer.TokenStore.
func (s *Store) AddressTokenBalances(ctx context.Context, addr common.Address, types []string, after explorer.HolderPosition, limit int) ([]explorer.TokenBalance, error) {
	q, args := `SELECT `+balanceCols+` FROM token_balances WHERE address = ?`, []any{addrKey(addr)}
	cond, targs := inList("token_type", types)
	q += cond
	args = append(args, targs...)
	if after.Set {
		v, t := s.d.encodeWei(after.Value), addrKey(after.Address)
		tid := s.d.encodeWei(orZeroInt(after.TokenID))
		q += ` AND value <= ? AND (value < ? OR token < ? OR (token = ? AND token_id < ?))`
		args = append(args, v, v, t, t, tid)
	}
	return many(ctx, s, s.scanTokenBalance, q+` ORDER BY value DESC, token DESC, token_id DESC LIMIT ?`, append(args, limit)...)
}

// nftUnion is every NFT an address holds: ERC-721 tokens it owns (value
// 1) and ERC-1155 ids it has a balance of.
func (s *Store) nftUnion(addr common.Address) (string, []any) {
	a := addrKey(addr)
	return s.d.types.Replace(`(SELECT token, address, token_type, has_id, token_id, value FROM (
		SELECT token, owner AS address, token_type, 1 AS has_id, token_id, CAST(? AS {{wei}}) AS value
			FROM token_instances WHERE owner = ? AND token_type = 'ERC-721'
		UNION ALL
		SELECT token, address, token_type, has_id, token_id, value FROM token_balances WHERE address = ? AND has_id = 1
	) u)`), []any{s.d.encodeWei(big.NewInt(1)), a, a}
}

// AddressNFTs implements explorer.TokenStore.
func (s *Store) AddressNFTs(ctx context.Context, addr common.Address, types []string, token *common.Address, after explorer.NFTCursor, limit int) ([]explorer.TokenBalance, error) {
	from, args := s.nftUnion(addr)
	q := `SELECT ` + balanceCols + ` FROM ` + from + ` n WHERE 1 = 1`
	cond, targs := inList("token_type", types)
	q += cond
	args = append(args, targs...)
	if token != nil {
		q += ` AND token = ?`
		args = append(args, addrKey(*token))
	}
	if after.Set {
		t := addrKey(after.Token)
		q += ` AND (token < ? OR (token = ? AND token_id < ?))`
		args = append(args, t, t, s.d.encodeWei(orZeroInt(after.TokenID)))
	}
	return many(ctx, s, s.scanTokenBalance, q+` ORDER BY token DESC, token_id DESC LIMIT ?`, append(args, limit)...)
}

// AddressNFTTokens implements explorer.TokenStore.
func (s *Store) AddressNFTTokens(ctx context.Context, addr common.Address, types []string, after explorer.NFTCursor, limit int) ([]common.Address, error) {
	from, args := s.nftUnion(addr)
	q := `SELECT DISTINCT token FROM ` + from + ` n WHERE 1 = 1`
	cond, targs := inList("token_type", types)
	q += cond
	args = append(args, targs...)
	if after.Set {
		q += ` AND token < ?`
		args = append(args, addrKey(after.Token))
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(q+` ORDER BY token DESC LIMIT ?`), append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []common.Address
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, common.HexToAddress(t))
	}
	return out, rows.Err()
}

func (s *Store) exists(ctx context.Context, q string, args ...any) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, s.d.rebind(q), args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// HasTokens implements explorer.TokenStore.
func (s *Store) HasTokens(ctx context.Context, addr common.Address) (bool, error) {
	return s.exists(ctx, `SELECT 1 FROM token_balances WHERE address = ? LIMIT 1`, addrKey(addr))
}

// HasTokenTransfers implements explorer.TokenStore.
func (s *Store) HasTokenTransfers(ctx context.Context, addr common.Address) (bool, error) {
	return s.exists(ctx, `SELECT 1 FROM address_token_transfers WHERE address = ? LIMIT 1`, addrKey(addr))
}

// Instance implements explorer.TokenStore.
func (s *Store) Instance(ctx context.Context, token common.Address, id *big.Int) (*explorer.TokenInstance, error) {
	return one(ctx, s, s.scanInstance, `SELECT `+instanceCols+` FROM token_instances WHERE token = ? AND token_id = ?`,
		addrKey(token), s.d.encodeWei(id))
}

// InstancesOf implements explorer.TokenStore; the map is keyed by the
// decimal id.
func (s *Store) InstancesOf(ctx context.Context, token common.Address, ids []*big.Int) (map[string]*explorer.TokenInstance, error) {
	out := map[string]*explorer.TokenInstance{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{addrKey(token)}
	for _, id := range ids {
		args = append(args, s.d.encodeWei(id))
	}
	list, err := many(ctx, s, s.scanInstance, `SELECT `+instanceCols+` FROM token_instances WHERE token = ? AND token_id IN (?`+
		strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	for i := range list {
		out[list[i].TokenID.String()] = &list[i]
	}
	return out, nil
}

// Instances implements explorer.TokenStore.
func (s *Store) Instances(ctx context.Context, token common.Address, holder *common.Address, after explorer.InstanceCursor, limit int) ([]explorer.TokenInstance, error) {
	q, args := `SELECT `+instanceCols+` FROM token_instances i WHERE token = ?`, []any{addrKey(token)}
	if holder != nil {
		h := addrKey(*holder)
		q += ` AND (owner = ? OR EXISTS (SELECT 1 FROM token_balances b WHERE b.token = i.token AND b.has_id = 1
			AND b.token_id = i.token_id AND b.address = ?))`
		args = append(args, h, h)
	}
	if after.Set {
		q += ` AND token_id < ?`
		args = append(args, s.d.encodeWei(after.TokenID))
	}
	return many(ctx, s, s.scanInstance, q+` ORDER BY token_id DESC LIMIT ?`, append(args, limit)...)
}

// UnfetchedInstances implements explorer.TokenStore.
func (s *Store) UnfetchedInstances(ctx context.Context, limit int) ([]explorer.TokenInstance, error) {
	return many(ctx, s, s.scanInstance, `SELECT `+instanceCols+` FROM token_instances WHERE fetched = 0
		ORDER BY first_block, token, token_id LIMIT ?`, limit)
}

// SetInstanceMetadata implements explorer.TokenStore.
func (s *Store) SetInstanceMetadata(ctx context.Context, token common.Address, id *big.Int, uri *string, metadata []byte, reason *string) error {
	var meta any
	if metadata != nil {
		meta = string(metadata)
	}
	_, err := s.db.ExecContext(ctx, s.d.rebind(`UPDATE token_instances SET token_uri = ?, metadata = ?, metadata_error = ?,
		fetched = 1 WHERE token = ? AND token_id = ?`), optString(uri), meta, optString(reason), addrKey(token), s.d.encodeWei(id))
	return err
}

// RefetchInstance implements explorer.TokenStore.
func (s *Store) RefetchInstance(ctx context.Context, token common.Address, id *big.Int) error {
	res, err := s.db.ExecContext(ctx, s.d.rebind(`UPDATE token_instances SET fetched = 0 WHERE token = ? AND token_id = ?`),
		addrKey(token), s.d.encodeWei(id))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return explorer.ErrNotFound
	}
	return nil
}
