package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"log/slog"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/snapshot"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
	"github.com/emberchain/ember/upgrade"
)

// clzInit deploys a contract that stores CLZ(calldata word 0) in slot 0
// and returns it: PUSH1 0 CALLDATALOAD CLZ DUP1 PUSH1 0 SSTORE PUSH1 0
// MSTORE PUSH1 32 PUSH1 0 RETURN, behind the 11-byte copy-and-return
// initcode. CLZ (0x1e, EIP-7939) is an invalid opcode before Osaka.
var clzInit = common.FromHex("0x601080600b6000396000f3" + "6000351e8060005560005260206000f3")

// p256Init deploys a contract that STATICCALLs P256VERIFY (0x100,
// EIP-7951) with its calldata and stores the call's success in slot 2, the
// return data size in slot 1 and the returned word in slot 0. Before
// Osaka 0x100 is an empty account: success, no return data.
var p256Init = common.FromHex("0x602280600b6000396000f3" +
	"366000600037" + // CALLDATACOPY(0, 0, CALLDATASIZE)
	"6020610100366000610100" + "5afa" + // STATICCALL(GAS, 0x100, 0, size, 0x100, 32)
	"600255" + // SSTORE(2, success)
	"3d600155" + // SSTORE(1, RETURNDATASIZE)
	"6101005160005500") // SSTORE(0, MLOAD(0x100)); STOP

// p256Input is a P256VERIFY input (hash, r, s, x, y) signed by a fresh
// key; bad flips a bit of the hash, so the signature no longer verifies.
func p256Input(t testing.TB, bad bool) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hash := sha256.Sum256([]byte("ember osaka"))
	r, s, err := ecdsa.Sign(rand.Reader, key, hash[:])
	if err != nil {
		t.Fatal(err)
	}
	if bad {
		hash[0] ^= 1
	}
	in := append([]byte{}, hash[:]...)
	for _, n := range []*big.Int{r, s, key.X, key.Y} {
		in = append(in, common.BigToHash(n).Bytes()...)
	}
	return in
}

// planAt stands for the upgrade module: at height it runs the "osaka"
// plan's handler in the pre-block work, with the block's EVM time, as
// x/upgrade runs a plan due at its height.
type planAt struct{ height int64 }

func (planAt) Name() string               { return "testupgrade" }
func (planAt) Msgs() []*module.MsgHandler { return nil }
func (p planAt) PreBlock(st module.State, b *module.Block) error {
	if b.Env.Height != p.height {
		return nil
	}
	h, ok := upgrade.HandlerFor(OsakaUpgrade)
	if !ok {
		return nil
	}
	plan := upgrade.Plan{Name: OsakaUpgrade, Height: p.height}
	return h(st, &upgrade.Context{Plan: plan, Height: p.height, Time: uint64(b.Env.Time.Unix())})
}

// forkChain is a chain whose "osaka" plan may apply at a height.
type forkChain struct {
	*App
	t      *testing.T
	key    *ecdsa.PrivateKey
	other  *ecdsa.PrivateKey // sends only to CheckTx
	nonce  uint64
	height int64
	closed bool
}

// close closes the chain's store once.
func (c *forkChain) close() {
	if !c.closed {
		c.closed = true
		c.store.Close()
	}
}

const forkGenesisTime = 1_700_000_000

// newForkChain is a chain of genesis config cfg whose "osaka" plan applies
// at planHeight (0: none).
func newForkChain(t *testing.T, dir string, planHeight int64, cfg *params.ChainConfig) *forkChain {
	key, _ := crypto.GenerateKey()
	other, _ := crypto.GenerateKey()
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Alloc: types.GenesisAlloc{
		crypto.PubkeyToAddress(key.PublicKey):   {Balance: new(big.Int).Lsh(big.NewInt(1), 100)},
		crypto.PubkeyToAddress(other.PublicKey): {Balance: new(big.Int).Lsh(big.NewInt(1), 100)}}})
	gs.EVM.Config = cfg
	st, err := store.Open(dir, gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	a := New(st, txpool.New(txpool.Config{}), gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	a.modules = module.NewManager(append(native.Modules.Modules(), planAt{planHeight})...)
	if _, err := a.InitChain(context.Background(), &abci.RequestInitChain{ChainId: "ember_9000-1", Time: time.Unix(forkGenesisTime, 0), InitialHeight: 1}); err != nil {
		t.Fatal(err)
	}
	c := &forkChain{App: a, t: t, key: key, other: other}
	t.Cleanup(c.close)
	return c
}

// tx signs the next transaction of the chain's key.
func (c *forkChain) tx(to *common.Address, gas uint64, data []byte) []byte {
	c.t.Helper()
	tx, err := types.SignNewTx(c.key, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
		ChainID: big.NewInt(9000), Nonce: c.nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(10e9), Gas: gas, To: to, Data: data,
	})
	if err != nil {
		c.t.Fatal(err)
	}
	c.nonce++
	raw, _ := tx.MarshalBinary()
	return raw
}

