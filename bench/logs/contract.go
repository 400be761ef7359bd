package main

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
)

// rareTopic marks the few logs of the rare-topic query.
var rareTopic = common.HexToHash("0x00000000000000000000000000000000000000000000000000000000000fade1")

// topic is the i-th of the 100 common topics.
func topic(i int) common.Hash { return common.BigToHash(common.Big1.SetInt64(int64(i + 1))) }

// loggerRuntime emits, per call, `perCall` logs LOG2(data = i, topics =
// [topic(i % 100), seed]) where seed is calldata word 0, preceded by one
// LOG1(rareTopic) when calldata word 1 is non-zero.
func loggerRuntime(perCall int) []byte {
	var loop, skip uint64
	build := func() []byte {
		p := program.New()
		p.Push(32).Op(vm.CALLDATALOAD, vm.ISZERO)
		pushLabel(p, skip)
		p.Op(vm.JUMPI)
		p.Push(rareTopic.Bytes()).Push(32).Push0().Op(vm.LOG1)
		_, skip = p.Jumpdest()
		p.Push0() // i
		_, loop = p.Jumpdest()
		p.Op(vm.DUP1).Push0().Op(vm.MSTORE)                // mem[0:32] = i
		p.Push0().Op(vm.CALLDATALOAD)                      // topic 1: seed
		p.Push(100).Op(vm.DUP3, vm.MOD).Push(1).Op(vm.ADD) // topic 0: i%100 + 1
		p.Push(32).Push0().Op(vm.LOG2)                     // log2(0, 32, t0, t1)
		p.Push(1).Op(vm.ADD)                               // i++
		p.Op(vm.DUP1).Push(perCall).Op(vm.GT)              // perCall > i
		pushLabel(p, loop)
		p.Op(vm.JUMPI, vm.STOP)
		return p.Bytes()
	}
	build()
	return build()
}

func pushLabel(p *program.Program, label uint64) {
	p.Append([]byte{byte(vm.PUSH2), byte(label >> 8), byte(label)})
}

func deployCode(runtime []byte) []byte { return program.New().ReturnViaCodeCopy(runtime).Bytes() }
