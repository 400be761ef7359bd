package sqlstore

import (
	"context"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// listChain is blocks 0..n-1, one hour apart, made alternately by two
// miners; block i sends holder i a balance of (i mod 7)×10 wei (so balances
// tie) and makes contract emit two logs.
const listChainStart = 1_700_006_400 // a UTC midnight

var (
	minerA   = common.HexToAddress("0x00000000000000000000000000000000000000aa")
	minerB   = common.HexToAddress("0x00000000000000000000000000000000000000bb")
	contract = common.HexToAddress("0x00000000000000000000000000000000000000cc")
)

func holder(i int) common.Address { return common.BigToAddress(big.NewInt(int64(0x10000 + i))) }

func listChain(t *testing.T, s *Store, n int) {
	t.Helper()
	var blocks []*explorer.IndexedBlock
	for i := 0; i < n; i++ {
		m := minerA
		if i%2 == 1 {
			m = minerB
		}
		b := &explorer.IndexedBlock{Block: explorer.Block{
			Number: uint64(i), Hash: common.BigToHash(big.NewInt(int64(i + 5000))), Miner: m, Time: listChainStart + uint64(i)*3600,
			GasLimit: 30_000_000, GasUsed: 21000, TxCount: 1, Difficulty: new(big.Int),
			BurntFees: new(big.Int), PriorityFee: new(big.Int), TxFees: new(big.Int),
		}}
		to := holder(i)
		hash := common.BigToHash(big.NewInt(int64(i + 90000)))
		b.Txs = []explorer.Tx{{Hash: hash, BlockNumber: uint64(i), From: alice, To: &to, Value: big.NewInt(1), Gas: 21000,
			GasUsed: 21000, GasPrice: new(big.Int), Fee: new(big.Int), BurntFee: new(big.Int), Status: 1, Nonce: uint64(i)}}
		for j := uint(0); j < 2; j++ {
			b.Logs = append(b.Logs, explorer.Log{BlockNumber: uint64(i), Index: j, TxHash: hash, Address: contract,
				Topics: []common.Hash{{1}}, Data: []byte{byte(i)}})
		}
		bal := big.NewInt(int64(i%7) * 10)
		b.Touched = []explorer.Touched{
			{Address: alice, Before: big.NewInt(int64(1_000_000 - i)), After: big.NewInt(int64(1_000_000 - i - 1))},
			{Address: to, Before: new(big.Int), After: bal},
			{Address: m, Before: new(big.Int), After: new(big.Int)},
		}
		blocks = append(blocks, b)
	}
	if err := s.WriteBlocks(context.Background(), blocks); err != nil {
		t.Fatal(err)
	}
}

// TestTopAddresses pages through every address by balance: each once, in
// (balance, hash) descending order, ties included; the total is exact.
func TestTopAddresses(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		s, ctx := openTest(t, dsn), context.Background()
		listChain(t, s, 120)
		var all []explorer.Address
		after := explorer.HolderCursor{}
		for {
			page, err := s.TopAddresses(ctx, after, 25)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page...)
			if len(page) < 25 {
				break
			}
			last := page[len(page)-1]
			after = explorer.HolderCursor{Set: true, Balance: last.Balance, Hash: last.Hash}
		}
		if len(all) != 120+3 { // holders, alice, two miners
			t.Fatalf("%d addresses listed", len(all))
		}
		seen, sum := map[common.Address]bool{}, new(big.Int)
		for i, a := range all {
			if seen[a.Hash] {
				t.Fatalf("%s listed twice", a.Hash)
			}
			seen[a.Hash] = true
			sum.Add(sum, a.Balance)
			if i > 0 {
				p := all[i-1]
				if c := p.Balance.Cmp(a.Balance); c < 0 || (c == 0 && p.Hash.Cmp(a.Hash) <= 0) {
					t.Fatalf("item %d (%s %s) after (%s %s)", i, a.Balance, a.Hash, p.Balance, p.Hash)
				}
			}
		}
		total, err := s.TotalBalance(ctx)
		if err != nil || total.Cmp(sum) != 0 {
			t.Fatalf("total %v (%v), listed sum %s", total, err, sum)
		}
	})
}

