package sqlstore

import (
	"context"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// withNative adds to b a bank send alice → bob of n wei at position 7, and
// in odd blocks a failed delegation by bob to alice's validator.
func withNative(b *explorer.IndexedBlock) *explorer.IndexedBlock {
	n := b.Block.Number
	b.Native = append(b.Native, explorer.NativeTx{Hash: common.BigToHash(big.NewInt(int64(1000 + n))), BlockNumber: n,
		BlockHash: b.Block.Hash, Position: 7, Time: b.Block.Time, Sender: alice, Sequence: n, Fee: big.NewInt(210),
		BurntFee: big.NewInt(70), Value: new(big.Int).SetUint64(n), GasWanted: 200_000, GasUsed: 100_000, Memo: "m",
		Msgs: []explorer.NativeMsg{{Type: "/cosmos.bank.v1beta1.MsgSend", To: &bob, Amount: new(big.Int).SetUint64(n)}}})
	if n%2 == 1 {
		huge, _ := new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
		b.Native = append(b.Native, explorer.NativeTx{Hash: common.BigToHash(big.NewInt(int64(2000 + n))), BlockNumber: n,
			BlockHash: b.Block.Hash, Position: 9, Time: b.Block.Time, Sender: bob, Sequence: 3, Fee: new(big.Int), BurntFee: new(big.Int),
			Value: huge, GasWanted: 300_000, Code: 5, Codespace: "sdk", Log: "insufficient funds",
			Msgs: []explorer.NativeMsg{{Type: "/cosmos.staking.v1beta1.MsgDelegate", Validator: &alice, Amount: huge}}})
	}
	return b
}

// TestNativeTxs writes and reads native transactions, and the CometBFT
// block hash beside the EVM one.
func TestNativeTxs(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		s := openTest(t, dsn)
		ctx := context.Background()
		var blocks []*explorer.IndexedBlock
		for n := uint64(1); n <= 4; n++ {
			blocks = append(blocks, withNative(testBlock(n, 1)))
		}
		blocks[1].Block.CometHash = common.FromHex("0xC0FFEE00112233445566778899AABBCCDDEEFF00112233445566778899AABBCC")
		if err := s.WriteBlocks(ctx, blocks); err != nil {
			t.Fatal(err)
		}
		// The CometBFT block hash beside the EVM one; NULL stays nil.
		for n, want := range map[uint64][]byte{1: nil, 2: blocks[1].Block.CometHash} {
			b, err := s.Block(ctx, n)
			if err != nil || !reflect.DeepEqual(b.CometHash, want) {
				t.Fatalf("block %d comet hash %x (%v), want %x", n, b.CometHash, err, want)
			}
		}
		want := blocks[2].Native[1] // block 3's failed delegation: 2^256-1 wei
		got, err := s.NativeTx(ctx, want.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("read back\n%+v\nwant\n%+v", *got, want)
		}
		if _, err := s.NativeTx(ctx, common.Hash{1}); err != explorer.ErrNotFound {
			t.Fatalf("unknown hash: %v", err)
		}
		inBlock, err := s.BlockNativeTxs(ctx, 3, 8, 50)
		if err != nil || len(inBlock) != 1 || inBlock[0].Position != 9 {
			t.Fatalf("block 3 from position 8: %v %+v", err, inBlock)
		}
		// Bob: the sends' recipient in 4 blocks, the delegations' sender in 2.
		var seen []int
		after := explorer.NativeCursor{}
		for {
			page, err := s.AddressNativeTxs(ctx, bob, after, 4)
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range page {
				seen = append(seen, int(tx.BlockNumber)*100+tx.Position)
			}
			if len(page) < 4 {
				break
			}
			last := page[len(page)-1]
			after = explorer.NativeCursor{Set: true, BlockNumber: last.BlockNumber, Position: last.Position}
		}
		if w := []int{407, 309, 307, 207, 109, 107}; !reflect.DeepEqual(seen, w) {
			t.Fatalf("bob's native txs %v, want %v", seen, w)
		}
		// The chain's list: every native tx once, newest first, in pages
		// of 4; the count says as many.
		seen, after = nil, explorer.NativeCursor{}
		for {
			page, err := s.NativeTxs(ctx, after, 4)
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range page {
				seen = append(seen, int(tx.BlockNumber)*100+tx.Position)
			}
			if len(page) < 4 {
				break
			}
			last := page[len(page)-1]
			after = explorer.NativeCursor{Set: true, BlockNumber: last.BlockNumber, Position: last.Position}
		}
		if w := []int{407, 309, 307, 207, 109, 107}; !reflect.DeepEqual(seen, w) {
			t.Fatalf("chain's native txs %v, want %v", seen, w)
		}
		if n, err := s.NativeTxCount(ctx); err != nil || n != 6 {
			t.Fatalf("native tx count %d, %v; want 6", n, err)
		}
	})
}

