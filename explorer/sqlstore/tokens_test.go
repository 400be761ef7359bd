package sqlstore

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

var (
	tok20   = common.HexToAddress("0x0000000000000000000000000000000000002020")
	tok1155 = common.HexToAddress("0x0000000000000000000000000000000000001155")
	tok721  = common.HexToAddress("0x0000000000000000000000000000000000000721")
	zero    = common.Address{}
)

func strp(s string) *string { return &s }

// tokenBlocks are blocks 1..5: an ERC-20 minted and moved, an ERC-1155
// batch-minted and moved, an ERC-721 minted, moved and burnt.
func tokenBlocks() []*explorer.IndexedBlock {
	var blocks []*explorer.IndexedBlock
	for n := uint64(1); n <= 5; n++ {
		blocks = append(blocks, testBlock(n, 1))
	}
	tr := func(b *explorer.IndexedBlock, log uint, batch int, token common.Address, typ string, from, to common.Address, id, amount int64) {
		t := explorer.TokenTransfer{BlockNumber: b.Block.Number, BlockHash: b.Block.Hash, LogIndex: log, BatchIndex: batch,
			Batch: typ == explorer.ERC1155 && log == 0, TxHash: b.Txs[0].Hash, Time: b.Block.Time, Token: token, Type: typ,
			From: from, To: to, Amount: big.NewInt(amount)}
		if id >= 0 {
			t.TokenID = big.NewInt(id)
		}
		b.TokenTransfers = append(b.TokenTransfers, t)
	}
	meta := func(b *explorer.IndexedBlock, token common.Address, typ, name string, supply int64) {
		m := explorer.TokenMeta{Address: token, Type: typ, Info: name != "", Supply: supply >= 0}
		if name != "" {
			m.Name, m.Symbol = strp(name), strp(name[:3])
			if typ == explorer.ERC20 {
				m.Decimals = big.NewInt(18)
			}
		}
		if supply >= 0 {
			m.TotalSupply = big.NewInt(supply)
		}
		b.Tokens = append(b.Tokens, m)
	}
	b := blocks[0]
	meta(b, tok20, explorer.ERC20, "Ember Token", 1000)
	tr(b, 0, 0, tok20, explorer.ERC20, zero, alice, -1, 1000)
	b = blocks[1]
	meta(b, tok20, explorer.ERC20, "", -1)
	tr(b, 0, 0, tok20, explorer.ERC20, alice, bob, -1, 300)
	tr(b, 1, 0, tok20, explorer.ERC20, alice, bob, -1, 200)
	b = blocks[2]
	meta(b, tok1155, explorer.ERC1155, "Multi Token", 30)
	tr(b, 0, 0, tok1155, explorer.ERC1155, zero, alice, 1, 10)
	tr(b, 0, 1, tok1155, explorer.ERC1155, zero, alice, 2, 20)
	tr(b, 1, 0, tok1155, explorer.ERC1155, alice, bob, 1, 10)
	b = blocks[3]
	meta(b, tok721, explorer.ERC721, "Ember NFT", -1)
	tr(b, 0, 0, tok721, explorer.ERC721, zero, alice, 7, 1)
	tr(b, 1, 0, tok721, explorer.ERC721, alice, bob, 7, 1)
	b = blocks[4]
	meta(b, tok721, explorer.ERC721, "", -1)
	tr(b, 0, 0, tok721, explorer.ERC721, bob, zero, 7, 1)
	return blocks
}

// allHolders reads every holder of token (of id, if set) through pages of
// page, as the API pages them.
func allHolders(t *testing.T, s *Store, token common.Address, id *big.Int, page int) []explorer.TokenBalance {
	t.Helper()
	var out []explorer.TokenBalance
	var after explorer.HolderPosition
	for {
		list, err := s.TokenHolders(context.Background(), token, id, after, page)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, list...)
		if len(list) < page {
			return out
		}
		h := list[len(list)-1]
		after = explorer.HolderPosition{Set: true, Value: h.Value, Address: h.Holder, TokenID: h.TokenID}
	}
}

