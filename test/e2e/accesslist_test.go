package e2e

import (
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
)

// readerRuntime returns what target's getter returns (a STATICCALL with
// empty calldata, which reads target's slot 0).
func readerRuntime(target common.Address) []byte {
	return program.New().StaticCall(nil, target.Bytes(), 0, 0, 0, 32).Op(vm.POP).Return(0, 32).Bytes()
}

func TestCreateAccessList(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	key := devKeys[6]
	emitter := n.WaitReceipt(t, n.send(t, key.Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())}).Hash()).ContractAddress
	n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &emitter, Gas: 100_000, Data: word(5)}).Hash())
	reader := n.WaitReceipt(t, n.send(t, key.Private, txOpts{Gas: 300_000, Data: deployCode(readerRuntime(emitter))}).Hash()).ContractAddress

	var res struct {
		AccessList types.AccessList `json:"accessList"`
		Error      string           `json:"error"`
		GasUsed    hexutil.Uint64   `json:"gasUsed"`
	}
	mustCall(t, n, &res, "eth_createAccessList", map[string]any{"from": key.Address, "to": reader}, "latest")
	want := types.AccessList{{Address: emitter, StorageKeys: []common.Hash{{}}}}
	if !reflect.DeepEqual(res.AccessList, want) || res.Error != "" || res.GasUsed <= 21000 {
		t.Fatalf("access list %+v, error %q, gas %d", res.AccessList, res.Error, res.GasUsed)
	}
	// A type-1 tx with that list uses exactly the gas reported.
	tx := n.signTx(t, key.Private, txOpts{Type: ptr(byte(types.AccessListTxType)), To: &reader, Gas: 100_000})
	signed, err := types.SignNewTx(key.Private, types.LatestSignerForChainID(tx.ChainId()), &types.AccessListTx{
		ChainID: tx.ChainId(), Nonce: tx.Nonce(), GasPrice: tx.GasPrice(), Gas: 100_000, To: &reader, AccessList: res.AccessList,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Eth.SendTransaction(ctx(t), signed); err != nil {
		t.Fatal(err)
	}
	if r := n.WaitReceipt(t, signed.Hash()); r.GasUsed != uint64(res.GasUsed) || r.Status != 1 {
		t.Fatalf("tx with the list used %d gas (status %d), createAccessList said %d", r.GasUsed, r.Status, res.GasUsed)
	}
	// A reverting call reports the error beside its (here empty) list.
	res.AccessList, res.Error = nil, ""
	mustCall(t, n, &res, "eth_createAccessList", map[string]any{"from": key.Address, "to": emitter, "input": hexutil.Bytes(word(0))})
	if len(res.AccessList) != 0 || res.Error != "execution reverted" {
		t.Fatalf("reverting call: list %+v, error %q", res.AccessList, res.Error)
	}
}
