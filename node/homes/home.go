// Package homes makes node homes: one node's (`emberd init`, `emberd dev`)
// with its CometBFT config and keys, genesis.json and app.toml, and a local
// testnet's homes with their manifest (`emberd testnet`).
package homes

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmtcrypto "github.com/cometbft/cometbft/crypto"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	cmttypes "github.com/cometbft/cometbft/types"
	cmttime "github.com/cometbft/cometbft/types/time"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/rpc"
)

// InitOptions describe a new node home.
type InitOptions struct {
	Home    string
	Moniker string
	ChainID string
	// Alloc funds accounts at genesis.
	Alloc types.GenesisAlloc
	// RewardAddress receives this validator's priority fees; nil = the
	// validator's 20-byte CometBFT address.
	RewardAddress *common.Address
	// Operator operates the validator in the genesis staking section (the
	// account that can edit it and owns its self-bond of 10·10^18, power
	// 10); nil = the reward address.
	Operator *common.Address
	// UnbondingTime is app_state.staking.unbonding_time; 0 = 21 days.
	UnbondingTime time.Duration
	// Dev tunes consensus for a one-validator development chain: a block as
	// soon as a transaction arrives, and an empty one every EmptyBlockInterval.
	Dev                bool
	EmptyBlockInterval time.Duration
}

// Initialized reports whether home already holds a genesis.
func Initialized(home string) bool {
	_, err := os.Stat(filepath.Join(home, "config", "genesis.json"))
	return err == nil
}

// Init creates a node home: CometBFT's config.toml, node key and
// validator key, genesis.json with Ember's app state, and app.toml. It
// refuses to overwrite an existing genesis.
func Init(opts InitOptions) error {
	chainID, err := app.ParseChainID(opts.ChainID)
	if err != nil {
		return err
	}
	if Initialized(opts.Home) {
		return fmt.Errorf("%s is already initialized (config/genesis.json exists)", opts.Home)
	}
	cc := cmtcfg.DefaultConfig().SetRoot(opts.Home)
	cc.Moniker = opts.Moniker
	if opts.Dev {
		tuneDev(cc, opts.EmptyBlockInterval)
	}
	pub, err := newHomeKeys(cc)
	if err != nil {
		return err
	}
	reward := common.BytesToAddress(pub.Address())
	if opts.RewardAddress != nil {
		reward = *opts.RewardAddress
	}
	rewards := []app.ValidatorReward{{ConsAddress: pub.Address().String(), RewardAddress: reward}}
	appState, err := json.MarshalIndent(app.NewAppState(app.GenesisParams{
		ChainID: chainID,
		Alloc:   opts.Alloc,
		Rewards: rewards,
		Staking: singleStaking(opts, pub.Bytes(), reward), // see staking.go
		Dev:     opts.Dev,
	}), "", "  ")
	if err != nil {
		return err
	}
	err = saveGenesis(cc.GenesisFile(), opts.ChainID, appState, []cmttypes.GenesisValidator{{
		Address: pub.Address(),
		PubKey:  pub,
		Power:   10,
		Name:    opts.Moniker,
	}})
	if err != nil {
		return err
	}
	cfg := config.Default()
	if opts.Dev {
		cfg.JSONRPC.WSAddress = "127.0.0.1:8546"
		cfg.JSONRPC.API = config.Namespaces()
		cfg.TxPool = devTxPool(cfg.TxPool, cc.Mempool.Size)
		cfg.Keyring.Backend = "test"
		cfg.Validator.SyncState = false // one local validator: see config.Validator
		cfg.Store.Sync = false          // see config.Store
		cfg.Runtime.GCPercent = 400     // see config.Runtime
		// A dev chain runs everything: the explorer indexes it from block 0
		// (--explorer.enable=false turns it off for one run).
		cfg.Explorer.Enable = true
		cfg.Metrics.Enable = true // on 127.0.0.1: see config.DefaultMetricsAddress
	}
	return writeAppFiles(opts.Home, cfg)
}

