package e2e

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
	"github.com/emberchain/ember/store"
)

// nodeAt is a node of an existing home on free ports, not started.
func nodeAt(t *testing.T, home string) *Node {
	t.Helper()
	addr := func() string { return "127.0.0.1:" + strconv.Itoa(freePort(t)) }
	n := &Node{t: t, Home: home, HTTP: addr(), WS: addr(), CometRPC: addr(), REST: addr(), Explorer: addr(), GRPC: addr(), p2p: addr(),
		logPath: filepath.Join(home, "emberd.log")}
	t.Cleanup(func() {
		n.Stop()
		if t.Failed() {
			n.dumpLog()
		}
	})
	return n
}

// proofsAt reads eth_getProof of every address (with slots) at block tag.
func proofsAt(t *testing.T, n *Node, addrs []common.Address, slots []string, tag string) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(addrs))
	for i, a := range addrs {
		if err := n.RPC.Call(&out[i], "eth_getProof", a, slots, tag); err != nil {
			t.Fatalf("%s: eth_getProof %s at %s: %v", n.Home, a, tag, err)
		}
	}
	return out
}

// TestExportImport: a one-validator network with a contract with storage,
// EVM and native transfers and a delegation is stopped and exported at a
// past height H (`emberd export --height H --chain-id ember_9000-2`); a new
// home made with `emberd init --genesis` and the validator's key starts a
// new chain whose block 0 has block H's state root, whose eth_getProof
// answers for 16 accounts (the contract with its slots, EOAs, the native
// modules' system accounts) are byte for byte the old node's at H, and
// which makes blocks and executes EVM and native transactions.
func TestExportImport(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 1, 0)
	v := nw.Nodes[0]
	speedUpConsensus(t, v.Home)
	v.Start("start")
	op := nw.manifest().Nodes[0].Operator

	deploy := v.send(t, devKeys[1].Private, txOpts{Data: storageInit(6, 500), Gas: 2_000_000})
	contract := v.WaitReceipt(t, deploy.Hash()).ContractAddress
	coffee := common.HexToAddress("0x0000000000000000000000000000000000c0ffee")
	transfer := v.send(t, devKeys[2].Private, txOpts{To: &coffee, Value: big.NewInt(1_000_000_007)})
	v.WaitReceipt(t, transfer.Hash())
	delegate(t, v, devKeys[3].Private, op, tokensE18(2))
	tea := common.HexToAddress("0x000000000000000000000000000000000000beef")
	if r := deliver(t, v, signTestnet(t, v, devKeys[4].Private, testnetB.Send(devKeys[4].Address, tea, big.NewInt(4242)))); r.TxResult.Code != 0 {
		t.Fatalf("native send: %s", r.TxResult.Log)
	}
	h := v.height(t)
	waitAllHeight(t, h+2, v)

	addrs := []common.Address{contract, coffee, tea, op, devKeys[1].Address, devKeys[2].Address, devKeys[3].Address, devKeys[4].Address,
		staking.StateAddress, staking.BondedPool, distribution.StateAddress, distribution.FeeCollector, distribution.Pool,
		mint.StateAddress, bank.SupplyAddress, accounts.RegistryAddress}
	var slots []string
	for _, s := range []uint64{0, 1, 3, 6, 7} {
		slots = append(slots, common.BigToHash(new(big.Int).SetUint64(s)).Hex())
	}
	want := proofsAt(t, v, addrs, slots, hexutil.EncodeUint64(h))
	wantBlock := v.blocks(t, h, h)[0]
	v.Stop()

	if out, err := emberdCLI(t, "export", "--home", v.Home, "--height", "100000"); err == nil || !strings.Contains(out, "above the head") {
		t.Fatalf("export above the head: %v %s", err, out)
	}
	file := filepath.Join(t.TempDir(), "exported.json")
	if out, err := emberdCLI(t, "export", "--home", v.Home, "--height", strconv.FormatUint(h, 10), "--chain-id", "ember_9000-2", "--output", file); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	home := filepath.Join(t.TempDir(), "imported")
	if out, err := emberdCLI(t, "init", "--home", home, "--genesis", file); err != nil {
		t.Fatalf("init --genesis: %v\n%s", err, out)
	}
	key, err := os.ReadFile(filepath.Join(v.Home, "config", "priv_validator_key.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config", "priv_validator_key.json"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	n := nodeAt(t, home)
	n.Start("start")
	genesis := n.blocks(t, 0, 0)[0]
	if genesis.StateRoot != wantBlock.StateRoot {
		t.Fatalf("new chain's block 0 state root %s, block %d's %s", genesis.StateRoot, h, wantBlock.StateRoot)
	}
	got := proofsAt(t, n, addrs, slots, "0x0")
	for i := range addrs {
		if !bytes.Equal(want[i], got[i]) {
			t.Fatalf("eth_getProof %s: at block %d of the old chain %s, at block 0 of the new %s", addrs[i], h, want[i], got[i])
		}
		var p proofResult
		if err := json.Unmarshal(got[i], &p); err != nil {
			t.Fatal(err)
		}
		verifyProof(t, genesis.StateRoot, p)
	}
	t.Logf("exported block %d (state root %s); the new chain's block 0 has it; %d eth_getProof answers identical", h, genesis.StateRoot, len(addrs))
	if v, err := n.Eth.StorageAt(ctx(t), contract, common.BigToHash(big.NewInt(6)), big.NewInt(0)); err != nil || new(big.Int).SetBytes(v).Int64() != 506 {
		t.Fatalf("contract slot 6 on the new chain: %x %v", v, err)
	}

	// The new chain makes blocks and runs transactions.
	waitAllHeight(t, 3, n)
	chainID, err := n.Eth.ChainID(ctx(t))
	if err != nil || chainID.Int64() != 9000 {
		t.Fatalf("new chain's EVM id %v %v", chainID, err)
	}
	before, _ := n.Eth.BalanceAt(ctx(t), coffee, nil)
	tx := n.send(t, devKeys[2].Private, txOpts{To: &coffee, Value: big.NewInt(3)})
	if r := n.WaitReceipt(t, tx.Hash()); r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("EVM transfer on the new chain: status %d", r.Status)
	}
	after, _ := n.Eth.BalanceAt(ctx(t), coffee, nil)
	if new(big.Int).Sub(after, before).Int64() != 3 {
		t.Fatalf("coffee %v → %v, want +3", before, after)
	}
	num, seq := nativeAccount(t, n, devKeys[4].Address)
	raw, _ := signNativeWith(t, devKeys[4].Private, native.SignOptions{ChainID: "ember_9000-2", AccountNumber: num, Sequence: seq},
		testnetB.Send(devKeys[4].Address, tea, big.NewInt(1)))
	if r := deliver(t, n, raw); r.TxResult.Code != 0 {
		t.Fatalf("native send on the new chain: %s", r.TxResult.Log)
	}
	if bal, _ := n.Eth.BalanceAt(ctx(t), tea, nil); bal.Int64() != 4243 {
		t.Fatalf("native recipient %v on the new chain, want 4243", bal)
	}
}

