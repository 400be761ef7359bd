package e2e

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestDevSendAnswersMined: on emberd dev with automine, a send answers once
// its transaction is in a committed block and the chain is settled after
// it (the receipt is there at once and the head no longer moves), for
// eth_sendRawTransaction and eth_sendTransaction alike, as on Hardhat
// Network and anvil. A nonce-gapped (queued) transaction, automine off and
// interval mining answer at admission, as there; interval mining turns
// automine off and evm_setAutomine(true) ends it, as on anvil.
func TestDevSendAnswersMined(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	var version string
	if mustCall(t, n, &version, "web3_clientVersion"); !strings.HasPrefix(version, "anvil-compatible/emberd/") {
		t.Fatalf("web3_clientVersion %q, want anvil-compatible/emberd/…", version)
	}
	key := devKeys[3].Private
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.HexToAddress("0x0000000000000000000000000000000000005e4d")
	for i := range 8 {
		tx := n.send(t, key, txOpts{To: &to, Value: big.NewInt(1)})
		n.mustBeMinedAndSettled(t, tx.Hash(), "raw send "+string(rune('0'+i)))
	}
	for i := range 4 {
		var hash common.Hash
		mustCall(t, n, &hash, "eth_sendTransaction", map[string]any{"from": devKeys[5].Address, "to": to, "value": "0x2"})
		n.mustBeMinedAndSettled(t, hash, "eth_sendTransaction "+string(rune('0'+i)))
	}

	// A nonce gap: the later transaction is queued and answered at once;
	// the one filling the gap answers once mined, and both are.
	nonce, err := n.Eth.PendingNonceAt(ctx(t), from)
	if err != nil {
		t.Fatal(err)
	}
	queued := n.send(t, key, txOpts{To: &to, Value: big.NewInt(1), Nonce: ptr(nonce + 1)})
	n.mustHaveNoReceipt(t, queued.Hash(), "queued transaction")
	filler := n.send(t, key, txOpts{To: &to, Value: big.NewInt(1), Nonce: ptr(nonce)})
	if r, err := n.Eth.TransactionReceipt(ctx(t), filler.Hash()); err != nil || r.Status != 1 {
		t.Fatalf("gap filler: receipt %v, %v right after its send", r, err)
	}
	n.WaitReceipt(t, queued.Hash())

	// Automine off: the send answers at admission, evm_mine mines.
	var null any
	mustCall(t, n, &null, "evm_setAutomine", false)
	held := n.send(t, key, txOpts{To: &to, Value: big.NewInt(1)})
	n.mustHaveNoReceipt(t, held.Hash(), "transaction sent with automine off")
	mustCall(t, n, &null, "evm_mine")
	if r, err := n.Eth.TransactionReceipt(ctx(t), held.Hash()); err != nil || r.Status != 1 {
		t.Fatalf("held transaction after evm_mine: %v, %v", r, err)
	}
	mustCall(t, n, &null, "evm_setAutomine", true)

	// Interval mining: automine off, a block every second takes the send.
	var on bool
	var interval *uint64
	mustCall(t, n, &null, "evm_setIntervalMining", 1)
	if mustCall(t, n, &on, "anvil_getAutomine"); on {
		t.Fatal("anvil_getAutomine true while interval mining, want false (anvil's mining modes)")
	}
	start := time.Now()
	ticked := n.send(t, key, txOpts{To: &to, Value: big.NewInt(1)})
	if time.Since(start) > 500*time.Millisecond {
		t.Fatalf("send took %v while interval mining: it should answer at admission", time.Since(start))
	}
	if r := n.WaitReceipt(t, ticked.Hash()); r.Status != 1 {
		t.Fatalf("interval-mined transaction status %d", r.Status)
	}
	mustCall(t, n, &null, "evm_setAutomine", true)
	if mustCall(t, n, &interval, "anvil_getIntervalMining"); interval != nil {
		t.Fatalf("anvil_getIntervalMining %d after evm_setAutomine(true), want null", *interval)
	}
	last := n.send(t, key, txOpts{To: &to, Value: big.NewInt(1)})
	n.mustBeMinedAndSettled(t, last.Hash(), "send after interval mining")
	// 8 + 4×2 + 2 (gap) + 1 (held) + 1 (interval) + 1.
	if got := n.balance(t, to); got.Int64() != 21 {
		t.Fatalf("recipient balance %v wei, want 21", got)
	}
}