// block finalizes and commits a block of txs CometBFT timed at secs and
// returns its receipts.
func (c *forkChain) block(secs int64, txs ...[]byte) (*types.Header, types.Receipts) {
	c.t.Helper()
	c.height++
	if _, err := c.FinalizeBlock(context.Background(), &abci.RequestFinalizeBlock{Height: c.height, Time: time.Unix(secs, 0), Txs: txs, Hash: make([]byte, 32)}); err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.Commit(context.Background(), &abci.RequestCommit{}); err != nil {
		c.t.Fatal(err)
	}
	head := c.store.Head()
	receipts := c.store.Receipts(head)
	if len(receipts) != len(txs) {
		c.t.Fatalf("block %d: %d receipts for %d txs", c.height, len(receipts), len(txs))
	}
	return head, receipts
}

func (c *forkChain) slot(addr common.Address, n int64) uint64 {
	return c.checkState.GetState(addr, common.BigToHash(big.NewInt(n))).Big().Uint64()
}

// TestOsakaUpgradeActivates runs the "osaka" plan's handler at height 3 of
// a Prague chain whose CometBFT times repeat: blocks 1 and 2 share block
// 1's time, and so would 3; block 3's time is raised to block 2's + 1 and
// recorded as Osaka's activation time. CLZ fails and P256VERIFY returns
// nothing in block 2; both work in block 3 and after; a tx above 2^24 gas
// is admitted before and refused after with go-ethereum's error; a
// restart reads the schedule back.
func TestOsakaUpgradeActivates(t *testing.T) {
	dir := t.TempDir()
	c := newForkChain(t, dir, 3, evm.PragueChainConfig(big.NewInt(9000))) // a chain made before Osaka
	from := crypto.PubkeyToAddress(c.key.PublicKey)
	clz, p256 := crypto.CreateAddress(from, 0), crypto.CreateAddress(from, 1)
	word := common.BigToHash(new(big.Int).Lsh(big.NewInt(1), 200)).Bytes() // 55 leading zero bits

	h1, r1 := c.block(forkGenesisTime+1, c.tx(nil, 200_000, clzInit), c.tx(nil, 200_000, p256Init))
	if r1[0].Status != 1 || r1[1].Status != 1 {
		t.Fatalf("deployments failed: %d %d", r1[0].Status, r1[1].Status)
	}
	raws2 := [][]byte{c.tx(&clz, 100_000, word), c.tx(&p256, 100_000, p256Input(t, false))}
	h2, r2 := c.block(forkGenesisTime+1, raws2...)
	if h2.Time != h1.Time {
		t.Fatalf("block 2 time %d, want block 1's %d (a repeated CometBFT second)", h2.Time, h1.Time)
	}
	if r2[0].Status != 0 || r2[0].GasUsed != 100_000 {
		t.Fatalf("CLZ before Osaka: status %d gas %d, want 0 and all 100000 (invalid opcode)", r2[0].Status, r2[0].GasUsed)
	}
	if r2[1].Status != 1 || c.slot(p256, 2) != 1 || c.slot(p256, 1) != 0 || c.slot(p256, 0) != 0 {
		t.Fatalf("P256VERIFY before Osaka: status %d, success %d, size %d, word %d; want 1, 1, 0, 0", r2[1].Status, c.slot(p256, 2), c.slot(p256, 1), c.slot(p256, 0))
	}
	if c.store.Config().OsakaTime != nil {
		t.Fatal("Osaka scheduled before its plan's height")
	}
	res, overCap := c.checkGasCap(t, 0)
	if res.Code != CodeOK {
		t.Fatalf("a 2^24+1 gas tx before Osaka: code %d %q, want admitted", res.Code, res.Log)
	}
	if got := c.propose(forkGenesisTime+1, overCap); len(got) != 1 {
		t.Fatalf("a Prague proposal takes %d txs, want the 2^24+1 gas one", len(got))
	}

	raws3 := [][]byte{c.tx(&clz, 100_000, word), c.tx(&p256, 100_000, p256Input(t, true))}
	h3, r3 := c.block(forkGenesisTime+1, raws3...)
	if h3.Time != h2.Time+1 {
		t.Fatalf("activation block time %d, want parent's %d + 1", h3.Time, h2.Time)
	}
	cfg := c.store.Config()
	if cfg.OsakaTime == nil || *cfg.OsakaTime != h3.Time {
		t.Fatalf("OsakaTime %v, want the activation block's time %d", cfg.OsakaTime, h3.Time)
	}
	if got := evm.Activations(c.checkState); len(got) != 1 || got[0] != (evm.Activation{Fork: "osaka", Time: h3.Time}) {
		t.Fatalf("recorded %v", got)
	}
	if cfg.IsOsaka(h2.Number, h2.Time) || !cfg.IsOsaka(h3.Number, h3.Time) {
		t.Fatal("the schedule must put block 2 on Prague and block 3 on Osaka")
	}
	if r3[0].Status != 1 || c.slot(clz, 0) != 55 {
		t.Fatalf("CLZ under Osaka: status %d, slot %d; want 1 and 55", r3[0].Status, c.slot(clz, 0))
	}
	if r3[1].Status != 1 || c.slot(p256, 2) != 1 || c.slot(p256, 1) != 0 || c.slot(p256, 0) != 0 {
		t.Fatalf("P256VERIFY of a bad signature: success %d, size %d, word %d; want 1, 0, 0", c.slot(p256, 2), c.slot(p256, 1), c.slot(p256, 0))
	}

	h4, r4 := c.block(forkGenesisTime, c.tx(&p256, 100_000, p256Input(t, false))) // CometBFT time behind the EVM's
	if h4.Time != h3.Time || r4[0].Status != 1 || c.slot(p256, 1) != 32 || c.slot(p256, 0) != 1 {
		t.Fatalf("P256VERIFY of a good signature at time %d: status %d, size %d, word %d; want time %d, 1, 32, 1", h4.Time, r4[0].Status, c.slot(p256, 1), c.slot(p256, 0), h3.Time)
	}
	res, err := c.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: overCap, Type: abci.CheckTxType_Recheck})
	if err != nil || res.Code != CodeNonce || c.pool.Get(txpool.KeyOf(overCap)) != nil {
		t.Fatalf("recheck of the pooled 2^24+1 gas tx under Osaka: %v %v, want it dropped from the pool", res, err)
	}
	if res, _ := c.checkGasCap(t, 1); res.Code != CodeInvalid || res.Log != "transaction gas limit too high (cap: 16777216, tx: 16777217)" {
		t.Fatalf("a 2^24+1 gas tx under Osaka: code %d %q", res.Code, res.Log)
	}

	c.replay(h2, raws2, r2) // a tracer's replay runs each height's fork
	c.replay(h3, raws3, r3)

	c.close() // restart: the schedule comes back from the head state
	st, err := store.Open(dir, evm.PragueChainConfig(big.NewInt(9000)), store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	New(st, txpool.New(txpool.Config{}), c.genesis, c.log)
	if got := st.Config().OsakaTime; got == nil || *got != h3.Time {
		t.Fatalf("after a restart OsakaTime %v, want %d", got, h3.Time)
	}
}

