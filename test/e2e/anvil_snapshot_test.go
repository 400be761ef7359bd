package e2e

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/internal/wait"
)

// TestAnvilSnapshotRevert takes a snapshot, makes blocks (a token deploy
// with its Transfer log, a transfer, a balance edit, mined blocks), and
// reverts: no surface shows the reverted blocks or transactions any more
// (JSON-RPC blocks, transactions, receipts, logs, a block filter; CometBFT's
// /block and /tx_search; the explorer's block and transaction pages), the
// state is the snapshot's, the snapshot is used up, and the chain goes on
// from the snapshot's head, the same signed transactions included again.
func TestAnvilSnapshotRevert(t *testing.T) {
	t.Parallel()
	testAnvilSnapshotRevert(t)
}

// TestAnvilSnapshotRevertPostgres is TestAnvilSnapshotRevert with the
// explorer on PostgreSQL.
func TestAnvilSnapshotRevertPostgres(t *testing.T) {
	t.Parallel()
	testAnvilSnapshotRevert(t, "--explorer.db", pgDSN(t))
}

func testAnvilSnapshotRevert(t *testing.T, extra ...string) {
	n := StartDev(t, append([]string{"--empty-block-interval", "0"}, extra...)...)
	var null any
	mustCall(t, n, &null, "anvil_mine", "0x3")
	var id string
	mustCall(t, n, &id, "evm_snapshot")
	if id != "0x0" {
		t.Fatalf("first snapshot id %q, want 0x0 (anvil's)", id)
	}
	h := n.blockNumber(t)
	n.waitIndexed(t, h)
	var filterID string
	mustCall(t, n, &filterID, "eth_newBlockFilter")

	to := common.HexToAddress("0x00000000000000000000000000000000000b0b0b")
	tokData, _ := contracts.MustLoad("EmberToken").DeployData(big.NewInt(1000))
	deploy := n.signTx(t, devKeys[1].Private, txOpts{Gas: 3_000_000, Data: tokData})
	transfer := n.signTx(t, devKeys[1].Private, txOpts{To: &to, Value: big.NewInt(7), Nonce: ptr(deploy.Nonce() + 1)})
	for _, tx := range []*types.Transaction{deploy, transfer} {
		if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
			t.Fatal(err)
		}
		n.WaitReceipt(t, tx.Hash())
	}
	mustCall(t, n, &null, "anvil_setBalance", to, "0x1000")
	mustCall(t, n, &null, "evm_mine")
	top := n.blockNumber(t)
	reverted := n.headerAt(t, h+1).Hash()
	n.waitIndexed(t, top)

	var ok bool
	mustCall(t, n, &ok, "evm_revert", id)
	if !ok {
		t.Fatal("evm_revert of a live snapshot answered false")
	}
	if got := n.blockNumber(t); got != h {
		t.Fatalf("head %d after evm_revert, want the snapshot's %d", got, h)
	}
	checkReverted(t, n, h, top, reverted, deploy.Hash(), transfer.Hash())
	if got := n.balance(t, to); got.Sign() != 0 {
		t.Fatalf("balance %v after evm_revert, want 0", got)
	}
	if mustCall(t, n, &ok, "evm_revert", id); ok {
		t.Fatal("evm_revert of a used snapshot answered true")
	}

	// The chain goes on from h: the same signed transactions are included
	// again, in new blocks of the reverted numbers, on every surface.
	for _, tx := range []*types.Transaction{deploy, transfer} {
		if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
			t.Fatalf("send %s again: %v", tx.Hash().Hex(), err)
		}
		if r := n.WaitReceipt(t, tx.Hash()); r.BlockNumber.Uint64() <= h {
			t.Fatalf("%s again in block %v, want above %d", tx.Hash().Hex(), r.BlockNumber, h)
		}
	}
	if got := n.balance(t, to); got.Int64() != 7 {
		t.Fatalf("balance %v after the transfer again, want 7", got)
	}
	var changes []common.Hash
	mustCall(t, n, &changes, "eth_getFilterChanges", filterID)
	if len(changes) == 0 || changes[0] == reverted {
		t.Fatalf("block filter after the revert reported %v: want the new blocks from %d, not the reverted %s", changes, h+1, reverted.Hex())
	}
	now := n.blockNumber(t)
	n.waitIndexed(t, now)
	var block struct{ Hash common.Hash }
	n.explorerJSON(t, nil, "", "/api/v2/blocks/"+strconv.FormatUint(h+1, 10), &block)
	if block.Hash != n.headerAt(t, h+1).Hash() {
		t.Fatalf("explorer block %d %s, JSON-RPC %s", h+1, block.Hash.Hex(), n.headerAt(t, h+1).Hash().Hex())
	}
	// CometBFT and the EVM head agree (once the block carrying the last
	// AppHash, made right after, is in).
	var status struct {
		SyncInfo struct {
			LatestBlockHeight string `json:"latest_block_height"`
		} `json:"sync_info"`
	}
	wait.Eventually(t, 20*time.Second, "CometBFT's height to be the EVM head", func() error {
		n.CometGet(t, "/status", nil, &status)
		head := n.blockNumber(t)
		return wait.Check(status.SyncInfo.LatestBlockHeight == strconv.FormatUint(head, 10),
			"CometBFT height %s, eth_blockNumber %d", status.SyncInfo.LatestBlockHeight, head)
	})

	// The round trip a fixture pays (loadFixture: revert, then snapshot).
	var ids []string
	for range 5 {
		var s string
		mustCall(t, n, &s, "evm_snapshot")
		mustCall(t, n, &null, "evm_mine")
		ids = append(ids, s)
	}
	start := time.Now()
	mustCall(t, n, &ok, "evm_revert", ids[2])
	mustCall(t, n, &id, "evm_snapshot")
	t.Logf("evm_revert of 3 blocks + evm_snapshot on a chain of %d blocks: %v", now+5, time.Since(start))
	if mustCall(t, n, &ok, "evm_revert", ids[3]); ok {
		t.Fatal("a snapshot taken after the reverted one is still live")
	}
	if mustCall(t, n, &ok, "evm_revert", ids[1]); !ok {
		t.Fatal("an earlier snapshot was used up by a later one's revert")
	}

	// A snapshot right after a receipt (hardhat's takeSnapshot after a
	// fixture's deploy) marks the settled head: the proof block after the
	// transfer's block is in it, so the head read after the snapshot is
	// the one evm_revert goes back to.
	n.WaitReceipt(t, n.send(t, devKeys[2].Private, txOpts{To: &to, Value: big.NewInt(1)}).Hash())
	mustCall(t, n, &id, "evm_snapshot")
	marked := n.blockNumber(t)
	mustCall(t, n, &null, "evm_mine")
	if mustCall(t, n, &ok, "evm_revert", id); !ok || n.blockNumber(t) != marked {
		t.Fatalf("evm_revert of a snapshot taken right after a receipt: %v, head %d, want %d", ok, n.blockNumber(t), marked)
	}
}

