package app

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/crypto/ed25519"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
)

var e18 = big.NewInt(1_000_000_000_000_000_000)

func tokens(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), e18) }

// stakingApp is an app whose genesis bonds one validator (power 10,
// operated by op) and funds keys.
type stakingApp struct {
	*App
	t      *testing.T
	valKey ed25519.PrivKey
	height int64
	now    time.Time
}

func newStakingApp(t *testing.T, op common.Address, funded ...common.Address) *stakingApp {
	return newStakingAppMint(t, mint.ZeroGenesis(DefaultDenom), op, funded...)
}

// newStakingAppMint is newStakingApp with mint's genesis section m.
func newStakingAppMint(t *testing.T, m *mint.GenesisState, op common.Address, funded ...common.Address) *stakingApp {
	alloc := types.GenesisAlloc{}
	for _, a := range funded {
		alloc[a] = types.Account{Balance: tokens(1000)}
	}
	valKey := ed25519.GenPrivKey()
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Alloc: alloc, Mint: m, Staking: &staking.GenesisState{
		UnbondingTime: "10s",
		Validators: []staking.GenesisValidator{{Moniker: "v0", Operator: op, ConsensusPubKey: valKey.PubKey().Bytes(),
			Tokens: (*staking.Amount)(tokens(10))}},
	}})
	st, err := store.Open(t.TempDir(), gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := New(st, txpool.New(txpool.Config{}), gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	now := time.Unix(1_700_000_000, 0)
	_, err = a.InitChain(context.Background(), &abci.RequestInitChain{ChainId: "ember_9000-1", Time: now, InitialHeight: 1,
		Validators: []abci.ValidatorUpdate{abci.Ed25519ValidatorUpdate(valKey.PubKey().Bytes(), 10)}})
	if err != nil {
		t.Fatal(err)
	}
	return &stakingApp{App: a, t: t, valKey: valKey, now: now}
}

func (s *stakingApp) check(raw []byte) *abci.ResponseCheckTx {
	s.t.Helper()
	res, err := s.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw, Type: abci.CheckTxType_New})
	if err != nil {
		s.t.Fatal(err)
	}
	return res
}

// block finalizes and commits a block of txs, dt after the previous one.
func (s *stakingApp) block(dt time.Duration, txs ...[]byte) *abci.ResponseFinalizeBlock {
	s.t.Helper()
	s.height++
	s.now = s.now.Add(dt)
	res, err := s.FinalizeBlock(context.Background(), &abci.RequestFinalizeBlock{Height: s.height, Time: s.now, Txs: txs,
		ProposerAddress: s.valKey.PubKey().Address(), Hash: make([]byte, 32)})
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.Commit(context.Background(), &abci.RequestCommit{}); err != nil {
		s.t.Fatal(err)
	}
	return res
}

func (s *stakingApp) balance(a common.Address) *big.Int { return s.checkState.GetBalance(a).ToBig() }

func (s *stakingApp) sign(key *ecdsa.PrivateKey, seq uint64, fee *big.Int, gas uint64, msgs ...proto.Message) []byte {
	s.t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	num := uint64(0)
	if n, ok := accounts.ReadNative(s.checkState, from); ok {
		num = n.Number
	}
	raw, err := native.Sign(key, msgs, native.SignOptions{ChainID: "ember_9000-1", AccountNumber: num, Sequence: seq, GasLimit: gas, Fee: fee, Denom: "aember"})
	if err != nil {
		s.t.Fatal(err)
	}
	return raw
}

