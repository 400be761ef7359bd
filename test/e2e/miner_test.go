package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// TestMinerEtherbase sets the etherbase over the private miner namespace:
// eth_coinbase and the miner of the next blocks show it, the CometBFT block
// carries it as its first (marker) tx, and its balance grows by exactly the
// sum of the tips of each block's txs.
func TestMinerEtherbase(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	etherbase := common.HexToAddress("0x00000000000000000000000000000000e7b35e00")
	var before common.Address
	mustCall(t, n, &before, "eth_coinbase")
	var ok bool
	n.CallPrivate(t, &ok, "miner_setEtherbase", etherbase)
	var coinbase common.Address
	if mustCall(t, n, &coinbase, "eth_coinbase"); !ok || coinbase != etherbase || before == etherbase {
		t.Fatalf("miner_setEtherbase = %v; eth_coinbase %s → %s", ok, before.Hex(), coinbase.Hex())
	}

	to := common.HexToAddress("0x00000000000000000000000000000000000000b1")
	var txs []*types.Transaction
	for i, tip := range []int64{1, 3, 7} {
		txs = append(txs, n.signTx(t, devKeys[4+i].Private, txOpts{To: &to, Value: big.NewInt(1), Tip: gwei(tip)}))
	}
	n.sendBatch(t, txs)
	blocks := map[uint64]bool{}
	for _, tx := range txs {
		blocks[n.WaitReceipt(t, tx.Hash()).BlockNumber.Uint64()] = true
	}
	for num := range blocks {
		checkTipsPaid(t, n, num, etherbase)
	}
}

// checkTipsPaid checks that block num was mined by etherbase, which gained
// the sum of gas used × effective tip of its txs, and that CometBFT's block
// carries the coinbase marker first, beside the EVM block's txs.
func checkTipsPaid(t *testing.T, n *Node, num uint64, etherbase common.Address) {
	t.Helper()
	block, err := n.Eth.BlockByNumber(ctx(t), new(big.Int).SetUint64(num))
	if err != nil {
		t.Fatal(err)
	}
	if block.Coinbase() != etherbase {
		t.Fatalf("block %d miner %s, want %s", num, block.Coinbase().Hex(), etherbase.Hex())
	}
	tips := new(big.Int)
	for _, tx := range block.Transactions() {
		r := n.WaitReceipt(t, tx.Hash())
		tip := new(big.Int).Sub(r.EffectiveGasPrice, block.BaseFee())
		tips.Add(tips, tip.Mul(tip, new(big.Int).SetUint64(r.GasUsed)))
	}
	after, _ := n.Eth.BalanceAt(ctx(t), etherbase, block.Number())
	prev, _ := n.Eth.BalanceAt(ctx(t), etherbase, new(big.Int).SetUint64(num-1))
	if gained := new(big.Int).Sub(after, prev); tips.Sign() == 0 || gained.Cmp(tips) != 0 {
		t.Fatalf("block %d: etherbase gained %v, the tips sum to %v", num, gained, tips)
	}
	var cmt struct {
		Block struct {
			Data struct {
				Txs []string `json:"txs"`
			} `json:"data"`
		} `json:"block"`
	}
	n.CometGet(t, "block", url.Values{"height": {new(big.Int).SetUint64(num).String()}}, &cmt)
	txs := cmt.Block.Data.Txs
	marker, _ := base64.StdEncoding.DecodeString(txs[0])
	if want := append([]byte("\x00ember-coinbase"), etherbase.Bytes()...); !bytes.Equal(marker, want) || len(txs) != len(block.Transactions())+1 {
		t.Fatalf("CometBFT block %d: first tx %x, %d txs for %d EVM txs", num, marker, len(txs), len(block.Transactions()))
	}
}

// TestMinerSetGasPrice raises the minimum tip over miner_setGasPrice: it is
// written to app.toml, gas price advice follows it, a cheaper tx is refused
// with geth's error until the price is lowered again, and a restart keeps
// the file's value.
func TestMinerSetGasPrice(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	to := common.HexToAddress("0x00000000000000000000000000000000000000b2")
	key := devKeys[3]
	// A block with a tx, so that fee history has rewards to raise.
	n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &to, Tip: gwei(1)}).Hash())

	setGasPrice(t, n, gwei(5), true)
	wantAppConfig(t, n, `minimum-gas-prices = "5000000000aember"`)
	checkAdvice(t, n, gwei(5))
	cheap := n.signTx(t, key.Private, txOpts{To: &to, Tip: gwei(2)})
	n.sendErr(t, cheap, "transaction gas price below minimum: gas tip cap 2000000000, minimum needed 5000000000")
	n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &to, Tip: gwei(5)}).Hash())

	setGasPrice(t, n, gwei(1), true)
	wantAppConfig(t, n, `minimum-gas-prices = "1000000000aember"`)
	cheap = n.signTx(t, key.Private, txOpts{To: &to, Tip: gwei(2)})
	n.mustSend(t, cheap)
	n.WaitReceipt(t, cheap.Hash())

	// The file's value survives a restart.
	n.Stop()
	n.Start("start")
	n.sendErr(t, n.signTx(t, key.Private, txOpts{To: &to, Tip: big.NewInt(999_999_999)}),
		"transaction gas price below minimum: gas tip cap 999999999, minimum needed 1000000000")
}

