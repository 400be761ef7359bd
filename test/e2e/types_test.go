package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"
)

// TestSetCodeTransaction delegates an EOA to the emitter contract with an
// EIP-7702 authorization, then calls the EOA: the contract's code runs in
// the EOA's context (its storage, its address in the log).
func TestSetCodeTransaction(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	sender, authority := devKeys[8], devKeys[9]
	d := n.WaitReceipt(t, n.send(t, sender.Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())}).Hash())
	contract := d.ContractAddress

	chainID, _ := n.Eth.ChainID(ctx(t))
	authNonce, _ := n.Eth.NonceAt(ctx(t), authority.Address, nil)
	auth, err := types.SignSetCode(authority.Private, types.SetCodeAuthorization{
		ChainID: *uint256.MustFromBig(chainID), Address: contract, Nonce: authNonce,
	})
	if err != nil {
		t.Fatal(err)
	}
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), sender.Address)
	tx, err := types.SignNewTx(sender.Private, types.LatestSignerForChainID(chainID), &types.SetCodeTx{
		ChainID: uint256.MustFromBig(chainID), Nonce: nonce, GasTipCap: uint256.NewInt(1e9), GasFeeCap: uint256.NewInt(50e9),
		Gas: 200_000, To: authority.Address, Value: new(uint256.Int), Data: word(7),
		AuthList: []types.SetCodeAuthorization{auth},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
		t.Fatal(err)
	}
	r := n.WaitReceipt(t, tx.Hash())
	if r.Status != 1 || r.Type != types.SetCodeTxType || len(r.Logs) != 1 || r.Logs[0].Address != authority.Address {
		t.Fatalf("set-code receipt: status %d type %d logs %+v", r.Status, r.Type, r.Logs)
	}
	code, _ := n.Eth.CodeAt(ctx(t), authority.Address, nil)
	if want := types.AddressToDelegation(contract); !bytesEqual(code, want) {
		t.Fatalf("code of authority = %x, want delegation %x", code, want)
	}
	slot, _ := n.Eth.StorageAt(ctx(t), authority.Address, common.Hash{}, nil)
	if new(big.Int).SetBytes(slot).Uint64() != 7 {
		t.Fatalf("authority storage slot 0 = %x, want 7", slot)
	}
	if got, _ := n.Eth.NonceAt(ctx(t), authority.Address, nil); got != authNonce+1 {
		t.Fatalf("authority nonce %d, want %d", got, authNonce+1)
	}
}

func TestBlobTransactionRefused(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	key := devKeys[0]
	chainID, _ := n.Eth.ChainID(ctx(t))
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), key.Address)
	to := common.HexToAddress("0x00000000000000000000000000000000000000dd")
	tx, err := types.SignNewTx(key.Private, types.LatestSignerForChainID(chainID), &types.BlobTx{
		ChainID: uint256.MustFromBig(chainID), Nonce: nonce, GasTipCap: uint256.NewInt(1e9), GasFeeCap: uint256.NewInt(50e9),
		Gas: 21000, To: to, Value: new(uint256.Int), BlobFeeCap: uint256.NewInt(1e9),
		BlobHashes: []common.Hash{common.HexToHash("0x01" + strings.Repeat("00", 31))},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Eth.SendTransaction(ctx(t), tx)
	want := "transaction type not supported: blob transactions (type 3) are not supported on this chain"
	if err == nil || err.Error() != want {
		t.Fatalf("blob tx: err = %v, want %q", err, want)
	}
}

// TestNonceGapQueued: a gapped tx is accepted and queued, as geth's pool
// does (TestTxpool* follow it until the gap fills); sent again it is
// "already known".
func TestNonceGapQueued(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	key := devKeys[1]
	to := common.HexToAddress("0x00000000000000000000000000000000000000ee")
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), key.Address)
	gapped := n.signTx(t, key.Private, txOpts{Nonce: ptr(nonce + 2), To: &to, Value: big.NewInt(1)})
	if err := n.Eth.SendTransaction(ctx(t), gapped); err != nil {
		t.Fatalf("gapped tx: %v", err)
	}
	if err := n.Eth.SendTransaction(ctx(t), gapped); err == nil || err.Error() != "already known" {
		t.Fatalf("gapped tx sent again: %v", err)
	}
	// A pending tx sent again is "already known"; once mined, "nonce too
	// low", as geth's pool says (CometBFT's cache still holds it).
	tx := n.signTx(t, key.Private, txOpts{Nonce: ptr(nonce), To: &to, Value: big.NewInt(1)})
	raw, _ := tx.MarshalBinary()
	batch := []rpc.BatchElem{
		{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: new(common.Hash)},
		{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: new(common.Hash)},
	}
	// (If a block slipped in between the two, the second is already mined.)
	if err := n.RPC.BatchCall(batch); err != nil || batch[0].Error != nil || batch[1].Error == nil ||
		batch[1].Error.Error() != "already known" && !strings.HasPrefix(batch[1].Error.Error(), "nonce too low") {
		t.Fatalf("tx sent twice at once: %v, %v, %v", err, batch[0].Error, batch[1].Error)
	}
	n.WaitReceipt(t, tx.Hash())
	want := fmt.Sprintf("nonce too low: next nonce %d, tx nonce %d", nonce+1, nonce)
	if err := n.Eth.SendTransaction(ctx(t), tx); err == nil || err.Error() != want {
		t.Fatalf("mined tx sent again: err = %v, want %q", err, want)
	}
}

