package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/internal/wait"
)

// State-sync test sizes: the network (≥ 2,000 blocks, ≥ 10,000
// funded accounts, contracts with storage).
const (
	syncHeight      = 2000
	syncAccounts    = 10_000
	disperseBatch   = 400 // recipients per funding tx: ~15 M gas, under the 2^24 tx cap
	storageSlots    = 300 // per storage contract
	storageContract = 3
	snapshotEvery   = 100 // testnet homes' [state-sync] snapshot-interval
)

// syncRecipient is funded account i: a fixed address no key controls.
func syncRecipient(i int) common.Address {
	return common.BytesToAddress(crypto.Keccak256(binary.BigEndian.AppendUint64([]byte("statesync"), uint64(i)))[12:])
}

// disperseRuntime sends value wei to each address given as a calldata word.
func disperseRuntime(value uint64) []byte {
	var loop, end uint64
	build := func() []byte {
		p := program.New()
		p.Push0() // i
		_, loop = p.Jumpdest()
		p.Op(vm.CALLDATASIZE, vm.DUP2, vm.LT, vm.ISZERO)
		pushLabel(p, end)
		p.Op(vm.JUMPI)
		p.Push0().Push0().Push0().Push0().Push(value) // retSize retOffset argsSize argsOffset value
		p.Op(vm.DUP6, vm.CALLDATALOAD, vm.GAS, vm.CALL, vm.POP)
		p.Push(32).Op(vm.ADD)
		pushLabel(p, loop)
		p.Op(vm.JUMP)
		_, end = p.Jumpdest()
		p.Op(vm.STOP)
		return p.Bytes()
	}
	build()
	return build()
}

// storageInit deploys emitterRuntime after storing salt+i in slots 1..n.
func storageInit(n, salt uint64) []byte {
	var loop, end uint64
	build := func() []byte {
		p := program.New()
		p.Push(n) // i
		_, loop = p.Jumpdest()
		p.Op(vm.DUP1, vm.ISZERO)
		pushLabel(p, end)
		p.Op(vm.JUMPI)
		p.Op(vm.DUP1).Push(salt).Op(vm.ADD) // i, v
		p.Op(vm.DUP2, vm.SSTORE)            // sstore(i, v)
		p.Push(1).Op(vm.SWAP1, vm.SUB)      // i-1
		pushLabel(p, loop)
		p.Op(vm.JUMP)
		_, end = p.Jumpdest()
		p.Op(vm.POP)
		p.ReturnViaCodeCopy(emitterRuntime())
		return p.Bytes()
	}
	build()
	return build()
}

// speedUpConsensus makes a testnet home fast enough to reach the test's
// height in CI time: a short commit timeout, peer connections flushed every
// 10 ms instead of 100 (each of a height's proposal and two vote rounds
// waited for a flush: ~3 blocks/s with the CPU idle), and blocks not synced
// to disk (as dev homes do: a killed process loses nothing, only a power
// loss could).
func speedUpConsensus(t *testing.T, home string) {
	t.Helper()
	rewrite(t, filepath.Join(home, "config", "config.toml"), `(?m)^timeout_commit = ".*"$`, `timeout_commit = "10ms"`)
	rewrite(t, filepath.Join(home, "config", "config.toml"), `(?m)^flush_throttle_timeout = ".*"$`, `flush_throttle_timeout = "10ms"`)
	rewrite(t, filepath.Join(home, "config", "app.toml"), `(?m)^(\s*)sync = true$`, `${1}sync = false`)
	rewrite(t, filepath.Join(home, "config", "app.toml"), `(?m)^(\s*)sync-state = true$`, `${1}sync-state = false`)
}

