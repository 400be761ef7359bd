package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/internal/wait"
)

// poolStatus is txpool_status.
type poolStatus struct {
	Pending hexutil.Uint `json:"pending"`
	Queued  hexutil.Uint `json:"queued"`
}

// poolContent is txpool_content: pending/queued → address → nonce → tx.
type poolContent map[string]map[string]map[string]map[string]any

func (n *Node) poolStatus(t *testing.T) poolStatus {
	t.Helper()
	var s poolStatus
	mustCall(t, n, &s, "txpool_status")
	return s
}

func (n *Node) poolContent(t *testing.T) poolContent {
	t.Helper()
	var c poolContent
	mustCall(t, n, &c, "txpool_content")
	return c
}

// nonces lists the nonce keys of one sender's part of the content.
func (c poolContent) nonces(part string, addr common.Address) []string {
	var out []string
	for nonce := range c[part][addr.Hex()] {
		out = append(out, nonce)
	}
	return sortedStrings(out)
}

func sortedStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// waitPool polls txpool_status until it reads want (the pool is reset
// right after a block's receipts become readable).
func (n *Node) waitPool(t *testing.T, want poolStatus) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, fmt.Sprintf("txpool_status %+v", want), func() error {
		got := n.poolStatus(t)
		return wait.Check(got == want, "%+v", got)
	})
}

// mempoolTxs is how many txs CometBFT's mempool holds.
func (n *Node) mempoolTxs(t *testing.T) int {
	t.Helper()
	var res struct {
		NTxs string `json:"n_txs"`
	}
	n.CometGet(t, "num_unconfirmed_txs", url.Values{}, &res)
	var v int
	fmt.Sscan(res.NTxs, &v)
	return v
}

// waitMempool polls CometBFT's mempool size until it is want (removals of
// displaced txs run off the ABCI goroutine).
func (n *Node) waitMempool(t *testing.T, want int) {
	t.Helper()
	wait.Eventually(t, 5*time.Second, fmt.Sprintf("CometBFT's mempool to hold %d txs", want), func() error {
		got := n.mempoolTxs(t)
		return wait.Check(got == want, "%d txs", got)
	})
}

func (n *Node) pendingNonce(t *testing.T, addr common.Address) uint64 {
	t.Helper()
	nonce, err := n.Eth.PendingNonceAt(ctx(t), addr)
	if err != nil {
		t.Fatal(err)
	}
	return nonce
}

// mustSend submits tx and fails the test on an error.
func (n *Node) mustSend(t *testing.T, tx *types.Transaction) {
	t.Helper()
	if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
		t.Fatalf("send nonce %d: %v", tx.Nonce(), err)
	}
}

// sendErr submits tx and checks it is refused with want.
func (n *Node) sendErr(t *testing.T, tx *types.Transaction, want string) {
	t.Helper()
	if err := n.Eth.SendTransaction(ctx(t), tx); err == nil || err.Error() != want {
		t.Fatalf("send nonce %d: err %v, want %q", tx.Nonce(), err, want)
	}
}

// TestTxpoolNoncesOutOfOrder sends nonces 3, 1, 2, 0: the first three wait
// queued (in txpool_status and txpool_content, not in CometBFT's mempool,
// no block made for them), then 0 fills the gap and all four land in nonce
// order; afterwards the pool holds none of them.
func TestTxpoolNoncesOutOfOrder(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	key := devKeys[6]
	to := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	txs := map[uint64]*types.Transaction{}
	for _, nonce := range []uint64{3, 1, 2, 0} {
		txs[nonce] = n.signTx(t, key.Private, txOpts{Nonce: ptr(nonce), To: &to, Value: big.NewInt(int64(nonce + 1))})
	}
	head := n.waitNextBlock(t, 0) // CometBFT's first block comes without txs
	for _, nonce := range []uint64{3, 1, 2} {
		n.mustSend(t, txs[nonce])
	}
	if s := n.poolStatus(t); s != (poolStatus{Pending: 0, Queued: 3}) {
		t.Fatalf("txpool_status with a gap at 0: %+v", s)
	}
	c := n.poolContent(t)
	if got := c.nonces("queued", key.Address); !reflect.DeepEqual(got, []string{"1", "2", "3"}) || len(c["pending"]) != 0 {
		t.Fatalf("txpool_content queued %v, pending %v", got, c["pending"])
	}
	if p := n.pendingNonce(t, key.Address); p != 0 {
		t.Fatalf("pending nonce %d with every tx queued, want 0", p)
	}
	if got, isPending, err := n.Eth.TransactionByHash(ctx(t), txs[2].Hash()); err != nil || !isPending || got.Hash() != txs[2].Hash() {
		t.Fatalf("queued tx by hash: %v pending=%v", err, isPending)
	}
	// Queued txs stay out of CometBFT's mempool, so no block is made: the
	// idle half second is what is checked, not a wait for something.
	time.Sleep(500 * time.Millisecond)
	if now, _ := n.Eth.BlockNumber(ctx(t)); now != head || n.mempoolTxs(t) != 0 {
		t.Fatalf("blocks %d → %d, CometBFT mempool %d txs while only queued txs wait", head, now, n.mempoolTxs(t))
	}

	n.mustSend(t, txs[0])
	var last [2]uint64 // block, index of the previous nonce
	for nonce := uint64(0); nonce < 4; nonce++ {
		r := n.WaitReceipt(t, txs[nonce].Hash())
		at := [2]uint64{r.BlockNumber.Uint64(), uint64(r.TransactionIndex)}
		if r.Status != 1 || (nonce > 0 && (at[0] < last[0] || at[0] == last[0] && at[1] <= last[1])) {
			t.Fatalf("nonce %d: status %d at block %d index %d, after %v", nonce, r.Status, at[0], at[1], last)
		}
		last = at
	}
	n.waitPool(t, poolStatus{})
	if c := n.poolContent(t); len(c["pending"]) != 0 || len(c["queued"]) != 0 {
		t.Fatalf("txpool_content after the block: %v", c)
	}
	if _, isPending, err := n.Eth.TransactionByHash(ctx(t), txs[3].Hash()); err != nil || isPending {
		t.Fatalf("mined tx by hash: %v pending=%v", err, isPending)
	}
	if p := n.pendingNonce(t, key.Address); p != 4 {
		t.Fatalf("pending nonce after the block %d, want 4", p)
	}
}

