package api

import (
	"bytes"
	"context"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
)

// fakeStore is an in-memory explorer.Store holding a small chain, for the
// handler tests. It answers the reads the handlers make with the same
// ordering and keyset rules as the SQL stores; a method the handlers under
// test do not call is left to the embedded nil interface (a call panics,
// failing the test loudly).
type fakeStore struct {
	explorer.Store

	blocks    []explorer.Block // ascending number
	txs       []explorer.Tx    // ascending (block, index)
	logs      []explorer.Log   // ascending (block, index)
	addrs     map[common.Address]*explorer.Address
	history   []explorer.BalanceChange // ascending block
	internal  []explorer.InternalTx    // ascending (block, tx index, index)
	transfers []explorer.TokenTransfer // ascending (block, log index)
	tokens    map[common.Address]*explorer.Token
	verified  map[common.Address]*explorer.VerifiedContract
}

// Fixed actors of the fake chain.
var (
	fakeMiner    = common.HexToAddress("0x00000000000000000000000000000000000000aa")
	fakeAlice    = common.HexToAddress("0x1111111111111111111111111111111111111111")
	fakeBob      = common.HexToAddress("0x2222222222222222222222222222222222222222")
	fakeToken    = crypto.CreateAddress(fakeAlice, 2) // created in block 3
	fakeTimeBase = uint64(1_700_000_000)
)

// fakeTokenABI is the verified ABI of the fake token: enough to decode its
// calls and logs by name.
const fakeTokenABI = `[{"type":"function","name":"transfer","stateMutability":"nonpayable",` +
	`"inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"name":"","type":"bool"}]},` +
	`{"type":"event","name":"Transfer","anonymous":false,"inputs":[{"name":"from","type":"address","indexed":true},` +
	`{"name":"to","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]},` +
	`{"type":"error","name":"NotEnough","inputs":[{"name":"have","type":"uint256"},{"name":"need","type":"uint256"}]}]`

func gweiOf(n int64) *big.Int  { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e9)) }
func etherOf(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }
func hashOf(s string, n uint64) common.Hash {
	return crypto.Keccak256Hash([]byte(s), new(big.Int).SetUint64(n).Bytes())
}

// newFakeStore builds blocks 0..59, one transaction in each from block 1
// on: plain transfers from Alice to Bob, Alice's deployment of an ERC-20 in
// block 3, a token transfer in block 4, a failed call in block 5, an
// EIP-1559 transfer in block 6 and a call with an internal value transfer in
// block 7.
func newFakeStore() *fakeStore {
	s := &fakeStore{addrs: map[common.Address]*explorer.Address{}, tokens: map[common.Address]*explorer.Token{},
		verified: map[common.Address]*explorer.VerifiedContract{}}
	for n := uint64(0); n < 60; n++ {
		s.addBlock(n)
	}
	name, symbol := "Fake Token", "FAKE"
	s.tokens[fakeToken] = &explorer.Token{Address: fakeToken, Type: explorer.ERC20, Name: &name, Symbol: &symbol,
		Decimals: big.NewInt(18), TotalSupply: etherOf(1000), HoldersCount: 2, TransfersCount: 1}
	s.verified[fakeToken] = &explorer.VerifiedContract{ID: 1, Address: fakeToken, Name: "FakeToken", Language: "solidity",
		ABI: fakeTokenABI, CompilerVersion: "v0.8.28+commit.7893614a", EVMVersion: "cancun", Optimization: true,
		OptimizerRuns: ptr(int64(200)), LicenseType: "mit", FilePath: "Fake.sol", SourceCode: "contract FakeToken {}",
		Sources: []explorer.SourceFile{{Path: "Lib.sol", Content: "library L {}"}}, Settings: `{"optimizer":{"runs":200,"enabled":true}}`,
		ConstructorArgs: []byte{}, CreationCode: []byte{0x60, 0x80}, FullMatch: true, VerifiedAt: int64(fakeTimeBase)}
	return s
}

