package e2e

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/contracts"
)

// blockEnvRuntime returns seven words: NUMBER, TIMESTAMP, COINBASE, BASEFEE,
// GASLIMIT, PREVRANDAO, BLOBBASEFEE.
func blockEnvRuntime() []byte {
	p := program.New()
	for i, op := range []vm.OpCode{vm.NUMBER, vm.TIMESTAMP, vm.COINBASE, vm.BASEFEE, vm.GASLIMIT, vm.PREVRANDAO, vm.BLOBBASEFEE} {
		p.Op(op).Push(32 * i).Op(vm.MSTORE)
	}
	return p.Return(0, 7*32).Bytes()
}

// TestCallOverrides checks eth_call and eth_estimateGas with geth's state and
// block overrides on an OpenZeppelin ERC-20 and on code placed by an
// override, and that nothing of an override outlives its call.
func TestCallOverrides(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	owner := devKeys[0]
	tok := contracts.MustLoad("EmberToken")
	supply := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	deploy, err := tok.DeployData(supply)
	if err != nil {
		t.Fatal(err)
	}
	tx := n.send(t, owner.Private, txOpts{Data: deploy, Gas: 2_000_000})
	if r := n.WaitReceipt(t, tx.Hash()); r.Status != 1 {
		t.Fatal("token deploy failed")
	}
	token := crypto.CreateAddress(owner.Address, tx.Nonce())
	stranger := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	// OpenZeppelin 5 keeps _balances at slot 0: balance of a is at keccak(a . 0).
	balanceSlot := func(a common.Address) common.Hash {
		return crypto.Keccak256Hash(common.LeftPadBytes(a.Bytes(), 32), make([]byte, 32))
	}
	pack := func(method string, args ...any) hexutil.Bytes {
		b, err := tok.ABI.Pack(method, args...)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	call := func(args map[string]any, extra ...any) (hexutil.Bytes, error) {
		var out hexutil.Bytes
		err := n.RPC.Call(&out, "eth_call", append([]any{args, "latest"}, extra...)...)
		return out, err
	}
	uintOf := func(b hexutil.Bytes) *big.Int { return new(big.Int).SetBytes(b) }
	balanceOf := map[string]any{"to": token, "input": pack("balanceOf", stranger)}

	t.Run("stateDiff", func(t *testing.T) {
		got, err := call(balanceOf, map[string]any{token.Hex(): map[string]any{
			"stateDiff": map[string]string{balanceSlot(stranger).Hex(): common.BigToHash(big.NewInt(777)).Hex()},
		}})
		if err != nil || uintOf(got).Int64() != 777 {
			t.Fatalf("balanceOf with stateDiff = %x, %v; want 777", got, err)
		}
		// The owner's slot is untouched by a diff.
		got, _ = call(map[string]any{"to": token, "input": pack("balanceOf", owner.Address)}, map[string]any{token.Hex(): map[string]any{
			"stateDiff": map[string]string{balanceSlot(stranger).Hex(): common.BigToHash(big.NewInt(777)).Hex()},
		}})
		if uintOf(got).Cmp(supply) != 0 {
			t.Fatalf("owner balance under a diff = %s, want %s", uintOf(got), supply)
		}
		// And the override did not outlive the call.
		got, _ = call(balanceOf)
		if uintOf(got).Sign() != 0 {
			t.Fatalf("balanceOf after the override call = %s, want 0", uintOf(got))
		}
	})

	t.Run("state replaces all storage", func(t *testing.T) {
		ov := map[string]any{token.Hex(): map[string]any{
			"state": map[string]string{balanceSlot(stranger).Hex(): common.BigToHash(big.NewInt(5)).Hex()},
		}}
		got, err := call(balanceOf, ov)
		if err != nil || uintOf(got).Int64() != 5 {
			t.Fatalf("balanceOf with state = %x, %v; want 5", got, err)
		}
		got, err = call(map[string]any{"to": token, "input": pack("totalSupply")}, ov)
		if err != nil || uintOf(got).Sign() != 0 {
			t.Fatalf("totalSupply with replaced storage = %x, %v; want 0", got, err)
		}
	})

	t.Run("balance", func(t *testing.T) {
		send := map[string]any{"from": stranger, "to": owner.Address, "value": hexutil.EncodeBig(ether(5))}
		if _, err := call(send); err == nil || !strings.Contains(err.Error(), "insufficient funds") {
			t.Fatalf("value call from an empty account: %v, want insufficient funds", err)
		}
		if _, err := call(send, map[string]any{stranger.Hex(): map[string]any{"balance": hexutil.EncodeBig(ether(6))}}); err != nil {
			t.Fatalf("value call with a balance override: %v", err)
		}
	})

	t.Run("code and block", func(t *testing.T) {
		env := common.HexToAddress("0x00000000000000000000000000000000000e4e4e")
		codeOv := map[string]any{env.Hex(): map[string]any{"code": hexutil.Bytes(blockEnvRuntime())}}
		head, err := n.Eth.HeaderByNumber(ctx(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		// No block override: the block asked for, with BASEFEE 0 for a free call (as geth).
		var got hexutil.Bytes
		if err := n.RPC.Call(&got, "eth_call", map[string]any{"to": env}, hexutil.EncodeBig(head.Number), codeOv); err != nil || len(got) != 7*32 {
			t.Fatalf("env call = %x, %v", got, err)
		}
		words := func(b []byte) []*big.Int {
			out := make([]*big.Int, 7)
			for i := range out {
				out[i] = new(big.Int).SetBytes(b[32*i : 32*i+32])
			}
			return out
		}
		want := []*big.Int{head.Number, new(big.Int).SetUint64(head.Time), head.Coinbase.Big(), new(big.Int),
			new(big.Int).SetUint64(head.GasLimit), head.MixDigest.Big(), big.NewInt(1)}
		for i, v := range words(got) {
			if v.Cmp(want[i]) != 0 {
				t.Errorf("block %d word %d = %s, want %s", head.Number, i, v, want[i])
			}
		}
		randao := common.HexToHash("0x" + strings.Repeat("ab", 32))
		feeRecipient := common.HexToAddress("0x00000000000000000000000000000000000fee00")
		blockOv := map[string]any{
			"number": "0x1234", "time": "0x77777777", "feeRecipient": feeRecipient,
			"baseFeePerGas": "0x3b9aca00", "gasLimit": "0x1c9c380", "prevRandao": randao, "blobBaseFee": "0x7",
		}
		// A priced call sees the overridden base fee.
		got, err = call(map[string]any{"to": env, "from": owner.Address, "gasPrice": "0x77359400"}, codeOv, blockOv)
		if err != nil {
			t.Fatal(err)
		}
		want = []*big.Int{big.NewInt(0x1234), big.NewInt(0x77777777), feeRecipient.Big(), big.NewInt(1e9), big.NewInt(30_000_000), randao.Big(), big.NewInt(7)}
		for i, v := range words(got) {
			if v.Cmp(want[i]) != 0 {
				t.Errorf("block override word %d = %s, want %s", i, v, want[i])
			}
		}
	})

	t.Run("movePrecompileToAddress", func(t *testing.T) {
		// ecrecover input: hash, v, r, s of a real signature by the owner.
		hash := crypto.Keccak256([]byte("ember"))
		sig, err := crypto.Sign(hash, owner.Private)
		if err != nil {
			t.Fatal(err)
		}
		input := append(append(append(append([]byte{}, hash...), common.LeftPadBytes([]byte{sig[64] + 27}, 32)...), sig[:32]...), sig[32:64]...)
		ecrecover, moved := common.BytesToAddress([]byte{1}), common.HexToAddress("0x0000000000000000000000000000000000123456")
		ov := map[string]any{ecrecover.Hex(): map[string]any{"movePrecompileToAddress": moved}}
		got, err := call(map[string]any{"to": moved, "input": hexutil.Bytes(input)}, ov)
		if err != nil || common.BytesToAddress(got) != owner.Address {
			t.Fatalf("moved ecrecover = %x, %v; want %s", got, err, owner.Address)
		}
		got, err = call(map[string]any{"to": ecrecover, "input": hexutil.Bytes(input)}, ov)
		if err != nil || len(got) != 0 {
			t.Fatalf("ecrecover's old address after the move = %x, %v; want empty", got, err)
		}
		got, err = call(map[string]any{"to": ecrecover, "input": hexutil.Bytes(input)})
		if err != nil || common.BytesToAddress(got) != owner.Address {
			t.Fatalf("ecrecover without override = %x, %v", got, err)
		}
	})

	t.Run("estimateGas", func(t *testing.T) {
		transfer := map[string]any{"from": stranger, "to": token, "input": pack("transfer", owner.Address, big.NewInt(10))}
		var gas hexutil.Uint64
		err := n.RPC.Call(&gas, "eth_estimateGas", transfer)
		var de rpc.DataError
		if !errors.As(err, &de) || !strings.HasPrefix(err.Error(), "execution reverted") {
			t.Fatalf("estimate of an unfunded token transfer: %v, want a revert", err)
		}
		// ERC20InsufficientBalance(stranger, 0, 10)
		wantData := hexutil.Encode(append(append(crypto.Keccak256([]byte("ERC20InsufficientBalance(address,uint256,uint256)"))[:4],
			common.LeftPadBytes(stranger.Bytes(), 32)...), append(make([]byte, 32), common.LeftPadBytes([]byte{10}, 32)...)...))
		if de.ErrorData() != wantData {
			t.Fatalf("revert data = %v, want %s", de.ErrorData(), wantData)
		}
		ov := map[string]any{token.Hex(): map[string]any{
			"stateDiff": map[string]string{balanceSlot(stranger).Hex(): common.BigToHash(big.NewInt(100)).Hex()},
		}}
		if err := n.RPC.Call(&gas, "eth_estimateGas", transfer, "latest", ov); err != nil {
			t.Fatal(err)
		}
		// A transfer to a holder: 21000 + calldata + two warm-ish SSTOREs; well above a plain transfer.
		if gas <= 21000+68*16 || gas > 100_000 {
			t.Fatalf("estimate with override = %d", gas)
		}
	})

	t.Run("errors", func(t *testing.T) {
		cases := []struct {
			extra []any
			code  int
			msg   string
		}{
			{[]any{map[string]any{token.Hex(): map[string]any{"state": map[string]string{}, "stateDiff": map[string]string{}}}}, -32000,
				"account " + token.Hex() + " has both 'state' and 'stateDiff'"},
			{[]any{map[string]any{owner.Address.Hex(): map[string]any{"movePrecompileToAddress": token}}}, -32000,
				"account " + owner.Address.Hex() + " is not a precompile"},
			{[]any{nil, map[string]any{"beaconRoot": common.Hash{}}}, -32000, `block override "beaconRoot" is not supported for this RPC method`},
			{[]any{map[string]any{token.Hex(): map[string]any{"balance": "0x0400"}}}, -32602, "invalid argument 2"},
			{[]any{nil, map[string]any{"number": "0x"}}, -32602, "invalid argument 3"},
		}
		for _, c := range cases {
			_, err := call(balanceOf, c.extra...)
			var re rpc.Error
			if !errors.As(err, &re) || re.ErrorCode() != c.code || !strings.HasPrefix(err.Error(), c.msg) {
				t.Errorf("eth_call with %v: %v, want %d %q", c.extra, err, c.code, c.msg)
			}
		}
	})
}