// restartBlocksEvery stops n and restarts it (emberd start) with a block
// every d whatever the mempool holds, the first one d after the restart,
// so that pending txs stay pending in between; appKV rewrites app.toml keys.
func (n *Node) restartBlocksEvery(t *testing.T, d time.Duration, appKV map[string]string) {
	t.Helper()
	n.Stop()
	path := n.Home + "/config/config.toml"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for key, v := range map[string]string{
		"timeout_commit": fmt.Sprintf("%q", d.String()), "skip_timeout_commit": "false",
		"create_empty_blocks": "true", "create_empty_blocks_interval": `"0s"`,
	} {
		re := regexp.MustCompile(`(?m)^` + key + ` = .*$`)
		if !re.MatchString(s) {
			t.Fatalf("config.toml has no %s", key)
		}
		s = re.ReplaceAllString(s, key+" = "+v)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	setAppConfig(t, n, appKV)
	n.Start("start")
}

// waitNextBlock waits for the head to pass from.
func (n *Node) waitNextBlock(t *testing.T, from uint64) uint64 {
	t.Helper()
	return wait.For(t, 30*time.Second, fmt.Sprintf("a block after %d", from), func() (uint64, error) {
		now, err := n.Eth.BlockNumber(ctx(t))
		if err != nil {
			return 0, err
		}
		return now, wait.Check(now > from, "head %d", now)
	})
}

// TestTxpoolPendingReplacementAndEviction runs with a block every 4 s and
// room for 3 pending and 2 queued txs. Right after a block: pending txs
// count in the pending nonce; a same-nonce replacement with 5% more is
// refused with geth's error and with 10% more takes the old tx's place
// everywhere (CometBFT's mempool too); a better-paying tx of another
// account evicts the cheapest pending tail and a worse one is refused; the
// evicted tx is gone from every view; the same for the queue. At the next
// block exactly the surviving pending txs land. Not parallel: each step
// must land within one 4 s block, which a busy CPU can stretch.
func TestTxpoolPendingReplacementAndEviction(t *testing.T) {
	n := StartDev(t)
	n.restartBlocksEvery(t, 4*time.Second, map[string]string{"global-slots": "3", "global-queue": "2"})
	a, c := devKeys[1], devKeys[3]
	to := common.HexToAddress("0x00000000000000000000000000000000000000a2")
	sign := func(k int, nonce uint64, tip, feeCap *big.Int) *types.Transaction {
		return n.signTx(t, devKeys[k].Private, txOpts{Nonce: ptr(nonce), To: &to, Value: big.NewInt(1), Tip: tip, FeeCap: feeCap})
	}
	head, _ := n.Eth.BlockNumber(ctx(t))
	head = n.waitNextBlock(t, head) // a block just happened: 4 s to act

	a0, a1, a2 := sign(1, 0, gwei(2), gwei(50)), sign(1, 1, gwei(2), gwei(50)), sign(1, 2, gwei(2), gwei(50))
	for _, tx := range []*types.Transaction{a0, a1, a2} {
		n.mustSend(t, tx)
	}
	if p, l := n.pendingNonce(t, a.Address), nonceAt(t, n, a.Address); p != 3 || l != 0 {
		t.Fatalf("pending nonce %d (want 3), latest %d (want 0)", p, l)
	}
	// Replacement: +5% on both fees is refused, +10% replaces.
	n.sendErr(t, sign(1, 1, big.NewInt(2_100_000_000), big.NewInt(52_500_000_000)), "replacement transaction underpriced")
	a1x := sign(1, 1, big.NewInt(2_200_000_000), gwei(55))
	n.mustSend(t, a1x)
	n.waitMempool(t, 3)
	if got := n.poolContent(t)["pending"][a.Address.Hex()]["1"]["hash"]; got != a1x.Hash().Hex() {
		t.Fatalf("pending nonce 1 is %v, want the replacement %s", got, a1x.Hash().Hex())
	}
	assertGone(t, n, a1, a.Address)

	// Eviction: the pending pool is full (a0, a1x, a2). b's tx paying no
	// more than the cheapest tail of another account (a2, tip 2 gwei) is
	// refused; paying more, it evicts a2.
	n.sendErr(t, sign(2, 0, gwei(2), gwei(50)), "transaction underpriced")
	b0 := sign(2, 0, gwei(3), gwei(50))
	n.mustSend(t, b0)
	n.waitMempool(t, 3)
	assertGone(t, n, a2, a.Address)
	if p := n.pendingNonce(t, a.Address); p != 2 {
		t.Fatalf("pending nonce of a after its tail was evicted: %d, want 2", p)
	}
	if s := n.poolStatus(t); s != (poolStatus{Pending: 3}) {
		t.Fatalf("txpool_status %+v", s)
	}
	n.sendErr(t, a2, "transaction underpriced") // still the cheapest

	// The queue (2 slots): c's better gapped tx evicts the cheapest tail.
	cq1, bq5 := sign(3, 7, gwei(1), gwei(50)), sign(2, 5, gwei(2), gwei(50))
	n.mustSend(t, cq1)
	n.mustSend(t, bq5)
	n.mustSend(t, sign(1, 9, gwei(3), gwei(50)))
	assertGone(t, n, cq1, c.Address)
	if s := n.poolStatus(t); s != (poolStatus{Pending: 3, Queued: 2}) {
		t.Fatalf("txpool_status after queue eviction %+v", s)
	}

	// The next block holds exactly the pending txs.
	r := n.WaitReceipt(t, a1x.Hash())
	block, err := n.Eth.BlockByNumber(ctx(t), r.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if r.BlockNumber.Uint64() != head+1 || len(block.Transactions()) != 3 {
		t.Fatalf("block %d (head was %d) holds %d txs, want a0, a1x, b0", r.BlockNumber, head, len(block.Transactions()))
	}
	for _, tx := range []*types.Transaction{a0, b0} {
		if got := n.WaitReceipt(t, tx.Hash()); got.BlockNumber.Cmp(r.BlockNumber) != 0 {
			t.Fatalf("%s in block %d", tx.Hash().Hex(), got.BlockNumber)
		}
	}
	n.waitPool(t, poolStatus{Queued: 2})
}

// nonceAt is the latest nonce of addr.
func nonceAt(t *testing.T, n *Node, addr common.Address) uint64 {
	t.Helper()
	nonce, err := n.Eth.NonceAt(ctx(t), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return nonce
}

// assertGone checks that tx, displaced from the pool, is in none of its
// views: txpool_content, txpool_contentFrom, txpool_inspect,
// eth_getTransactionByHash and CometBFT's mempool.
func assertGone(t *testing.T, n *Node, tx *types.Transaction, from common.Address) {
	t.Helper()
	hash := tx.Hash().Hex()
	nonce := fmt.Sprint(tx.Nonce())
	c := n.poolContent(t)
	for _, part := range []string{"pending", "queued"} {
		if got, ok := c[part][from.Hex()][nonce]; ok && got["hash"] == hash {
			t.Fatalf("txpool_content %s still holds %s", part, hash)
		}
	}
	var cf map[string]map[string]map[string]any
	mustCall(t, n, &cf, "txpool_contentFrom", from)
	for part, txs := range cf {
		if got, ok := txs[nonce]; ok && got["hash"] == hash {
			t.Fatalf("txpool_contentFrom %s still holds %s", part, hash)
		}
	}
	var inspect map[string]map[string]map[string]string
	mustCall(t, n, &inspect, "txpool_inspect")
	want := inspectLine(tx)
	for part, byAddr := range inspect {
		if got, ok := byAddr[from.Hex()][nonce]; ok && got == want {
			t.Fatalf("txpool_inspect %s still holds %s", part, want)
		}
	}
	var raw json.RawMessage
	mustCall(t, n, &raw, "eth_getTransactionByHash", tx.Hash())
	if string(raw) != "null" {
		t.Fatalf("eth_getTransactionByHash(%s) = %s, want null", hash, raw)
	}
	var unconfirmed struct {
		Txs []string `json:"txs"`
	}
	n.CometGet(t, "unconfirmed_txs", url.Values{"limit": {"100"}}, &unconfirmed)
	enc, _ := tx.MarshalBinary()
	for _, b64 := range unconfirmed.Txs {
		if b64 == base64.StdEncoding.EncodeToString(enc) {
			t.Fatalf("CometBFT's mempool still holds %s", hash)
		}
	}
}

// inspectLine is geth's txpool_inspect summary of tx.
func inspectLine(tx *types.Transaction) string {
	if tx.To() == nil {
		return fmt.Sprintf("contract creation: %v wei + %v gas × %v wei", tx.Value(), tx.Gas(), tx.GasPrice())
	}
	return fmt.Sprintf("%s: %v wei + %v gas × %v wei", tx.To().Hex(), tx.Value(), tx.Gas(), tx.GasPrice())
}

// TestTxpoolMatchesGeth sends the same signed txs to Ember and to geth
// v1.17.8 --dev started from Ember's genesis, neither making blocks: pending
// runs from two senders (one a contract creation, one legacy), and gapped
// txs; txpool_status, txpool_content, txpool_contentFrom and txpool_inspect
// must answer byte for byte alike, and conform to the execution-apis
// OpenRPC schemas.
func TestTxpoolMatchesGeth(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	g := StartGeth(t, emberGenesisForGeth(t, n.Home), "--dev.period", "3600", "--http.api", "eth,net,web3,txpool")
	n.restartBlocksEvery(t, time.Hour, nil)
	legacy := byte(types.LegacyTxType)
	to := common.HexToAddress("0x00000000000000000000000000000000000000a3")
	var txs []*types.Transaction
	for _, o := range []struct {
		key int
		txOpts
	}{
		{7, txOpts{Nonce: ptr(uint64(0)), To: &to, Value: big.NewInt(7)}},
		{7, txOpts{Nonce: ptr(uint64(1)), Gas: 100_000, Data: deployCode(emitterRuntime())}},
		{7, txOpts{Nonce: ptr(uint64(3)), To: &to, Value: big.NewInt(9)}},
		{8, txOpts{Nonce: ptr(uint64(0)), To: &to, Type: &legacy, FeeCap: gwei(3)}},
		{8, txOpts{Nonce: ptr(uint64(4)), To: &to, Tip: gwei(1)}},
	} {
		txs = append(txs, n.signTx(t, devKeys[o.key].Private, o.txOpts))
	}
	for _, tx := range txs {
		n.mustSend(t, tx)
		if err := g.Eth.SendTransaction(ctx(t), tx); err != nil {
			t.Fatalf("geth: send nonce %d: %v", tx.Nonce(), err)
		}
	}
	spec := loadOpenRPC(t)
	for _, c := range []struct {
		method string
		args   []any
	}{
		{"txpool_status", nil},
		{"txpool_content", nil},
		{"txpool_contentFrom", []any{devKeys[7].Address}},
		{"txpool_contentFrom", []any{devKeys[8].Address}},
		{"txpool_contentFrom", []any{common.HexToAddress("0x01")}},
		{"txpool_inspect", nil},
	} {
		var raw json.RawMessage
		var ember, geth any
		mustCall(t, n, &raw, c.method, c.args...)
		if err := json.Unmarshal(raw, &ember); err != nil {
			t.Fatal(err)
		}
		if c.method != "txpool_inspect" { // the only one the execution-apis document leaves out
			if err := spec.validate(t, c.method, raw); err != nil {
				t.Fatalf("%s against the OpenRPC schema: %v", c.method, err)
			}
		}
		var gethRaw json.RawMessage
		if err := g.RPC.Call(&gethRaw, c.method, c.args...); err != nil {
			t.Fatalf("geth %s: %v", c.method, err)
		}
		if err := json.Unmarshal(gethRaw, &geth); err != nil {
			t.Fatal(err)
		}
		if string(raw) != string(gethRaw) {
			t.Errorf("%s%v not byte-identical:\nember %s\ngeth  %s", c.method, c.args, raw, gethRaw)
		}
		if !reflect.DeepEqual(ember, geth) {
			e, _ := json.Marshal(ember)
			gj, _ := json.Marshal(geth)
			t.Fatalf("%s%v:\nember %s\ngeth  %s", c.method, c.args, e, gj)
		}
	}
	if s := n.poolStatus(t); s != (poolStatus{Pending: 3, Queued: 2}) {
		t.Fatalf("txpool_status %+v", s)
	}
	if !strings.Contains(fmt.Sprint(n.poolContent(t)["queued"][devKeys[7].Address.Hex()]), "0x3") {
		t.Fatal("nonce 3 of the first sender is not queued")
	}
}
