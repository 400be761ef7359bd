package e2e

import (
	"encoding/base64"
	"errors"
	"math/big"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// TestAnvilStateEdits sets a balance, code, nonce and a storage slot over
// anvil_ and hardhat_ names: each is in a committed block (CometBFT's
// block at that height holds the dev transaction), the JSON-RPC reads give
// the exact values, and the head is the same on CometBFT's RPC.
func TestAnvilStateEdits(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	addr := common.HexToAddress("0x00000000000000000000000000000000000a7e11")
	bal, _ := new(big.Int).SetString("123456789012345678901234567890", 10)

	start := n.blockNumber(t)
	var null any
	mustCall(t, n, &null, "anvil_setBalance", addr, hexutil.EncodeBig(bal))
	edit := n.blockNumber(t)
	if got := n.balance(t, addr); got.Cmp(bal) != 0 {
		t.Fatalf("balance %v, want %v", got, bal)
	}
	// The edit's block holds the dev transaction; the block after it carries
	// its AppHash (CometBFT makes it at once), and the call returns after both.
	if edit != start+2 {
		t.Fatalf("head %d after anvil_setBalance at %d, want %d", edit, start, start+2)
	}
	var block struct {
		Block struct {
			Header struct{ Height string } `json:"header"`
			Data   struct{ Txs []string }  `json:"data"`
		} `json:"block"`
	}
	n.CometGet(t, "/block", map[string][]string{"height": {strconv.FormatUint(start+1, 10)}}, &block)
	if len(block.Block.Data.Txs) != 1 {
		t.Fatalf("CometBFT block %d txs %v, want the dev transaction", start+1, block.Block.Data.Txs)
	}
	if raw, _ := base64.StdEncoding.DecodeString(block.Block.Data.Txs[0]); string(raw[:11]) != "\x00ember-dev\x00" {
		t.Fatalf("CometBFT block %d tx %q is not a dev transaction", start+1, raw)
	}
	var status struct {
		SyncInfo struct {
			LatestBlockHeight string `json:"latest_block_height"`
		} `json:"sync_info"`
	}
	n.CometGet(t, "/status", nil, &status)
	if status.SyncInfo.LatestBlockHeight != strconv.FormatUint(edit, 10) {
		t.Fatalf("CometBFT height %s, eth_blockNumber %d", status.SyncInfo.LatestBlockHeight, edit)
	}

	code := hexutil.Bytes{0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3} // returns 42
	mustCall(t, n, &null, "hardhat_setCode", addr, code)
	mustCall(t, n, &null, "anvil_setNonce", addr, "0x2a")
	var ok bool
	value := common.HexToHash("0xc0ffee")
	mustCall(t, n, &ok, "anvil_setStorageAt", addr, "0x01", value)
	var gotCode, out hexutil.Bytes
	var nonce hexutil.Uint64
	var slot common.Hash
	mustCall(t, n, &gotCode, "eth_getCode", addr, "latest")
	mustCall(t, n, &nonce, "eth_getTransactionCount", addr, "latest")
	mustCall(t, n, &slot, "eth_getStorageAt", addr, "0x1", "latest")
	mustCall(t, n, &out, "eth_call", map[string]any{"to": addr}, "latest")
	if !ok || gotCode.String() != code.String() || nonce != 42 || slot != value || new(big.Int).SetBytes(out).Int64() != 42 {
		t.Fatalf("setStorageAt %v; code %s, nonce %d, slot %s, call %s", ok, gotCode, nonce, slot.Hex(), out)
	}
	if got := n.balance(t, addr); got.Cmp(bal) != 0 {
		t.Fatalf("balance %v after the other edits, want %v", got, bal)
	}
}

// TestAnvilMineAndClock mines blocks with exact counts and timestamps.
func TestAnvilMineAndClock(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	var res string
	start := n.blockNumber(t)
	mustCall(t, n, &res, "evm_mine")
	if got := n.blockNumber(t); res != "0x0" || got != start+1 {
		t.Fatalf("evm_mine = %q, head %d → %d", res, start, got)
	}
	var null any
	mustCall(t, n, &null, "anvil_mine", "0x5")
	if got := n.blockNumber(t); got != start+6 {
		t.Fatalf("anvil_mine(5): head %d, want %d", got, start+6)
	}

	// evm_mine with a timestamp, then anvil_mine with an interval.
	ts := n.header(t).Time + 100_000
	mustCall(t, n, &res, "evm_mine", map[string]any{"timestamp": ts})
	if h := n.header(t); h.Time != ts || h.Number.Uint64() != start+7 {
		t.Fatalf("evm_mine({timestamp %d}): block %d at %d", ts, h.Number, h.Time)
	}
	mustCall(t, n, &null, "hardhat_mine", "0x3", "0xe10")
	h := n.header(t)
	if h.Number.Uint64() != start+10 || h.Time < ts+3*3600 || h.Time > ts+3*3600+60 {
		t.Fatalf("hardhat_mine(3, 3600) after %d: block %d at %d", ts, h.Number, h.Time)
	}

	// evm_setNextBlockTimestamp makes no block; the next block, whatever
	// makes it (here a transfer), has that timestamp.
	next := h.Time + 1000
	mustCall(t, n, &null, "evm_setNextBlockTimestamp", next)
	if got := n.blockNumber(t); got != start+10 {
		t.Fatalf("evm_setNextBlockTimestamp mined: head %d", got)
	}
	to := common.HexToAddress("0xb1")
	r := n.WaitReceipt(t, n.send(t, devKeys[1].Private, txOpts{To: &to, Value: big.NewInt(1)}).Hash())
	if b := n.headerAt(t, r.BlockNumber.Uint64()); b.Time != next {
		t.Fatalf("transfer's block at %d, want %d", b.Time, next)
	}
	// Right after the receipt, CometBFT's proof block may be made between
	// the edit and evm_mine; it does not take the edit (hardhat's
	// time.increase is exactly this sequence).
	mustCall(t, n, &null, "evm_setNextBlockTimestamp", next+500)
	mustCall(t, n, &res, "evm_mine")
	if got := n.header(t).Time; got != next+500 {
		t.Fatalf("evm_setNextBlockTimestamp(%d) + evm_mine right after a transfer: block at %d", next+500, got)
	}

	// evm_increaseTime answers the total offset and moves the next block.
	var total int64
	mustCall(t, n, &total, "evm_increaseTime", 7200)
	var offset int64
	if len(h.Extra) == 8 {
		offset = new(big.Int).SetBytes(h.Extra).Int64()
	}
	before := n.header(t).Time
	wall := time.Now().Unix()
	mustCall(t, n, &res, "evm_mine")
	mined := n.header(t).Time
	if mined < before+7200 || mined > uint64(time.Now().Unix()+total)+1 || total < 7200 {
		t.Fatalf("evm_increaseTime = %d (offset before %d): block at %d, before %d, wall %d", total, offset, mined, before, wall)
	}

	// A timestamp before the head is refused as anvil refuses it.
	err := n.RPC.Call(&null, "evm_setNextBlockTimestamp", 1)
	var re interface{ ErrorCode() int }
	if !errors.As(err, &re) || re.ErrorCode() != -32602 || err.Error() != "Timestamp error: 1 is lower than previous block's timestamp" {
		t.Fatalf("evm_setNextBlockTimestamp(1): %v", err)
	}
}

// TestAnvilNotOnOtherChains: a chain not made by `emberd dev` does not
// serve the namespaces (-32601) and its blocks never execute dev
// transactions.
func TestAnvilNotOnOtherChains(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 1, 0)
	n := nw.Nodes[0]
	n.Start("start")
	var null any
	for _, m := range []string{"evm_mine", "anvil_setBalance", "hardhat_mine", "anvil_nodeInfo"} {
		err := n.RPC.Call(&null, m)
		var re interface{ ErrorCode() int }
		if !errors.As(err, &re) || re.ErrorCode() != -32601 {
			t.Fatalf("%s on a testnet node: %v", m, err)
		}
	}
	var res struct {
		Code int    `json:"code"`
		Log  string `json:"log"`
	}
	tx := base64.StdEncoding.EncodeToString([]byte(`` + "\x00ember-dev\x00" + `{"id":1,"ops":[]}`))
	n.CometGet(t, "/broadcast_tx_sync", map[string][]string{"tx": {`"` + tx + `"`}}, &res)
	if res.Code != 2 {
		t.Fatalf("dev transaction on a testnet: code %d %s, want 2 (refused)", res.Code, res.Log)
	}
}

func (n *Node) blockNumber(t *testing.T) uint64 {
	t.Helper()
	num, err := n.Eth.BlockNumber(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return num
}

func (n *Node) header(t *testing.T) *types.Header {
	t.Helper()
	h, err := n.Eth.HeaderByNumber(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (n *Node) headerAt(t *testing.T, num uint64) *types.Header {
	t.Helper()
	h, err := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(num))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (n *Node) balance(t *testing.T, addr common.Address) *big.Int {
	t.Helper()
	b, err := n.Eth.BalanceAt(ctx(t), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
