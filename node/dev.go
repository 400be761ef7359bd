package node

import (
	"context"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/devchain"
	"github.com/emberchain/ember/node/backend"
	"github.com/emberchain/ember/rpc"
	"github.com/emberchain/ember/rpc/anvil"
	"github.com/emberchain/ember/rpc/eth"
)

// devNamespaces returns the anvil_, hardhat_ and evm_ services of a
// development chain (genesis app_state.dev), none on other chains, where
// the methods answer -32601. On a development chain, ethAPI's
// eth_sendTransaction sends from impersonated accounts through them.
func (n *Node) devNamespaces(b *backend.Backend, ethAPI *eth.API, clientVersion string) []rpc.Namespace {
	if !n.app.Dev() {
		return nil
	}
	n.devAPI = anvil.New(backend.NewDev(b, n.Revert))
	n.devAPI.SetClientVersion(clientVersion) // hardhat_metadata's
	eth.SetImpersonator(ethAPI, n.devAPI)
	an, ev := n.devAPI.Namespaces()
	return []rpc.Namespace{{Name: "anvil", Service: an}, {Name: "hardhat", Service: an}, {Name: "evm", Service: ev}}
}

// AnswerSendsMined makes eth_sendRawTransaction and eth_sendTransaction
// answer once the transaction is mined, as Hardhat Network and anvil do
// with automine (`emberd dev`; `emberd start` answers at admission), unless
// json-rpc.dev-answer-mined is false. Call it before Start; it has no
// effect on a chain that is not a dev chain.
func (n *Node) AnswerSendsMined() { n.answerMined = n.app.Dev() && n.cfg.JSONRPC.DevAnswerMined }

// UnlockDevKeys keeps the keys of addrs unlocked until the node exits, for
// `emberd dev` (see backend.Keys.UnlockDev).
func (n *Node) UnlockDevKeys(addrs []common.Address) error { return n.keys.UnlockDev(addrs) }

// DumpState lists the state at the head (--dump-state): see
// backend.Chain.DumpState.
func (n *Node) DumpState() (*devchain.State, error) { return n.chain().DumpState() }

// LoadState applies a state (--load-state) as blocks of edits: see
// backend.Chain.LoadState.
func (n *Node) LoadState(ctx context.Context, s *devchain.State) error {
	return n.chain().LoadState(ctx, s)
}

// rpcAuth loads the JWT secret of the private namespaces, creating it on
// the first start of a home made before it existed.
func (n *Node) rpcAuth() (rpc.Auth, error) {
	file := filepath.Join(n.home, rpc.JWTSecretFile)
	secret, err := rpc.EnsureJWTSecret(file)
	if err != nil {
		return rpc.Auth{}, err
	}
	return rpc.Auth{Secret: secret}, nil
}
