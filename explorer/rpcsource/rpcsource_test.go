package rpcsource

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/explorer/indexer"
)

// chain is one block of two transfers, served the way a node serves it.
type chain struct {
	block    *types.Block
	from     common.Address
	receipts types.Receipts
	badHash  bool // answer a hash the header does not hash to
}

func newChain(t *testing.T) *chain {
	key, _ := crypto.GenerateKey()
	signer := types.LatestSignerForChainID(big.NewInt(31337))
	to := common.HexToAddress("0x00000000000000000000000000000000000b0b00")
	head := &types.Header{Number: big.NewInt(1), GasLimit: 30_000_000, GasUsed: 42000, Time: 1_700_000_000,
		BaseFee: big.NewInt(params.InitialBaseFee), Difficulty: new(big.Int), Coinbase: common.HexToAddress("0xf00d")}
	var txs []*types.Transaction
	for i := uint64(0); i < 2; i++ {
		tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(31337), Nonce: i, To: &to,
			Value: big.NewInt(int64(i + 1)), Gas: 21000, GasFeeCap: big.NewInt(2 * params.InitialBaseFee), GasTipCap: big.NewInt(1)})
		txs = append(txs, tx)
	}
	b := types.NewBlockWithHeader(head).WithBody(types.Body{Transactions: txs})
	c := &chain{block: b, from: crypto.PubkeyToAddress(key.PublicKey)}
	for i, tx := range txs {
		c.receipts = append(c.receipts, &types.Receipt{Type: tx.Type(), Status: 1, CumulativeGasUsed: uint64(i+1) * 21000,
			Logs: []*types.Log{}, TxHash: tx.Hash(), GasUsed: 21000, EffectiveGasPrice: big.NewInt(params.InitialBaseFee + 1),
			BlockHash: b.Hash(), BlockNumber: big.NewInt(1), TransactionIndex: uint(i)})
	}
	return c
}

// ethAPI is the eth namespace of the fake node, without eth_getBlockReceipts.
type ethAPI struct{ c *chain }

func (a *ethAPI) ChainId() hexutil.Uint64     { return 31337 }
func (a *ethAPI) BlockNumber() hexutil.Uint64 { return 1 }

func (a *ethAPI) GetBlockByNumber(n hexutil.Uint64, full bool) (map[string]any, error) {
	if n != 1 || !full {
		return nil, nil
	}
	var out map[string]any
	hb, _ := json.Marshal(a.c.block.Header())
	if err := json.Unmarshal(hb, &out); err != nil {
		return nil, err
	}
	if a.c.badHash {
		out["hash"] = common.Hash{1}
	}
	var txs []map[string]any
	for _, tx := range a.c.block.Transactions() {
		var m map[string]any
		tb, _ := json.Marshal(tx)
		_ = json.Unmarshal(tb, &m)
		m["from"] = a.c.from
		txs = append(txs, m)
	}
	out["transactions"], out["uncles"] = txs, []common.Hash{}
	return out, nil
}

func (a *ethAPI) GetTransactionReceipt(h common.Hash) (*types.Receipt, error) {
	for _, r := range a.c.receipts {
		if r.TxHash == h {
			return r, nil
		}
	}
	return nil, errors.New("unknown tx")
}

// GetBalance answers n × 1000 + the address's last byte.
func (a *ethAPI) GetBalance(addr common.Address, n hexutil.Uint64) *hexutil.Big {
	return (*hexutil.Big)(big.NewInt(int64(n)*1000 + int64(addr[19])))
}

// fullAPI adds eth_getBlockReceipts.
type fullAPI struct{ ethAPI }

func (a *fullAPI) GetBlockReceipts(n hexutil.Uint64) types.Receipts { return a.c.receipts }

func serve(t *testing.T, api any) *Source {
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", api); err != nil {
		t.Fatal(err)
	}
	s := newSource(rpc.DialInProc(srv), "inproc", false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { s.Close(); srv.Stop() })
	return s
}

func checkBlock(t *testing.T, s *Source, c *chain) {
	t.Helper()
	sb, err := s.Block(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if sb.Block.Hash() != c.block.Hash() || len(sb.Receipts) != 2 || sb.Senders[1] != c.from || sb.Receipts[1].TxHash != c.block.Transactions()[1].Hash() {
		t.Fatalf("block %s, %d receipts, senders %v", sb.Block.Hash(), len(sb.Receipts), sb.Senders)
	}
	ib, err := indexer.Convert(sb)
	if err != nil || len(ib.Txs) != 2 || ib.Txs[1].Fee.Cmp(big.NewInt(21000*(params.InitialBaseFee+1))) != 0 {
		t.Fatalf("convert: %+v, %v", ib, err)
	}
}

func TestBlockWithBlockReceipts(t *testing.T) {
	c := newChain(t)
	checkBlock(t, serve(t, &fullAPI{ethAPI{c}}), c)
}

func TestBlockFallsBackToTransactionReceipts(t *testing.T) {
	c := newChain(t)
	s := serve(t, &ethAPI{c})
	checkBlock(t, s, c)
	if !s.noBlockReceipts {
		t.Fatal("missing eth_getBlockReceipts not remembered")
	}
	checkBlock(t, s, c) // the second time straight through the fallback
}

func TestBlockRefusesAHeaderThatDoesNotHashToItsHash(t *testing.T) {
	c := newChain(t)
	c.badHash = true
	_, err := serve(t, &fullAPI{ethAPI{c}}).Block(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), "header format is not supported") {
		t.Fatalf("bad hash accepted: %v", err)
	}
}

func TestBalancesInBatches(t *testing.T) {
	s := serve(t, &fullAPI{ethAPI{newChain(t)}})
	addrs := make([]common.Address, 2*balanceBatch+7)
	for i := range addrs {
		addrs[i][19] = byte(i)
	}
	got, err := s.Balances(context.Background(), 5, addrs)
	if err != nil || len(got) != len(addrs) {
		t.Fatalf("%d balances, %v", len(got), err)
	}
	for i, v := range got {
		if v.Int64() != 5000+int64(byte(i)) {
			t.Fatalf("balance %d = %s", i, v)
		}
	}
	if h, ok, err := s.Head(context.Background()); h != 1 || !ok || err != nil {
		t.Fatalf("head %d %v %v", h, ok, err)
	}
}
