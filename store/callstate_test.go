package store_test

import (
	"bytes"
	"context"
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/store"
)

// asm assembles opcodes and the bytes of their pushes.
func asm(parts ...any) []byte {
	var code []byte
	for _, p := range parts {
		switch p := p.(type) {
		case vm.OpCode:
			code = append(code, byte(p))
		case int: // PUSH1
			code = append(code, byte(vm.PUSH1), byte(p))
		case common.Address:
			code = append(code, byte(vm.PUSH20))
			code = append(code, p.Bytes()...)
		}
	}
	return code
}

// returnTop returns the word on top of the stack.
var returnTop = []any{0, vm.MSTORE, 32, 0, vm.RETURN}

// TestBorrowedStateIsFresh runs messages that change every kind of state a
// message can change, each twice per round and in three rounds, on borrowed
// StateDBs and on fresh ones: result, gas (with and without the refund), logs and the post-state
// root must be the same, so a StateDB given back keeps nothing of a run.
// The borrowed StateDBs must really be reused.
func TestBorrowedStateIsFresh(t *testing.T) {
	cfg := evm.ChainConfig(big.NewInt(4242))
	s, err := store.Open(t.TempDir(), cfg, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	addr := func(n int) common.Address { return common.BigToAddress(big.NewInt(int64(0x1000 + n))) }
	sender, fresh, beneficiary := addr(0), addr(100), addr(101)
	writer, clearer, transient, logger, creator, payer, destructor, reverter := addr(1), addr(2), addr(3), addr(4), addr(5), addr(6), addr(7), addr(8)
	code := map[common.Address][]byte{
		// slot 0: 7 → 42, returned
		writer: asm(append([]any{42, 0, vm.SSTORE, 0, vm.SLOAD}, returnTop...)...),
		// slot 0: 5 → 0, a refund
		clearer: asm(0, 0, vm.SSTORE, vm.STOP),
		// transient slot 0 + 1, returned: 1 unless it leaked
		transient: asm(append([]any{1, 0, vm.TLOAD, vm.ADD, vm.DUP1, 0, vm.TSTORE}, returnTop...)...),
		logger:    asm(0, 0, vm.LOG0, 0, 0, vm.LOG0, vm.STOP),
		// creates an empty contract at an address its nonce decides, returned
		creator: asm(append([]any{0, 0, 0, vm.CREATE}, returnTop...)...),
		// pays 1 wei to an address that does not exist, returns its balance
		payer: asm(append([]any{0, 0, 0, 0, 1, fresh, vm.GAS, vm.CALL, vm.POP, fresh, vm.BALANCE}, returnTop...)...),
		// sends its balance away, then reads it (0)
		destructor: asm(beneficiary, vm.SELFDESTRUCT),
		// writes slot 0, then reverts
		reverter: asm(9, 0, vm.SSTORE, 0, 0, vm.REVERT),
	}
	alloc := types.GenesisAlloc{sender: {Balance: big.NewInt(1e18)}}
	for a, c := range code {
		acct := types.Account{Code: c, Balance: big.NewInt(100)}
		switch a {
		case writer:
			acct.Storage = map[common.Hash]common.Hash{{}: common.BigToHash(big.NewInt(7))}
		case clearer:
			acct.Storage = map[common.Hash]common.Hash{{}: common.BigToHash(big.NewInt(5))}
		}
		alloc[a] = acct
	}
	genesis, err := s.InitGenesis(&core.Genesis{Config: cfg, GasLimit: 30_000_000, Difficulty: new(big.Int), BaseFee: big.NewInt(1), Alloc: alloc})
	if err != nil {
		t.Fatal(err)
	}
	head := genesis.Header()
	rules := evm.Rules(cfg, head.Number, head.Time)
	blockCtx := evm.BlockContext(cfg, head, s)

	type outcome struct {
		gas, maxGas uint64
		ret         []byte
		err         error
		logs        int
		root        common.Hash
	}
	run := func(st *state.StateDB, to common.Address, value uint64) outcome {
		msg := &core.Message{From: sender, To: &to, Value: uint256.NewInt(value), GasLimit: 1_000_000,
			GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int), BlobGasFeeCap: new(uint256.Int)}
		msg = msg.SkipNonceCheck().SkipEOACheck()
		res, err := evm.Call(context.Background(), cfg, blockCtx, st, msg, evm.CallOptions{})
		if err != nil {
			t.Fatalf("call %s: %v", to, err)
		}
		after := st.Copy()
		return outcome{gas: res.UsedGas, maxGas: res.MaxUsedGas, ret: res.ReturnData, err: res.Err,
			logs: len(after.GetLogs(common.Hash{}, 0, common.Hash{}, 0)), root: after.IntermediateRoot(rules)}
	}
	targets := []common.Address{writer, clearer, transient, logger, creator, payer, destructor, reverter, fresh}
	var lent []*state.StateDB
	for round := range 3 {
		for _, to := range targets {
			for _, value := range []uint64{0, 3} {
				fst, err := s.CachedStateOf(head)
				if err != nil {
					t.Fatal(err)
				}
				want := run(fst, to, value)
				for range 2 {
					st, giveBack, err := s.BorrowStateOf(head)
					if err != nil {
						t.Fatal(err)
					}
					lent = append(lent, st)
					got := run(st, to, value)
					giveBack()
					if got.gas != want.gas || got.maxGas != want.maxGas || !bytes.Equal(got.ret, want.ret) ||
						(got.err == nil) != (want.err == nil) || got.logs != want.logs || got.root != want.root {
						t.Fatalf("round %d, call to %s with value %d: borrowed %+v, fresh %+v", round, to, value, got, want)
					}
				}
			}
		}
	}
	distinct := map[*state.StateDB]bool{}
	for _, st := range lent {
		distinct[st] = true
	}
	if len(distinct) != 1 {
		t.Errorf("%d runs used %d StateDBs, want one, lent again and again", len(lent), len(distinct))
	}
	// Two runs at once get two StateDBs.
	a, giveA, _ := s.BorrowStateOf(head)
	b, giveB, _ := s.BorrowStateOf(head)
	if a == b {
		t.Error("two runs at once share a StateDB")
	}
	giveA()
	giveB()

	// Runs on several goroutines at once (under -race in CI's e2e too).
	want := map[common.Address]outcome{}
	for _, to := range targets {
		fst, _ := s.CachedStateOf(head)
		want[to] = run(fst, to, 3)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				to := targets[(g+i)%len(targets)]
				st, giveBack, err := s.BorrowStateOf(head)
				if err != nil {
					t.Error(err)
					return
				}
				got := run(st, to, 3)
				giveBack()
				if got.gas != want[to].gas || got.root != want[to].root || !bytes.Equal(got.ret, want[to].ret) {
					t.Errorf("goroutine %d, call %d to %s: borrowed %+v, fresh %+v", g, i, to, got, want[to])
					return
				}
			}
		})
	}
	wg.Wait()
}