func TestTokenStore(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openTest(t, dsn)
		blocks := tokenBlocks()
		if err := s.WriteBlocks(ctx, append([]*explorer.IndexedBlock{testBlock(0, 0)}, blocks[:3]...)); err != nil {
			t.Fatal(err)
		}
		// A replay of written blocks with the rest: nothing counted twice.
		if err := s.WriteBlocks(ctx, blocks[1:4]); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteBlocks(ctx, blocks); err != nil {
			t.Fatal(err)
		}

		want := map[common.Address]string{tok20: "holders 2 transfers 3 supply 1000 decimals 18 name Ember Token",
			tok1155: "holders 2 transfers 3 supply 30 decimals <nil> name Multi Token",
			tok721:  "holders 0 transfers 3 supply <nil> decimals <nil> name Ember NFT"}
		for a, w := range want {
			tk, err := s.Token(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("holders %d transfers %d supply %v decimals %v name %s", tk.HoldersCount, tk.TransfersCount,
				tk.TotalSupply, tk.Decimals, *tk.Name)
			if got != w {
				t.Fatalf("token %s: %s, want %s", a.Hex(), got, w)
			}
		}

		holders := func(token common.Address, id *big.Int) string {
			var out string
			for _, h := range allHolders(t, s, token, id, 1) {
				out += fmt.Sprintf("%s:%v:%s ", strings.ToLower(h.Holder.Hex()[38:]), h.TokenID, h.Value)
			}
			return out
		}
		for _, c := range []struct {
			token common.Address
			id    *big.Int
			want  string
		}{
			{tok20, nil, "11ce:<nil>:500 0b0b:<nil>:500 "},
			{tok1155, nil, "11ce:2:20 0b0b:1:10 "},
			{tok1155, big.NewInt(1), "0b0b:1:10 "},
			{tok721, nil, ""},
		} {
			if got := holders(c.token, c.id); got != c.want {
				t.Fatalf("holders of %s/%v: %q, want %q", c.token.Hex(), c.id, got, c.want)
			}
		}

		// Every transfer once, newest first, through pages of two.
		var got string
		var after explorer.TransferCursor
		for {
			list, err := s.TokenTransfers(ctx, explorer.TransferFilter{}, after, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, tt := range list {
				got += fmt.Sprintf("%d.%d.%d ", tt.BlockNumber, tt.LogIndex, tt.BatchIndex)
			}
			if len(list) < 2 {
				break
			}
			last := list[len(list)-1]
			after = explorer.TransferCursor{Set: true, BlockNumber: last.BlockNumber, LogIndex: last.LogIndex, BatchIndex: last.BatchIndex}
		}
		if want := "5.0.0 4.1.0 4.0.0 3.1.0 3.0.1 3.0.0 2.1.0 2.0.0 1.0.0 "; got != want {
			t.Fatalf("transfers %q, want %q", got, want)
		}
		bobTo, err := s.TokenTransfers(ctx, explorer.TransferFilter{Address: &bob, Side: explorer.ToSide, Types: []string{explorer.ERC20}}, explorer.TransferCursor{}, 10)
		if err != nil || len(bobTo) != 2 || bobTo[0].Amount.Int64() != 200 {
			t.Fatalf("bob's incoming ERC-20 transfers: %v %v", bobTo, err)
		}
		n, err := s.CountTokenTransfers(ctx, explorer.TransferFilter{Address: &alice})
		if err != nil || n != 8 {
			t.Fatalf("alice's transfers: %d %v, want 8", n, err)
		}

		nfts, err := s.AddressNFTs(ctx, bob, nil, nil, explorer.NFTCursor{}, 10)
		if err != nil || len(nfts) != 1 || nfts[0].Token != tok1155 || nfts[0].TokenID.Int64() != 1 {
			t.Fatalf("bob's NFTs: %v %v", nfts, err)
		}
		in, err := s.Instance(ctx, tok721, big.NewInt(7))
		if err != nil || in.Owner == nil || *in.Owner != zero {
			t.Fatalf("burnt instance: %+v %v", in, err)
		}
		found, err := s.Tokens(ctx, "EMB", nil, explorer.TokenCursor{}, 10)
		if err != nil || len(found) != 2 {
			t.Fatalf("tokens matching emb: %v %v", found, err)
		}
		if has, _ := s.HasTokens(ctx, bob); !has {
			t.Fatal("bob holds tokens")
		}

		queued, err := s.UnfetchedInstances(ctx, 10)
		if err != nil || len(queued) != 3 {
			t.Fatalf("queued instances: %v %v", queued, err)
		}
		if err := s.SetInstanceMetadata(ctx, tok721, big.NewInt(7), strp("data:,{}"), []byte(`{"name":"x"}`), nil); err != nil {
			t.Fatal(err)
		}
		if queued, _ = s.UnfetchedInstances(ctx, 10); len(queued) != 2 {
			t.Fatalf("queued after a fetch: %d", len(queued))
		}
		if err := s.RefetchInstance(ctx, tok721, big.NewInt(7)); err != nil {
			t.Fatal(err)
		}
		if queued, _ = s.UnfetchedInstances(ctx, 10); len(queued) != 3 {
			t.Fatalf("queued after a refetch: %d", len(queued))
		}
		if err := s.RefetchInstance(ctx, tok721, big.NewInt(8)); err != explorer.ErrNotFound {
			t.Fatalf("refetch of a missing instance: %v", err)
		}
	})
}

