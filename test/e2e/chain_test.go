package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/emberchain/ember/internal/wait"
)

// balanceDelta is balance(addr, block) - balance(addr, block-1).
func (n *Node) balanceDelta(t *testing.T, addr common.Address, block *big.Int) *big.Int {
	t.Helper()
	after, err := n.Eth.BalanceAt(ctx(t), addr, block)
	if err != nil {
		t.Fatal(err)
	}
	before, err := n.Eth.BalanceAt(ctx(t), addr, new(big.Int).Sub(block, big.NewInt(1)))
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).Sub(after, before)
}

func TestTransfersMoveBalancesToTheWei(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	for _, typ := range []byte{types.LegacyTxType, types.AccessListTxType, types.DynamicFeeTxType} {
		t.Run(fmt.Sprintf("type%d", typ), func(t *testing.T) {
			from := devKeys[1]
			to := common.BytesToAddress(crypto.Keccak256([]byte{typ, 'r'})[:20])
			value := new(big.Int).Add(ether(1), big.NewInt(int64(typ)+7)) // odd wei amounts
			tx := n.send(t, from.Private, txOpts{Type: ptr(typ), To: &to, Value: value, Tip: gwei(3), FeeCap: gwei(20)})
			r := n.WaitReceipt(t, tx.Hash())
			if r.Status != types.ReceiptStatusSuccessful || r.Type != typ || r.GasUsed != 21000 {
				t.Fatalf("receipt: status %d type %d gasUsed %d", r.Status, r.Type, r.GasUsed)
			}
			header, err := n.Eth.HeaderByNumber(ctx(t), r.BlockNumber)
			if err != nil {
				t.Fatal(err)
			}
			// Legacy and access-list txs pay their gas price; EIP-1559 txs pay
			// min(feeCap, baseFee + tip).
			wantPrice := gwei(20)
			if typ == types.DynamicFeeTxType {
				wantPrice = new(big.Int).Add(header.BaseFee, gwei(3))
			}
			if r.EffectiveGasPrice.Cmp(wantPrice) != 0 {
				t.Fatalf("effectiveGasPrice %v, want %v", r.EffectiveGasPrice, wantPrice)
			}
			gasUsed := new(big.Int).SetUint64(r.GasUsed)
			fee := new(big.Int).Mul(gasUsed, r.EffectiveGasPrice)
			tip := new(big.Int).Mul(gasUsed, new(big.Int).Sub(r.EffectiveGasPrice, header.BaseFee))

			if got := n.balanceDelta(t, to, r.BlockNumber); got.Cmp(value) != 0 {
				t.Errorf("recipient gained %v, want %v", got, value)
			}
			wantSender := new(big.Int).Neg(new(big.Int).Add(value, fee))
			if got := n.balanceDelta(t, from.Address, r.BlockNumber); got.Cmp(wantSender) != 0 {
				t.Errorf("sender changed by %v, want %v", got, wantSender)
			}
			if got := n.balanceDelta(t, header.Coinbase, r.BlockNumber); got.Cmp(tip) != 0 {
				t.Errorf("coinbase %s gained %v, want the tip %v (base fee %v burned)", header.Coinbase, got, tip, header.BaseFee)
			}
			block, err := n.Eth.BlockByNumber(ctx(t), r.BlockNumber)
			if err != nil {
				t.Fatal(err)
			}
			if len(block.Transactions()) != 1 || block.Transactions()[0].Hash() != tx.Hash() {
				t.Fatalf("block %v does not hold exactly the tx", r.BlockNumber)
			}
		})
	}
}