// checkGasCap asks CheckTx about a transfer of 2^24+1 gas with nonce from
// the other key (admitted, it waits in the pool: the blocks here hold only
// the transactions the test gives them).
func (c *forkChain) checkGasCap(t *testing.T, nonce uint64) (*abci.ResponseCheckTx, []byte) {
	t.Helper()
	tx, err := types.SignNewTx(c.other, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
		ChainID: big.NewInt(9000), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(10e9), Gas: 1<<24 + 1, To: &common.Address{1},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	res, err := c.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw, Type: abci.CheckTxType_New})
	if err != nil {
		t.Fatal(err)
	}
	return res, raw
}

// propose is the proposal PrepareProposal makes of the mempool's txs for
// the next block, decided at secs.
func (c *forkChain) propose(secs int64, txs ...[]byte) [][]byte {
	c.t.Helper()
	res, err := c.PrepareProposal(context.Background(), &abci.RequestPrepareProposal{Height: c.height + 1, Time: time.Unix(secs, 0), Txs: txs, MaxTxBytes: 1 << 22})
	if err != nil {
		c.t.Fatal(err)
	}
	return res.Txs
}

// replay re-executes the block of h (its CometBFT txs raws) as a tracer
// does and checks each EVM transaction's receipt against want.
func (c *forkChain) replay(h *types.Header, raws [][]byte, want types.Receipts) {
	c.t.Helper()
	block := c.store.BlockByNumber(h.Number.Uint64())
	parent, err := c.store.StateAt(c.store.HeaderByHash(h.ParentHash).Root)
	if err != nil {
		c.t.Fatal(err)
	}
	r, err := c.NewReplay(context.Background(), block, raws, parent)
	if err != nil {
		c.t.Fatal(err)
	}
	defer r.Release()
	for i, w := range want {
		if err := r.To(i); err != nil {
			c.t.Fatal(err)
		}
		out, err := r.Next(nil)
		if err != nil {
			c.t.Fatal(err)
		}
		if out.Receipt.Status != w.Status || out.Receipt.GasUsed != w.GasUsed {
			c.t.Fatalf("replay of block %d tx %d: status %d gas %d, want %d %d", h.Number, i, out.Receipt.Status, out.Receipt.GasUsed, w.Status, w.GasUsed)
		}
	}
}

