package node

import (
	"fmt"
	"time"

	cs "github.com/cometbft/cometbft/consensus"
	"github.com/cometbft/cometbft/p2p"
	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/emberchain/ember/metrics"
	"github.com/emberchain/ember/rpc"
)

// Readiness is whether the node advances with its network, for GET /ready
// on the JSON-RPC port and the ember_ready series: not when it has halted
// (failstop.go), CometBFT is not running, block or state sync is under
// way, its head is older than [health] max-block-age allows, or a peer is
// more than max-blocks-behind blocks ahead.
func (n *Node) Readiness() rpc.Readiness {
	r := rpc.Readiness{Height: n.headNumber()}
	if h := n.store.Head(); h != nil {
		r.BlockAgeSeconds = max(0, time.Since(time.Unix(int64(h.Time), 0)).Seconds())
	}
	if err := n.halted(); err != nil {
		r.Halted, r.Reason = true, err.Error()
		return r
	}
	cmt := n.comet()
	if cmt == nil || !cmt.IsRunning() {
		r.Reason = "CometBFT is not running"
		return r
	}
	r.CatchingUp = cmt.ConsensusReactor().WaitSync()
	r.BlocksBehind = blocksBehind(cmt.Switch(), r.Height)
	switch maxAge := n.maxBlockAge(); {
	case r.CatchingUp:
		r.Reason = "catching up (block sync or state sync)"
	case r.BlocksBehind > n.cfg.Health.MaxBlocksBehind:
		r.Reason = fmt.Sprintf("%d blocks behind a peer (more than health.max-blocks-behind %d)", r.BlocksBehind, n.cfg.Health.MaxBlocksBehind)
	case maxAge > 0 && r.BlockAgeSeconds > maxAge.Seconds():
		r.Reason = fmt.Sprintf("no block for %.1fs (more than %s)", r.BlockAgeSeconds, maxAge)
	default:
		r.Ready = true
	}
	return r
}

// maxBlockAge is the oldest the head may be on a ready node; 0 when the
// chain makes blocks only for transactions (a quiet chain is not a stuck
// one) or the check is off.
func (n *Node) maxBlockAge() time.Duration {
	c := n.cmtCfg.Consensus
	if n.cfg.Health.MaxBlockAge <= 0 || !c.CreateEmptyBlocks || n.state.Dev {
		return 0
	}
	return n.cfg.Health.MaxBlockAge.Std() + c.CreateEmptyBlocksInterval
}

// blocksBehind is how far the highest peer's last block is above head; a
// peer's consensus height is the block it is deciding, one above its last.
func blocksBehind(sw *p2p.Switch, head uint64) uint64 {
	var top int64
	for _, p := range sw.Peers().List() {
		if ps, ok := p.Get(cmttypes.PeerStateKey).(*cs.PeerState); ok {
			top = max(top, ps.GetHeight()-1)
		}
	}
	if top <= 0 || uint64(top) <= head {
		return 0
	}
	return uint64(top) - head
}

// healthMetrics is Readiness as the metrics read it.
func (n *Node) healthMetrics() metrics.Health {
	r := n.Readiness()
	return metrics.Health{Ready: r.Ready, Halted: r.Halted, CatchingUp: r.CatchingUp,
		HeadAge: time.Duration(r.BlockAgeSeconds * float64(time.Second)), Behind: r.BlocksBehind}
}