// TestMinerGasPriceFlagWins: with --minimum-gas-prices, miner_setGasPrice
// changes nothing (false, a warning in the log, app.toml untouched).
func TestMinerGasPriceFlagWins(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--minimum-gas-prices", "3000000000aember")
	before, err := os.ReadFile(n.Home + "/config/app.toml")
	if err != nil {
		t.Fatal(err)
	}
	setGasPrice(t, n, gwei(1), false)
	if after, _ := os.ReadFile(n.Home + "/config/app.toml"); !bytes.Equal(before, after) {
		t.Fatal("app.toml changed")
	}
	wantAppConfig(t, n, `minimum-gas-prices = "0aember"`)
	to := common.HexToAddress("0x00000000000000000000000000000000000000b3")
	n.sendErr(t, n.signTx(t, devKeys[2].Private, txOpts{To: &to, Tip: gwei(2)}),
		"transaction gas price below minimum: gas tip cap 2000000000, minimum needed 3000000000")
	checkAdvice(t, n, gwei(3))
	if log, _ := os.ReadFile(n.logPath); !strings.Contains(string(log), "miner_setGasPrice ignored: --minimum-gas-prices takes precedence") {
		t.Fatal("no warning in the log")
	}
}

func setGasPrice(t *testing.T, n *Node, price *big.Int, want bool) {
	t.Helper()
	var ok bool
	if n.CallPrivate(t, &ok, "miner_setGasPrice", (*hexutil.Big)(price)); ok != want {
		t.Fatalf("miner_setGasPrice(%v) = %v, want %v", price, ok, want)
	}
}

func wantAppConfig(t *testing.T, n *Node, line string) {
	t.Helper()
	b, err := os.ReadFile(n.Home + "/config/app.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == line {
			return
		}
	}
	t.Fatalf("app.toml has no line %q:\n%s", line, b)
}

// checkAdvice: eth_maxPriorityFeePerGas is the minimum (recent tips are
// lower), eth_gasPrice the next base fee plus it, and no fee history reward
// is below it.
func checkAdvice(t *testing.T, n *Node, min *big.Int) {
	t.Helper()
	var tip, price, baseFee hexutil.Big
	var before, after hexutil.Uint64
	for {
		mustCall(t, n, &before, "eth_blockNumber")
		mustCall(t, n, &tip, "eth_maxPriorityFeePerGas")
		mustCall(t, n, &price, "eth_gasPrice")
		mustCall(t, n, &baseFee, "eth_baseFee")
		if mustCall(t, n, &after, "eth_blockNumber"); before == after {
			break
		}
	}
	if tip.ToInt().Cmp(min) != 0 || price.ToInt().Cmp(new(big.Int).Add(baseFee.ToInt(), min)) != 0 {
		t.Fatalf("advice: tip %v, gas price %v (base fee %v), want tip %v", tip.ToInt(), price.ToInt(), baseFee.ToInt(), min)
	}
	var fh feeHistory
	mustCall(t, n, &fh, "eth_feeHistory", "0x10", "latest", []float64{0, 50, 100})
	for i, rewards := range fh.Reward {
		for _, r := range rewards {
			if r.ToInt().Cmp(min) < 0 {
				t.Fatalf("fee history block %d: reward %v below the minimum %v", i, r.ToInt(), min)
			}
		}
	}
}

// TestMinerUnsupported checks the miner methods a validator has no use
// for, and that the namespace needs the JWT.
func TestMinerUnsupported(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	var raw json.RawMessage
	for _, c := range []struct {
		method string
		args   []any
		want   string
	}{
		{"miner_getHashrate", nil, `0`},
		{"miner_stop", nil, `null`},
		{"miner_setGasLimit", []any{"0x1c9c380"}, `false`},
	} {
		if n.CallPrivate(t, &raw, c.method, c.args...); string(raw) != c.want {
			t.Errorf("%s = %s, want %s", c.method, raw, c.want)
		}
	}
	for _, c := range []struct {
		method string
		args   []any
		want   string
	}{
		{"miner_setExtra", []any{"ember"}, "unsupported rpc function: miner_setExtra"},
		{"miner_setExtra", []any{strings.Repeat("x", 33)}, "extra exceeds max length. 33 > 32"},
	} {
		err := n.CallPrivateErr(t, &raw, c.method, c.args...)
		var re interface{ ErrorCode() int }
		if !errors.As(err, &re) || re.ErrorCode() != -32000 || err.Error() != c.want {
			t.Errorf("%s%v: %v, want -32000 %q", c.method, c.args, err, c.want)
		}
	}
	// miner_start is no method (no miner to start): it answers exactly as
	// an unknown method does.
	for _, c := range []struct {
		method string
		args   []any
	}{{"miner_start", nil}, {"miner_start", []any{4}}, {"miner_startMining", nil}} {
		err := n.CallPrivateErr(t, &raw, c.method, c.args...)
		want := "the method " + c.method + " does not exist/is not available"
		var re interface{ ErrorCode() int }
		if !errors.As(err, &re) || re.ErrorCode() != -32601 || err.Error() != want {
			t.Errorf("%s%v: %v, want -32601 %q", c.method, c.args, err, want)
		}
	}
	if err := n.RPC.Call(&raw, "miner_setEtherbase", common.Address{1}); err == nil {
		t.Fatal("miner_setEtherbase without a token succeeded")
	}
	var coinbase common.Address
	if mustCall(t, n, &coinbase, "eth_coinbase"); coinbase == (common.Address{1}) {
		t.Fatal("an unauthenticated miner_setEtherbase took effect")
	}
}
