package metrics

import "time"

// Health is whether the node advances with its network, as the readiness
// endpoint reports it.
type Health struct {
	Ready      bool          // advancing: not halted, not catching up, recent head, not behind its peers
	Halted     bool          // a write failed and consensus stopped (fail-stop); the process is exiting
	CatchingUp bool          // block sync or state sync under way
	HeadAge    time.Duration // since the head block's timestamp
	Behind     uint64        // blocks the highest peer is ahead of the head
}

// registerHealth adds the series an alert on a stuck or failed node reads.
func registerHealth(f factory, health func() Health) {
	f.gaugeFunc("ready", "1 while the node advances with its network (what GET /ready on the JSON-RPC port answers 200 for), else 0.",
		func() float64 { return boolValue(health().Ready) })
	f.gaugeFunc("consensus_halted", "1 once a write the node cannot do without losing consistency failed and consensus stopped; the process then exits.",
		func() float64 { return boolValue(health().Halted) })
	f.gaugeFunc("catching_up", "1 while block sync or state sync runs.",
		func() float64 { return boolValue(health().CatchingUp) })
	f.gaugeFunc("head_age_seconds", "Seconds since the head block's timestamp: grows while no block is committed.",
		func() float64 { return health().HeadAge.Seconds() })
	f.gaugeFunc("blocks_behind", "Blocks the highest height a peer reports is ahead of this node's head; 0 without peers.",
		func() float64 { return float64(health().Behind) })
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
