package sqlstore

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

var carol = common.HexToAddress("0x00000000000000000000000000000000000ca201")

// seenBlock is block n with no transactions whose touched addresses keep
// their balances (as an ERC-20 recipient's or a zero-value call's does):
// each of held is seen with the balance it has.
func seenBlock(n uint64, held map[common.Address]int64) *explorer.IndexedBlock {
	b := testBlock(n, 0)
	b.Touched = nil
	for a, v := range held {
		b.Touched = append(b.Touched, explorer.Touched{Address: a, Before: big.NewInt(v), After: big.NewInt(v)})
	}
	return b
}

func balanceBlockOf(t *testing.T, s *Store, a common.Address) (balanceBlock, lastSeen uint64) {
	t.Helper()
	row, err := s.Address(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return row.BalanceBlock, row.LastSeen
}

// TestBalanceBlockIsLastChange: an address seen after its balance last
// changed (in the same batch or a later one) keeps the block of the change
// as its balance's block; an address never changed dates from the block it
// was first seen in; migration 9 repairs rows indexed before.
func TestBalanceBlockIsLastChange(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		s, ctx := openTest(t, dsn), context.Background()
		// Block 1 moves 2 wei to bob (balance 102); block 2 sees bob and
		// carol (new, holding 5 wei) without a change, in the same batch.
		if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{testBlock(0, 0), testBlock(1, 2),
			seenBlock(2, map[common.Address]int64{bob: 102, carol: 5})}); err != nil {
			t.Fatal(err)
		}
		if bb, last := balanceBlockOf(t, s, bob); bb != 1 || last != 2 {
			t.Fatalf("bob: balance block %d, last seen %d; want 1, 2", bb, last)
		}
		if bb, last := balanceBlockOf(t, s, carol); bb != 2 || last != 2 {
			t.Fatalf("carol: balance block %d, last seen %d; want 2, 2", bb, last)
		}
		// A later batch sees both again, unchanged; the miner, seen in
		// every block at 0 wei, dates from block 0.
		if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{seenBlock(3, map[common.Address]int64{bob: 102, carol: 5, miner: 0})}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			a              common.Address
			balance, block uint64
		}{{bob, 102, 1}, {carol, 5, 2}, {miner, 0, 0}} {
			row, err := s.Address(ctx, c.a)
			if err != nil || row.BalanceBlock != c.block || row.Balance.Uint64() != c.balance || row.LastSeen != 3 {
				t.Fatalf("%s = %+v, %v; want balance %d at block %d, last seen 3", c.a.Hex(), row, err, c.balance, c.block)
			}
		}
		// Block 4 changes bob's balance: it dates from 4.
		if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{testBlock(4, 1)}); err != nil {
			t.Fatal(err)
		}
		if bb, _ := balanceBlockOf(t, s, bob); bb != 4 {
			t.Fatalf("bob after block 4: balance block %d", bb)
		}
		// A database indexed before held the block last seen; migration 9
		// puts back the last change (bob 4, alice 4) or first seen (carol 2).
		s = reopenAsBefore(t, s, dsn, `UPDATE addresses SET balance_block = last_seen`,
			`DELETE FROM schema_migrations WHERE version >= 9`)
		for a, want := range map[common.Address]uint64{bob: 4, alice: 4, carol: 2, miner: 0} {
			if bb, _ := balanceBlockOf(t, s, a); bb != want {
				t.Fatalf("%s after migration: balance block %d, want %d", a.Hex(), bb, want)
			}
		}
	})
}