// checkReverted fails unless blocks h+1..top and the transactions are gone
// from every surface.
func checkReverted(t *testing.T, n *Node, h, top uint64, reverted common.Hash, txs ...common.Hash) {
	t.Helper()
	var block map[string]any
	for num := h + 1; num <= top; num++ {
		mustCall(t, n, &block, "eth_getBlockByNumber", hexutil.Uint64(num), false)
		if block != nil {
			t.Fatalf("block %d still served after evm_revert", num)
		}
	}
	mustCall(t, n, &block, "eth_getBlockByHash", reverted, false)
	if block != nil {
		t.Fatalf("reverted block %s still served by hash", reverted.Hex())
	}
	for _, hash := range txs {
		var tx, receipt map[string]any
		mustCall(t, n, &tx, "eth_getTransactionByHash", hash)
		mustCall(t, n, &receipt, "eth_getTransactionReceipt", hash)
		if tx != nil || receipt != nil {
			t.Fatalf("reverted transaction %s: tx %v receipt %v", hash.Hex(), tx, receipt)
		}
		var search struct {
			TotalCount string `json:"total_count"`
		}
		n.CometGet(t, "/tx_search", map[string][]string{"query": {`"ethereum_tx.ethereumTxHash='` + hash.Hex() + `'"`}}, &search)
		if search.TotalCount != "0" {
			t.Fatalf("CometBFT tx_search still finds reverted %s (%s)", hash.Hex(), search.TotalCount)
		}
		if code, body := n.explorerGet(t, "/api/v2/transactions/"+hash.Hex()); code != http.StatusNotFound {
			t.Fatalf("explorer transaction %s after evm_revert: %d %s", hash.Hex(), code, body)
		}
	}
	logs, err := n.Eth.FilterLogs(ctx(t), ethereum.FilterQuery{FromBlock: big.NewInt(0)})
	if err != nil || len(logs) != 0 {
		t.Fatalf("logs of blocks 0..%d after evm_revert: %d, %v", h, len(logs), err)
	}
	resp, err := http.Get("http://" + n.CometRPC + "/block?height=" + strconv.FormatUint(h+1, 10))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Error json.RawMessage `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	if len(res.Error) == 0 {
		t.Fatalf("CometBFT /block?height=%d answered a block after evm_revert", h+1)
	}
	if code, body := n.explorerGet(t, "/api/v2/blocks/"+strconv.FormatUint(h+1, 10)); code != http.StatusNotFound {
		t.Fatalf("explorer block %d after evm_revert: %d %.200s", h+1, code, body)
	}
}
