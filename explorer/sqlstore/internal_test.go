package sqlstore

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// withInternal adds to each tx of b a call alice → bob's contract (value
// 5) and, under it, a create by bob of a contract, plus a failed static
// call on the last tx.
func withInternal(b *explorer.IndexedBlock) *explorer.IndexedBlock {
	bi := 0
	for i := range b.Txs {
		tx := &b.Txs[i]
		to, created := bob, common.BigToAddress(big.NewInt(int64(b.Block.Number*100+uint64(i)+1)))
		b.InternalTxs = append(b.InternalTxs,
			explorer.InternalTx{BlockNumber: b.Block.Number, TxIndex: i, Index: 1, BlockIndex: bi, TxHash: tx.Hash, Time: b.Block.Time,
				Type: "call", From: alice, To: &to, Value: big.NewInt(5), Gas: 1000, GasUsed: 500, Input: []byte{1, 2, 3, 4}, TraceAddress: []int{0}},
			explorer.InternalTx{BlockNumber: b.Block.Number, TxIndex: i, Index: 2, BlockIndex: bi + 1, TxHash: tx.Hash, Time: b.Block.Time,
				Type: "create2", From: bob, Created: &created, Value: new(big.Int), Gas: 900, GasUsed: 800, Output: []byte{0x60}, TraceAddress: []int{0, 0}})
		bi += 2
		if i == len(b.Txs)-1 {
			b.InternalTxs = append(b.InternalTxs, explorer.InternalTx{BlockNumber: b.Block.Number, TxIndex: i, Index: 3, BlockIndex: bi,
				TxHash: tx.Hash, Time: b.Block.Time, Type: "staticcall", From: alice, To: &to, Value: new(big.Int), Error: "execution reverted",
				TraceAddress: []int{1}})
			bi++
		}
	}
	return b
}

func TestInternalTxs(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		s := openTest(t, dsn)
		ctx := context.Background()
		// 10 blocks of 3 txs: 7 internal txs each, 70 in all; the first
		// block written twice (a replay) must not count twice.
		first := withInternal(testBlock(1, 3))
		if err := s.WriteBlocks(ctx, []*explorer.IndexedBlock{first}); err != nil {
			t.Fatal(err)
		}
		var blocks []*explorer.IndexedBlock
		for n := uint64(1); n <= 10; n++ {
			blocks = append(blocks, withInternal(testBlock(n, 3)))
		}
		if err := s.WriteBlocks(ctx, blocks); err != nil {
			t.Fatal(err)
		}

		// Every one, newest first, in pages of 50 by keyset.
		var all []explorer.InternalTx
		after := explorer.InternalCursor{}
		for {
			page, err := s.InternalTxs(ctx, after, 50)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page...)
			if len(page) < 50 {
				break
			}
			last := page[len(page)-1]
			after = explorer.InternalCursor{Set: true, BlockNumber: last.BlockNumber, TxIndex: last.TxIndex, Index: last.Index}
		}
		if len(all) != 70 {
			t.Fatalf("%d internal txs, want 70", len(all))
		}
		if f := all[0]; f.BlockNumber != 10 || f.TxIndex != 2 || f.Index != 3 || f.Error != "execution reverted" || f.Success() {
			t.Fatalf("newest: %+v", f)
		}
		if l := all[69]; l.BlockNumber != 1 || l.TxIndex != 0 || l.Index != 1 {
			t.Fatalf("oldest: %+v", l)
		}

		// One transaction's, in trace order, with every field back.
		hash := blocks[4].Txs[2].Hash
		got, err := s.TxInternalTxs(ctx, hash, 1, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("tx internal txs: %d", len(got))
		}
		c := got[1]
		if c.Type != "create2" || c.From != bob || c.To != nil || c.Created == nil || *c.Created != common.BigToAddress(big.NewInt(503)) ||
			c.Value.Sign() != 0 || c.Gas != 900 || c.GasUsed != 800 || fmt.Sprint(c.TraceAddress) != "[0 0]" || c.BlockIndex != 5 ||
			c.TxHash != hash || c.Time != blocks[4].Block.Time || fmt.Sprint(c.Output) != "[96]" {
			t.Fatalf("create2 row: %+v", c)
		}
		if got[0].Value.Int64() != 5 || *got[0].To != bob || fmt.Sprint(got[0].Input) != "[1 2 3 4]" {
			t.Fatalf("call row: %+v", got[0])
		}
		if from2, _ := s.TxInternalTxs(ctx, hash, 3, 50); len(from2) != 1 || from2[0].Index != 3 {
			t.Fatalf("from index 3: %+v", from2)
		}

		// Per address and side; counts.
		for _, tc := range []struct {
			addr common.Address
			side explorer.AddressFilter
			want int
		}{
			{alice, explorer.AnySide, 40}, {alice, explorer.FromSide, 40}, {alice, explorer.ToSide, 0},
			{bob, explorer.AnySide, 70}, {bob, explorer.FromSide, 30}, {bob, explorer.ToSide, 40},
			{common.BigToAddress(big.NewInt(503)), explorer.ToSide, 1},
		} {
			var n int
			cur := explorer.InternalCursor{}
			for {
				page, err := s.AddressInternalTxs(ctx, tc.addr, tc.side, cur, 7)
				if err != nil {
					t.Fatal(err)
				}
				n += len(page)
				if len(page) < 7 {
					break
				}
				last := page[len(page)-1]
				cur = explorer.InternalCursor{Set: true, BlockNumber: last.BlockNumber, TxIndex: last.TxIndex, Index: last.Index}
			}
			if n != tc.want {
				t.Fatalf("%s side %d: %d, want %d", tc.addr.Hex(), tc.side, n, tc.want)
			}
			if tc.side == explorer.AnySide {
				if c, err := s.AddressInternalCount(ctx, tc.addr); err != nil || c != uint64(tc.want) {
					t.Fatalf("count of %s: %d %v, want %d", tc.addr.Hex(), c, err, tc.want)
				}
			}
		}
		// One block's, in (tx, index) order, paged.
		var blk []explorer.InternalTx
		cur := explorer.InternalCursor{}
		for {
			page, err := s.BlockInternalTxs(ctx, 4, cur, 3)
			if err != nil {
				t.Fatal(err)
			}
			blk = append(blk, page...)
			if len(page) < 3 {
				break
			}
			last := page[len(page)-1]
			cur = explorer.InternalCursor{Set: true, BlockNumber: 4, TxIndex: last.TxIndex, Index: last.Index}
		}
		if len(blk) != 7 || blk[0].TxIndex != 0 || blk[0].Index != 1 || blk[6].TxIndex != 2 || blk[6].Index != 3 {
			t.Fatalf("block 4 internal txs: %+v", blk)
		}
		for i, it := range blk {
			if it.BlockIndex != i || it.BlockNumber != 4 {
				t.Fatalf("block 4 item %d: %+v", i, it)
			}
		}
		if c, err := s.BlockInternalCount(ctx, 4); err != nil || c != 7 {
			t.Fatalf("block 4 count %d %v", c, err)
		}
		if c, err := s.BlockInternalCount(ctx, 11); err != nil || c != 0 {
			t.Fatalf("block 11 count %d %v", c, err)
		}
		errs, err := s.TxsWithInternalErrors(ctx, []common.Hash{blocks[4].Txs[1].Hash, blocks[4].Txs[2].Hash})
		if err != nil || len(errs) != 1 || !errs[blocks[4].Txs[2].Hash] {
			t.Fatalf("txs with internal errors: %v %v", errs, err)
		}
	})
}