func (s *fakeStore) addBlock(n uint64) {
	b := explorer.Block{Number: n, Hash: hashOf("block", n), ParentHash: hashOf("block", n-1), Miner: fakeMiner,
		Time: fakeTimeBase + 2*n, GasLimit: 30_000_000, BaseFee: gweiOf(7), Size: 600 + n, StateRoot: hashOf("root", n),
		ExtraData: []byte{}, Difficulty: new(big.Int), BurntFees: new(big.Int), PriorityFee: new(big.Int), TxFees: new(big.Int)}
	if n == 0 {
		b.ParentHash = common.Hash{}
		s.blocks = append(s.blocks, b)
		return
	}
	t := explorer.Tx{Hash: hashOf("tx", n), BlockNumber: n, BlockHash: b.Hash, Time: b.Time, From: fakeAlice,
		To: &fakeBob, Value: big.NewInt(int64(n)), Gas: 21000, GasUsed: 21000, GasPrice: gweiOf(8), BaseFee: b.BaseFee,
		Nonce: n - 1, Status: 1, Input: []byte{}}
	switch n {
	case 3: // deployment
		t.To, t.Created, t.Value, t.Gas, t.GasUsed = nil, &fakeToken, new(big.Int), 500_000, 400_000
		t.Input = []byte{0x60, 0x80, 0x60, 0x40}
		s.addrs[fakeToken] = &explorer.Address{Hash: fakeToken, Balance: new(big.Int), BalanceBlock: n, TxCount: 3,
			IsContract: true, Creator: &fakeAlice, CreationTx: &t.Hash}
	case 4: // ERC-20 transfer(bob, 5 ether) with its log
		t.To, t.Value, t.Gas, t.GasUsed = &fakeToken, new(big.Int), 60_000, 51_000
		t.Input = append(common.FromHex("0xa9059cbb"), append(common.LeftPadBytes(fakeBob[:], 32), common.LeftPadBytes(etherOf(5).Bytes(), 32)...)...)
		topic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
		s.logs = append(s.logs, explorer.Log{BlockNumber: n, BlockHash: b.Hash, Index: 0, TxHash: t.Hash, Address: fakeToken,
			Topics: []common.Hash{topic, common.BytesToHash(fakeAlice[:]), common.BytesToHash(fakeBob[:])}, Data: common.LeftPadBytes(etherOf(5).Bytes(), 32)})
		s.transfers = append(s.transfers, explorer.TokenTransfer{BlockNumber: n, BlockHash: b.Hash, TxHash: t.Hash, Time: b.Time,
			Token: fakeToken, Type: explorer.ERC20, From: fakeAlice, To: fakeBob, Amount: etherOf(5)})
	case 5: // a call that reverted
		t.To, t.Value, t.Status, t.Input = &fakeToken, new(big.Int), 0, common.FromHex("0xdeadbeef")
	case 6: // EIP-1559
		t.Type, t.MaxFee, t.MaxTip = 2, gweiOf(20), gweiOf(1)
	case 7: // a call forwarding value to Bob
		t.To, t.Value, t.Input = &fakeToken, big.NewInt(7), common.FromHex("0x12345678")
		s.internal = append(s.internal, explorer.InternalTx{BlockNumber: n, TxIndex: 0, Index: 1, TxHash: t.Hash, Time: b.Time,
			Type: "call", From: fakeToken, To: &fakeBob, Value: big.NewInt(7), Gas: 2300, Input: []byte{}, TraceAddress: []int{0}})
		s.internal = append(s.internal, explorer.InternalTx{BlockNumber: n, TxIndex: 0, Index: 2, BlockIndex: 1, TxHash: t.Hash,
			Time: b.Time, Type: "call", From: fakeToken, To: &fakeAlice, Value: new(big.Int), Gas: 2300, Error: "out of gas",
			Input: []byte{}, TraceAddress: []int{1}})
	}
	fee := new(big.Int).Mul(new(big.Int).SetUint64(t.GasUsed), t.GasPrice)
	t.Fee, t.BurntFee = fee, new(big.Int).Mul(new(big.Int).SetUint64(t.GasUsed), b.BaseFee)
	b.TxCount, b.GasUsed = 1, t.GasUsed
	b.TxFees.Set(fee)
	b.BurntFees.Set(t.BurntFee)
	b.PriorityFee.Sub(fee, t.BurntFee)
	s.blocks = append(s.blocks, b)
	s.txs = append(s.txs, t)
	s.touch(fakeAlice, n, new(big.Int).Neg(new(big.Int).Add(t.Value, fee)), &t.Hash)
	if t.To != nil && *t.To == fakeBob {
		s.touch(fakeBob, n, t.Value, &t.Hash)
	}
	s.touch(fakeMiner, n, new(big.Int).Sub(fee, t.BurntFee), nil)
}

