package e2e

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer/sqlstore"
	"github.com/emberchain/ember/node/config"
)

// TestExplorerCrashMidBatch kills the node inside the database transaction
// of a block in the middle of an indexing batch (fault injection, see
// sqlstore.CrashEnv), restarts it, and checks that every block, transaction
// and balance change is indexed exactly once.
func TestExplorerCrashMidBatch(t *testing.T) {
	t.Parallel()
	testExplorerCrashMidBatch(t, "")
}

// TestExplorerCrashMidBatchPostgres is TestExplorerCrashMidBatch on
// PostgreSQL.
func TestExplorerCrashMidBatchPostgres(t *testing.T) {
	t.Parallel()
	testExplorerCrashMidBatch(t, pgDSN(t))
}

// testExplorerCrashMidBatch runs the test on the database db names ("" for
// SQLite in the node home).
func testExplorerCrashMidBatch(t *testing.T, db string) {
	// The chain is made with the explorer off, so that the first indexing
	// run meets the whole chain as one batch.
	n := StartDev(t, "--explorer.enable=false")
	sender := devKeys[6]
	recipient := common.BytesToAddress(crypto.Keccak256([]byte("explorer-crash"))[:20])
	var txs []*types.Transaction
	for round := 0; round < 4; round++ { // several blocks
		batch := n.explorerBatch(t, sender, recipient, 10)
		n.waitAll(t, batch)
		txs = append(txs, batch...)
	}
	receipts, last := n.waitAll(t, txs)
	crashBlock := receipts[txs[25].Hash()].BlockNumber.Uint64()
	if crashBlock == 0 || crashBlock >= last {
		t.Fatalf("crash block %d is not inside the chain 0..%d", crashBlock, last)
	}
	n.Stop()

	cfg, err := config.Load(n.Home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Explorer.Enable, cfg.Explorer.DB = true, db
	if err := config.Write(n.Home, cfg); err != nil {
		t.Fatal(err)
	}
	n.env = []string{sqlstore.CrashEnv + "=" + strconv.FormatUint(crashBlock, 10)}
	_ = n.start("start") // the process may die before or after JSON-RPC answers
	select {
	case <-n.done:
	case <-time.After(90 * time.Second):
		n.Kill()
		t.Fatal("the node did not crash at the injected block")
	}
	n.cmd = nil
	log, _ := os.ReadFile(n.logPath)
	if !bytes.Contains(log, []byte(fmt.Sprintf("exiting inside the database transaction of block %d", crashBlock))) {
		n.dumpLog()
		t.Fatalf("no injected crash at block %d in the log", crashBlock)
	}

	n.env = nil
	n.Start("start")
	more := n.explorerBatch(t, sender, recipient, 5)
	_, last = n.waitAll(t, more)
	n.waitIndexed(t, last)

	var counters map[string]any
	n.explorerJSON(t, nil, "", "/api/v2/addresses/"+sender.Address.Hex()+"/counters", &counters)
	if counters["transactions_count"] != "45" || counters["gas_usage_count"] != fmt.Sprint(45*21000) {
		t.Fatalf("after the crash sender counters = %v, want 45 txs", counters)
	}
	all := n.followPages(t, nil, "", "/api/v2/transactions")
	if want := n.chainTxCount(t, last); len(all) != want {
		t.Fatalf("after the crash %d transactions listed, chain has %d", len(all), want)
	}
	// Every block from the newest indexed down to genesis, each once (the
	// chain may have gone on past last with an empty block).
	blocks := n.followPages(t, nil, "", "/api/v2/blocks")
	top := uint64(blocks[0]["height"].(float64))
	for i, b := range blocks {
		if h := uint64(b["height"].(float64)); h != top-uint64(i) {
			t.Fatalf("block list item %d has height %d, want %d", i, h, top-uint64(i))
		}
	}
	if top < last || uint64(len(blocks)) != top+1 {
		t.Fatalf("%d blocks listed from %d, chain reached %d", len(blocks), top, last)
	}
	// The recipient's history: one entry per block that paid it, deltas
	// summing to its balance.
	bal, _ := n.Eth.BalanceAt(ctx(t), recipient, nil)
	hist := n.followPages(t, nil, "", "/api/v2/addresses/"+recipient.Hex()+"/coin-balance-history")
	paid := map[uint64]bool{}
	for _, r := range receipts {
		paid[r.BlockNumber.Uint64()] = true
	}
	for _, tx := range more {
		paid[n.WaitReceipt(t, tx.Hash()).BlockNumber.Uint64()] = true
	}
	if len(hist) != len(paid) || hist[0]["value"] != bal.String() {
		t.Fatalf("recipient history has %d entries (latest %v), %d blocks paid it, balance %s", len(hist), hist[0]["value"], len(paid), bal)
	}
}