func TestContractDeployCallAndLogs(t *testing.T) {
	t.Parallel()
	// Sends answered at admission, so that a batch of them shares a block
	// (answered once mined, as on anvil, each would have its own).
	n := StartDev(t, "--json-rpc.dev-answer-mined=false")
	key := devKeys[2]
	runtime := emitterRuntime()
	deploy := n.send(t, key.Private, txOpts{Gas: 300_000, Data: deployCode(runtime)})
	r := n.WaitReceipt(t, deploy.Hash())
	want := crypto.CreateAddress(key.Address, deploy.Nonce())
	if r.Status != 1 || r.ContractAddress != want {
		t.Fatalf("deploy: status %d contract %s, want %s", r.Status, r.ContractAddress, want)
	}
	code, err := n.Eth.CodeAt(ctx(t), want, nil)
	if err != nil || !bytesEqual(code, runtime) {
		t.Fatalf("code at %s = %x (%v), want %x", want, code, err, runtime)
	}

	// Ten calls sent in one JSON-RPC batch reach the mempool within a
	// millisecond, so blocks hold several of them: logIndex must run across
	// the block, not restart per tx.
	nonce, err := n.Eth.PendingNonceAt(ctx(t), key.Address)
	if err != nil {
		t.Fatal(err)
	}
	var calls []*types.Transaction
	var batch []rpc.BatchElem
	for i := uint64(0); i < 10; i++ {
		tx := n.signTx(t, key.Private, txOpts{Nonce: ptr(nonce + i), To: &want, Gas: 100_000, Data: word(42 + i)})
		raw, _ := tx.MarshalBinary()
		calls = append(calls, tx)
		batch = append(batch, rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: new(common.Hash)})
	}
	if err := n.RPC.BatchCall(batch); err != nil {
		t.Fatal(err)
	}
	for _, el := range batch {
		if el.Error != nil {
			t.Fatal(el.Error)
		}
	}
	perBlock := map[uint64]uint{} // block -> next expected logIndex
	shared := false
	for i, tx := range calls {
		rc := n.WaitReceipt(t, tx.Hash())
		if rc.Status != 1 || len(rc.Logs) != 1 {
			t.Fatalf("call %d: status %d, %d logs", i, rc.Status, len(rc.Logs))
		}
		num := rc.BlockNumber.Uint64()
		wantIndex := perBlock[num]
		if wantIndex > 0 {
			shared = true
		}
		perBlock[num] = wantIndex + 1
		l := rc.Logs[0]
		if l.Address != want || len(l.Topics) != 2 || l.Topics[0] != setTopic ||
			l.Topics[1] != common.BytesToHash(key.Address.Bytes()) || !bytesEqual(l.Data, word(42+uint64(i))) ||
			l.Index != wantIndex || l.TxIndex != rc.TransactionIndex || l.TxHash != rc.TxHash ||
			l.BlockHash != rc.BlockHash || l.BlockNumber != num || l.Removed {
			t.Fatalf("call %d log = %+v, want logIndex %d", i, l, wantIndex)
		}
		if rc.TransactionIndex != uint(wantIndex) {
			t.Fatalf("call %d at index %d, want %d (one log per tx)", i, rc.TransactionIndex, wantIndex)
		}
	}
	if !shared {
		t.Fatalf("ten batched calls landed in ten blocks; cannot check block-wide logIndex")
	}
	// The getter returns the last value stored.
	out, err := n.Eth.CallContract(ctx(t), ethereum.CallMsg{To: &want}, nil)
	if err != nil || new(big.Int).SetBytes(out).Uint64() != 51 {
		t.Fatalf("getter = %x, %v; want 51", out, err)
	}
	// The block's bloom contains the log.
	last := n.WaitReceipt(t, calls[9].Hash())
	header, _ := n.Eth.HeaderByNumber(ctx(t), last.BlockNumber)
	if !types.BloomLookup(header.Bloom, setTopic) || !types.BloomLookup(header.Bloom, want) {
		t.Fatal("block bloom misses the log")
	}
}

