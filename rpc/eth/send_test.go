package eth

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// fillBackend is the part of Backend that Fill reads; the rest panics.
type fillBackend struct {
	Backend
	st *state.StateDB
}

func (fillBackend) ChainConfig() *params.ChainConfig { return params.AllDevChainProtocolChanges }
func (fillBackend) Head() *types.Header              { return &types.Header{Number: big.NewInt(5)} }
func (b fillBackend) StateAt(*types.Header) (*state.StateDB, error) {
	return b.st, nil
}
func (fillBackend) PendingNonce(_ common.Address, stateNonce uint64) uint64 { return stateNonce + 2 }
func (fillBackend) NextBaseFee() *big.Int                                   { return big.NewInt(7e9) }
func (fillBackend) SuggestGasTipCap(context.Context) (*big.Int, error)      { return big.NewInt(1e9), nil }

func hbig(v int64) *hexutil.Big              { return (*hexutil.Big)(big.NewInt(v)) }
func u64(v uint64) *hexutil.Uint64           { return (*hexutil.Uint64)(&v) }
func addrp(a common.Address) *common.Address { return &a }

// TestFillDefaults checks the defaults eth_sendTransaction fills in and the
// type it picks, against go-ethereum's rules with Ember's gas default.
func TestFillDefaults(t *testing.T) {
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	from, to := common.HexToAddress("0xf00"), common.HexToAddress("0xb0b")
	st.SetNonce(from, 3, 0)
	s := NewTxSender(fillBackend{st: st}, Config{})
	ctx := context.Background()

	tx, err := s.Fill(ctx, TransactionArgs{From: &from, To: &to})
	if err != nil {
		t.Fatal(err)
	}
	chainID := params.AllDevChainProtocolChanges.ChainID
	if tx.Type() != types.DynamicFeeTxType || tx.Gas() != DefaultGas || tx.Nonce() != 5 || tx.ChainId().Cmp(chainID) != 0 ||
		tx.GasTipCap().Int64() != 1e9 || tx.GasFeeCap().Int64() != 15e9 || tx.Value().Sign() != 0 {
		t.Fatalf("defaults: type %d gas %d nonce %d chain %v tip %v cap %v value %v", tx.Type(), tx.Gas(), tx.Nonce(), tx.ChainId(), tx.GasTipCap(), tx.GasFeeCap(), tx.Value())
	}
	tx, err = s.Fill(ctx, TransactionArgs{From: &from, To: &to, GasPrice: hbig(9e9), Nonce: u64(1), Gas: u64(21000)})
	if err != nil || tx.Type() != types.LegacyTxType || tx.Nonce() != 1 || tx.Gas() != 21000 || tx.GasPrice().Int64() != 9e9 {
		t.Fatalf("legacy: %v %+v", err, tx)
	}
	tx, err = s.Fill(ctx, TransactionArgs{From: &from, To: &to, GasPrice: hbig(9e9), AccessList: &types.AccessList{}})
	if err != nil || tx.Type() != types.AccessListTxType {
		t.Fatalf("access list: %v %+v", err, tx)
	}
	tx, err = s.Fill(ctx, TransactionArgs{From: &from, To: &to, MaxPriorityFeePerGas: hbig(3e9)})
	if err != nil || tx.GasTipCap().Int64() != 3e9 || tx.GasFeeCap().Int64() != 17e9 {
		t.Fatalf("given tip: %v %+v", err, tx)
	}

	for _, c := range []struct {
		args TransactionArgs
		want string
	}{
		{TransactionArgs{From: &from, To: &to, GasPrice: hbig(1), MaxFeePerGas: hbig(1)}, "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified"},
		{TransactionArgs{From: &from, To: &to, GasPrice: hbig(0)}, "gasPrice must be non-zero after london fork"},
		{TransactionArgs{From: &from, To: &to, MaxFeePerGas: hbig(1), MaxPriorityFeePerGas: hbig(2)}, "maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)"},
		{TransactionArgs{From: &from}, "contract creation without any data provided"},
		{TransactionArgs{From: &from, To: addrp(to), ChainID: hbig(1)}, "chainId does not match node's (have=1, want=1337)"},
	} {
		if _, err := s.Fill(ctx, c.args); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
