package sqlstore

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/sqlstore/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// engines are the databases every store test runs on: each returns the DSN
// of a new, empty database.
var engines = []struct {
	name string
	dsn  func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "explorer.db") }},
	{"postgres", func(t *testing.T) string {
		if testing.Short() {
			t.Skip("needs a PostgreSQL server: skipped with -short")
		}
		return pgtest.DSN(t)
	}},
}

// eachEngine runs fn as a subtest on a fresh database of every engine.
func eachEngine(t *testing.T, fn func(t *testing.T, dsn string)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { fn(t, e.dsn(t)) })
	}
}

func openTest(t *testing.T, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var (
	alice = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	bob   = common.HexToAddress("0x0000000000000000000000000000000000000b0b")
	miner = common.HexToAddress("0x00000000000000000000000000000000000f00d0")
)

// testBlock is block n holding txs transfers alice → bob of 1 wei each.
func testBlock(n uint64, txs int) *explorer.IndexedBlock {
	b := &explorer.IndexedBlock{Block: explorer.Block{
		Number: n, Hash: common.BigToHash(big.NewInt(int64(n + 1000))), Miner: miner, Time: 1_700_000_000 + n,
		GasLimit: 30_000_000, GasUsed: uint64(txs) * 21000, TxCount: txs, Difficulty: new(big.Int),
		BurntFees: new(big.Int), PriorityFee: new(big.Int), TxFees: new(big.Int),
	}}
	for i := 0; i < txs; i++ {
		to := bob
		b.Txs = append(b.Txs, explorer.Tx{
			Hash: common.BigToHash(big.NewInt(int64(n*1000 + uint64(i)))), BlockNumber: n, Index: i, From: alice, To: &to,
			Value: big.NewInt(1), Gas: 21000, GasUsed: 21000, GasPrice: big.NewInt(7), Fee: big.NewInt(7 * 21000),
			BurntFee: new(big.Int), Status: 1, Nonce: n*1000 + uint64(i),
		})
	}
	before, after := big.NewInt(int64(n*100)), big.NewInt(int64(n*100+uint64(txs)))
	b.Touched = []explorer.Touched{{Address: alice, Before: after, After: before}, {Address: bob, Before: before, After: after},
		{Address: miner, Before: new(big.Int), After: new(big.Int)}}
	return b
}

func TestWriteBlocksIsIdempotentAndRefusesGaps(t *testing.T) { eachEngine(t, testIdempotentWrites) }

func testIdempotentWrites(t *testing.T, dsn string) {
	s, ctx := openTest(t, dsn), context.Background()
	if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{testBlock(0, 0), testBlock(1, 2), testBlock(2, 3)}); err != nil {
		t.Fatal(err)
	}
	// A replay of indexed blocks plus one new block counts only the new one.
	if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{testBlock(1, 2), testBlock(2, 3), testBlock(3, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{testBlock(5, 1)}); err == nil || !strings.Contains(err.Error(), "ends at 3") {
		t.Fatalf("gap accepted: %v", err)
	}
	h, ok, _ := s.IndexedHeight(ctx)
	st, err := s.Stats(ctx, 0)
	if err != nil || !ok || h != 3 || st.Transactions != 6 || st.Addresses != 3 || st.Blocks != 4 || st.GasUsed != 6*21000 {
		t.Fatalf("height %d %v, stats %+v, %v", h, ok, st, err)
	}
	a, err := s.Address(ctx, alice)
	if err != nil || a.TxCount != 6 || a.GasUsed != 6*21000 || a.LastSeen != 3 || a.FirstSeen != 0 {
		t.Fatalf("alice = %+v, %v", a, err)
	}
	m, _ := s.Address(ctx, miner)
	if m.BlocksValidated != 4 {
		t.Fatalf("miner validated %d blocks, want 4", m.BlocksValidated)
	}
}

func TestKeysetPagingVisitsEachTxOnce(t *testing.T) { eachEngine(t, testKeysetPaging) }

func testKeysetPaging(t *testing.T, dsn string) {
	s, ctx := openTest(t, dsn), context.Background()
	var blocks []*explorer.IndexedBlock
	total := 0
	for n := uint64(0); n < 40; n++ {
		k := int(n % 7) // uneven blocks, some empty
		blocks = append(blocks, testBlock(n, k))
		total += k
	}
	if err := s.WriteBlocks(ctx, blocks); err != nil {
		t.Fatal(err)
	}
	for _, list := range map[string]func(explorer.TxCursor) ([]explorer.Tx, error){
		"all": func(c explorer.TxCursor) ([]explorer.Tx, error) { return s.Txs(ctx, c, 5) },
		"from": func(c explorer.TxCursor) ([]explorer.Tx, error) {
			return s.AddressTxs(ctx, alice, explorer.FromSide, c, 5)
		},
		"to": func(c explorer.TxCursor) ([]explorer.Tx, error) { return s.AddressTxs(ctx, bob, explorer.ToSide, c, 5) },
	} {
		seen := map[common.Hash]bool{}
		var cur explorer.TxCursor
		for {
			page, err := list(cur)
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range page {
				if seen[tx.Hash] {
					t.Fatalf("tx %s twice", tx.Hash)
				}
				seen[tx.Hash] = true
			}
			if len(page) < 5 {
				break
			}
			last := page[len(page)-1]
			cur = explorer.TxCursor{Set: true, BlockNumber: last.BlockNumber, Index: last.Index}
		}
		if len(seen) != total {
			t.Fatalf("paged %d of %d", len(seen), total)
		}
	}
	none, _ := s.AddressTxs(ctx, bob, explorer.FromSide, explorer.TxCursor{}, 5)
	if len(none) != 0 {
		t.Fatalf("bob sent %d", len(none))
	}
}

func TestWeiSortsNumerically(t *testing.T) {
	small, big2 := sqlite.encodeWei(big.NewInt(9)).(string), sqlite.encodeWei(new(big.Int).Lsh(big.NewInt(1), 255)).(string)
	if len(small) != weiDigits || small >= big2 {
		t.Fatalf("%s !< %s", small, big2)
	}
	for _, v := range []*big.Int{new(big.Int), big.NewInt(1), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))} {
		got, err := sqlite.decodeWei(sqlite.encodeWei(v).(string))
		if err != nil || got.Cmp(v) != 0 {
			t.Fatalf("round trip %s = %s, %v", v, got, err)
		}
	}
	if _, err := sqlite.decodeWei("12x"); err == nil {
		t.Fatal("bad amount accepted")
	}
}