// TestBlockSizeCap: under Osaka a proposal whose EVM transactions exceed
// params.MaxBlockSize less the header headroom (7,388,608 bytes) is
// rejected, one exactly at it accepted; a Prague chain takes both (CometBFT's
// byte budget bounds it).
func TestBlockSizeCap(t *testing.T) {
	osaka := newForkChain(t, t.TempDir(), 0, evm.ChainConfig(big.NewInt(9000)))
	prague := newForkChain(t, t.TempDir(), 0, evm.PragueChainConfig(big.NewInt(9000)))
	atCap := [][]byte{make([]byte, 7_388_608)}
	overCap := [][]byte{make([]byte, 7_388_608), {0x02}}
	for _, c := range []struct {
		name  string
		chain *forkChain
		txs   [][]byte
		want  abci.ResponseProcessProposal_ProposalStatus
	}{
		{"osaka, at the cap", osaka, atCap, abci.ResponseProcessProposal_ACCEPT},
		{"osaka, one byte over", osaka, overCap, abci.ResponseProcessProposal_REJECT},
		{"prague, one byte over", prague, overCap, abci.ResponseProcessProposal_ACCEPT},
	} {
		res, err := c.chain.ProcessProposal(context.Background(), &abci.RequestProcessProposal{Height: 1, Time: time.Unix(forkGenesisTime+1, 0), Txs: c.txs})
		if err != nil || res.Status != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, res, err, c.want)
		}
	}
}

// TestProposalOsakaByTime: on a chain whose genesis schedules Osaka at a
// time, a transaction over EIP-7825's cap admitted before it goes into a
// proposal for a block before that time, not into one at it, and neither
// does its sender's next nonce (it could not run after the gap); the block
// that reaches the time drops it from the pool.
func TestProposalOsakaByTime(t *testing.T) {
	cfg := evm.PragueChainConfig(big.NewInt(9000))
	at := uint64(forkGenesisTime + 10)
	cfg.OsakaTime = &at
	c := newForkChain(t, t.TempDir(), 0, cfg)
	res, overCap := c.checkGasCap(t, 0)
	if res.Code != CodeOK {
		t.Fatalf("a 2^24+1 gas tx before Osaka: %d %q", res.Code, res.Log)
	}
	next := signedFrom(t, c.other, 1)
	if res, _ := c.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: next, Type: abci.CheckTxType_New}); res.Code != CodeOK {
		t.Fatalf("its sender's next tx: %d %q", res.Code, res.Log)
	}
	if got := c.propose(forkGenesisTime+9, overCap, next); len(got) != 2 {
		t.Fatalf("a proposal before the Osaka time takes %d txs, want both", len(got))
	}
	if got := c.propose(forkGenesisTime+10, overCap, next); len(got) != 0 {
		t.Fatalf("a proposal at the Osaka time takes %d txs, want none", len(got))
	}
	c.block(forkGenesisTime + 10)
	if c.pool.Get(txpool.KeyOf(overCap)) != nil {
		t.Fatal("the first Osaka block left the over-cap tx in the pool")
	}
}