// mustBeMinedAndSettled checks, right after a send answered, that the
// transaction's receipt exists and the head is the proof block after its
// block (the block changed the state), with no block on the way.
func (n *Node) mustBeMinedAndSettled(t *testing.T, hash common.Hash, what string) {
	t.Helper()
	r, err := n.Eth.TransactionReceipt(ctx(t), hash)
	if err != nil || r == nil {
		t.Fatalf("%s: no receipt right after the send answered: %v", what, err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("%s: status %d", what, r.Status)
	}
	head, err := n.Eth.BlockNumber(ctx(t))
	if err != nil || head != r.BlockNumber.Uint64()+1 {
		t.Fatalf("%s: head %d (%v) right after the send, want %d (the proof block after block %d)", what, head, err, r.BlockNumber.Uint64()+1, r.BlockNumber)
	}
	time.Sleep(50 * time.Millisecond)
	if again, err := n.Eth.BlockNumber(ctx(t)); err != nil || again != head {
		t.Fatalf("%s: head moved from %d to %d (%v) after the send answered", what, head, again, err)
	}
}

// mustHaveNoReceipt checks that the transaction is pending, not mined.
func (n *Node) mustHaveNoReceipt(t *testing.T, hash common.Hash, what string) {
	t.Helper()
	var r map[string]any
	if mustCall(t, n, &r, "eth_getTransactionReceipt", hash); r != nil {
		t.Fatalf("%s: mined (block %v) when its send answered, want pending", what, r["blockNumber"])
	}
}

// TestDevClientVersionOff: json-rpc.dev-client-version=false gives a dev
// chain the client version of any Ember node, which
// hardhat-network-helpers then refuses.
func TestDevClientVersionOff(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0", "--json-rpc.dev-client-version=false")
	var version string
	if mustCall(t, n, &version, "web3_clientVersion"); !strings.HasPrefix(version, "emberd/") {
		t.Fatalf("web3_clientVersion %q with json-rpc.dev-client-version=false, want emberd/…", version)
	}
}

// TestHardhatMetadata: hardhat_metadata (anvil_metadata) answers in
// anvil's shape, with the node's client version, the head, and the
// evm_snapshot marks as [number, hash].
func TestHardhatMetadata(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	var id string
	mustCall(t, n, &id, "evm_snapshot")
	head, err := n.Eth.HeaderByNumber(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var version string
	mustCall(t, n, &version, "web3_clientVersion")
	var m struct {
		ClientVersion     string
		ChainID           uint64
		InstanceID        common.Hash
		LatestBlockNumber uint64
		LatestBlockHash   common.Hash
		ForkedNetwork     *struct{}
		Snapshots         map[string][2]any
	}
	mustCall(t, n, &m, "hardhat_metadata")
	if m.ClientVersion != version || m.ChainID != 31337 || m.InstanceID == (common.Hash{}) || m.ForkedNetwork != nil ||
		m.LatestBlockNumber != head.Number.Uint64() || m.LatestBlockHash != head.Hash() {
		t.Fatalf("hardhat_metadata %+v; want client %q, chain 31337, head %d %s", m, version, head.Number, head.Hash().Hex())
	}
	mark, ok := m.Snapshots[id]
	if len(m.Snapshots) != 1 || !ok || mark[0] != float64(head.Number.Uint64()) || mark[1] != head.Hash().Hex() {
		t.Fatalf("snapshots %v, want {%s: [%d, %s]}", m.Snapshots, id, head.Number, head.Hash().Hex())
	}
	var again struct{ InstanceID common.Hash }
	if mustCall(t, n, &again, "anvil_metadata"); again.InstanceID != m.InstanceID {
		t.Fatalf("anvil_metadata instance %s, hardhat_metadata's %s", again.InstanceID.Hex(), m.InstanceID.Hex())
	}
}
