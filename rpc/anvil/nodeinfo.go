package anvil

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// NodeInfo is anvil_nodeInfo's answer, in anvil's shape (numbers as anvil
// writes them: some quantities, some plain).
type NodeInfo struct {
	CurrentBlockNumber    hexutil.Uint64 `json:"currentBlockNumber"`
	CurrentBlockTimestamp uint64         `json:"currentBlockTimestamp"`
	CurrentBlockHash      common.Hash    `json:"currentBlockHash"`
	HardFork              string         `json:"hardFork"`
	TransactionOrder      string         `json:"transactionOrder"`
	Environment           NodeEnv        `json:"environment"`
	ForkConfig            ForkConfig     `json:"forkConfig"`
}

// NodeEnv is the block environment of the next block.
type NodeEnv struct {
	BaseFee  *hexutil.Big   `json:"baseFee"`
	ChainID  uint64         `json:"chainId"`
	GasLimit hexutil.Uint64 `json:"gasLimit"`
	GasPrice *hexutil.Big   `json:"gasPrice"`
}

// ForkConfig is anvil's forking setup: an Ember dev chain forks nothing.
type ForkConfig struct {
	ForkURL          *string `json:"forkUrl"`
	ForkBlockNumber  *uint64 `json:"forkBlockNumber"`
	ForkRetryBackoff *uint64 `json:"forkRetryBackoff"`
}

func (api *API) nodeInfo(ctx context.Context) (*NodeInfo, error) {
	head := api.b.Head()
	price, err := api.b.GasPrice(ctx)
	if err != nil {
		return nil, err
	}
	cfg := api.b.ChainConfig()
	return &NodeInfo{
		CurrentBlockNumber:    hexutil.Uint64(head.Number.Uint64()),
		CurrentBlockTimestamp: head.Time,
		CurrentBlockHash:      head.Hash(),
		HardFork:              cfg.LatestFork(head.Time).String(),
		TransactionOrder:      "fees",
		Environment: NodeEnv{
			BaseFee:  (*hexutil.Big)(api.b.NextBaseFee()),
			ChainID:  cfg.ChainID.Uint64(),
			GasLimit: hexutil.Uint64(head.GasLimit),
			GasPrice: (*hexutil.Big)(price),
		},
	}, nil
}