// newHomeKeys creates the config and data directories of cc's home,
// writes config.toml, and makes the node key and the validator key.
func newHomeKeys(cc *cmtcfg.Config) (cmtcrypto.PubKey, error) {
	for _, dir := range []string{"config", "data"} {
		if err := os.MkdirAll(filepath.Join(cc.RootDir, dir), 0o700); err != nil {
			return nil, err
		}
	}
	cmtcfg.WriteConfigFile(filepath.Join(cc.RootDir, "config", "config.toml"), cc)
	if _, err := p2p.LoadOrGenNodeKey(cc.NodeKeyFile()); err != nil {
		return nil, fmt.Errorf("node key: %w", err)
	}
	pv := privval.LoadOrGenFilePV(cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
	return pv.GetPubKey()
}

// saveGenesis writes a CometBFT genesis starting now with Ember's app state.
func saveGenesis(path, chainID string, appState json.RawMessage, validators []cmttypes.GenesisValidator) error {
	doc := &cmttypes.GenesisDoc{
		ChainID:         chainID,
		GenesisTime:     cmttime.Now(),
		InitialHeight:   1,
		ConsensusParams: cmttypes.DefaultConsensusParams(),
		Validators:      validators,
		AppState:        appState,
	}
	if err := doc.ValidateAndComplete(); err != nil {
		return err
	}
	return doc.SaveAs(path)
}

// writeAppFiles writes app.toml and the private namespaces' JWT secret, so
// that `emberd auth token` works before the first start.
func writeAppFiles(home string, cfg config.Config) error {
	if _, err := rpc.EnsureJWTSecret(filepath.Join(home, rpc.JWTSecretFile)); err != nil {
		return err
	}
	return config.Write(home, cfg)
}

// tuneDev sets consensus for a single local validator: a block as soon as
// the mempool has a tx, the next height started at once after the commit
// decision (see below), an empty block every
// interval (none if 0), short timeouts so a restart after a crash
// mid-height resumes quickly, a mempool sized for load tests, loopback
// addresses and no peer exchange.
func tuneDev(cc *cmtcfg.Config, interval time.Duration) {
	cc.Consensus.TimeoutPropose = 500 * time.Millisecond
	cc.Consensus.TimeoutProposeDelta = 100 * time.Millisecond
	cc.Consensus.TimeoutPrevote = 100 * time.Millisecond
	cc.Consensus.TimeoutPrevoteDelta = 100 * time.Millisecond
	cc.Consensus.TimeoutPrecommit = 100 * time.Millisecond
	cc.Consensus.TimeoutPrecommitDelta = 100 * time.Millisecond
	// After a block that changed the state CometBFT makes the next one at
	// once (it carries the new AppHash). No wait before it: a wait would
	// let it also carry the transaction a client sends on seeing the
	// previous receipt, which paid only while each block synced to disk;
	// with dev homes unsynced (config.Store.Sync) blocks are quick and a
	// wait only adds latency to a client sending one transaction at a time.
	cc.Consensus.TimeoutCommit = 0
	cc.Consensus.SkipTimeoutCommit = false
	cc.Consensus.CreateEmptyBlocks = interval > 0
	cc.Consensus.CreateEmptyBlocksInterval = interval
	cc.Consensus.PeerGossipSleepDuration = 10 * time.Millisecond
	cc.Mempool.Size = 50_000
	cc.Mempool.CacheSize = 100_000
	cc.P2P.ListenAddress = "tcp://127.0.0.1:26656"
	// One validator has no peers to exchange; without PEX there is also no
	// address-book routine still saving its file after the node stopped.
	cc.P2P.PexReactor = false
	cc.RPC.ListenAddress = "tcp://127.0.0.1:26657"
}

// devTxPool sizes a dev chain's pool for load tests: pending up to the dev
// mempool's 50,000 transactions, 16,384 queued.
func devTxPool(c config.TxPool, mempoolSize int) config.TxPool {
	c.GlobalSlots = mempoolSize
	c.GlobalQueue = 16_384
	return c
}

// FundAll gives every address the same balance.
func FundAll(addrs []common.Address, balance *big.Int) types.GenesisAlloc {
	alloc := make(types.GenesisAlloc, len(addrs))
	for _, a := range addrs {
		alloc[a] = types.Account{Balance: new(big.Int).Set(balance)}
	}
	return alloc
}

// ErrNotInitialized is returned when a command needs an initialized home.
var ErrNotInitialized = errors.New("home is not initialized: run `emberd init` first (or `emberd dev --home DIR`)")