// touch records a balance change of a at block n.
func (s *fakeStore) touch(a common.Address, n uint64, delta *big.Int, tx *common.Hash) {
	acc := s.addrs[a]
	if acc == nil {
		acc = &explorer.Address{Hash: a, Balance: etherOf(100)}
		s.addrs[a] = acc
	}
	acc.Balance = new(big.Int).Add(acc.Balance, delta)
	acc.BalanceBlock = n
	if a == fakeMiner {
		acc.BlocksValidated++
	} else {
		acc.TxCount++
	}
	s.history = append(s.history, explorer.BalanceChange{Address: a, BlockNumber: n, Time: fakeTimeBase + 2*n,
		Value: new(big.Int).Set(acc.Balance), Delta: delta, TxHash: tx})
}

func (s *fakeStore) IndexedHeight(context.Context) (uint64, bool, error) {
	return s.blocks[len(s.blocks)-1].Number, true, nil
}

func (s *fakeStore) Block(_ context.Context, n uint64) (*explorer.Block, error) {
	if n >= uint64(len(s.blocks)) {
		return nil, explorer.ErrNotFound
	}
	b := s.blocks[n]
	return &b, nil
}

func (s *fakeStore) BlockByHash(_ context.Context, h common.Hash) (*explorer.Block, error) {
	for i := range s.blocks {
		if s.blocks[i].Hash == h {
			b := s.blocks[i]
			return &b, nil
		}
	}
	return nil, explorer.ErrNotFound
}

// newestBlocks lists the blocks keep accepts below before, newest first.
func (s *fakeStore) newestBlocks(before *uint64, limit int, keep func(*explorer.Block) bool) []explorer.Block {
	var out []explorer.Block
	for i := len(s.blocks) - 1; i >= 0 && len(out) < limit; i-- {
		if b := s.blocks[i]; (before == nil || b.Number < *before) && keep(&b) {
			out = append(out, b)
		}
	}
	return out
}

func (s *fakeStore) Blocks(_ context.Context, before *uint64, limit int) ([]explorer.Block, error) {
	return s.newestBlocks(before, limit, func(*explorer.Block) bool { return true }), nil
}

func (s *fakeStore) MinerBlocks(_ context.Context, miner common.Address, before *uint64, limit int) ([]explorer.Block, error) {
	return s.newestBlocks(before, limit, func(b *explorer.Block) bool { return b.Miner == miner }), nil
}

func (s *fakeStore) Tx(_ context.Context, h common.Hash) (*explorer.Tx, error) {
	for i := range s.txs {
		if s.txs[i].Hash == h {
			t := s.txs[i]
			return &t, nil
		}
	}
	return nil, explorer.ErrNotFound
}

// afterTx reports whether t comes strictly after c in (block, index)
// descending order.
func afterTx(t *explorer.Tx, c explorer.TxCursor) bool {
	return !c.Set || t.BlockNumber < c.BlockNumber || (t.BlockNumber == c.BlockNumber && t.Index < c.Index)
}

func (s *fakeStore) newestTxs(after explorer.TxCursor, limit int, keep func(*explorer.Tx) bool) []explorer.Tx {
	var out []explorer.Tx
	for i := len(s.txs) - 1; i >= 0 && len(out) < limit; i-- {
		if t := s.txs[i]; afterTx(&t, after) && keep(&t) {
			out = append(out, t)
		}
	}
	return out
}

func (s *fakeStore) Txs(_ context.Context, after explorer.TxCursor, limit int) ([]explorer.Tx, error) {
	return s.newestTxs(after, limit, func(*explorer.Tx) bool { return true }), nil
}

func (s *fakeStore) AddressTxs(_ context.Context, a common.Address, side explorer.AddressFilter, after explorer.TxCursor, limit int) ([]explorer.Tx, error) {
	return s.newestTxs(after, limit, func(t *explorer.Tx) bool {
		from := t.From == a
		to := (t.To != nil && *t.To == a) || (t.Created != nil && *t.Created == a)
		return (side != explorer.ToSide && from) || (side != explorer.FromSide && to)
	}), nil
}

