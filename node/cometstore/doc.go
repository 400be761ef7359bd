// Package cometstore holds what Ember changes in how CometBFT keeps its
// state on disk: its databases (writes unsynced on a dev home, validator-set
// reads answered without replaying proposer priorities, kept open across a
// dev chain's restarts of CometBFT), its consensus WAL and the validator's
// sign state on tmpfs when unsynced, and the rewinding of all of them to a
// lower height (evm_revert).
package cometstore