func TestRevertIsIncludedWithStatusZeroAndCodeOne(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	key := devKeys[3]
	d := n.WaitReceipt(t, n.send(t, key.Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())}).Hash())
	contract := d.ContractAddress

	tx := n.send(t, key.Private, txOpts{To: &contract, Gas: 100_000, Data: word(0), Tip: gwei(1), FeeCap: gwei(30)})
	r := n.WaitReceipt(t, tx.Hash())
	if r.Status != types.ReceiptStatusFailed || len(r.Logs) != 0 || r.GasUsed <= 21000 || r.GasUsed >= 100_000 {
		t.Fatalf("reverted receipt: status %d logs %d gasUsed %d", r.Status, len(r.Logs), r.GasUsed)
	}
	// Gas is charged for a reverted tx.
	fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
	if got := n.balanceDelta(t, key.Address, r.BlockNumber); got.Cmp(new(big.Int).Neg(fee)) != 0 {
		t.Fatalf("sender changed by %v, want -%v", got, fee)
	}
	// CometBFT has it with code 1 and the revert in its log.
	res := n.txSearchIncluded(t, tx.Hash())
	if len(res.Txs) != 1 || res.Txs[0].TxResult.Code != 1 || !strings.Contains(res.Txs[0].TxResult.Log, "execution reverted") {
		t.Fatalf("tx_search: %+v", res)
	}
	// eth_call of the same reverts with code 3, the reason and the data.
	var out hexutil.Bytes
	err := n.RPC.Call(&out, "eth_call", map[string]any{"from": key.Address, "to": contract, "input": hexutil.Bytes(word(0))}, "latest")
	var de interface {
		ErrorCode() int
		ErrorData() any
	}
	if err == nil || !errors.As(err, &de) || de.ErrorCode() != 3 || err.Error() != "execution reverted: zero value" || de.ErrorData() != hexutil.Encode(revertZero) {
		t.Fatalf("eth_call revert error = %v", err)
	}
}

func TestBadTxsAreRefusedAtSend(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	key := devKeys[4]
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	first := n.send(t, key.Private, txOpts{To: &to, Value: big.NewInt(1)})
	n.WaitReceipt(t, first.Hash())

	stale := n.signTx(t, key.Private, txOpts{Nonce: ptr(uint64(0)), To: &to, Value: big.NewInt(2)})
	err := n.Eth.SendTransaction(ctx(t), stale)
	if err == nil || err.Error() != "nonce too low: next nonce 1, tx nonce 0" {
		t.Fatalf("stale nonce: err = %v", err)
	}
	pauper, _ := crypto.GenerateKey()
	broke := n.signTx(t, pauper, txOpts{To: &to, Value: big.NewInt(5)})
	err = n.Eth.SendTransaction(ctx(t), broke)
	cost := new(big.Int).Add(new(big.Int).Mul(big.NewInt(21000), gwei(50)), big.NewInt(5))
	wantErr := fmt.Sprintf("insufficient funds for gas * price + value: balance 0, tx cost %v, overshot %v", cost, cost)
	if err == nil || err.Error() != wantErr {
		t.Fatalf("unfunded: err = %v, want %q", err, wantErr)
	}
	// Neither ever shows up, even after more blocks.
	later := n.send(t, key.Private, txOpts{To: &to, Value: big.NewInt(3)})
	n.WaitReceipt(t, later.Hash())
	for _, tx := range []*types.Transaction{stale, broke} {
		if _, _, err := n.Eth.TransactionByHash(ctx(t), tx.Hash()); err != ethereum.NotFound {
			t.Fatalf("refused tx %s: lookup err = %v, want not found", tx.Hash().Hex(), err)
		}
		if res := n.txSearch(t, tx.Hash()); len(res.Txs) != 0 {
			t.Fatalf("refused tx %s found by tx_search", tx.Hash().Hex())
		}
	}
}