// TestNativeTxsCounted: native transactions count among the chain's
// transactions (the total, today's and the daily chart's), when indexed and,
// through migration 8, in a database indexed before they were counted.
func TestNativeTxsCounted(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		var blocks []*explorer.IndexedBlock
		for n := uint64(0); n < 4; n++ {
			b := withNative(testBlock(n, 2))         // 2 EVM txs; a send, and in odd blocks a failed delegation
			b.Block.Time = listChainStart + n*50_000 // days 0, 0, 1, 1
			for i := range b.Native {
				b.Native[i].Time = b.Block.Time
			}
			blocks = append(blocks, b)
		}
		if err := s.WriteBlocks(ctx, blocks[:3]); err != nil {
			t.Fatal(err)
		}
		// Undo what migration 8 and the writer add for native txs: the
		// database as an older binary left it.
		s = reopenAsBefore(t, s, dsn,
			`UPDATE counters SET value = (SELECT COUNT(*) FROM transactions) WHERE name = 'transactions'`,
			`UPDATE daily_totals SET tx_count = (SELECT SUM(tx_count) FROM blocks WHERE timestamp / 86400 = daily_totals.day)`,
			`DELETE FROM schema_migrations WHERE version >= 8`)
		if err := s.WriteBlocks(ctx, blocks[3:]); err != nil {
			t.Fatal(err)
		}
		day := int64(listChainStart / 86400)
		// Day 0: blocks 0 and 1, 4 EVM + 3 native; day 1: blocks 2 and 3,
		// 4 EVM + 3 native.
		counts, err := s.DailyTxCounts(ctx, day)
		if want := map[int64]uint64{day: 7, day + 1: 7}; err != nil || !reflect.DeepEqual(counts, want) {
			t.Fatalf("daily tx counts %v (%v), want %v", counts, err, want)
		}
		st, err := s.Stats(ctx, (day+1)*86400+600)
		if err != nil || st.Transactions != 14 || st.TxsToday != 7 || st.GasUsedToday != 2*42_000 {
			t.Fatalf("stats: %+v (%v), want 14 transactions, 7 today", st, err)
		}
	})
}

// TestResetNativeTxs: Reset (a dev chain's evm_revert) empties the native
// transactions and the per-day totals too, so the chain indexes again from
// block 0 with nothing counted twice.
func TestResetNativeTxs(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		s, ctx := openTest(t, dsn), context.Background()
		blocks := func() []*explorer.IndexedBlock {
			var out []*explorer.IndexedBlock
			for n := uint64(0); n < 3; n++ {
				out = append(out, withNative(testBlock(n, 1)))
			}
			return out
		}
		for round := 0; round < 2; round++ {
			if err := s.WriteBlocks(ctx, blocks()); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			st, err := s.Stats(ctx, 1_700_000_000)
			// 3 EVM txs, 3 sends and block 1's failed delegation.
			if err != nil || st.Transactions != 7 || st.TxsToday != 7 {
				t.Fatalf("round %d stats %+v (%v)", round, st, err)
			}
			if err := s.Reset(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.NativeTx(ctx, blocks()[0].Native[0].Hash); err != explorer.ErrNotFound {
			t.Fatalf("after reset: %v", err)
		}
	})
}
