package peer

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// GethGenesis is the go-ethereum genesis inside an Ember home's
// genesis.json (same config, alloc, gas limit and base fee), plus the Prague
// system contracts geth needs to process a block (Ember does not deploy
// them; plain transfers and ERC-20 calls do not touch them). Without it geth
// --dev would run its own, newer fork rules, with other gas costs.
func GethGenesis(home string) (*core.Genesis, error) {
	raw, err := os.ReadFile(filepath.Join(home, "config", "genesis.json"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		AppState struct {
			EVM *core.Genesis `json:"evm"`
		} `json:"app_state"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.AppState.EVM == nil {
		return nil, fmt.Errorf("ember genesis: no app_state.evm (%v)", err)
	}
	g := doc.AppState.EVM
	for addr, code := range map[common.Address][]byte{
		params.BeaconRootsAddress: params.BeaconRootsCode, params.HistoryStorageAddress: params.HistoryStorageCode,
		params.WithdrawalQueueAddress: params.WithdrawalQueueCode, params.ConsolidationQueueAddress: params.ConsolidationQueueCode,
	} {
		g.Alloc[addr] = types.Account{Nonce: 1, Code: code, Balance: new(big.Int)}
	}
	return g, nil
}

// GethFrom initializes a temporary datadir with genesis and runs geth --dev
// on it with HTTP JSON-RPC and args (e.g. --dev.period, --http.api,
// --txpool.* flags). Stop removes the datadir.
func GethFrom(bin string, genesis *core.Genesis, args ...string) (*Node, error) {
	datadir, err := os.MkdirTemp("", "bench-geth-")
	if err != nil {
		return nil, err
	}
	enc, err := json.Marshal(genesis)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(datadir, "genesis.json")
	if err := os.WriteFile(path, enc, 0o644); err != nil {
		return nil, err
	}
	if out, err := exec.Command(bin, "init", "--datadir", datadir, path).CombinedOutput(); err != nil {
		os.RemoveAll(datadir)
		return nil, fmt.Errorf("geth init: %v\n%s", err, out)
	}
	port, ws := FreePort(), FreePort()
	all := append([]string{"--dev", "--datadir", datadir, "--http", "--http.addr", "127.0.0.1", "--http.port", port,
		"--port", "0", "--authrpc.port", FreePort(), "--nodiscover", "--maxpeers", "0", "--ipcdisable", "--verbosity", "2"}, gethWS(ws)...)
	all = append(all, args...)
	return launch("geth --dev", exec.Command(bin, all...), "http://127.0.0.1:"+port, "ws://127.0.0.1:"+ws, datadir)
}

// BlocksEvery turns a dev home's "block as soon as transactions arrive"
// into a block every `every` whatever the mempool holds (CometBFT's
// timeout_commit, empty blocks on). After a restart the first block comes
// `every` later, so with a long interval pending transactions stay pending.
func BlocksEvery(home string, every time.Duration) error {
	path := filepath.Join(home, "config", "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for key, v := range map[string]string{
		"timeout_commit": fmt.Sprintf("%q", every.String()), "skip_timeout_commit": "false",
		"create_empty_blocks": "true", "create_empty_blocks_interval": `"0s"`,
	} {
		re := regexp.MustCompile(`(?m)^` + key + ` = .*$`)
		if !re.Match(b) {
			return fmt.Errorf("%s: no %s to set", path, key)
		}
		b = re.ReplaceAll(b, []byte(key+" = "+v))
	}
	return os.WriteFile(path, b, 0o644)
}
