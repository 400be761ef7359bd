package sqlstore

import (
	"context"
	"fmt"
)

// indexTables are the tables the indexer fills from the chain (all but
// the schema's versions and the verified contracts people submitted).
var indexTables = []string{
	"blocks", "transactions", "address_txs", "logs", "addresses", "coin_balances", "counters",
	"internal_txs", "address_internal_txs", "address_internal_counts",
	"tokens", "token_transfers", "address_token_transfers", "token_balances", "token_instances",
	"native_txs", "address_native_txs", "daily_totals",
}

// Reset deletes everything indexed, in one transaction, keeping the
// verified contracts: the indexer then indexes the chain again from block
// 0. A dev chain's evm_revert uses it: the per-address and per-token
// aggregates (balances, counts, holders) have no per-block undo, and
// indexing a dev chain again is cheap.
func (s *Store) Reset(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit: a no-op
	for _, t := range indexTables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			return fmt.Errorf("reset explorer table %s: %w", t, err)
		}
	}
	return tx.Commit()
}