func TestBalanceHistoryAndMigrationsReopen(t *testing.T) { eachEngine(t, testHistoryReopen) }

func testHistoryReopen(t *testing.T, dsn string) {
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{testBlock(0, 0), testBlock(1, 1), testBlock(2, 2)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, dsn); err != nil { // migrations already applied
		t.Fatal(err)
	}
	defer s.Close()
	hist, err := s.BalanceHistory(ctx, bob, nil, 10)
	if err != nil || len(hist) != 2 || hist[0].BlockNumber != 2 || hist[0].Delta.Int64() != 2 || hist[0].Value.Int64() != 202 {
		t.Fatalf("history = %+v, %v", hist, err)
	}
	before := uint64(2)
	older, _ := s.BalanceHistory(ctx, bob, &before, 10)
	if len(older) != 1 || older[0].BlockNumber != 1 {
		t.Fatalf("older = %+v", older)
	}
}

// TestWeiRoundTripsAndSortsInTheDatabase stores the largest uint256 and
// small amounts as balances and reads them back exactly, in numeric order,
// through each engine's column type (TEXT on SQLite, NUMERIC(78,0) on
// PostgreSQL).
func TestWeiRoundTripsAndSortsInTheDatabase(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		s, ctx := openTest(t, dsn), context.Background()
		maxWei := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
		b := testBlock(0, 0)
		b.Touched = []explorer.Touched{
			{Address: alice, Before: new(big.Int), After: maxWei},
			{Address: bob, Before: new(big.Int), After: big.NewInt(10)},
			{Address: miner, Before: new(big.Int), After: big.NewInt(9)},
		}
		if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{b}); err != nil {
			t.Fatal(err)
		}
		a, err := s.Address(ctx, alice)
		if err != nil || a.Balance.Cmp(maxWei) != 0 {
			t.Fatalf("alice balance %v, %v; want %s", a, err, maxWei)
		}
		rows, err := s.db.QueryContext(ctx, `SELECT hash FROM addresses ORDER BY balance DESC`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var order []string
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				t.Fatal(err)
			}
			order = append(order, h)
		}
		if want := []string{addrKey(alice), addrKey(bob), addrKey(miner)}; strings.Join(order, ",") != strings.Join(want, ",") {
			t.Fatalf("balance order %v, want %v", order, want)
		}
	})
}

func TestDollarPlaceholders(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT 1`:                            `SELECT 1`,
		`WHERE a = ? AND b IN (?, ?) LIMIT ?`: `WHERE a = $1 AND b IN ($2, $3) LIMIT $4`,
	} {
		if got := dollarPlaceholders(in); got != want {
			t.Fatalf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenRefusesUnknownSchemes(t *testing.T) {
	_, err := Open(context.Background(), "mysql://root:secret@localhost/db")
	if err == nil || !strings.Contains(err.Error(), "unknown scheme") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Open(mysql://…) = %v", err)
	}
}