// divergeHead rewrites the head block of a stopped node's store as if it
// had been executed differently: one more wei in addr, so its state root,
// hence the AppHash the node reports, is not the network's.
func divergeHead(t *testing.T, home string, addr common.Address) (common.Hash, common.Hash) {
	t.Helper()
	st, err := store.Open(filepath.Join(home, "data", "ember"), evm.ChainConfig(big.NewInt(9000)), store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	head := st.Head()
	sdb, err := st.StateAt(head.Root)
	if err != nil {
		t.Fatal(err)
	}
	sdb.AddBalance(addr, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	root, err := sdb.Commit(evm.Rules(st.Config(), head.Number, head.Time), head.Number.Uint64())
	if err != nil {
		t.Fatal(err)
	}
	header := types.CopyHeader(head)
	header.Root = root
	block := st.BlockByNumber(head.Number.Uint64())
	if err := st.CommitBlock(types.NewBlockWithHeader(header).WithBody(*block.Body()), st.Receipts(head), st.CometHash(head.Number.Uint64())); err != nil {
		t.Fatal(err)
	}
	return head.Root, root
}

// TestRollbackRecovers: a full node whose last block's state is changed
// while it is stopped (the AppHash it reports then disagrees with the
// network's) refuses to start; `emberd rollback` takes CometBFT and Ember
// back one height, and the restarted node executes the block again and
// follows the validator with equal hashes at every height. A hard
// rollback (the block deleted too) recovers the same way, and its home,
// copied while stopped and started elsewhere, serves the same head.
func TestRollbackRecovers(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 1, 1)
	v := nw.Nodes[0]
	full := nw.AddFullNode()
	for _, n := range nw.Nodes {
		speedUpConsensus(t, n.Home)
		n.Start("start")
	}
	coffee := common.HexToAddress("0x0000000000000000000000000000000000c0ffee")
	tx := v.send(t, devKeys[1].Private, txOpts{To: &coffee, Value: big.NewInt(77)})
	r := v.WaitReceipt(t, tx.Hash())
	waitAllHeight(t, r.BlockNumber.Uint64()+2, full)
	full.Stop()
	good, bad := divergeHead(t, full.Home, coffee)
	if good == bad {
		t.Fatal("the diverged root equals the network's")
	}

	// The handshake compares the app's hash with CometBFT's: no start.
	if err := full.start("start"); err == nil {
		t.Fatal("a node with a diverged app state started")
	}
	if log, _ := os.ReadFile(full.logPath); !bytes.Contains(log, []byte("AppHash")) {
		t.Fatalf("the node's log does not name the AppHash mismatch:\n%s", tail(log))
	}

	out, err := emberdCLI(t, "rollback", "--home", full.Home)
	if err != nil {
		t.Fatalf("rollback: %v\n%s", err, out)
	}
	t.Logf("rollback: %s", strings.TrimSpace(out))
	full.Start("start")
	head := v.height(t) + 3
	waitAllHeight(t, head, v, full)
	sameChainAll(t, head, v, full)
	for from := uint64(0); from <= head; from += 500 {
		for _, b := range full.blocks(t, from, min(from+499, head)) {
			if b.StateRoot == bad {
				t.Fatalf("block %d still has the diverged root", b.Number)
			}
		}
	}
	t.Logf("recovered: %d blocks equal to the validator's", head+1)

	t.Run("HardRollback", func(t *testing.T) { hardRollback(t, v, full) })
	t.Run("BackupRestore", func(t *testing.T) { backupRestore(t, v, full) })
}

// hardRollback: `emberd rollback --hard` on a stopped full node deletes its
// last block as well; the node fetches it again from the validator and
// follows it with the same blocks.
func hardRollback(t *testing.T, v, n *Node) {
	n.Stop()
	before := n.blocksOffline(t)
	out, err := emberdCLI(t, "rollback", "--hard", "--home", n.Home)
	if err != nil || !strings.Contains(out, "Rolled back to height "+strconv.FormatUint(before.number-1, 10)) {
		t.Fatalf("rollback --hard from %d: %v %s", before.number, err, out)
	}
	if after := n.blocksOffline(t); after.number != before.number-1 {
		t.Fatalf("Ember head %d after rollback --hard from %d", after.number, before.number)
	}
	n.Start("start")
	head := v.height(t) + 2
	waitAllHeight(t, head, n)
	sameChainAll(t, head, v, n)
	if got := n.blocks(t, before.number, before.number)[0]; got.Hash != before.hash || got.StateRoot != before.root {
		t.Fatalf("block %d fetched again: %s root %s, was %s root %s", before.number, got.Hash, got.StateRoot, before.hash, before.root)
	}
}

// backupRestore copies the home of a stopped node (n) and starts the copy
// elsewhere: it serves the same head, then follows the network.
func backupRestore(t *testing.T, v, n *Node) {
	n.Stop()
	stopped := n.blocksOffline(t)
	copyHome := filepath.Join(t.TempDir(), "restored")
	if out, err := exec.Command("cp", "-a", n.Home, copyHome).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v %s", err, out)
	}
	restored := nodeAt(t, copyHome)
	restored.Start("start")
	got := restored.blocks(t, stopped.number, stopped.number)[0]
	if got.Hash != stopped.hash || got.StateRoot != stopped.root {
		t.Fatalf("restored block %d: %s root %s; stopped node's %s root %s", stopped.number, got.Hash, got.StateRoot, stopped.hash, stopped.root)
	}
	head := v.height(t) + 2
	waitAllHeight(t, head, restored)
	sameChainAll(t, head, v, restored)
}

// headID is a stopped node's head read from its store.
type headID struct {
	number     uint64
	hash, root common.Hash
}

// blocksOffline reads the head of a stopped node's store.
func (n *Node) blocksOffline(t *testing.T) headID {
	t.Helper()
	st, err := store.Open(filepath.Join(n.Home, "data", "ember"), evm.ChainConfig(big.NewInt(9000)), store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := st.Head()
	return headID{number: h.Number.Uint64(), hash: h.Hash(), root: h.Root}
}

// tail is the last lines of a log.
func tail(log []byte) string {
	lines := strings.Split(string(log), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

// sameChainAll is sameChainFrom over blocks 0..to, in batches the
// JSON-RPC batch limit takes (fast blocks make long chains).
func sameChainAll(t *testing.T, to uint64, nodes ...*Node) {
	t.Helper()
	for from := uint64(0); from <= to; from += 500 {
		sameChainFrom(t, from, min(from+499, to), nodes...)
	}
}