// rewrite replaces what pattern matches in the file at path; it must match.
func rewrite(t *testing.T, path, pattern, repl string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(pattern)
	if !re.Match(raw) {
		t.Fatalf("%s: nothing matches %s", path, pattern)
	}
	if err := os.WriteFile(path, re.ReplaceAll(raw, []byte(repl)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// proofResult is eth_getProof's answer.
type proofResult struct {
	Address      common.Address  `json:"address"`
	AccountProof []hexutil.Bytes `json:"accountProof"`
	Balance      *hexutil.Big    `json:"balance"`
	CodeHash     common.Hash     `json:"codeHash"`
	Nonce        hexutil.Uint64  `json:"nonce"`
	StorageHash  common.Hash     `json:"storageHash"`
	StorageProof []struct {
		Key   hexutil.Bytes   `json:"key"`
		Value *hexutil.Big    `json:"value"`
		Proof []hexutil.Bytes `json:"proof"`
	} `json:"storageProof"`
}

// verifyProof checks an eth_getProof answer against a state root.
func verifyProof(t *testing.T, root common.Hash, p proofResult) {
	t.Helper()
	db := func(nodes []hexutil.Bytes) *memorydb.Database {
		m := memorydb.New()
		for _, n := range nodes {
			m.Put(crypto.Keccak256(n), n)
		}
		return m
	}
	val, err := trie.VerifyProof(root, crypto.Keccak256(p.Address[:]), db(p.AccountProof))
	if err != nil {
		t.Fatalf("account proof of %s: %v", p.Address, err)
	}
	var acct types.StateAccount
	if err := rlp.DecodeBytes(val, &acct); err != nil {
		t.Fatalf("account proof of %s: %v", p.Address, err)
	}
	if acct.Balance.ToBig().Cmp(p.Balance.ToInt()) != 0 || acct.Nonce != uint64(p.Nonce) || acct.Root != p.StorageHash || common.BytesToHash(acct.CodeHash) != p.CodeHash {
		t.Fatalf("account proof of %s proves %+v, answer says %+v", p.Address, acct, p)
	}
	for _, sp := range p.StorageProof {
		if p.StorageHash == types.EmptyRootHash { // no storage: nothing to prove, every slot zero
			if len(sp.Proof) != 0 || sp.Value.ToInt().Sign() != 0 {
				t.Fatalf("storage proof of %s (no storage) slot %x: %+v", p.Address, []byte(sp.Key), sp)
			}
			continue
		}
		v, err := trie.VerifyProof(p.StorageHash, crypto.Keccak256(common.LeftPadBytes(sp.Key, 32)), db(sp.Proof))
		if err != nil {
			t.Fatalf("storage proof of %s slot %x: %v", p.Address, sp.Key, err)
		}
		var content []byte
		if len(v) > 0 {
			if err := rlp.DecodeBytes(v, &content); err != nil {
				t.Fatal(err)
			}
		}
		if new(big.Int).SetBytes(content).Cmp(sp.Value.ToInt()) != 0 {
			t.Fatalf("storage proof of %s slot %x proves %x, answer says %v", p.Address, sp.Key, content, sp.Value)
		}
	}
}

// logTail returns the lines of a node's log that match sub.
func logLines(path, sub string) []string {
	raw, _ := os.ReadFile(path)
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

func TestStateSync(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 4, 2)
	vals := nw.Nodes
	for _, n := range vals {
		speedUpConsensus(t, n.Home)
	}
	for _, n := range vals {
		n.Start("start")
	}
	v0 := vals[0]

	// Contracts: a disperser, three with storage, one reading BLOCKHASH.
	deploy := func(key int, code []byte, gas uint64) common.Address {
		tx := v0.send(t, devKeys[key].Private, txOpts{Data: code, Gas: gas})
		r := v0.WaitReceipt(t, tx.Hash())
		if r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("deploy from devKeys[%d]: status %d", key, r.Status)
		}
		return r.ContractAddress
	}
	const fund = 1_000_000_000_000 // wei per recipient
	disperser := deploy(0, deployCode(disperseRuntime(fund)), 200_000)
	var stores []common.Address
	for i := 0; i < storageContract; i++ {
		stores = append(stores, deploy(1+i, storageInit(storageSlots, uint64(1000*(i+1))), 10_000_000))
	}
	blockhash := deploy(4, deployCode(blockhashRuntime()), 200_000)

	// Fund syncAccounts fresh accounts in a few big blocks.
	start := time.Now()
	var funding []*types.Transaction
	for b := 0; b*disperseBatch < syncAccounts; b++ {
		var data []byte
		for i := b * disperseBatch; i < min((b+1)*disperseBatch, syncAccounts); i++ {
			data = append(data, common.LeftPadBytes(syncRecipient(i).Bytes(), 32)...)
		}
		key := devKeys[5+b%5].Private
		value := new(big.Int).Mul(big.NewInt(fund), big.NewInt(disperseBatch))
		funding = append(funding, v0.send(t, key, txOpts{To: &disperser, Data: data, Value: value, Gas: 16_000_000}))
	}
	var fundedAt uint64
	for _, tx := range funding {
		r := v0.WaitReceipt(t, tx.Hash())
		if r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("funding tx %s failed", tx.Hash())
		}
		fundedAt = max(fundedAt, r.BlockNumber.Uint64())
	}
	for _, i := range []int{0, syncAccounts / 2, syncAccounts - 1} {
		bal, err := v0.Eth.BalanceAt(ctx(t), syncRecipient(i), nil)
		if err != nil || bal.Cmp(big.NewInt(fund)) != 0 {
			t.Fatalf("recipient %d balance %v %v", i, bal, err)
		}
	}
	t.Logf("%d accounts funded by %d txs by block %d in %s", syncAccounts, len(funding), fundedAt, time.Since(start).Round(time.Millisecond))

	// Up to the height, with snapshots made on the way; meanwhile a
	// validator is killed while it makes one.
	start = time.Now()
	t.Run("KillDuringSnapshot", func(t *testing.T) { killDuringSnapshot(t, vals[3]) })
	waitAllHeightWithin(t, syncHeight+snapshotEvery/2, 10*time.Minute, v0)
	t.Logf("validators at block %d after %s", v0.height(t), time.Since(start).Round(time.Second))
	for _, n := range vals {
		if made := logLines(n.logPath, "snapshot made"); len(made) == 0 {
			t.Fatalf("%s made no snapshot", n.Home)
		}
	}

	// A fifth node joins by state sync, a sixth by block sync from genesis.
	out, err := emberdCLI(t, "testnet", "add-node", "--state-sync", nw.Dir)
	if err != nil {
		t.Fatalf("testnet add-node --state-sync: %v\n%s", err, out)
	}
	nw.load()
	synced := nw.Nodes[len(nw.Nodes)-1]
	blocksync := nw.AddFullNode()
	chainAt := v0.height(t)
	start = time.Now()
	synced.Start("start") // returns once JSON-RPC answers: after the restore
	servedIn := time.Since(start)
	restored := synced.height(t)
	blocksync.Start("start")
	bsStart := time.Now()

	t.Logf("state sync: chain at %d; the new node answered JSON-RPC %s after start, at block %d", chainAt, servedIn.Round(time.Millisecond), restored)
	var snapHeight uint64
	for _, l := range logLines(synced.logPath, "snapshot restored") {
		if m := regexp.MustCompile(`height=(\d+)`).FindStringSubmatch(l); m != nil {
			fmt.Sscan(m[1], &snapHeight)
		}
	}
	// The state of 10,000 accounts is about 1.8 MB: more than one chunk,
	// so chunks travel from several peers and apply in order.
	var chunks int
	for _, l := range logLines(synced.logPath, "restoring snapshot") {
		if m := regexp.MustCompile(`chunks=(\d+)`).FindStringSubmatch(l); m != nil {
			fmt.Sscan(m[1], &chunks)
		}
	}
	t.Logf("restored the snapshot of block %d, %d chunks", snapHeight, chunks)
	if chunks < 2 {
		t.Fatalf("snapshot of %d chunks", chunks)
	}
	if snapHeight < syncHeight || snapHeight%snapshotEvery != 0 {
		t.Fatalf("restored snapshot height %d (log %q)", snapHeight, logLines(synced.logPath, "snapshot"))
	}

	t.Run("FollowsNewBlocks", func(t *testing.T) {
		h := v0.height(t) + 3
		waitAllHeight(t, h, synced)
		sameChainFrom(t, snapHeight-255, h, v0, synced)
	})

	t.Run("ProofsMatchValidator", func(t *testing.T) {
		h := synced.height(t)
		waitAllHeight(t, h, vals[1])
		header, err := synced.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(h))
		if err != nil {
			t.Fatal(err)
		}
		var slots []string
		for _, s := range []uint64{0, 1, storageSlots / 2, storageSlots, storageSlots + 1} {
			slots = append(slots, common.BigToHash(new(big.Int).SetUint64(s)).Hex())
		}
		addrs := append([]common.Address{disperser, blockhash, devKeys[0].Address, accounts.RegistryAddress}, stores...)
		for i := 0; i < syncAccounts; i += 997 {
			addrs = append(addrs, syncRecipient(i))
		}
		for _, at := range []uint64{snapHeight, h} {
			for _, addr := range addrs {
				var want, got json.RawMessage
				args := []any{addr, slots, hexutil.EncodeUint64(at)}
				if err := vals[1].RPC.Call(&want, "eth_getProof", args...); err != nil {
					t.Fatal(err)
				}
				if err := synced.RPC.Call(&got, "eth_getProof", args...); err != nil {
					t.Fatalf("eth_getProof %s at %d on the state-synced node: %v", addr, at, err)
				}
				if !bytes.Equal(want, got) {
					t.Fatalf("eth_getProof %s at %d: validator %s, state-synced %s", addr, at, want, got)
				}
				var p proofResult
				if err := json.Unmarshal(got, &p); err != nil {
					t.Fatal(err)
				}
				root := header.Root
				if at == snapHeight {
					hd, err := synced.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(at))
					if err != nil {
						t.Fatal(err)
					}
					root = hd.Root
				}
				verifyProof(t, root, p)
			}
		}
		// The storage contracts' slots as deployed.
		for i, c := range stores {
			v, err := synced.Eth.StorageAt(ctx(t), c, common.BigToHash(big.NewInt(storageSlots)), new(big.Int).SetUint64(h))
			if err != nil || new(big.Int).SetBytes(v).Uint64() != storageSlots+uint64(1000*(i+1)) {
				t.Fatalf("slot %d of contract %d: %x %v", storageSlots, i, v, err)
			}
			code, err := synced.Eth.CodeAt(ctx(t), c, nil)
			if err != nil || !bytes.Equal(code, emitterRuntime()) {
				t.Fatalf("code of contract %d: %x %v", i, code, err)
			}
		}
	})

	t.Run("BlockhashWindow", func(t *testing.T) {
		// BLOCKHASH at the snapshot block reaches the 256 blocks before it.
		for _, n := range []uint64{snapHeight - 255, snapHeight - 100, snapHeight - 1} {
			msg := map[string]any{"to": blockhash, "data": hexutil.Bytes(word(n))}
			var want, got hexutil.Bytes
			if err := vals[2].RPC.Call(&want, "eth_call", msg, hexutil.EncodeUint64(snapHeight)); err != nil {
				t.Fatal(err)
			}
			if err := synced.RPC.Call(&got, "eth_call", msg, hexutil.EncodeUint64(snapHeight)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) || common.BytesToHash(got) == (common.Hash{}) {
				t.Fatalf("BLOCKHASH(%d) at %d: validator %x, state-synced %x", n, snapHeight, want, got)
			}
		}
	})

	t.Run("OlderHeightsNotAvailable", func(t *testing.T) {
		old := hexutil.EncodeUint64(snapHeight - 1)
		wantState := fmt.Sprintf("state of block %d is not available on this node: the oldest available is block %d", snapHeight-1, snapHeight)
		var res any
		err := synced.RPC.Call(&res, "eth_getBalance", devKeys[0].Address, old)
		if err == nil || err.Error() != wantState {
			t.Fatalf("eth_getBalance at %s: %v, want %q", old, err, wantState)
		}
		err = synced.RPC.Call(&res, "eth_getProof", disperser, []string{}, old)
		if err == nil || err.Error() != wantState {
			t.Fatalf("eth_getProof at %s: %v", old, err)
		}
		first := snapHeight - 255
		wantBlock := fmt.Sprintf("block %d is not available on this node (state-synced): the oldest available is block %d", first-1, first)
		err = synced.RPC.Call(&res, "eth_getBlockByNumber", hexutil.EncodeUint64(first-1), false)
		if err == nil || err.Error() != wantBlock {
			t.Fatalf("eth_getBlockByNumber %d: %v, want %q", first-1, err, wantBlock)
		}
		var blk map[string]any
		if err := synced.RPC.Call(&blk, "eth_getBlockByNumber", hexutil.EncodeUint64(first), false); err != nil || blk == nil {
			t.Fatalf("eth_getBlockByNumber %d (the first held): %v %v", first, blk, err)
		}
		if err := synced.RPC.Call(&res, "debug_traceBlockByNumber", hexutil.EncodeUint64(snapHeight-1), map[string]any{}); err == nil || !strings.Contains(err.Error(), "not available on this node") {
			t.Fatalf("debug_traceBlockByNumber %d: %v", snapHeight-1, err)
		}
		status, body, _ := synced.restGet(t, "/cosmos/auth/v1beta1/accounts/"+accounts.Bech32("ember", devKeys[0].Address), "x-cosmos-block-height", fmt.Sprint(snapHeight-1))
		if status == http.StatusOK || !strings.Contains(body, wantState) {
			t.Fatalf("REST account at %d: %d %s", snapHeight-1, status, body)
		}
	})

	t.Run("NativeAccountsOverREST", func(t *testing.T) {
		h := fmt.Sprint(synced.height(t))
		for _, addr := range []common.Address{devKeys[0].Address, syncRecipient(7)} {
			path := "/cosmos/auth/v1beta1/accounts/" + accounts.Bech32("ember", addr)
			s1, want, _ := vals[3].restGet(t, path, "x-cosmos-block-height", h)
			s2, got, _ := synced.restGet(t, path, "x-cosmos-block-height", h)
			if s1 != http.StatusOK || s2 != s1 || got != want {
				t.Fatalf("%s at %s: validator %d %s, state-synced %d %s", path, h, s1, want, s2, got)
			}
		}
	})

	t.Run("BlockSyncBeside", func(t *testing.T) {
		waitAllHeightWithin(t, chainAt, 10*time.Minute, blocksync)
		t.Logf("block sync from genesis: chain at %d when started; reached it %s after start (state sync served in %s)",
			chainAt, time.Since(bsStart).Round(time.Millisecond), servedIn.Round(time.Millisecond))
	})

	t.Run("KillDuringRestore", func(t *testing.T) {
		// A node killed while restoring starts over and completes.
		out, err := emberdCLI(t, "testnet", "add-node", "--state-sync", nw.Dir)
		if err != nil {
			t.Fatalf("testnet add-node --state-sync: %v\n%s", err, out)
		}
		nw.load()
		n := nw.Nodes[len(nw.Nodes)-1]
		if err := n.spawn("start"); err != nil {
			t.Fatal(err)
		}
		// Killed as soon as the restore begins (or after a minute without).
		_ = wait.PollEvery(5*time.Millisecond, 60*time.Second, "the restore to begin", func() error {
			return wait.Check(len(logLines(n.logPath, "restoring snapshot")) > 0, "not logged")
		})
		n.Kill()
		finished := len(logLines(n.logPath, "snapshot restored")) > 0
		t.Logf("killed after the restore began (restore finished before the kill: %v)", finished)
		n.Start("start")
		waitAllHeight(t, v0.height(t), n)
		sameChainFrom(t, n.firstBlock(t), n.height(t), v0, n)
	})
}

