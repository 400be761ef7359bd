package app

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
)

// signedBlock finalizes and commits a block whose last commit carries the
// genesis validator's vote.
func (s *stakingApp) signedBlock(txs ...[]byte) (*abci.ResponseFinalizeBlock, *CommittedBlock) {
	s.t.Helper()
	s.height++
	s.now = s.now.Add(time.Second)
	var committed *CommittedBlock
	s.OnCommit(func(b *CommittedBlock) { committed = b })
	var commit abci.CommitInfo
	if s.height > 1 {
		commit.Votes = []abci.VoteInfo{{Validator: abci.Validator{Address: s.valKey.PubKey().Address(), Power: 10}, BlockIdFlag: cmtproto.BlockIDFlagCommit}}
	}
	res, err := s.FinalizeBlock(context.Background(), &abci.RequestFinalizeBlock{Height: s.height, Time: s.now, Txs: txs,
		ProposerAddress: s.valKey.PubKey().Address(), Hash: make([]byte, 32), DecidedLastCommit: commit})
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.Commit(context.Background(), &abci.RequestCommit{}); err != nil {
		s.t.Fatal(err)
	}
	return res, committed
}

func evmTransfer(t *testing.T, key *ecdsa.PrivateKey, nonce uint64, tip int64) []byte {
	t.Helper()
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
		ChainID: big.NewInt(9000), Nonce: nonce, GasTipCap: big.NewInt(tip), GasFeeCap: big.NewInt(10e9), Gas: 21000, To: &common.Address{0xee}, Value: big.NewInt(3)})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return raw
}

// withCommission runs the app's distribution with every validator at
// commission rate, as the staking rewrite will report it.
func withCommission(a *App, rate string) {
	reads := native.Distribution.Staking
	reads.CommissionRate = func(module.Reader, common.Address) dec.Dec { return dec.MustParse(rate) }
	var mods []module.Module
	for _, m := range a.modules.Modules() {
		if m.Name() == distribution.Name {
			m = distribution.Module{Keeper: &distribution.Keeper{Staking: reads}}
		}
		mods = append(mods, m)
	}
	a.modules = module.NewManager(mods...)
}

// TestReplayBeginsWithBlockInfo: a block whose begin-block allocates fees
// to the signer of the previous one, and whose native tx withdraws the
// commission that allocation credited, replays to the same balances: the
// replay begins the block with the votes FinalizeBlock had.
func TestReplayBeginsWithBlockInfo(t *testing.T) {
	opKey, _ := crypto.GenerateKey()
	op := crypto.PubkeyToAddress(opKey.PublicKey)
	userKey, _ := crypto.GenerateKey()
	user := crypto.PubkeyToAddress(userKey.PublicKey)
	s := newStakingApp(t, op, op, user)
	withCommission(s.App, "0.5")
	s.signedBlock(evmTransfer(t, userKey, 0, 2e9)) // 21000 × 2 gwei of tips
	// Block 2 allocates them: 2% to the community, of the rest half is
	// commission: 20580 gwei.
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	fee := new(big.Int).Mul(big.NewInt(200_000), big.NewInt(1e9))
	withdraw := s.sign(opKey, 0, fee, 200_000, b.WithdrawCommission(op))
	before := s.balance(op)
	raws := [][]byte{withdraw, evmTransfer(t, userKey, 1, 0)}
	res, committed := s.signedBlock(raws...)
	if res.TxResults[0].Code != 0 {
		t.Fatalf("withdraw: %s", res.TxResults[0].Log)
	}
	want := new(big.Int).Add(new(big.Int).Sub(before, fee), big.NewInt(20580e9))
	if got := s.balance(op); got.Cmp(want) != 0 {
		t.Fatalf("operator %v, want %v", got, want)
	}

	parent, err := s.store.StateAt(s.store.GetHeader(committed.Block.ParentHash(), 1).Root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.NewReplay(context.Background(), committed.Block, raws, parent)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if err := r.To(0); err != nil { // the native withdrawal runs first
		t.Fatal(err)
	}
	if got := parent.GetBalance(op).ToBig(); got.Cmp(want) != 0 {
		t.Fatalf("replayed operator balance %v, want %v", got, want)
	}
}

// TestSupplyIsSumOfBalances: with inflation, EVM and native fees, the
// recorded supply is the sum of every balance after each block, and the
// distribution pool holds exactly what its records account for.
func TestSupplyIsSumOfBalances(t *testing.T) {
	opKey, _ := crypto.GenerateKey()
	op := crypto.PubkeyToAddress(opKey.PublicKey)
	userKey, _ := crypto.GenerateKey()
	user := crypto.PubkeyToAddress(userKey.PublicKey)
	s := newStakingAppMint(t, mint.DefaultGenesis(DefaultDenom), op, op, user)
	known := map[common.Address]bool{staking.BondedPool: true, staking.UnbondingPool: true, distribution.Pool: true, distribution.FeeCollector: true, op: true, user: true}
	check := func(c *CommittedBlock) {
		t.Helper()
		for a := range c.Balances {
			known[a] = true
		}
		sum := new(big.Int)
		for a := range known {
			sum.Add(sum, s.balance(a))
		}
		if got := bank.Supply(s.checkState); got.Cmp(sum) != 0 {
			t.Fatalf("block %d: supply %v, Σ balances %v", s.height, got, sum)
		}
		if err := distribution.Invariant(s.checkState, []common.Address{op}); err != nil {
			t.Fatalf("block %d: %v", s.height, err)
		}
	}
	_, c := s.signedBlock()
	check(c)
	genesis := bank.Supply(s.checkState)
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	fee := new(big.Int).Mul(big.NewInt(200_000), big.NewInt(3e9))
	minted, burnt := new(big.Int), new(big.Int)
	for i := uint64(0); i < 3; i++ {
		send := s.sign(opKey, i, fee, 200_000, b.Send(op, common.Address{0xdd}, big.NewInt(7)))
		res, c := s.signedBlock(evmTransfer(t, userKey, i, 1e9), send)
		for _, r := range res.TxResults {
			if r.Code != 0 {
				t.Fatal(r.Log)
			}
			burnt.Add(burnt, new(big.Int).Mul(c.Block.BaseFee(), big.NewInt(r.GasUsed)))
		}
		for _, e := range res.Events {
			if e.Type == "mint" {
				a, _ := new(big.Int).SetString(e.Attributes[3].Value, 10)
				minted.Add(minted, a)
			}
		}
		check(c)
	}
	want := new(big.Int).Sub(new(big.Int).Add(genesis, minted), burnt)
	if distribution.Outstanding(s.checkState, op).IsZero() || minted.Sign() == 0 || bank.Supply(s.checkState).Cmp(want) != 0 {
		t.Fatalf("allocated %s, minted %v, supply %v, want genesis + minted − burnt = %v", distribution.Outstanding(s.checkState, op), minted, bank.Supply(s.checkState), want)
	}
}