func TestHeadersHashAndChain(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	for i := 0; i < 3; i++ {
		to := common.BigToAddress(big.NewInt(int64(0x1000 + i)))
		n.WaitReceipt(t, n.send(t, devKeys[5].Private, txOpts{To: &to, Value: big.NewInt(1)}).Hash())
	}
	head, err := n.Eth.BlockNumber(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var parent common.Hash
	for num := uint64(0); num <= head; num++ {
		var raw map[string]any
		if err := n.RPC.Call(&raw, "eth_getBlockByNumber", hexutil.EncodeUint64(num), false); err != nil {
			t.Fatal(err)
		}
		header, err := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(num))
		if err != nil {
			t.Fatal(err)
		}
		// The client recomputes keccak256(RLP(header)) from the fields it got.
		if got := header.Hash().Hex(); got != raw["hash"] {
			t.Fatalf("block %d: recomputed hash %s, served %v", num, got, raw["hash"])
		}
		if header.ParentHash != parent {
			t.Fatalf("block %d: parentHash %s, want %s", num, header.ParentHash, parent)
		}
		parent = header.Hash()
	}
	if head < 4 {
		t.Fatalf("head %d: expected at least 4 blocks", head)
	}
}

func TestStateRootVerifiesProof(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	r := n.WaitReceipt(t, n.send(t, devKeys[6].Private, txOpts{To: &to, Value: big.NewInt(12345)}).Hash())
	for _, addr := range []common.Address{devKeys[6].Address, to} {
		var res struct {
			AccountProof []hexutil.Bytes `json:"accountProof"`
			Balance      *hexutil.Big    `json:"balance"`
			Nonce        hexutil.Uint64  `json:"nonce"`
		}
		if err := n.RPC.Call(&res, "eth_getProof", addr, []string{}, hexutil.EncodeBig(r.BlockNumber)); err != nil {
			t.Fatal(err)
		}
		block, err := n.Eth.BlockByNumber(ctx(t), r.BlockNumber)
		if err != nil {
			t.Fatal(err)
		}
		db := memorydb.New()
		for _, node := range res.AccountProof {
			_ = db.Put(crypto.Keccak256(node), node)
		}
		val, err := trie.VerifyProof(block.Root(), crypto.Keccak256(addr.Bytes()), db)
		if err != nil || val == nil {
			t.Fatalf("%s: proof does not verify against stateRoot %s: %v", addr, block.Root(), err)
		}
		var acc types.StateAccount
		if err := rlp.DecodeBytes(val, &acc); err != nil {
			t.Fatal(err)
		}
		bal, _ := n.Eth.BalanceAt(ctx(t), addr, r.BlockNumber)
		if acc.Balance.ToBig().Cmp(bal) != 0 || acc.Balance.ToBig().Cmp(res.Balance.ToInt()) != 0 || acc.Nonce != uint64(res.Nonce) {
			t.Fatalf("%s: proven account %+v, balance %v", addr, acc, bal)
		}
	}
}

