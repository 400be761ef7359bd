package store

import (
	"context"
	"errors"
	"math/big"
	"math/rand"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
)

// chainOfLogs commits n blocks of random logs and returns every log in
// chain order, as the index should report them.
func chainOfLogs(t *testing.T, s *Store, rng *rand.Rand, n int, addrs []common.Address, topics []common.Hash) []*types.Log {
	var all []*types.Log
	parent := s.Head()
	for num := uint64(1); num <= uint64(n); num++ {
		var (
			txs      types.Transactions
			receipts types.Receipts
			logIndex uint
		)
		ntx := rng.Intn(4)
		for txi := 0; txi < ntx; txi++ {
			tx := types.NewTx(&types.LegacyTx{Nonce: num<<8 | uint64(txi), Gas: 21000, GasPrice: big.NewInt(1)})
			r := &types.Receipt{Status: 1, TxHash: tx.Hash(), GasUsed: 21000}
			nlogs := rng.Intn(5)
			for k := 0; k < nlogs; k++ {
				l := &types.Log{Address: addrs[rng.Intn(len(addrs))], Data: []byte{byte(num), byte(k)},
					BlockNumber: num, TxHash: tx.Hash(), TxIndex: uint(txi), Index: logIndex}
				logIndex++
				ntopics := rng.Intn(5)
				for j := 0; j < ntopics; j++ {
					l.Topics = append(l.Topics, topics[rng.Intn(len(topics))])
				}
				r.Logs = append(r.Logs, l)
			}
			r.Bloom = types.CreateBloom(r)
			txs = append(txs, tx)
			receipts = append(receipts, r)
		}
		header := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).SetUint64(num), Root: parent.Root,
			Difficulty: new(big.Int), GasLimit: parent.GasLimit, Time: parent.Time + 1, BaseFee: big.NewInt(1)}
		block := types.NewBlock(header, &types.Body{Transactions: txs}, receipts, trie.NewStackTrie(nil))
		if err := s.CommitBlock(block, receipts, []byte{byte(num)}); err != nil {
			t.Fatal(err)
		}
		for _, r := range receipts {
			for _, l := range r.Logs {
				cp := *l
				cp.BlockHash = block.Hash()
				cp.BlockTimestamp = block.Time()
				all = append(all, &cp)
			}
		}
		parent = block.Header()
	}
	return all
}

func openTestStore(t *testing.T) *Store {
	cfg := params.AllDevChainProtocolChanges
	s, err := Open(t.TempDir(), cfg, Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g := &core.Genesis{Config: cfg, GasLimit: 30_000_000, Difficulty: new(big.Int), BaseFee: big.NewInt(1), Alloc: types.GenesisAlloc{}}
	if _, err := s.InitGenesis(g); err != nil {
		t.Fatal(err)
	}
	return s
}

// matches is the reference filter.
func matches(l *types.Log, q LogQuery) bool {
	if l.BlockNumber < q.From || l.BlockNumber > q.To {
		return false
	}
	if len(q.Addresses) > 0 {
		found := false
		for _, a := range q.Addresses {
			found = found || a == l.Address
		}
		if !found {
			return false
		}
	}
	for i, ts := range q.Topics {
		if len(ts) == 0 {
			continue
		}
		if i >= len(l.Topics) {
			return false
		}
		found := false
		for _, t := range ts {
			found = found || t == l.Topics[i]
		}
		if !found {
			return false
		}
	}
	return true
}

func TestLogIndexMatchesBruteForce(t *testing.T) {
	s := openTestStore(t)
	rng := rand.New(rand.NewSource(1))
	addrs := []common.Address{{1}, {2}, {3}, {4}}
	topics := []common.Hash{{0xa}, {0xb}, {0xc}, {0xd}, {0xe}}
	all := chainOfLogs(t, s, rng, 80, addrs, topics)
	if len(all) < 200 {
		t.Fatalf("only %d logs generated", len(all))
	}
	for i := 0; i < 3000; i++ {
		q := LogQuery{From: uint64(rng.Intn(85)), To: uint64(rng.Intn(90))}
		for k := rng.Intn(3); k > 0; k-- {
			q.Addresses = append(q.Addresses, addrs[rng.Intn(len(addrs))])
		}
		for pos := rng.Intn(5); pos > 0; pos-- {
			var ts []common.Hash // empty = wildcard at this position
			for k := rng.Intn(3); k > 0; k-- {
				ts = append(ts, topics[rng.Intn(len(topics))])
			}
			q.Topics = append(q.Topics, ts)
		}
		got, err := s.Logs(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var want []*types.Log
		for _, l := range all {
			if matches(l, q) {
				want = append(want, l)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("query %+v: %d logs, want %d", q, len(got), len(want))
		}
		for j := range want {
			g, w := got[j], want[j]
			if g.BlockNumber != w.BlockNumber || g.Index != w.Index || g.BlockHash != w.BlockHash || g.BlockTimestamp != w.BlockTimestamp || g.TxHash != w.TxHash ||
				g.TxIndex != w.TxIndex || g.Address != w.Address || len(g.Topics) != len(w.Topics) || string(g.Data) != string(w.Data) {
				t.Fatalf("query %+v: log %d = %+v, want %+v", q, j, g, w)
			}
		}
	}
}

func TestLogIndexLimit(t *testing.T) {
	s := openTestStore(t)
	all := chainOfLogs(t, s, rand.New(rand.NewSource(2)), 40, []common.Address{{1}}, []common.Hash{{0xa}})
	_, err := s.Logs(context.Background(), LogQuery{From: 0, To: 40, Limit: len(all) - 1})
	var le *LimitError
	if !errors.As(err, &le) || err.Error() != "query returned more than "+itoa(len(all)-1)+" results" {
		t.Fatalf("over the limit: %v", err)
	}
	got, err := s.Logs(context.Background(), LogQuery{From: 0, To: 40, Limit: len(all)})
	if err != nil || len(got) != len(all) {
		t.Fatalf("at the limit: %d logs, %v", len(got), err)
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// fillDense commits n blocks of one tx emitting per logs each.
func fillDense(t *testing.T, s *Store, n, per int) {
	parent := s.Head()
	for num := uint64(1); num <= uint64(n); num++ {
		tx := types.NewTx(&types.LegacyTx{Nonce: num, Gas: 21000, GasPrice: big.NewInt(1)})
		r := &types.Receipt{Status: 1, TxHash: tx.Hash(), GasUsed: 21000}
		for k := 0; k < per; k++ {
			r.Logs = append(r.Logs, &types.Log{Address: common.Address{byte(num % 10)}, Topics: []common.Hash{{byte(k % 100)}, common.BigToHash(big.NewInt(int64(num)))}, Data: make([]byte, 32)})
		}
		header := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).SetUint64(num), Root: parent.Root,
			Difficulty: new(big.Int), GasLimit: parent.GasLimit, Time: parent.Time + 1, BaseFee: big.NewInt(1)}
		block := types.NewBlock(header, &types.Body{Transactions: types.Transactions{tx}}, types.Receipts{r}, trie.NewStackTrie(nil))
		if err := s.CommitBlock(block, types.Receipts{r}, []byte{1}); err != nil {
			t.Fatal(err)
		}
		parent = block.Header()
	}
}
