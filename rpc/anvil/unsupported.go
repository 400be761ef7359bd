package anvil

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
)

// unsupportedError is EIP-1474's -32004 "method not supported", saying why
// and what to use instead: test suites (hardhat-network-helpers) call these
// methods of Hardhat Network, and a plain -32601 would read as a typo.
type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string  { return e.msg }
func (e *unsupportedError) ErrorCode() int { return -32004 }

// SetPrevRandao is hardhat_setPrevRandao, refused: on Ember a block's
// PREVRANDAO (its mixHash) is its CometBFT block hash, which no call sets.
func (a *Anvil) SetPrevRandao(common.Hash) error {
	return &unsupportedError{"hardhat_setPrevRandao is not supported by emberd dev: a block's PREVRANDAO (mixHash) is its CometBFT block hash"}
}

// Reset is hardhat_reset (anvil_reset), refused: emberd dev neither forks
// another chain nor starts over in place. loadFixture and takeSnapshot
// (evm_snapshot, evm_revert) bring a chain back to an earlier state.
func (a *Anvil) Reset(*json.RawMessage) error {
	return &unsupportedError{"hardhat_reset is not supported by emberd dev (no forking): revert to an evm_snapshot taken earlier, or restart emberd dev"}
}

// SetBlockGasLimit is evm_setBlockGasLimit, refused: the block gas limit
// is the chain's (genesis app_state.evm.gas_limit), as consensus fixes it.
func (e *EVM) SetBlockGasLimit(Quantity) error {
	return &unsupportedError{"evm_setBlockGasLimit is not supported by emberd dev: the block gas limit is the chain's (genesis app_state.evm.gas_limit)"}
}