// TestNativeSendInterleavesWithEVM: a MsgSend and an EVM tx of one sender
// in one block, sequence = nonce, fee charged exactly.
func TestNativeSendInterleavesWithEVM(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	s := newStakingApp(t, common.Address{0x77}, from)
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	fee := new(big.Int).Mul(big.NewInt(200_000), big.NewInt(2e9))
	send := s.sign(key, 0, fee, 200_000, b.Send(from, to, big.NewInt(12345)))
	if res := s.check(send); res.Code != 0 {
		t.Fatalf("CheckTx: %d %s", res.Code, res.Log)
	}
	if res := s.check(s.sign(key, 5, fee, 200_000, b.Send(from, to, big.NewInt(1)))); res.Code != module.CodeWrongSequence || res.Codespace != "sdk" ||
		res.Log != "account sequence mismatch, expected 1, got 5: incorrect account sequence" {
		t.Fatalf("wrong sequence: %d %s %q", res.Code, res.Codespace, res.Log)
	}
	if got := s.pool.PendingNonce(from, 0); got != 1 {
		t.Fatalf("pending nonce %d, want 1", got)
	}
	// What the CLI signs with: the pool-aware sequence, while the committed
	// account still says 0.
	q, _ := s.Query(context.Background(), &abci.RequestQuery{Path: QueryPendingNonce + accounts.Bech32("ember", from)})
	var pending PendingNonceJSON
	if q.Code != 0 || json.Unmarshal(q.Value, &pending) != nil || pending.Nonce != "1" || pending.Address != from {
		t.Fatalf("pending-nonce query: %d %s %s", q.Code, q.Log, q.Value)
	}
	q, _ = s.Query(context.Background(), &abci.RequestQuery{Path: QueryNativeAccount + from.Hex()})
	if q.Code != 0 || !strings.Contains(string(q.Value), `"sequence":"0"`) {
		t.Fatalf("account query: %d %s %s", q.Code, q.Log, q.Value)
	}
	if q, _ = s.Query(context.Background(), &abci.RequestQuery{Path: QueryPendingNonce + "nope"}); q.Code != CodeBadQuery {
		t.Fatalf("bad address: %d %s", q.Code, q.Log)
	}
	evmTx, _ := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
		ChainID: big.NewInt(9000), Nonce: 1, GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(2e9), Gas: 21000, To: &to, Value: big.NewInt(1)})
	evmRaw, _ := evmTx.MarshalBinary()
	if res := s.check(evmRaw); res.Code != 0 {
		t.Fatalf("EVM CheckTx: %d %s", res.Code, res.Log)
	}
	before := s.balance(from)
	var committed *CommittedBlock
	s.OnCommit(func(b *CommittedBlock) { committed = b })
	res := s.block(time.Second, send, evmRaw)
	for i, r := range res.TxResults {
		if r.Code != 0 {
			t.Fatalf("tx %d: code %d %s", i, r.Code, r.Log)
		}
	}
	if n := s.checkState.GetNonce(from); n != 2 {
		t.Fatalf("nonce %d, want 2", n)
	}
	if got := s.balance(to); got.Int64() != 12346 {
		t.Fatalf("recipient %v, want 12346", got)
	}
	// The EVM tx paid 21000 × base fee (1 gwei, no tip).
	want := new(big.Int).Sub(before, new(big.Int).Add(fee, big.NewInt(12345+1+21000*1e9)))
	if got := s.balance(from); got.Cmp(want) != 0 {
		t.Fatalf("sender %v, want %v", got, want)
	}
	// The fee collector earns the native fee above the burnt base fee ×
	// gas used (distribution shares it at the next block).
	tip := new(big.Int).Sub(fee, new(big.Int).Mul(big.NewInt(1e9), big.NewInt(res.TxResults[0].GasUsed)))
	if got := s.balance(distribution.FeeCollector); got.Cmp(tip) != 0 || res.TxResults[0].GasUsed != int64(native.GasTxBase+bank.GasMsgSend+native.GasPerByte*len(send)) {
		t.Fatalf("coinbase %v, want %v (gas used %d)", got, tip, res.TxResults[0].GasUsed)
	}
	// The published block: the EVM tx's sender, and the end balance of
	// every account the block changed, the native tx's effects included.
	if committed == nil || len(committed.Senders) != 1 || committed.Senders[0] != from || len(committed.Block.Transactions()) != 1 {
		t.Fatalf("committed block: %+v", committed)
	}
	wantBal := map[common.Address]*big.Int{from: s.balance(from), to: big.NewInt(12346), distribution.FeeCollector: tip}
	if len(committed.Balances) != len(wantBal) {
		t.Fatalf("balances of %d accounts, want %d: %v", len(committed.Balances), len(wantBal), committed.Balances)
	}
	for a, want := range wantBal {
		if got := committed.Balances[a]; got == nil || got.Cmp(want) != 0 {
			t.Fatalf("balance of %s: %v, want %v", a, got, want)
		}
	}
	var types_ []string
	for _, e := range res.TxResults[0].Events {
		types_ = append(types_, e.Type)
	}
	if got := strings.Join(types_, ","); got != "tx,tx,tx,message,coin_spent,coin_received,transfer,message" {
		t.Fatalf("events %s", got)
	}
}

