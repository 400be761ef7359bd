package store

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// TestExportIntoGenesisRoot: the state of block 12 of a churned chain
// (balances, two contracts' storage), walked with ExportState and rebuilt
// in an empty store with NewStateImport, becomes that store's block 0
// through InitGenesisRoot: same root, every account and slot read the
// same, the head is block 0 and its header is go-ethereum's for the
// genesis but for the root.
func TestExportIntoGenesisRoot(t *testing.T) {
	src := openPruneStore(t, t.TempDir(), PruneOptions{Mode: PruneArchive})
	defer src.Close()
	churn(t, src, 20)
	h, err := src.ExportableState(12)
	if err != nil {
		t.Fatal(err)
	}
	dst := openEmptyStore(t)
	im := dst.NewStateImport()
	if err := src.ExportState(context.Background(), h.Root, im); err != nil {
		t.Fatal(err)
	}
	root, err := im.Finish()
	if err != nil || root != h.Root {
		t.Fatalf("imported root %x (%v), exported %x", root, err, h.Root)
	}
	g := &core.Genesis{Config: src.Config(), GasLimit: 30_000_000, Difficulty: new(big.Int), BaseFee: big.NewInt(7), Timestamp: 99}
	named := types.GenesisAlloc{{0xdd}: {Balance: big.NewInt(12)}}
	block, err := dst.InitGenesisRoot(g, root, named)
	if err != nil {
		t.Fatal(err)
	}
	want := g.ToBlock().Header()
	want.Root = root
	if block.Hash() != want.Hash() || dst.Head().Hash() != block.Hash() || dst.HeaderByNumber(0).Root != h.Root {
		t.Fatalf("block 0 %x root %x, want %x", block.Hash(), block.Root(), want.Hash())
	}
	accts, err := dst.GenesisAccounts()
	if err != nil || len(accts) != 1 || accts[0] != (common.Address{0xdd}) {
		t.Fatalf("genesis accounts %v %v", accts, err)
	}
	a, _ := src.StateAt(h.Root)
	b, _ := dst.StateAt(root)
	for i := 0; i < 60; i++ {
		addr := common.Address{byte(i), 1}
		if a.GetBalance(addr).Cmp(b.GetBalance(addr)) != 0 {
			t.Fatalf("balance of %s: %v exported, %v imported", addr, a.GetBalance(addr), b.GetBalance(addr))
		}
	}
	for _, c := range []common.Address{{0xcc}, {0xdd}} {
		for s := 0; s < 5; s++ {
			if a.GetState(c, common.Hash{byte(s)}) != b.GetState(c, common.Hash{byte(s)}) {
				t.Fatalf("slot %d of %s differs", s, c)
			}
		}
	}
	if got := b.GetState(common.Address{0xdd}, common.Hash{}); got != common.BigToHash(big.NewInt(12)) {
		t.Fatalf("counter slot %x, want 12", got)
	}
	if _, err := dst.InitGenesisRoot(&core.Genesis{Config: src.Config(), Alloc: named}, root, nil); err == nil {
		t.Fatal("InitGenesisRoot took a genesis with an allocation")
	}
	if _, err := dst.InitGenesisRoot(g, common.Hash{1}, nil); err == nil || !strings.Contains(err.Error(), "not in the store") {
		t.Fatalf("InitGenesisRoot of a state not in the store: %v", err)
	}
}

// TestRollbackNeedsState: Rollback to a height whose state a sweep pruned
// fails and leaves the head; to a held one it moves the head there.
func TestRollbackNeedsState(t *testing.T) {
	s := openPruneStore(t, t.TempDir(), PruneOptions{Mode: PruneFull, KeepRecent: 5, Interval: 1000})
	defer s.Close()
	churn(t, s, 20)
	if err := s.Prune(context.Background(), 15); err != nil {
		t.Fatal(err)
	}
	var unavailable *StateUnavailableError
	if err := s.Rollback(12); !errors.As(err, &unavailable) || unavailable.Oldest != 15 || s.Head().Number.Uint64() != 20 {
		t.Fatalf("Rollback(12) below the oldest state: %v, head %d", err, s.Head().Number)
	}
	if _, err := s.ExportableState(21); err == nil || !strings.Contains(err.Error(), "above the head") {
		t.Fatalf("ExportableState(21): %v", err)
	}
	if err := s.Rollback(19); err != nil || s.Head().Number.Uint64() != 19 || s.HeaderByNumber(20) != nil {
		t.Fatalf("Rollback(19): %v, head %d", err, s.Head().Number)
	}
	if err := s.Rollback(19); err != nil || s.Head().Number.Uint64() != 19 {
		t.Fatalf("Rollback(19) again: %v", err)
	}
}

func openEmptyStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), params.AllDevChainProtocolChanges, Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
