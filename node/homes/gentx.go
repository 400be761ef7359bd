package homes

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmted25519 "github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/genutil"
	"github.com/emberchain/ember/node/config"
)

// GentxOptions describe an operator's gentx for the node in Home.
type GentxOptions struct {
	Home string
	Key  *ecdsa.PrivateKey // the operator's key
	// Amount is the self-bond; the operator must hold it at genesis.
	Amount *big.Int
	// ChainID must be the genesis chain id ("" = the genesis's).
	ChainID    string
	Moniker    string // "" = config.toml's moniker
	Commission genutil.Commission
	// IP and P2PPort make the memo <node id>@IP:P2PPort other nodes dial;
	// "" and 0 = config.toml's p2p.external_address, else p2p.laddr (an
	// unspecified laddr host is replaced by this machine's first non-loopback
	// IPv4 address).
	IP      string
	P2PPort int
	// Output is the file written; "" = <home>/config/gentx/gentx-<node id>.json.
	Output string
}

// Gentx signs the operator's MsgCreateValidator for the node's consensus
// key (priv_validator_key.json of Home), checks that the operator is funded
// in the home's genesis with at least the self-bond, and writes the gentx.
// It returns the file and the gentx.
func Gentx(o GentxOptions) (string, *genutil.GenTx, error) {
	gf, err := LoadGenesis(filepath.Join(o.Home, "config", "genesis.json"))
	if err != nil {
		return "", nil, err
	}
	if o.ChainID != "" && o.ChainID != gf.Doc.ChainID {
		return "", nil, fmt.Errorf("--chain-id %s differs from the genesis chain id %s", o.ChainID, gf.Doc.ChainID)
	}
	cc, err := config.LoadComet(o.Home)
	if err != nil {
		return "", nil, err
	}
	op := crypto.PubkeyToAddress(o.Key.PublicKey)
	bal, ok := gf.Balance(op)
	if !ok {
		return "", nil, fmt.Errorf("account %s is not in the genesis allocation: run `emberd genesis add-account` first", op.Hex())
	}
	if o.Amount == nil || bal.Cmp(o.Amount) < 0 {
		return "", nil, fmt.Errorf("account %s has %v%s at genesis, less than the self-bond %v%s", op.Hex(), bal, gf.State.Denom, o.Amount, gf.State.Denom)
	}
	nk, err := p2p.LoadNodeKey(cc.NodeKeyFile())
	if err != nil {
		return "", nil, fmt.Errorf("node key: %w", err)
	}
	if _, err := os.Stat(cc.PrivValidatorKeyFile()); err != nil {
		return "", nil, fmt.Errorf("consensus key: %w", err)
	}
	pv := privval.LoadFilePVEmptyState(cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
	memo, err := peerAddress(cc, string(nk.ID()), o.IP, o.P2PPort)
	if err != nil {
		return "", nil, err
	}
	moniker := o.Moniker
	if moniker == "" {
		moniker = cc.Moniker
	}
	v := genutil.Validator{Operator: op, ConsKey: pv.Key.PubKey.Bytes(), Moniker: moniker, SelfBond: o.Amount, Commission: o.Commission}
	j, err := genutil.Sign(o.Key, v, gf.Doc.ChainID, memo, gf.State.Bech32Prefix, gf.State.Denom)
	if err != nil {
		return "", nil, err
	}
	g, err := genutil.Parse(j, gf.Doc.ChainID, gf.State.Bech32Prefix, gf.State.Denom)
	if err != nil {
		return "", nil, err
	}
	out := o.Output
	if out == "" {
		out = filepath.Join(o.Home, "config", "gentx", "gentx-"+string(nk.ID())+".json")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		return "", nil, err
	}
	return out, g, os.WriteFile(out, append(j, '\n'), 0o644)
}

// peerAddress is the node's <id>@<ip>:<port> for other nodes' persistent
// peers.
func peerAddress(cc *cmtcfg.Config, id, ip string, port int) (string, error) {
	addr := cc.P2P.ExternalAddress
	if addr == "" {
		addr = cc.P2P.ListenAddress
	}
	addr = strings.TrimPrefix(addr, "tcp://")
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("p2p address %q: %w", addr, err)
	}
	if ip == "" {
		ip = host
		if h := net.ParseIP(host); h == nil || h.IsUnspecified() {
			ip = externalIP()
		}
	}
	if port == 0 {
		if port, err = strconv.Atoi(portStr); err != nil {
			return "", fmt.Errorf("p2p port %q: %w", portStr, err)
		}
	}
	return fmt.Sprintf("%s@%s", id, net.JoinHostPort(ip, strconv.Itoa(port))), nil
}