func (s *fakeStore) BlockTxs(_ context.Context, n uint64, from, limit int) ([]explorer.Tx, error) {
	var out []explorer.Tx
	for _, t := range s.txs {
		if t.BlockNumber == n && t.Index >= from && len(out) < limit {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *fakeStore) TxLogs(_ context.Context, h common.Hash, from uint, limit int) ([]explorer.Log, error) {
	var out []explorer.Log
	for _, l := range s.logs {
		if l.TxHash == h && l.Index >= from && len(out) < limit {
			out = append(out, l)
		}
	}
	return out, nil
}

func (s *fakeStore) AddressLogs(_ context.Context, a common.Address, after explorer.LogCursor, limit int) ([]explorer.Log, error) {
	var out []explorer.Log
	for i := len(s.logs) - 1; i >= 0 && len(out) < limit; i-- {
		l := s.logs[i]
		if l.Address == a && (!after.Set || l.BlockNumber < after.BlockNumber || (l.BlockNumber == after.BlockNumber && l.Index < after.Index)) {
			out = append(out, l)
		}
	}
	return out, nil
}

func (s *fakeStore) Address(_ context.Context, a common.Address) (*explorer.Address, error) {
	acc, ok := s.addrs[a]
	if !ok {
		return nil, explorer.ErrNotFound
	}
	out := *acc
	return &out, nil
}

func (s *fakeStore) HasLogs(_ context.Context, a common.Address) (bool, error) {
	for _, l := range s.logs {
		if l.Address == a {
			return true, nil
		}
	}
	return false, nil
}

func (s *fakeStore) Contracts(_ context.Context, addrs []common.Address) (map[common.Address]bool, error) {
	out := map[common.Address]bool{}
	for _, a := range addrs {
		if acc, ok := s.addrs[a]; ok && acc.IsContract {
			out[a] = true
		}
	}
	return out, nil
}

func (s *fakeStore) BalanceHistory(_ context.Context, a common.Address, before *uint64, limit int) ([]explorer.BalanceChange, error) {
	var out []explorer.BalanceChange
	for i := len(s.history) - 1; i >= 0 && len(out) < limit; i-- {
		if c := s.history[i]; c.Address == a && (before == nil || c.BlockNumber < *before) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *fakeStore) TopAddresses(_ context.Context, after explorer.HolderCursor, limit int) ([]explorer.Address, error) {
	var all []explorer.Address
	for _, a := range s.addrs {
		all = append(all, *a)
	}
	sort.Slice(all, func(i, j int) bool {
		if c := all[i].Balance.Cmp(all[j].Balance); c != 0 {
			return c > 0
		}
		return bytes.Compare(all[i].Hash[:], all[j].Hash[:]) > 0
	})
	var out []explorer.Address
	for _, a := range all {
		past := !after.Set || a.Balance.Cmp(after.Balance) < 0 ||
			(a.Balance.Cmp(after.Balance) == 0 && bytes.Compare(a.Hash[:], after.Hash[:]) < 0)
		if past && len(out) < limit {
			out = append(out, a)
		}
	}
	return out, nil
}

func (s *fakeStore) TotalBalance(context.Context) (*big.Int, error) {
	sum := new(big.Int)
	for _, a := range s.addrs {
		sum.Add(sum, a.Balance)
	}
	return sum, nil
}

func (s *fakeStore) Stats(context.Context, int64) (*explorer.Stats, error) {
	gas := uint64(0)
	for _, b := range s.blocks {
		gas += b.GasUsed
	}
	return &explorer.Stats{Blocks: uint64(len(s.blocks)), Transactions: uint64(len(s.txs) + len(fakeNatives())), Addresses: uint64(len(s.addrs)),
		GasUsed: gas, TxsToday: 3, GasUsedToday: 63000, AvgBlockMilli: 2000, Utilization: 0.07}, nil
}

func (s *fakeStore) RecentTips(_ context.Context, blocks, limit int) ([]*big.Int, *big.Int, uint64, error) {
	var tips []*big.Int
	for i := len(s.txs) - 1; i >= 0 && len(tips) < limit; i-- {
		tips = append(tips, new(big.Int).Sub(s.txs[i].GasPrice, s.txs[i].BaseFee))
	}
	last := s.blocks[len(s.blocks)-1]
	return tips, last.BaseFee, last.Time, nil
}

func (s *fakeStore) DailyTxCounts(_ context.Context, sinceDay int64) (map[int64]uint64, error) {
	out := map[int64]uint64{}
	for _, t := range s.txs {
		if int64(t.Time)/86400 >= sinceDay {
			out[int64(t.Time)/86400]++
		}
	}
	return out, nil
}

func (s *fakeStore) DailyBalances(_ context.Context, a common.Address, since int64) ([]explorer.BalanceChange, error) {
	var out []explorer.BalanceChange
	for _, c := range s.history {
		if c.Address != a || int64(c.Time) < since {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Time/86400 == c.Time/86400 {
			out[n-1] = c
		} else {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *fakeStore) ContractABIs(_ context.Context, addrs []common.Address) (map[common.Address]explorer.ContractABI, error) {
	out := map[common.Address]explorer.ContractABI{}
	for _, a := range addrs {
		if vc, ok := s.verified[a]; ok {
			out[a] = explorer.ContractABI{Name: vc.Name, ABI: vc.ABI}
		}
	}
	return out, nil
}

func (s *fakeStore) VerifiedContract(_ context.Context, a common.Address) (*explorer.VerifiedContract, error) {
	if vc, ok := s.verified[a]; ok {
		return vc, nil
	}
	return nil, explorer.ErrNotFound
}

func (s *fakeStore) Token(_ context.Context, a common.Address) (*explorer.Token, error) {
	if t, ok := s.tokens[a]; ok {
		return t, nil
	}
	return nil, explorer.ErrNotFound
}

func (s *fakeStore) TokensOf(_ context.Context, addrs []common.Address) (map[common.Address]*explorer.Token, error) {
	out := map[common.Address]*explorer.Token{}
	for _, a := range addrs {
		if t, ok := s.tokens[a]; ok {
			out[a] = t
		}
	}
	return out, nil
}

func (s *fakeStore) Tokens(_ context.Context, q string, types []string, after explorer.TokenCursor, limit int) ([]explorer.Token, error) {
	var out []explorer.Token
	for _, t := range s.tokens {
		name, symbol := strings.ToLower(*t.Name), strings.ToLower(*t.Symbol)
		q := strings.ToLower(q)
		if (q == "" || strings.Contains(name, q) || strings.Contains(symbol, q)) && !after.Set && len(out) < limit {
			out = append(out, *t)
		}
	}
	return out, nil
}

func (s *fakeStore) InstancesOf(context.Context, common.Address, []*big.Int) (map[string]*explorer.TokenInstance, error) {
	return map[string]*explorer.TokenInstance{}, nil
}

// involves reports whether t moved a token from or to a (any side).
func involves(t *explorer.TokenTransfer, a common.Address) bool { return t.From == a || t.To == a }

func (s *fakeStore) TokenTransfers(_ context.Context, f explorer.TransferFilter, after explorer.TransferCursor, limit int) ([]explorer.TokenTransfer, error) {
	var out []explorer.TokenTransfer
	for i := len(s.transfers) - 1; i >= 0 && len(out) < limit; i-- {
		t := s.transfers[i]
		if (f.Token != nil && t.Token != *f.Token) || (f.Address != nil && !involves(&t, *f.Address)) ||
			(f.TxHash != nil && t.TxHash != *f.TxHash) || after.Set {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

func (s *fakeStore) CountTokenTransfers(ctx context.Context, f explorer.TransferFilter) (uint64, error) {
	list, err := s.TokenTransfers(ctx, f, explorer.TransferCursor{}, len(s.transfers))
	return uint64(len(list)), err
}

func (s *fakeStore) TxTokenTransfers(_ context.Context, hashes []common.Hash, limit int) (map[common.Hash][]explorer.TokenTransfer, error) {
	out := map[common.Hash][]explorer.TokenTransfer{}
	for _, h := range hashes {
		for _, t := range s.transfers {
			if t.TxHash == h && len(out[h]) < limit {
				out[h] = append(out[h], t)
			}
		}
	}
	return out, nil
}

func (s *fakeStore) HasTokens(_ context.Context, a common.Address) (bool, error) {
	return a == fakeBob, nil // Bob received the only transfer's tokens and kept them
}

func (s *fakeStore) HasTokenTransfers(_ context.Context, a common.Address) (bool, error) {
	for i := range s.transfers {
		if involves(&s.transfers[i], a) {
			return true, nil
		}
	}
	return false, nil
}

func (s *fakeStore) AddressTokenBalances(_ context.Context, a common.Address, _ []string, _ explorer.HolderPosition, _ int) ([]explorer.TokenBalance, error) {
	if a != fakeBob {
		return nil, nil
	}
	return []explorer.TokenBalance{{Holder: fakeBob, Token: fakeToken, Type: explorer.ERC20, Value: etherOf(5)}}, nil
}

// afterInternal reports whether t comes strictly after c in (block, tx
// index, index) descending order.
func afterInternal(t *explorer.InternalTx, c explorer.InternalCursor) bool {
	switch {
	case !c.Set || t.BlockNumber < c.BlockNumber:
		return true
	case t.BlockNumber > c.BlockNumber:
		return false
	}
	return t.TxIndex < c.TxIndex || (t.TxIndex == c.TxIndex && t.Index < c.Index)
}

func (s *fakeStore) newestInternal(after explorer.InternalCursor, limit int, keep func(*explorer.InternalTx) bool) []explorer.InternalTx {
	var out []explorer.InternalTx
	for i := len(s.internal) - 1; i >= 0 && len(out) < limit; i-- {
		if t := s.internal[i]; afterInternal(&t, after) && keep(&t) {
			out = append(out, t)
		}
	}
	return out
}

func (s *fakeStore) InternalTxs(_ context.Context, after explorer.InternalCursor, limit int) ([]explorer.InternalTx, error) {
	return s.newestInternal(after, limit, func(*explorer.InternalTx) bool { return true }), nil
}

func (s *fakeStore) AddressInternalTxs(_ context.Context, a common.Address, side explorer.AddressFilter, after explorer.InternalCursor, limit int) ([]explorer.InternalTx, error) {
	return s.newestInternal(after, limit, func(t *explorer.InternalTx) bool {
		to := (t.To != nil && *t.To == a) || (t.Created != nil && *t.Created == a)
		return (side != explorer.ToSide && t.From == a) || (side != explorer.FromSide && to)
	}), nil
}

func (s *fakeStore) TxInternalTxs(_ context.Context, h common.Hash, from, limit int) ([]explorer.InternalTx, error) {
	var out []explorer.InternalTx
	for _, t := range s.internal {
		if t.TxHash == h && t.Index >= from && len(out) < limit {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *fakeStore) BlockInternalTxs(_ context.Context, n uint64, after explorer.InternalCursor, limit int) ([]explorer.InternalTx, error) {
	var out []explorer.InternalTx
	for _, t := range s.internal {
		past := !after.Set || t.TxIndex > after.TxIndex || (t.TxIndex == after.TxIndex && t.Index > after.Index)
		if t.BlockNumber == n && past && len(out) < limit {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *fakeStore) BlockInternalCount(ctx context.Context, n uint64) (uint64, error) {
	list, err := s.BlockInternalTxs(ctx, n, explorer.InternalCursor{}, len(s.internal))
	return uint64(len(list)), err
}

func (s *fakeStore) AddressInternalCount(ctx context.Context, a common.Address) (uint64, error) {
	list, err := s.AddressInternalTxs(ctx, a, explorer.AnySide, explorer.InternalCursor{}, len(s.internal))
	return uint64(len(list)), err
}

func (s *fakeStore) TxsWithInternalErrors(_ context.Context, hashes []common.Hash) (map[common.Hash]bool, error) {
	out := map[common.Hash]bool{}
	for _, h := range hashes {
		for _, t := range s.internal {
			if t.TxHash == h && t.Error != "" {
				out[h] = true
			}
		}
	}
	return out, nil
}

func (s *fakeStore) TokenHolders(_ context.Context, token common.Address, _ *big.Int, after explorer.HolderPosition, _ int) ([]explorer.TokenBalance, error) {
	if token != fakeToken || after.Set {
		return nil, nil
	}
	return []explorer.TokenBalance{
		{Holder: fakeAlice, Token: fakeToken, Type: explorer.ERC20, Value: etherOf(995)},
		{Holder: fakeBob, Token: fakeToken, Type: explorer.ERC20, Value: etherOf(5)},
	}, nil
}

func (s *fakeStore) VerifiedContracts(_ context.Context, q, language string, beforeID int64, limit int) ([]explorer.VerifiedContract, error) {
	var out []explorer.VerifiedContract
	for _, vc := range s.verified {
		if (beforeID == 0 || vc.ID < beforeID) && strings.Contains(strings.ToLower(vc.Name), strings.ToLower(q)) &&
			(language == "" || vc.Language == language) && len(out) < limit {
			out = append(out, *vc)
		}
	}
	return out, nil
}

func (s *fakeStore) ContractCounts(context.Context, int64) (*explorer.ContractCounts, error) {
	return &explorer.ContractCounts{Contracts: 1, NewContracts: 0, Verified: uint64(len(s.verified)), NewVerified: 1}, nil
}
