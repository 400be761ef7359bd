package node

import (
	"errors"
	"sync"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/upgrade"
)

// halter is what the node does when the app halts (app.Halt): the upgrade
// module refused a block, or the halt height was committed. The process
// must then end, not sit in CometBFT's consensus failure: cosmovisor
// switches binaries when the node exits with upgrade-info.json written.
type halter struct {
	once sync.Once
	ch   chan error // receives one value: nil for the halt height, else why
}

// setupUpgrade wires the app's halt to the node (New calls it).
func (n *Node) setupUpgrade() {
	n.halter.ch = make(chan error, 1)
	n.app.SetHaltHeight(int64(n.cfg.HaltHeight))
	n.app.SetHalt(n.onHalt)
}

// Halted receives once when the node must stop: nil after the halt height
// was committed (exit status 0), else the upgrade's refusal, whose text is
// the SDK's log line (`UPGRADE "NAME" NEEDED at height: H: INFO`).
func (n *Node) Halted() <-chan error { return n.halter.ch }

// onHalt runs on the ABCI goroutine: it writes upgrade-info.json for a
// plan this binary cannot apply (before the block's refusal reaches
// CometBFT, as the SDK's PreBlocker writes it), logs, and tells Halted.
func (n *Node) onHalt(h app.Halt) {
	var err error
	switch {
	case h.Upgrade == nil:
		n.log.Info("halting node per configuration", "height", h.Height)
	case h.Upgrade.Needed:
		if werr := upgrade.WriteInfo(n.home, h.Height, h.Upgrade.Plan); werr != nil {
			n.log.Error("upgrade-info.json", "err", werr)
			err = errors.Join(h.Upgrade, werr)
		} else {
			n.log.Error(h.Upgrade.Error(), "file", upgrade.InfoPath(n.home))
			err = h.Upgrade
		}
	default:
		n.log.Error(h.Upgrade.Error())
		err = h.Upgrade
	}
	n.halter.once.Do(func() { n.halter.ch <- err })
}

// checkUpgrade refuses to start a binary that cannot run the chain's state
// (app.CheckUpgrade: the handler of the last applied plan missing, or the
// halt height already reached).
func (n *Node) checkUpgrade() error { return n.app.CheckUpgrade() }