// signedFrom is a 21,000-gas transfer from key with nonce.
func signedFrom(t *testing.T, key *ecdsa.PrivateKey, nonce uint64) []byte {
	t.Helper()
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
		ChainID: big.NewInt(9000), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(10e9), Gas: 21000, To: &common.Address{1},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return raw
}

// TestStateSyncReadsForkSchedule: a node state-synced to a height after
// an "osaka" plan's block reads the schedule from the restored state: its
// config has Osaka at that block's time, though its genesis is Prague.
func TestStateSyncReadsForkSchedule(t *testing.T) {
	bg := context.Background()
	src := newForkChain(t, t.TempDir(), 2, evm.PragueChainConfig(big.NewInt(9000)))
	src.block(forkGenesisTime + 1)
	h2, _ := src.block(forkGenesisTime + 1)
	src.block(forkGenesisTime + 2)
	m, err := snapshot.Open(filepath.Join(t.TempDir(), "snapshots"), 2, src.log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(bg, src.store, 3); err != nil {
		t.Fatal(err)
	}
	src.SetSnapshots(m)
	list, err := src.ListSnapshots(bg, &abci.RequestListSnapshots{})
	if err != nil || len(list.Snapshots) != 1 {
		t.Fatalf("ListSnapshots %+v %v", list, err)
	}
	snap := list.Snapshots[0]

	st, err := store.Open(t.TempDir(), src.config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dst := New(st, txpool.New(txpool.Config{}), src.genesis, src.log)
	offer, err := dst.OfferSnapshot(bg, &abci.RequestOfferSnapshot{Snapshot: snap, AppHash: src.store.Head().Root.Bytes()})
	if err != nil || offer.Result != abci.ResponseOfferSnapshot_ACCEPT {
		t.Fatalf("offer: %v %v", offer, err)
	}
	for i := uint32(0); i < snap.Chunks; i++ {
		chunk, err := src.LoadSnapshotChunk(bg, &abci.RequestLoadSnapshotChunk{Height: 3, Format: snap.Format, Chunk: i})
		if err != nil {
			t.Fatal(err)
		}
		res, err := dst.ApplySnapshotChunk(bg, &abci.RequestApplySnapshotChunk{Index: i, Chunk: chunk.Chunk, Sender: "peer"})
		if err != nil || res.Result != abci.ResponseApplySnapshotChunk_ACCEPT {
			t.Fatalf("chunk %d: %+v %v", i, res, err)
		}
	}
	if h2.Time != forkGenesisTime+2 {
		t.Fatalf("activation block time %d, want %d", h2.Time, forkGenesisTime+2)
	}
	if got := st.Config().OsakaTime; got == nil || *got != h2.Time {
		t.Fatalf("restored node's OsakaTime %v, want %d", got, h2.Time)
	}
}

// TestOsakaUpgradeOnOsakaChain: the "osaka" plan on a chain that runs Osaka
// from genesis records its block's time and changes nothing else: the
// block keeps its parent's (repeated) time and the schedule its config.
func TestOsakaUpgradeOnOsakaChain(t *testing.T) {
	c := newForkChain(t, t.TempDir(), 2, evm.ChainConfig(big.NewInt(9000)))
	base := c.store.Config()
	h1, _ := c.block(forkGenesisTime + 1)
	h2, _ := c.block(forkGenesisTime + 1)
	if h2.Time != h1.Time {
		t.Fatalf("plan block time %d, want its parent's %d", h2.Time, h1.Time)
	}
	if got := evm.Activations(c.checkState); len(got) != 1 || got[0] != (evm.Activation{Fork: "osaka", Time: h2.Time}) {
		t.Fatalf("recorded %v", got)
	}
	if c.store.Config() != base {
		t.Fatal("the config changed")
	}
}
