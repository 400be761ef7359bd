package eth

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
)

var (
	// transferTopic is keccak256("Transfer(address,address,uint256)").
	transferTopic = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
	// transferAddress is ERC-7528's address for the native currency.
	transferAddress = common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE")
)

// simLogs collects the logs of a simulated block's calls as they are
// emitted, and, with transfers on, every movement of ether (a call's or a
// transaction's value, a self-destruct's balance) as an ERC-20 Transfer log
// from transferAddress. A frame's logs are kept apart until it returns, so
// those of a frame that fails are dropped, as the chain drops them. Log
// indexes run across the whole block, as in a receipt.
type simLogs struct {
	transfers bool
	frames    [][]*types.Log // open frames; [0] is the call's top frame
	next      uint           // index of the block's next log

	// Where the logs are: the block hash is filled in once it is known.
	number, time uint64
	txHash       common.Hash
	txIndex      uint
}

func (l *simLogs) hooks() *tracing.Hooks {
	return &tracing.Hooks{OnEnter: l.onEnter, OnExit: l.onExit, OnLog: l.onLog}
}

// startCall readies the collector for the block's next call.
func (l *simLogs) startCall(txHash common.Hash, index int) {
	l.frames, l.txHash, l.txIndex = nil, txHash, uint(index)
}

// callLogs are the logs the call kept.
func (l *simLogs) callLogs() []*types.Log {
	if len(l.frames) == 0 {
		return nil
	}
	return l.frames[0]
}

func (l *simLogs) onEnter(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
	l.frames = append(l.frames, nil)
	// DELEGATECALL and CALLCODE move no ether: their value is the caller's.
	op := vm.OpCode(typ)
	if l.transfers && op != vm.DELEGATECALL && op != vm.CALLCODE && value != nil && value.Sign() > 0 {
		l.add(transferAddress, []common.Hash{transferTopic, common.BytesToHash(from.Bytes()), common.BytesToHash(to.Bytes())},
			common.BigToHash(value).Bytes())
	}
}

func (l *simLogs) onExit(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
	n := len(l.frames)
	if n == 0 {
		return
	}
	frame := l.frames[n-1]
	if reverted {
		// The dropped logs were the latest: their indexes are free again.
		l.next -= uint(len(frame))
		frame = nil
	}
	if depth == 0 || n == 1 {
		l.frames[0] = frame
		return
	}
	l.frames = l.frames[:n-1]
	l.frames[n-2] = append(l.frames[n-2], frame...)
}

func (l *simLogs) onLog(log *types.Log) { l.add(log.Address, log.Topics, log.Data) }

func (l *simLogs) add(addr common.Address, topics []common.Hash, data []byte) {
	if len(l.frames) == 0 {
		return // outside any call: none in a simulated block
	}
	top := len(l.frames) - 1
	l.frames[top] = append(l.frames[top], &types.Log{
		Address: addr, Topics: topics, Data: data,
		BlockNumber: l.number, BlockTimestamp: l.time,
		TxHash: l.txHash, TxIndex: l.txIndex, Index: l.next,
	})
	l.next++
}