func TestRPCBasics(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	var s string
	if err := n.RPC.Call(&s, "net_version"); err != nil || s != "31337" {
		t.Fatalf("net_version = %q, %v", s, err)
	}
	if err := n.RPC.Call(&s, "eth_chainId"); err != nil || s != "0x7a69" {
		t.Fatalf("eth_chainId = %q, %v", s, err)
	}
	// A dev chain's: web3.DevPrefix, then the node's (TestDevClientVersion).
	if err := n.RPC.Call(&s, "web3_clientVersion"); err != nil || !strings.HasPrefix(s, "anvil-compatible/emberd/") || !strings.HasSuffix(s, "/"+runtime.GOOS+"-"+runtime.GOARCH+"/"+runtime.Version()) {
		t.Fatalf("web3_clientVersion = %q, %v", s, err)
	}
	// keccak256("") and keccak256(0x68656c6c6f = "hello").
	for in, want := range map[string]string{
		"0x":           "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
		"0x68656c6c6f": "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8",
	} {
		if err := n.RPC.Call(&s, "web3_sha3", in); err != nil || s != want {
			t.Fatalf("web3_sha3(%s) = %q, %v", in, s, err)
		}
	}
	// A single validator with PEX off: no peers, p2p listening.
	var peers json.RawMessage
	var listening bool
	if err := n.RPC.Call(&peers, "net_peerCount"); err != nil || string(peers) != "0" {
		t.Fatalf("net_peerCount = %s, %v", peers, err)
	}
	if err := n.RPC.Call(&listening, "net_listening"); err != nil || !listening {
		t.Fatalf("net_listening = %v, %v", listening, err)
	}
	// gasPrice = next block's base fee (EIP-1559 from the head, floored at
	// the genesis minimum) + the suggested 1 gwei tip.
	head, _ := n.Eth.HeaderByNumber(ctx(t), nil)
	next := eip1559.CalcBaseFee(params.AllDevChainProtocolChanges, head)
	if next.Cmp(gwei(1)) < 0 {
		next = gwei(1)
	}
	price, err := n.Eth.SuggestGasPrice(ctx(t))
	if err != nil || price.Cmp(new(big.Int).Add(next, gwei(1))) != 0 {
		t.Fatalf("eth_gasPrice = %v (%v), want %v + 1 gwei", price, err, next)
	}
	tip, err := n.Eth.SuggestGasTipCap(ctx(t))
	if err != nil || tip.Cmp(gwei(1)) != 0 {
		t.Fatalf("eth_maxPriorityFeePerGas = %v (%v)", tip, err)
	}
	// Pending nonce counts txs in the pool or already mined; latest only mined.
	key := devKeys[2]
	start, _ := n.Eth.NonceAt(ctx(t), key.Address, nil)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ff")
	var last *types.Transaction
	for i := uint64(0); i < 3; i++ {
		last = n.send(t, key.Private, txOpts{Nonce: ptr(start + i), To: &to, Value: big.NewInt(1)})
	}
	if p, _ := n.Eth.PendingNonceAt(ctx(t), key.Address); p != start+3 {
		t.Fatalf("pending nonce %d, want %d", p, start+3)
	}
	n.WaitReceipt(t, last.Hash())
	if l, _ := n.Eth.NonceAt(ctx(t), key.Address, nil); l != start+3 {
		t.Fatalf("latest nonce %d, want %d", l, start+3)
	}
	// A transaction looked up by hash carries its position and sender.
	got, pending, err := n.Eth.TransactionByHash(ctx(t), last.Hash())
	if err != nil || pending || got.Hash() != last.Hash() {
		t.Fatalf("eth_getTransactionByHash: %v pending=%v", err, pending)
	}
	var raw map[string]any
	_ = n.RPC.Call(&raw, "eth_getTransactionByHash", last.Hash())
	if raw["from"] != strings.ToLower(key.Address.Hex()) || raw["type"] != "0x2" || raw["yParity"] == nil || raw["blockHash"] == nil {
		t.Fatalf("tx object = %v", raw)
	}
	// Unknown block and tx answer null.
	var null json.RawMessage
	if err := n.RPC.Call(&null, "eth_getBlockByNumber", "0xffffff", false); err != nil || string(null) != "null" {
		t.Fatalf("unknown block: %s, %v", null, err)
	}
	if err := n.RPC.Call(&null, "eth_getTransactionReceipt", common.Hash{1}); err != nil || string(null) != "null" {
		t.Fatalf("unknown receipt: %s, %v", null, err)
	}
	// State at an unknown height is an error.
	if _, err := n.Eth.BalanceAt(ctx(t), key.Address, big.NewInt(1_000_000)); err == nil || err.Error() != "header not found" {
		t.Fatalf("balance at future block: %v", err)
	}
}

