package e2e

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
	"github.com/ethereum/go-ethereum/crypto"
)

// setTopic is topic 0 of the emitter's event, keccak256("Set(address,uint256)");
// topic 1 is the caller.
var setTopic = crypto.Keccak256Hash([]byte("Set(address,uint256)"))

// revertZero is the ABI encoding of Error("zero value").
var revertZero = func() []byte {
	out := common.FromHex("0x08c379a0")
	out = append(out, common.LeftPadBytes([]byte{0x20}, 32)...)
	out = append(out, common.LeftPadBytes([]byte{10}, 32)...)
	return append(out, common.RightPadBytes([]byte("zero value"), 32)...)
}()

// emitterRuntime is a contract that
//   - with empty calldata returns storage slot 0 (a getter for eth_call);
//   - with a zero word reverts with Error("zero value");
//   - otherwise stores the word in slot 0 and emits
//     LOG2(data = word, topics = [setTopic, caller]).
func emitterRuntime() []byte {
	var get, rev uint64
	build := func() []byte {
		p := program.New()
		p.Op(vm.CALLDATASIZE, vm.ISZERO)
		pushLabel(p, get)
		p.Op(vm.JUMPI)
		p.Push0().Op(vm.CALLDATALOAD) // v
		p.Op(vm.DUP1, vm.ISZERO)
		pushLabel(p, rev)
		p.Op(vm.JUMPI)
		p.Op(vm.DUP1).Push0().Op(vm.SSTORE) // sstore(0, v)
		p.Push0().Op(vm.MSTORE)             // mem[0:32] = v
		p.Op(vm.CALLER).Push(setTopic.Bytes()).Push(32).Push0().Op(vm.LOG2)
		p.Op(vm.STOP)
		_, get = p.Jumpdest()
		p.Push0().Op(vm.SLOAD).Push0().Op(vm.MSTORE).Return(0, 32)
		_, rev = p.Jumpdest()
		p.Mstore(revertZero, 0).Push(len(revertZero)).Push0().Op(vm.REVERT)
		return p.Bytes()
	}
	build()        // first pass finds the labels
	return build() // second pass jumps to them
}

// pushLabel pushes a jump target with a fixed width so both passes of a
// build have the same layout.
func pushLabel(p *program.Program, label uint64) {
	p.Append([]byte{byte(vm.PUSH2), byte(label >> 8), byte(label)})
}

// blockhashRuntime returns BLOCKHASH(calldata word 0).
func blockhashRuntime() []byte {
	return program.New().Push0().Op(vm.CALLDATALOAD, vm.BLOCKHASH).Push0().Op(vm.MSTORE).Return(0, 32).Bytes()
}

// deployCode is init code that deploys runtime as is.
func deployCode(runtime []byte) []byte {
	return program.New().ReturnViaCodeCopy(runtime).Bytes()
}

// word is v as a 32-byte big-endian word.
func word(v uint64) []byte { return math.U256Bytes(new(big.Int).SetUint64(v)) }