func TestCometTxSearchFindsEthereumTx(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	tx := n.send(t, devKeys[7].Private, txOpts{To: &to, Value: big.NewInt(777)})
	r := n.WaitReceipt(t, tx.Hash())
	res := n.txSearchIncluded(t, tx.Hash())
	if len(res.Txs) != 1 {
		t.Fatalf("tx_search found %d txs", len(res.Txs))
	}
	got := res.Txs[0]
	raw, _ := tx.MarshalBinary()
	cometHash := sha256.Sum256(raw)
	if got.Height != r.BlockNumber.String() || got.TxResult.Code != 0 || !strings.EqualFold(got.Hash, hex.EncodeToString(cometHash[:])) {
		t.Fatalf("tx_search result %+v, want height %v code 0 hash %x", got, r.BlockNumber, cometHash)
	}
	attrs := map[string]string{}
	var indexed []string
	for _, ev := range got.TxResult.Events {
		for _, a := range ev.Attributes {
			attrs[ev.Type+"."+a.Key] = a.Value
			if a.Index {
				indexed = append(indexed, ev.Type+"."+a.Key)
			}
		}
	}
	want := map[string]string{
		"ethereum_tx.ethereumTxHash": tx.Hash().Hex(),
		"ethereum_tx.txIndex":        "0",
		"ethereum_tx.txGasUsed":      "21000",
		"ethereum_tx.txHash":         strings.ToUpper(hex.EncodeToString(cometHash[:])),
		"ethereum_tx.recipient":      strings.ToLower(to.Hex()),
		"ethereum.sender":            strings.ToLower(devKeys[7].Address.Hex()),
		"ethereum.recipient":         strings.ToLower(to.Hex()),
		"ethereum.amount":            "777",
	}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("event %s = %q, want %q", k, attrs[k], v)
		}
	}
	// What tx_search can match (README's table): the rest are duplicates
	// (tx.hash, ethereum.recipient) or values nobody looks a tx up by.
	if want := []string{"ethereum_tx.ethereumTxHash", "ethereum_tx.txIndex", "ethereum.sender", "ethereum.recipient"}; !slices.Equal(indexed, want) {
		t.Errorf("indexed attributes %v, want %v", indexed, want)
	}
	var bySender, byAmount txSearchResult
	n.CometGet(t, "tx_search", url.Values{"query": {`"ethereum.sender='` + strings.ToLower(devKeys[7].Address.Hex()) + `'"`}}, &bySender)
	n.CometGet(t, "tx_search", url.Values{"query": {`"ethereum.amount='777'"`}}, &byAmount)
	if len(bySender.Txs) != 1 || bySender.Txs[0].Hash != got.Hash || len(byAmount.Txs) != 0 {
		t.Errorf("tx_search by sender: %d txs, by amount (not indexed): %d, want 1 and 0", len(bySender.Txs), len(byAmount.Txs))
	}
}

func TestBlockhashServedFromChain(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	d := n.WaitReceipt(t, n.send(t, devKeys[8].Private, txOpts{Gas: 200_000, Data: deployCode(blockhashRuntime())}).Hash())
	contract := d.ContractAddress
	head := n.waitSettled(t)
	for _, num := range []uint64{0, 1, head - 1} {
		out, err := n.Eth.CallContract(ctx(t), ethereum.CallMsg{To: &contract, Data: word(num)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(num))
		if common.BytesToHash(out) != h.Hash() {
			t.Fatalf("BLOCKHASH(%d) = %x, want %s", num, out, h.Hash())
		}
	}
}

// txSearchResult is the part of CometBFT's tx_search answer the tests read.
type txSearchResult struct {
	Txs []struct {
		Hash     string `json:"hash"`
		Height   string `json:"height"`
		TxResult struct {
			Code   uint32 `json:"code"`
			Log    string `json:"log"`
			Events []struct {
				Type       string `json:"type"`
				Attributes []struct {
					Key   string `json:"key"`
					Value string `json:"value"`
					Index bool   `json:"index"`
				} `json:"attributes"`
			} `json:"events"`
		} `json:"tx_result"`
	} `json:"txs"`
	TotalCount string `json:"total_count"`
}

// txSearchIncluded is txSearch for an included tx: CometBFT indexes a
// block's txs asynchronously after the commit that makes the receipt
// readable, so it retries for a few seconds before giving up.
func (n *Node) txSearchIncluded(t *testing.T, hash common.Hash) txSearchResult {
	t.Helper()
	var res txSearchResult
	// A miss after the deadline is returned: the callers check what was found.
	_ = wait.Poll(5*time.Second, "tx_search to find "+hash.Hex(), func() error {
		res = n.txSearch(t, hash)
		return wait.Check(len(res.Txs) > 0, "no tx")
	})
	return res
}

func (n *Node) txSearch(t *testing.T, hash common.Hash) txSearchResult {
	t.Helper()
	var res txSearchResult
	q := fmt.Sprintf(`"ethereum_tx.ethereumTxHash='%s'"`, hash.Hex())
	n.CometGet(t, "tx_search", url.Values{"query": {q}}, &res)
	return res
}

func bytesEqual(a, b []byte) bool { return hex.EncodeToString(a) == hex.EncodeToString(b) }