// TestABCIQuery reads app state and the block-hash mapping through
// CometBFT's abci_query.
func TestABCIQuery(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	to := common.HexToAddress("0x0000000000000000000000000000000000000abc")
	r := n.WaitReceipt(t, n.send(t, devKeys[3].Private, txOpts{To: &to, Value: big.NewInt(4242)}).Hash())

	var q struct {
		Response struct {
			Code   uint32 `json:"code"`
			Value  string `json:"value"`
			Height string `json:"height"`
		} `json:"response"`
	}
	path := fmt.Sprintf(`"/evm/account/%s"`, to.Hex())
	n.CometGet(t, "abci_query", url.Values{"path": {path}, "height": {r.BlockNumber.String()}}, &q)
	var acc struct {
		Balance *hexutil.Big `json:"balance"`
		Nonce   hexutil.Uint64
	}
	decodeQueryValue(t, q.Response.Value, &acc)
	if q.Response.Code != 0 || acc.Balance.ToInt().Int64() != 4242 || q.Response.Height != r.BlockNumber.String() {
		t.Fatalf("abci_query account: %+v %+v", q.Response, acc)
	}
	// The EVM hash and the CometBFT hash of the block, both ways.
	var blk struct {
		BlockID struct {
			Hash string `json:"hash"`
		} `json:"block_id"`
	}
	n.CometGet(t, "block", url.Values{"height": {r.BlockNumber.String()}}, &blk)
	var mapping struct {
		Hash      common.Hash `json:"hash"`
		CometHash string      `json:"cometHash"`
	}
	n.CometGet(t, "abci_query", url.Values{"path": {fmt.Sprintf(`"/evm/block/%s"`, r.BlockNumber)}}, &q)
	decodeQueryValue(t, q.Response.Value, &mapping)
	if mapping.Hash != r.BlockHash || mapping.CometHash != blk.BlockID.Hash {
		t.Fatalf("block mapping %+v, want %s / %s", mapping, r.BlockHash, blk.BlockID.Hash)
	}
	n.CometGet(t, "abci_query", url.Values{"path": {fmt.Sprintf(`"/evm/comet-block/%s"`, blk.BlockID.Hash)}}, &q)
	decodeQueryValue(t, q.Response.Value, &mapping)
	if mapping.Hash != r.BlockHash {
		t.Fatalf("reverse mapping %+v, want %s", mapping, r.BlockHash)
	}
}

func decodeQueryValue(t *testing.T, b64 string, v any) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("query value %s: %v", raw, err)
	}
}
