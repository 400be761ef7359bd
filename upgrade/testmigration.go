package upgrade

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/module"
)

// TestUpgradeName is the plan the upgrade tests schedule. Only a binary
// built with -tags upgradetest registers its handler (TestMigration), so
// the release binary halts at it and the test binary applies it.
const TestUpgradeName = "ember-test-upgrade"

// TestMarkerSlot is the slot of StateAddress where TestMigration records
// its work, readable with eth_getStorageAt: bytes 0-7 the height it ran
// at, bytes 24-31 how many times it ran (a replay that ran it twice would
// show 2).
var TestMarkerSlot = crypto.Keccak256Hash([]byte(TestUpgradeName))

// TestMigration is the test plan's migration: it records its height and
// bumps its run count in TestMarkerSlot. It moves no coin, so the supply
// invariant holds across it.
func TestMigration(st module.State, c *Context) error {
	ensureAccount(st)
	_, runs := TestMarker(st)
	var w common.Hash
	binary.BigEndian.PutUint64(w[0:8], uint64(c.Height))
	binary.BigEndian.PutUint64(w[24:32], runs+1)
	acct.Set(st, TestMarkerSlot, w)
	return nil
}

// TestMarker reads TestMarkerSlot: the height TestMigration ran at and how
// many times it ran (0, 0: never).
func TestMarker(st module.Reader) (height int64, runs uint64) {
	return ParseTestMarker(acct.Get(st, TestMarkerSlot))
}

// ParseTestMarker splits a TestMarkerSlot word read over RPC.
func ParseTestMarker(w common.Hash) (height int64, runs uint64) {
	return int64(binary.BigEndian.Uint64(w[0:8])), binary.BigEndian.Uint64(w[24:32])
}