// TestNativeStaking: create a validator, delegate, undelegate below one
// power, get the tokens back after the unbonding time.
func TestNativeStaking(t *testing.T) {
	opKey, _ := crypto.GenerateKey()
	op := crypto.PubkeyToAddress(opKey.PublicKey)
	delKey, _ := crypto.GenerateKey()
	del := crypto.PubkeyToAddress(delKey.PublicKey)
	s := newStakingApp(t, common.Address{0x99}, op, del)
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	cons := ed25519.GenPrivKey().PubKey().Bytes()
	fee := new(big.Int).Mul(big.NewInt(300_000), big.NewInt(1e9))
	create := s.sign(opKey, 0, fee, 300_000, b.CreateValidator(op, cons, "new", tokens(1)))
	delegate := s.sign(delKey, 0, fee, 300_000, b.Delegate(del, op, new(big.Int).Add(tokens(1), big.NewInt(5))))
	if r := s.check(create); r.Code != 0 {
		t.Fatalf("create: %s", r.Log)
	}
	res := s.block(time.Second, create)
	if len(res.ValidatorUpdates) != 1 || res.ValidatorUpdates[0].Power != 1 {
		t.Fatalf("updates %v", res.ValidatorUpdates)
	}
	res = s.block(time.Second, delegate)
	if res.TxResults[0].Code != 0 || len(res.ValidatorUpdates) != 1 || res.ValidatorUpdates[0].Power != 2 {
		t.Fatalf("delegate: %v %v", res.TxResults[0], res.ValidatorUpdates)
	}
	if got := s.balance(staking.BondedPool); got.Cmp(new(big.Int).Add(tokens(12), big.NewInt(5))) != 0 {
		t.Fatalf("bonded pool %v", got)
	}
	delBefore := s.balance(del)
	undelegate := s.sign(delKey, 1, fee, 300_000, b.Undelegate(del, op, new(big.Int).Add(tokens(1), big.NewInt(5))))
	undelegateOp := s.sign(opKey, 1, fee, 300_000, b.Undelegate(op, op, big.NewInt(1)))
	res = s.block(time.Second, undelegate, undelegateOp)
	if res.TxResults[0].Code != 0 || res.TxResults[1].Code != 0 || len(res.ValidatorUpdates) != 1 || res.ValidatorUpdates[0].Power != 0 {
		t.Fatalf("undelegate: %v %v", res.TxResults, res.ValidatorUpdates)
	}
	if got := s.balance(del); got.Cmp(new(big.Int).Sub(delBefore, fee)) != 0 {
		t.Fatalf("delegator %v before maturity", got)
	}
	s.block(5 * time.Second)
	if got := s.balance(del); got.Cmp(new(big.Int).Sub(delBefore, fee)) != 0 {
		t.Fatalf("delegator %v paid early", got)
	}
	res = s.block(5 * time.Second)
	if got := s.balance(del); got.Cmp(new(big.Int).Add(new(big.Int).Sub(delBefore, fee), new(big.Int).Add(tokens(1), big.NewInt(5)))) != 0 {
		t.Fatalf("delegator %v after maturity", got)
	}
	if len(res.Events) != 6 || res.Events[2].Type != "complete_unbonding" {
		t.Fatalf("block events %v", res.Events)
	}
	// The validator left the bonded set (power 0): its remaining tokens
	// sit in the not-bonded pool while it unbonds.
	if got := s.balance(staking.NotBondedPool); got.Cmp(new(big.Int).Sub(tokens(1), big.NewInt(1))) != 0 {
		t.Fatalf("not-bonded pool %v", got)
	}
}

// TestNativeDuplicateInBlock: a proposer repeating a native tx gets the
// first executed and the copy rejected, each with its own result.
func TestNativeDuplicateInBlock(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	s := newStakingApp(t, common.Address{0x77}, from)
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	raw := s.sign(key, 0, big.NewInt(200_000*2e9), 200_000, b.Send(from, common.Address{1}, big.NewInt(3)))
	res := s.block(time.Second, raw, raw, []byte{0x0a, 0x01})
	if res.TxResults[0].Code != 0 || res.TxResults[1].Code != module.CodeWrongSequence || res.TxResults[1].Codespace != "sdk" ||
		res.TxResults[2].Code != module.CodeTxDecode {
		t.Fatalf("results %v", res.TxResults)
	}
	if got := s.balance(common.Address{1}); got.Int64() != 3 {
		t.Fatalf("recipient %v", got)
	}
}

