// Package evm holds Ember's execution rules: the fork schedule, the fee
// market, and how a block of transactions or a single call is run through
// go-ethereum's state transition. CheckTx, FinalizeBlock and the RPC layer all
// execute through here, so the rules live in one place.
package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/params"
)

// ChainConfig is the fork schedule a new chain runs: every Ethereum fork up
// to and including Osaka is active from genesis. The chain is post-merge
// from block 0 (difficulty 0, PREVRANDAO from the header's mixHash).
func ChainConfig(chainID *big.Int) *params.ChainConfig {
	cfg := PragueChainConfig(chainID)
	zero := uint64(0)
	cfg.OsakaTime = &zero
	return cfg
}

// PragueChainConfig is the schedule chains made before Osaka run (their
// genesis files hold it): every fork up to and including Prague from
// genesis, nothing after it until an upgrade records one (ActivateFork).
// go-ethereum requires the Cancun and Prague blob configs (Osaka runs
// Prague's), though Ember has no blob fee market (blob transactions are
// refused).
func PragueChainConfig(chainID *big.Int) *params.ChainConfig {
	zero := uint64(0)
	return &params.ChainConfig{
		ChainID:                 new(big.Int).Set(chainID),
		HomesteadBlock:          big.NewInt(0),
		EIP150Block:             big.NewInt(0),
		EIP155Block:             big.NewInt(0),
		EIP158Block:             big.NewInt(0),
		ByzantiumBlock:          big.NewInt(0),
		ConstantinopleBlock:     big.NewInt(0),
		PetersburgBlock:         big.NewInt(0),
		IstanbulBlock:           big.NewInt(0),
		MuirGlacierBlock:        big.NewInt(0),
		BerlinBlock:             big.NewInt(0),
		LondonBlock:             big.NewInt(0),
		ArrowGlacierBlock:       big.NewInt(0),
		GrayGlacierBlock:        big.NewInt(0),
		MergeNetsplitBlock:      big.NewInt(0),
		ShanghaiTime:            &zero,
		CancunTime:              &zero,
		PragueTime:              &zero,
		TerminalTotalDifficulty: big.NewInt(0),
		BlobScheduleConfig: &params.BlobScheduleConfig{
			Cancun: params.DefaultCancunBlobConfig,
			Prague: params.DefaultPragueBlobConfig,
		},
	}
}

// Rules returns the active rule set at a block.
func Rules(cfg *params.ChainConfig, number *big.Int, time uint64) params.Rules {
	return cfg.Rules(number, true, time)
}