// TestTokenBalancesAcrossChunks moves balances of more holders than one
// lookup or delete names (balanceChunk): 250 mints, then 149 holders send
// everything to alice, so lookups and deletes run full chunks and padded
// short ones, in one batch and across batches. Every balance and the
// holder count come out exact.
func TestTokenBalancesAcrossChunks(t *testing.T) {
	const minted, emptied = 250, 149
	holder := func(i int) common.Address { return common.BigToAddress(big.NewInt(0x10000 + int64(i))) }
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openTest(t, dsn)
		blocks := []*explorer.IndexedBlock{testBlock(0, 0), testBlock(1, 1), testBlock(2, 1), testBlock(3, 1)}
		transfer := func(b *explorer.IndexedBlock, log int, from, to common.Address, amount int64) {
			b.TokenTransfers = append(b.TokenTransfers, explorer.TokenTransfer{BlockNumber: b.Block.Number, BlockHash: b.Block.Hash,
				LogIndex: uint(log), TxHash: b.Txs[0].Hash, Time: b.Block.Time, Token: tok20, Type: explorer.ERC20,
				From: from, To: to, Amount: big.NewInt(amount)})
		}
		blocks[1].Tokens = []explorer.TokenMeta{{Address: tok20, Type: explorer.ERC20, Info: true, Name: strp("Ember Token"),
			Symbol: strp("EMB"), Decimals: big.NewInt(18)}}
		for i := range minted {
			transfer(blocks[1], i, zero, holder(i), int64(i+1))
		}
		for i := range emptied {
			transfer(blocks[2], i, holder(i), alice, int64(i+1))
		}
		// Block 3, in a batch of its own: one holder left of a chunk's
		// worth empties, and alice pays one of them.
		transfer(blocks[3], 0, holder(emptied), alice, emptied+1)
		transfer(blocks[3], 1, alice, holder(minted-1), 5)
		if err := s.WriteBlocks(ctx, blocks[:3]); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteBlocks(ctx, blocks[3:]); err != nil {
			t.Fatal(err)
		}

		aliceHas := int64(emptied*(emptied+1)/2 + emptied + 1 - 5)
		want := fmt.Sprintf("%s:%d ", strings.ToLower(alice.Hex()), aliceHas)
		want += fmt.Sprintf("%s:%d ", strings.ToLower(holder(minted-1).Hex()), minted+5)
		for i := minted - 2; i > emptied; i-- {
			want += fmt.Sprintf("%s:%d ", strings.ToLower(holder(i).Hex()), i+1)
		}
		var got string
		for _, h := range allHolders(t, s, tok20, nil, 40) {
			got += fmt.Sprintf("%s:%s ", strings.ToLower(h.Holder.Hex()), h.Value)
		}
		if got != want {
			t.Fatalf("holders:\n%s\nwant:\n%s", got, want)
		}
		tk, err := s.Token(ctx, tok20)
		if err != nil {
			t.Fatal(err)
		}
		if wantHolders := uint64(minted - emptied - 1 + 1); tk.HoldersCount != wantHolders {
			t.Fatalf("holders_count %d, want %d", tk.HoldersCount, wantHolders)
		}
	})
}
