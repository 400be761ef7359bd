package txpool

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// fakeBackend holds one sender's txs: nonce 0 pending, 2 queued.
type fakeBackend struct {
	from            common.Address
	pending, queued []*types.Transaction
}

func (b fakeBackend) ChainConfig() *params.ChainConfig { return params.AllDevChainProtocolChanges }
func (b fakeBackend) Head() *types.Header              { return &types.Header{Number: big.NewInt(5), Time: 1} }
func (b fakeBackend) TxPoolContent() (map[common.Address][]*types.Transaction, map[common.Address][]*types.Transaction) {
	return map[common.Address][]*types.Transaction{b.from: b.pending}, map[common.Address][]*types.Transaction{b.from: b.queued}
}
func (b fakeBackend) TxPoolContentFrom(addr common.Address) ([]*types.Transaction, []*types.Transaction) {
	if addr != b.from {
		return nil, nil
	}
	return b.pending, b.queued
}
func (b fakeBackend) TxPoolStats() (int, int) { return len(b.pending), len(b.queued) }

func newFake(t *testing.T) fakeBackend {
	key, _ := crypto.GenerateKey()
	signer := types.LatestSigner(params.AllDevChainProtocolChanges)
	to := common.HexToAddress("0x00000000000000000000000000000000000000Ab")
	transfer := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: params.AllDevChainProtocolChanges.ChainID,
		Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(7), Gas: 21000, To: &to, Value: big.NewInt(3)})
	create := types.MustSignNewTx(key, signer, &types.LegacyTx{Nonce: 2, GasPrice: big.NewInt(9), Gas: 60000, Value: big.NewInt(0)})
	return fakeBackend{from: crypto.PubkeyToAddress(key.PublicKey), pending: []*types.Transaction{transfer}, queued: []*types.Transaction{create}}
}

func TestInspectAndStatus(t *testing.T) {
	b := newFake(t)
	api := NewAPI(b)
	got := api.Inspect()
	want := map[string]map[string]map[string]string{
		"pending": {b.from.Hex(): {"0": b.pending[0].To().Hex() + ": 3 wei + 21000 gas × 7 wei"}},
		"queued":  {b.from.Hex(): {"2": "contract creation: 0 wei + 60000 gas × 9 wei"}},
	}
	if g, _ := json.Marshal(got); string(g) != mustJSON(want) {
		t.Fatalf("inspect %s", g)
	}
	if g, _ := json.Marshal(api.Status()); string(g) != `{"pending":"0x1","queued":"0x1"}` {
		t.Fatalf("status %s", g)
	}
	stranger, err := api.ContentFrom(common.Address{})
	if err != nil || string(stranger) != `{"pending":{},"queued":{}}` {
		t.Fatalf("contentFrom of a stranger %s %v", stranger, err)
	}
	raw, err := api.Content()
	var content map[string]map[string]map[string]json.RawMessage
	if err != nil || json.Unmarshal(raw, &content) != nil {
		t.Fatalf("content %s %v", raw, err)
	}
	var tx struct {
		BlockHash *common.Hash   `json:"blockHash"`
		GasPrice  string         `json:"gasPrice"`
		From      common.Address `json:"from"`
	}
	if err := json.Unmarshal(content["pending"][b.from.Hex()]["0"], &tx); err != nil || tx.BlockHash != nil || tx.GasPrice != "0x7" || tx.From != b.from {
		t.Fatalf("pending tx %+v %v", tx, err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
