package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/cometbft/cometbft/p2p"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
)

// evmd is cosmos/evm's example chain: homes from `evmd testnet init-files
// --single-host`, its own defaults except the ports, the common block
// time and the senders funded in genesis.
type evmd struct {
	bin   string
	comet cometSettings
}

func (e evmd) Name() string { return "evmd" }

// evmdChainID is the Cosmos chain id; the EVM chain id is app.toml's
// [evm] evm-chain-id (262144, evmd's default), which eth_chainId reports.
const evmdChainID = "benchnet-1"

// evmdBalance is each sender's genesis balance in atest (18 decimals, the
// EVM denom init-files sets): 10,000 tokens, as Ember funds its senders.
var evmdBalance = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18))

func (e evmd) Init(ctx context.Context, dir string, senders []common.Address) ([]*node, error) {
	out := filepath.Join(dir, "testnet")
	cmd := exec.CommandContext(ctx, e.bin, "testnet", "init-files", "--validator-count", "4", "--output-dir", out,
		"--single-host", "--keyring-backend", "test", "--chain-id", evmdChainID, "--commit-timeout", e.comet.blockTime.String())
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, b)
	}
	base, err := portBlock(40)
	if err != nil {
		return nil, err
	}
	var nodes []*node
	for i := 0; i < 4; i++ {
		n, err := e.configure(filepath.Join(out, fmt.Sprintf("node%d", i), "evmd"), i, base+10*i)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	genesis, err := fundGenesis(filepath.Join(nodes[0].home, "config", "genesis.json"), senders)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if err := os.WriteFile(filepath.Join(n.home, "config", "genesis.json"), genesis, 0o644); err != nil {
			return nil, err
		}
	}
	return nodes, nil
}

// configure moves node i of init-files (fixed ports 16656+i, 8545+10i…,
// which would collide with other runs) to the ports from base, and turns
// off what init-files turns on beyond the defaults (REST API, telemetry,
// the EVM indexer), so the node runs as the defaults of a production
// home do.
func (e evmd) configure(home string, i, base int) (*node, error) {
	key, err := p2p.LoadNodeKey(filepath.Join(home, "config", "node_key.json"))
	if err != nil {
		return nil, err
	}
	n := &node{name: fmt.Sprintf("node%d", i), home: home, id: string(key.ID()), p2p: addr(base),
		jsonRPC: "http://" + addr(base+2), comet: "http://" + addr(base+1)}
	comet := productionComet(e.comet, n.p2p, addr(base+1))
	comet["rpc"]["pprof_laddr"] = quote("")
	comet["instrumentation"] = map[string]string{"prometheus": "false"}
	// evmd start always turns its EVM mempool on (it sets
	// --mempool.max-txs to 0 over app.toml) and refuses to start unless
	// CometBFT's mempool is its app-side one (cosmos/evm's fork, v0.39):
	// the transactions live in the app, and CometBFT's AppReactor gossips
	// them to the peers in batches. That is evmd's production setting
	// (its local_node.sh sets it too).
	comet["mempool"]["type"] = quote("app")
	if err := setTOML(filepath.Join(home, "config", "config.toml"), comet); err != nil {
		return nil, err
	}
	return n, setTOML(filepath.Join(home, "config", "app.toml"), tomlEdits{
		"api":        {"enable": "false", "address": quote("tcp://" + addr(base+4))},
		"grpc":       {"address": quote(addr(base + 5))},
		"telemetry":  {"enabled": "false"},
		"state-sync": {"snapshot-interval": "0"},
		"json-rpc": {"enable": "true", "address": quote(addr(base + 2)), "ws-address": quote(addr(base + 3)),
			"metrics-address": quote(addr(base + 6)), "enable-indexer": "false"},
		"evm": {"geth-metrics-address": quote(addr(base + 7))},
	})
}

func (e evmd) SetPeers(n *node, peers string) error {
	return setTOML(filepath.Join(n.home, "config", "config.toml"), tomlEdits{"p2p": {"persistent_peers": quote(peers)}})
}

func (e evmd) Command(n *node) *exec.Cmd {
	return exec.Command(e.bin, "start", "--home", n.home, "--chain-id", evmdChainID, "--log_level", "warn")
}

// fundGenesis returns the genesis at path with an account and a balance
// of evmdBalance atest for each sender, and the atest supply raised to
// match (the bank module checks it at genesis). The numbers stay
// json.Number, so no 18-decimal amount passes through a float.
func fundGenesis(path string, senders []common.Address) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&g); err != nil {
		return nil, err
	}
	app := g["app_state"].(map[string]any)
	auth, bank := app["auth"].(map[string]any), app["bank"].(map[string]any)
	accs, bals := auth["accounts"].([]any), bank["balances"].([]any)
	prefixes := accounts.NewPrefixes("cosmos")
	for _, s := range senders {
		a, err := prefixes.Encode(accounts.KindAccount, s.Bytes())
		if err != nil {
			return nil, err
		}
		accs = append(accs, map[string]any{"@type": "/cosmos.auth.v1beta1.BaseAccount", "address": a,
			"pub_key": nil, "account_number": "0", "sequence": "0"})
		bals = append(bals, map[string]any{"address": a,
			"coins": []any{map[string]any{"denom": "atest", "amount": evmdBalance.String()}}})
	}
	auth["accounts"], bank["balances"] = accs, bals
	if err := raiseSupply(bank, new(big.Int).Mul(evmdBalance, big.NewInt(int64(len(senders))))); err != nil {
		return nil, err
	}
	return json.MarshalIndent(g, "", "  ")
}

// raiseSupply adds add to the bank genesis's atest supply.
func raiseSupply(bank map[string]any, add *big.Int) error {
	for _, c := range bank["supply"].([]any) {
		coin := c.(map[string]any)
		if coin["denom"] != "atest" {
			continue
		}
		v, ok := new(big.Int).SetString(fmt.Sprint(coin["amount"]), 10)
		if !ok {
			return fmt.Errorf("genesis atest supply %v", coin["amount"])
		}
		coin["amount"] = v.Add(v, add).String()
		return nil
	}
	return fmt.Errorf("genesis has no atest supply")
}
