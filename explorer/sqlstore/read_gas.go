package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"math/big"
)

// RecentTips implements explorer.Store.
func (s *Store) RecentTips(ctx context.Context, blocks, limit int) ([]*big.Int, *big.Int, uint64, error) {
	var (
		number, ts int64
		baseFee    sql.NullString
	)
	err := s.db.QueryRowContext(ctx, `SELECT number, timestamp, base_fee FROM blocks ORDER BY number DESC LIMIT 1`).
		Scan(&number, &ts, &baseFee)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, 0, nil
	}
	if err != nil {
		return nil, nil, 0, err
	}
	var base *big.Int
	if baseFee.Valid {
		if base, err = s.d.decodeWei(baseFee.String); err != nil {
			return nil, nil, 0, err
		}
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT gas_price, base_fee FROM transactions WHERE block_number > ?
		ORDER BY block_number DESC, tx_index DESC LIMIT ?`), number-int64(blocks), limit)
	if err != nil {
		return nil, nil, 0, err
	}
	defer rows.Close()
	var tips []*big.Int
	for rows.Next() {
		var price string
		var txBase sql.NullString
		if err := rows.Scan(&price, &txBase); err != nil {
			return nil, nil, 0, err
		}
		tip, err := s.d.decodeWei(price)
		if err != nil {
			return nil, nil, 0, err
		}
		if txBase.Valid {
			b, err := s.d.decodeWei(txBase.String)
			if err != nil {
				return nil, nil, 0, err
			}
			if tip.Sub(tip, b).Sign() < 0 {
				tip.SetInt64(0)
			}
		}
		tips = append(tips, tip)
	}
	return tips, base, uint64(ts), rows.Err()
}