// externalIP is the first non-loopback IPv4 address of this machine's
// interfaces, else 127.0.0.1.
func externalIP() string {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
				return n.IP.String()
			}
		}
	}
	return "127.0.0.1"
}

// Collected is what CollectGentxs did.
type Collected struct {
	Files []string // the gentx files read, in order
	// GenTxs are the gentxs written into app_state.genutil.gen_txs, in
	// file-name order.
	GenTxs []*genutil.GenTx
	// RemovedValidators is how many CometBFT genesis validators (the one
	// `emberd init` writes) were removed: the gentxs make the set.
	RemovedValidators int
	// PersistentPeers is what config.toml's p2p.persistent_peers now holds:
	// the memos of the other nodes' gentxs.
	PersistentPeers string
	// Validators is the set the chain will start with (validator address
	// and power), as InitChain computes it.
	Validators []string
}

// CollectGentxs reads the gentx files of dir (default
// <home>/config/gentx), checks each (signature, funded operator, one
// validator per operator and per consensus key), writes them into the
// home's genesis with CometBFT's validators left empty, checks the result
// as InitChain will run it, and sets config.toml's persistent peers.
func CollectGentxs(home, dir string) (*Collected, error) {
	if dir == "" {
		dir = filepath.Join(home, "config", "gentx")
	}
	gf, err := LoadGenesis(filepath.Join(home, "config", "genesis.json"))
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("no gentx files (*.json) in %s", dir)
	}
	c := &Collected{Files: files}
	var txs []json.RawMessage
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		txs = append(txs, json.RawMessage(strings.TrimSpace(string(raw))))
	}
	gentxs, err := genutil.ParseAll(txs, gf.Doc.ChainID, gf.State.Bech32Prefix, gf.State.Denom, gf.Balance)
	if err != nil {
		return nil, fmt.Errorf("%w (files in order: %s)", err, strings.Join(files, ", "))
	}
	c.GenTxs = gentxs
	if c.RemovedValidators, err = gf.SetGenTxs(txs); err != nil {
		return nil, err
	}
	if err := gf.Save(); err != nil {
		return nil, err
	}
	if c.Validators, err = ValidateGenesisFile(gf.Path); err != nil {
		return nil, err
	}
	cc, err := config.LoadComet(home)
	if err != nil {
		return nil, err
	}
	nk, err := p2p.LoadNodeKey(cc.NodeKeyFile())
	if err != nil {
		return nil, err
	}
	var peers []string
	for _, g := range gentxs {
		if g.Memo != "" && !strings.HasPrefix(g.Memo, string(nk.ID())+"@") {
			peers = append(peers, g.Memo)
		}
	}
	c.PersistentPeers = strings.Join(peers, ",")
	cc.P2P.PersistentPeers = c.PersistentPeers
	cmtcfg.WriteConfigFile(filepath.Join(home, "config", "config.toml"), cc)
	return c, nil
}

// ValidateGenesisFile reads path and runs on it what InitChain runs
// (app.ValidateGenesis), writing nothing. It returns the validator set the
// chain starts with, as "<CometBFT address> power <n>".
func ValidateGenesisFile(path string) ([]string, error) {
	gf, err := LoadGenesis(path)
	if err != nil {
		return nil, err
	}
	if gs := gf.State.Genutil; gs != nil {
		if problems := genutil.Problems(gs.GenTxs, gf.Doc.ChainID, gf.State.Bech32Prefix, gf.State.Denom, gf.Balance); len(problems) > 0 {
			return nil, fmt.Errorf("%s: app_state.genutil: %w", path, errors.Join(problems...))
		}
	}
	vals, err := app.ValidateGenesis(gf.Doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		pk := v.PubKey.GetEd25519()
		out[i] = fmt.Sprintf("%s power %d", cmted25519.PubKey(pk).Address(), v.Power)
	}
	return out, nil
}
