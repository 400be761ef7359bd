package snapshot

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/emberchain/ember/store"
)

// testChain is a store with a genesis of many accounts, contracts with
// storage (two sharing one code), and blocks on top.
func testChain(t *testing.T, accounts, blocks int) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir(), params.AllDevChainProtocolChanges, store.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	alloc := types.GenesisAlloc{}
	for i := 0; i < accounts; i++ {
		alloc[common.BigToAddress(big.NewInt(int64(i+1)))] = types.Account{Balance: big.NewInt(int64(i + 1)), Nonce: uint64(i % 3)}
	}
	code := []byte{0x60, 0x00, 0x54, 0x00} // PUSH1 0 SLOAD STOP
	for i := 0; i < 3; i++ {
		storage := map[common.Hash]common.Hash{}
		for j := 0; j < 50*(i+1); j++ {
			storage[common.BigToHash(big.NewInt(int64(j)))] = common.BigToHash(big.NewInt(int64(j*7 + i + 1)))
		}
		c := code
		if i == 2 {
			c = append([]byte{0x5b}, code...)
		}
		alloc[common.BigToAddress(big.NewInt(int64(1_000_000+i)))] = types.Account{Code: c, Storage: storage, Balance: big.NewInt(1)}
	}
	g := &core.Genesis{Config: params.AllDevChainProtocolChanges, Alloc: alloc, GasLimit: 30_000_000, BaseFee: big.NewInt(1)}
	genesis, err := st.InitGenesis(g)
	if err != nil {
		t.Fatal(err)
	}
	parent := genesis.Header()
	for i := 1; i <= blocks; i++ {
		h := types.CopyHeader(parent)
		h.ParentHash, h.Number, h.Time = parent.Hash(), big.NewInt(int64(i)), parent.Time+1
		h.MixDigest = common.BigToHash(big.NewInt(int64(1000 + i)))
		block := types.NewBlock(h, &types.Body{Withdrawals: types.Withdrawals{}}, nil, trie.NewStackTrie(nil))
		if err := st.CommitBlock(block, nil, h.MixDigest[:]); err != nil {
			t.Fatal(err)
		}
		parent = block.Header()
	}
	return st
}

func TestSnapshotRestore(t *testing.T) {
	src := testChain(t, 3000, 300)
	// Small chunks: blocks, accounts and one contract's storage span
	// several.
	defer func(n int) { chunkTarget = n }(chunkTarget)
	chunkTarget = 4 << 10
	m, err := Open(filepath.Join(t.TempDir(), "snapshots"), 2, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	info, err := m.Create(context.Background(), src, 300)
	if err != nil {
		t.Fatal(err)
	}
	list, err := m.List()
	if err != nil || len(list) != 1 || list[0].Height != 300 || list[0].Chunks != info.Chunks {
		t.Fatalf("list %+v %v, made %+v", list, err, info)
	}
	if info.Chunks < 20 {
		t.Fatalf("%d chunks: the test wants many", info.Chunks)
	}
	head := src.Head()
	md, err := DecodeMetadata(info.Metadata, info.Hash, info.Height, info.Format, info.Chunks)
	if err != nil {
		t.Fatal(err)
	}

	dst, err := store.Open(t.TempDir(), params.AllDevChainProtocolChanges, store.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := NewRestorer(dst, md, common.Hash{1}.Bytes()); !errors.Is(err, ErrInvalid) {
		t.Fatalf("restorer with another app hash: %v", err)
	}
	r, err := NewRestorer(dst, md, head.Root[:])
	if err != nil {
		t.Fatal(err)
	}
	for i := uint32(0); i < info.Chunks; i++ {
		chunk, err := m.Chunk(300, Format, i)
		if err != nil {
			t.Fatal(err)
		}
		bad := append([]byte{}, chunk...)
		bad[len(bad)/2] ^= 1
		if _, err := r.Apply(i, bad); !errors.Is(err, ErrChunkHash) {
			t.Fatalf("corrupt chunk %d: %v", i, err)
		}
		done, err := r.Apply(i, chunk)
		if err != nil {
			t.Fatal(err)
		}
		if done != (i == info.Chunks-1) {
			t.Fatalf("chunk %d of %d: done %v", i, info.Chunks, done)
		}
	}
	if got := dst.Head(); got.Hash() != head.Hash() {
		t.Fatalf("restored head %x, want %x", got.Hash(), head.Hash())
	}
	if dst.FirstState() != 300 || dst.FirstBlock() != 300-RecentBlocks+1 {
		t.Fatalf("first state %d, first block %d", dst.FirstState(), dst.FirstBlock())
	}
	var unavailable *store.StateUnavailableError
	if err := dst.CheckState(299); !errors.As(err, &unavailable) || unavailable.Oldest != 300 {
		t.Fatalf("state 299: %v", err)
	}
	if h := dst.HeaderByNumber(300 - RecentBlocks + 1); h == nil || h.Hash() != src.HeaderByNumber(300-RecentBlocks+1).Hash() {
		t.Fatal("oldest restored header differs")
	}
	if string(dst.CometHash(300)) != string(src.CometHash(300)) {
		t.Fatal("CometBFT hash of the head differs")
	}
	want, _ := src.StateAt(head.Root)
	got, err := dst.StateAt(head.Root)
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []common.Address{common.BigToAddress(big.NewInt(1)), common.BigToAddress(big.NewInt(2999)), common.BigToAddress(big.NewInt(1_000_002))} {
		if got.GetBalance(addr).Cmp(want.GetBalance(addr)) != 0 || got.GetNonce(addr) != want.GetNonce(addr) || string(got.GetCode(addr)) != string(want.GetCode(addr)) {
			t.Fatalf("account %s differs", addr)
		}
		slot := common.BigToHash(big.NewInt(49))
		if got.GetState(addr, slot) != want.GetState(addr, slot) {
			t.Fatalf("slot of %s differs", addr)
		}
	}
	if got.GetState(common.BigToAddress(big.NewInt(1_000_002)), common.BigToHash(big.NewInt(149))) != common.BigToHash(big.NewInt(149*7+3)) {
		t.Fatal("last slot of the largest contract not restored")
	}
}

// A snapshot left half-made (a process killed while writing it) is removed
// when the directory is opened again, and never listed.
func TestPartialSnapshotRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snapshots")
	if err := os.MkdirAll(filepath.Join(dir, "200"+tmpSuffix), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "200"+tmpSuffix, chunkName(0)), []byte{1}, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(dir, 1, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if list, err := m.List(); err != nil || len(list) != 0 {
		t.Fatalf("list %v %v", list, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "200"+tmpSuffix)); !os.IsNotExist(err) {
		t.Fatalf("partial snapshot still there: %v", err)
	}
}

// Keep-recent: a third snapshot deletes the oldest.
func TestSnapshotKeepRecent(t *testing.T) {
	src := testChain(t, 10, 30)
	m, err := Open(filepath.Join(t.TempDir(), "snapshots"), 2, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []uint64{10, 20, 30} {
		if _, err := m.Create(context.Background(), src, h); err != nil {
			t.Fatal(err)
		}
	}
	list, err := m.List()
	if err != nil || len(list) != 2 || list[0].Height != 30 || list[1].Height != 20 {
		t.Fatalf("list %+v %v", list, err)
	}
	if _, err := m.Chunk(10, Format, 0); err == nil {
		t.Fatal("chunk of a deleted snapshot served")
	}
}
