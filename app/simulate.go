package app

import "github.com/emberchain/ember/native"

// Simulate checks a native tx as a client simulates it before signing (no
// signature, maybe no fee) against the check state and the pool, and
// reports the gas limit it names and the gas it will be charged.
func (a *App) Simulate(raw []byte) (gasWanted, gasUsed uint64, err error) {
	sim, err := native.DecodeSimulation(raw, a.genesis.Bech32Prefix, a.genesis.Denom)
	if err != nil {
		return 0, 0, err
	}
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	if err := a.ensureCheckState(); err != nil {
		return sim.GasWanted, 0, err
	}
	st := a.checkState
	pending := a.pool.PendingNonce(sim.Tx.Signer, st.GetNonce(sim.Tx.Signer))
	if err := native.CheckSimulation(st, sim.Tx, a.checkEnv(), pending); err != nil {
		return sim.GasWanted, 0, err
	}
	return sim.GasWanted, sim.Tx.GasUsed(), nil
}