// killDuringSnapshot kills n (kill -9) as soon as its log says it began a
// snapshot, up to three times until a kill lands before the snapshot is
// complete (a .tmp directory left); restarted, the node removes it, keeps
// committing, and its later snapshots complete.
func killDuringSnapshot(t *testing.T, n *Node) {
	dir := filepath.Join(n.Home, "data", "snapshots")
	for attempt := 1; attempt <= 3; attempt++ {
		seen := len(logLines(n.logPath, "making snapshot"))
		if err := wait.PollEvery(2*time.Millisecond, 2*time.Minute, "a snapshot to begin", func() error {
			return wait.Check(len(logLines(n.logPath, "making snapshot")) > seen, "not logged")
		}); err != nil {
			t.Fatal(err)
		}
		n.Kill()
		partial, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
		t.Logf("attempt %d: killed after a snapshot began; partial snapshot left: %v", attempt, partial)
		n.Start("start")
		// (A block CometBFT's handshake replays may begin that snapshot
		// again: a .tmp directory now can be a new one.)
		for _, p := range partial {
			if len(logLines(n.logPath, `removing partial snapshot" module=snapshot dir=`+filepath.Base(p))) == 0 {
				t.Fatalf("partial snapshot %s: no removal logged", p)
			}
		}
		if len(partial) > 0 {
			break
		}
	}
	made := len(logLines(n.logPath, "snapshot made"))
	h := n.height(t)
	waitAllHeightWithin(t, h+snapshotEvery+5, 5*time.Minute, n)
	// A snapshot is made beside the chain: the one begun at the interval
	// may still be running (minutes under the race detector).
	wait.Eventually(t, 3*time.Minute, "a snapshot made after the restart", func() error {
		return wait.Check(len(logLines(n.logPath, "snapshot made")) > made, "none")
	})
}

// firstBlock is the oldest block a node serves.
func (n *Node) firstBlock(t *testing.T) uint64 {
	t.Helper()
	var res any
	lo, hi := uint64(0), n.height(t)
	for lo < hi { // binary search: blocks below the first answer an error
		mid := (lo + hi) / 2
		if err := n.RPC.Call(&res, "eth_getBlockByNumber", hexutil.EncodeUint64(mid), false); err != nil {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// sameChainFrom requires nodes to serve identical blocks from..to.
func sameChainFrom(t *testing.T, from, to uint64, nodes ...*Node) {
	t.Helper()
	want := nodes[0].blocks(t, from, to)
	for _, n := range nodes[1:] {
		got := n.blocks(t, from, to)
		for i := range want {
			if want[i].Hash != got[i].Hash || want[i].StateRoot != got[i].StateRoot {
				t.Fatalf("block %d differs: %s has %+v, %s has %+v", from+uint64(i), nodes[0].Home, want[i], n.Home, got[i])
			}
		}
	}
}