// TestStakingGenesisMismatch: CometBFT's genesis validators must be the
// staking section's, with power tokens/10^18.
func TestStakingGenesisMismatch(t *testing.T) {
	valKey := ed25519.GenPrivKey()
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Staking: &staking.GenesisState{UnbondingTime: "1h",
		Validators: []staking.GenesisValidator{{Moniker: "v", Operator: common.Address{1}, ConsensusPubKey: valKey.PubKey().Bytes(), Tokens: (*staking.Amount)(tokens(3))}}}})
	st, err := store.Open(t.TempDir(), gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := New(st, txpool.New(txpool.Config{}), gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	_, err = a.InitChain(context.Background(), &abci.RequestInitChain{ChainId: "ember_9000-1", Time: time.Unix(1, 0), InitialHeight: 1,
		Validators: []abci.ValidatorUpdate{abci.Ed25519ValidatorUpdate(valKey.PubKey().Bytes(), 10)}})
	if err == nil || !strings.Contains(err.Error(), "has power 10 in the CometBFT genesis but tokens/10^18 = 3 in app_state.staking") {
		t.Fatalf("InitChain: %v", err)
	}
}

// TestDelegationChangePaysRewards: a delegator's rewards accrued from mint
// are paid, with withdraw_rewards and its coin events under the message's
// msg_index, when it delegates more: the SDK's automatic withdrawal.
func TestDelegationChangePaysRewards(t *testing.T) {
	opKey, _ := crypto.GenerateKey()
	op := crypto.PubkeyToAddress(opKey.PublicKey)
	s := newStakingAppMint(t, mint.DefaultGenesis(DefaultDenom), op, op)
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	fee := new(big.Int).Mul(big.NewInt(300_000), big.NewInt(1e9))
	for range 3 { // mint accrues to the only validator, which signs every block
		s.blockVoted(time.Second)
	}
	before := s.balance(op)
	res := s.blockVoted(time.Second, s.sign(opKey, 0, fee, 300_000, b.Delegate(op, op, tokens(1))))
	if res.TxResults[0].Code != 0 {
		t.Fatalf("delegate: %s", res.TxResults[0].Log)
	}
	var paid *big.Int
	for _, ev := range res.TxResults[0].Events {
		if ev.Type != "withdraw_rewards" {
			continue
		}
		attrs := map[string]string{}
		for _, a := range ev.Attributes {
			attrs[a.Key] = a.Value
		}
		if attrs["msg_index"] != "0" || attrs["delegator"] != accounts.Bech32("ember", op) {
			t.Fatalf("withdraw_rewards %v", attrs)
		}
		paid, _ = new(big.Int).SetString(strings.TrimSuffix(attrs["amount"], "aember"), 10)
	}
	if paid == nil || paid.Sign() <= 0 {
		t.Fatalf("no withdraw_rewards event with an amount in %v", res.TxResults[0].Events)
	}
	// The operator paid the fee and the bond, and received its rewards.
	want := new(big.Int).Sub(new(big.Int).Sub(before, fee), tokens(1))
	if got := s.balance(op); got.Cmp(want.Add(want, paid)) != 0 {
		t.Fatalf("operator balance %v, want %v (rewards %v)", got, want, paid)
	}
}

// blockVoted is block with the genesis validator's signature in the last
// commit, so distribution allocates to it.
func (s *stakingApp) blockVoted(dt time.Duration, txs ...[]byte) *abci.ResponseFinalizeBlock {
	s.t.Helper()
	s.height++
	s.now = s.now.Add(dt)
	commit := abci.CommitInfo{Votes: []abci.VoteInfo{{Validator: abci.Validator{Address: s.valKey.PubKey().Address(), Power: 10}, BlockIdFlag: cmtproto.BlockIDFlagCommit}}}
	res, err := s.FinalizeBlock(context.Background(), &abci.RequestFinalizeBlock{Height: s.height, Time: s.now, Txs: txs,
		ProposerAddress: s.valKey.PubKey().Address(), Hash: make([]byte, 32), DecidedLastCommit: commit})
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.Commit(context.Background(), &abci.RequestCommit{}); err != nil {
		s.t.Fatal(err)
	}
	return res
}
