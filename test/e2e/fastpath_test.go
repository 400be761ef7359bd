package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/contracts"
)

// TestFastPathMatchesGethServer sends each request alone (answered by the
// server's fast path when it can) and as a batch of one (always answered by
// go-ethereum's server) and checks the two answers are byte-identical:
// results, errors with codes and data, ids of every kind, and requests the
// fast path must hand over (bad params, wrong version, notifications).
func TestFastPathMatchesGethServer(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	key := devKeys[8]
	tok := contracts.MustLoad("EmberToken")
	deploy, _ := tok.DeployData(big.NewInt(1000))
	r := n.WaitReceipt(t, n.send(t, key.Private, txOpts{Data: deploy, Gas: 2_000_000}).Hash())
	token := r.ContractAddress
	balanceOf, _ := tok.ABI.Pack("balanceOf", key.Address)
	transfer, _ := tok.ABI.Pack("transfer", common.HexToAddress("0x01"), big.NewInt(5000))
	addr := key.Address.Hex()
	num := hexutil.EncodeBig(r.BlockNumber)

	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`,
		`{"jsonrpc":"2.0","id":"<a&b>\u00e9","method":"eth_blockNumber"}`,
		`{"jsonrpc":"2.0","id":"abc","method":"eth_blockNumber","params":[]}`,
		`{"jsonrpc":"2.0","id":null,"method":"eth_chainId","params":null}`,
		` {"jsonrpc":"2.0","id":-7.5,"method":"eth_gasPrice"}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_maxPriorityFeePerGas"}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_baseFee"}`,
		`{"jsonrpc":"2.0","id":1,"method":"net_version"}`,
		`{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["` + addr + `","latest"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["` + addr + `","0x1"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["` + addr + `",{"blockHash":"` + r.BlockHash.Hex() + `","requireCanonical":true}]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["` + addr + `","0xffffff"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["` + addr + `"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["` + addr + `","0x01"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["0x1234","latest"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["` + addr + `","latest","extra"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":{"a":1}}`,
		`{"jsonrpc":"2.0","id":3,"method":"eth_getTransactionCount","params":["` + addr + `","pending"]}`,
		`{"jsonrpc":"2.0","id":3,"method":"eth_getCode","params":["` + token.Hex() + `","latest"]}`,
		`{"jsonrpc":"2.0","id":3,"method":"eth_getStorageAt","params":["` + token.Hex() + `","0x2","latest"]}`,
		`{"jsonrpc":"2.0","id":3,"method":"eth_getStorageAt","params":["` + token.Hex() + `","0xzz","latest"]}`,
		`{"jsonrpc":"2.0","id":4,"method":"eth_call","params":[{"to":"` + token.Hex() + `","input":"` + hexutil.Encode(balanceOf) + `"},"latest"]}`,
		`{"jsonrpc":"2.0","id":4,"method":"eth_call","params":[{"from":"` + addr + `","to":"` + token.Hex() + `","input":"` + hexutil.Encode(transfer) + `"}]}`,
		`{"jsonrpc":"2.0","id":4,"method":"eth_call","params":[{"to":"` + token.Hex() + `","data":"0x00","input":"0x01"},"latest"]}`,
		`{"jsonrpc":"2.0","id":4,"method":"eth_call","params":[{"to":"` + token.Hex() + `","input":"` + hexutil.Encode(balanceOf) + `"},"latest",{"` + token.Hex() + `":{"state":{},"stateDiff":{}}}]}`,
		`{"jsonrpc":"2.0","id":5,"method":"eth_getBlockByNumber","params":["` + num + `",false]}`,
		`{"jsonrpc":"2.0","id":5,"method":"eth_getBlockByNumber","params":["` + num + `",true]}`,
		`{"jsonrpc":"2.0","id":5,"method":"eth_getBlockByNumber","params":["0xffffff",true]}`,
		`{"jsonrpc":"2.0","id":5,"method":"eth_getBlockByNumber","params":["latest"]}`,
		`{"jsonrpc":"2.0","id":5,"method":"eth_getBlockByHash","params":["` + r.BlockHash.Hex() + `",true]}`,
		`{"jsonrpc":"2.0","id":6,"method":"eth_getTransactionByHash","params":["` + r.TxHash.Hex() + `"]}`,
		`{"jsonrpc":"2.0","id":6,"method":"eth_getTransactionReceipt","params":["` + r.TxHash.Hex() + `"]}`,
		`{"jsonrpc":"2.0","id":6,"method":"eth_getTransactionReceipt","params":["` + crypto.Keccak256Hash().Hex() + `"]}`,
		`{"jsonrpc":"1.0","id":7,"method":"eth_blockNumber"}`,
		`{"id":7,"method":"eth_blockNumber"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"eth_blockNumber"}`,
		`{"jsonrpc":"2.0","id":8,"method":"eth_nope"}`,
		`{"jsonrpc":"2.0","id":8,"method":"eth_blockNumber"} trailing`,
	}
	requests = append(requests, sendRawRequests(t, n)...)
	for _, req := range requests {
		single, batch := post(t, n, req), post(t, n, "["+req+"]")
		want := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(batch), "["), "]")
		if strings.TrimSpace(single) != want {
			t.Errorf("request %s\nalone:    %s\nin batch: %s", req, strings.TrimSpace(single), want)
		}
	}
	// A notification (no id) gets no answer either way.
	if got := post(t, n, `{"jsonrpc":"2.0","method":"eth_blockNumber"}`); got != "" {
		t.Errorf("notification answered: %q", got)
	}
}

func post(t *testing.T, n *Node, body string) string {
	t.Helper()
	status, out := rawCall(t, n, []byte(body))
	if status != 200 {
		return fmt.Sprintf("HTTP %d %s", status, bytes.TrimSpace(out))
	}
	// Compare answers as compact JSON lines (a batch is one array).
	var buf bytes.Buffer
	if len(bytes.TrimSpace(out)) > 0 && json.Compact(&buf, out) == nil {
		return buf.String()
	}
	return string(out)
}

// sendRawRequests are eth_sendRawTransaction calls whose answer does not
// change when sent twice: refused txs, and a tx sent once here (its hash
// checked) that both paths then answer "already known".
func sendRawRequests(t *testing.T, n *Node) []string {
	key := devKeys[9]
	fresh := n.signTx(t, key.Private, txOpts{To: &common.Address{1}, Value: big.NewInt(1), Gas: 21_000})
	raw, err := fresh.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	send := func(raw string) string {
		return `{"jsonrpc":"2.0","id":9,"method":"eth_sendRawTransaction","params":["` + raw + `"]}`
	}
	if got, want := post(t, n, send(hexutil.Encode(raw))), `{"jsonrpc":"2.0","id":9,"result":"`+fresh.Hash().Hex()+`"}`; got != want {
		t.Fatalf("send: %s, want %s", got, want)
	}
	// The chain then makes one more block, carrying the AppHash, and goes
	// idle: the answers compared must not straddle a block.
	n.waitNextBlock(t, n.WaitReceipt(t, fresh.Hash()).BlockNumber.Uint64())
	stale, err := n.signTx(t, key.Private, txOpts{Nonce: ptr(uint64(0)), To: &common.Address{1}, Gas: 21_000}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		send(hexutil.Encode(raw)),   // already known / nonce too low
		send(hexutil.Encode(stale)), // nonce too low
		send("0x1234"),              // not a transaction
		send("0x"),
		send("1234"), // not hex: go-ethereum's server takes it
		`{"jsonrpc":"2.0","id":9,"method":"eth_sendRawTransaction","params":[]}`,
	}
}