// TestAddressListsAndDays covers an address's logs and validated blocks
// (keyset pages) and the per-day aggregates.
func TestAddressListsAndDays(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		s, ctx := openTest(t, dsn), context.Background()
		listChain(t, s, 120)
		var logs []explorer.Log
		after := explorer.LogCursor{}
		for {
			page, err := s.AddressLogs(ctx, contract, after, 50)
			if err != nil {
				t.Fatal(err)
			}
			logs = append(logs, page...)
			if len(page) < 50 {
				break
			}
			last := page[len(page)-1]
			after = explorer.LogCursor{Set: true, BlockNumber: last.BlockNumber, Index: last.Index}
		}
		if len(logs) != 240 {
			t.Fatalf("%d logs", len(logs))
		}
		for i, l := range logs { // (119,1), (119,0), (118,1), ...
			if l.BlockNumber != uint64(119-i/2) || l.Index != uint(1-i%2) {
				t.Fatalf("log %d = (%d, %d)", i, l.BlockNumber, l.Index)
			}
		}
		before := uint64(100)
		blocks, err := s.MinerBlocks(ctx, minerB, &before, 10)
		if err != nil || len(blocks) != 10 || blocks[0].Number != 99 || blocks[9].Number != 81 {
			t.Fatalf("miner B blocks below 100: %d (%v)", len(blocks), err)
		}
		// 24 blocks a day: days 0..4. Alice changed every block: the last
		// change of each day from day 2 on is block 47, 71, 95, 119.
		days, err := s.DailyBalances(ctx, alice, listChainStart+2*86400)
		if err != nil || len(days) != 3 {
			t.Fatalf("daily balances: %d (%v)", len(days), err)
		}
		for i, want := range []uint64{71, 95, 119} {
			if days[i].BlockNumber != want || days[i].Value.Int64() != int64(1_000_000-want-1) {
				t.Fatalf("day %d: block %d value %s", i, days[i].BlockNumber, days[i].Value)
			}
		}
		counts, err := s.DailyTxCounts(ctx, listChainStart/86400+1)
		if err != nil || len(counts) != 4 || counts[listChainStart/86400+1] != 24 || counts[listChainStart/86400+4] != 24 {
			t.Fatalf("daily tx counts %v (%v)", counts, err)
		}
	})
}

// TestDailyTxsBackfill opens a database indexed before the per-day totals
// existed (migration 7 undone): the migration fills them from the blocks,
// and the indexer adds to them from then on; the chart and today's stats
// read them.
func TestDailyTxsBackfill(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		var blocks []*explorer.IndexedBlock
		for n := uint64(0); n < 6; n++ {
			b := testBlock(n, int(n%3))
			b.Block.Time = listChainStart + n*40_000 // days 0, 0, 0, 1, 1, 2
			blocks = append(blocks, b)
		}
		if err := s.WriteBlocks(ctx, blocks[:4]); err != nil {
			t.Fatal(err)
		}
		s = reopenAsBefore(t, s, dsn, `DROP TABLE daily_totals`, `DELETE FROM schema_migrations WHERE version >= 7`)
		if err := s.WriteBlocks(ctx, blocks[4:]); err != nil {
			t.Fatal(err)
		}
		day := int64(listChainStart / 86400)
		counts, err := s.DailyTxCounts(ctx, day)
		// txs per block n%3: 0 1 2 | 0 1 | 2
		want := map[int64]uint64{day: 3, day + 1: 1, day + 2: 2}
		if err != nil || !reflect.DeepEqual(counts, want) {
			t.Fatalf("daily tx counts %v (%v), want %v", counts, err, want)
		}
		if counts, _ := s.DailyTxCounts(ctx, day+2); !reflect.DeepEqual(counts, map[int64]uint64{day + 2: 2}) {
			t.Fatalf("from day 2: %v", counts)
		}
		// /stats' "today" reads the same totals: block 5's 2 txs of 21,000 gas.
		st, err := s.Stats(ctx, (day+2)*86400+600)
		if err != nil || st.TxsToday != 2 || st.GasUsedToday != 42_000 {
			t.Fatalf("stats today: %+v (%v)", st, err)
		}
	})
}

// reopenAsBefore runs undo on s (statements that put the database back as
// an older binary left it), closes it and opens dsn again, so that the
// undone migrations run.
func reopenAsBefore(t *testing.T, s *Store, dsn string, undo ...string) *Store {
	t.Helper()
	for _, q := range undo {
		if _, err := s.db.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	return openTest(t, dsn)
}
