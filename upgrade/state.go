package upgrade

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// StateAddress holds the upgrade state in its storage. It has no code and
// nonce 1, so EIP-161 never clears it.
var StateAddress = common.HexToAddress("0x0000000000000000000000000000000000000B60")

// BaseAppVersion is the app version of a chain no plan has upgraded: what
// ABCI Info reported before the upgrade module existed.
const BaseAppVersion = 1

// Storage layout of StateAddress, as Solidity lays out
//
//	uint64 appVersion;                  // slot 0 (0: never upgraded, BaseAppVersion)
//	int64 planHeight;                   // slot 1 (0: no plan)
//	string planName;                    // slot 2
//	string planInfo;                    // slot 3
//	mapping(string => int64) done;      // slot 4: height each applied plan ran at
//	string lastName;                    // slot 5: the plan applied last
//	int64 lastHeight;                   // slot 6: its height
//
// Integers are big-endian words; a string is a Solidity string (short
// strings in one word, long ones from keccak256(slot)).
const (
	slotAppVersion = 0
	slotPlanHeight = 1
	slotPlanName   = 2
	slotPlanInfo   = 3
	slotDone       = 4
	slotLastName   = 5
	slotLastHeight = 6
)

var acct = slots.Account(StateAddress)

// maxString bounds what readString returns of a corrupt length word.
const maxString = 1 << 16

// ensureAccount gives StateAddress nonce 1 before the module writes to it.
func ensureAccount(st module.State) {
	if st.GetNonce(StateAddress) == 0 {
		st.SetNonce(StateAddress, 1, tracing.NonceChangeGenesis)
	}
}

// doneSlot is the slot of done[name]: a string key hashes its bytes.
func doneSlot(name string) common.Hash {
	slot := slots.Word(slotDone)
	return crypto.Keccak256Hash([]byte(name), slot[:])
}

// CurrentPlan is the plan scheduled and not yet applied, if any.
func CurrentPlan(st module.Reader) (Plan, bool) {
	h := int64(acct.Uint(st, slots.Word(slotPlanHeight)))
	if h == 0 {
		return Plan{}, false
	}
	return Plan{Name: readString(st, slots.Word(slotPlanName)), Height: h, Info: readString(st, slots.Word(slotPlanInfo))}, true
}

// Applied is the height the plan called name was applied at, if it was.
func Applied(st module.Reader, name string) (int64, bool) {
	h := int64(acct.Uint(st, doneSlot(name)))
	return h, h != 0
}

// LastApplied is the plan applied last and its height, if any was.
func LastApplied(st module.Reader) (string, int64, bool) {
	h := int64(acct.Uint(st, slots.Word(slotLastHeight)))
	if h == 0 {
		return "", 0, false
	}
	return readString(st, slots.Word(slotLastName)), h, true
}

// AppVersion is the chain's app version: BaseAppVersion plus one for each
// plan applied.
func AppVersion(st module.Reader) uint64 {
	if v := acct.Uint(st, slots.Word(slotAppVersion)); v != 0 {
		return v
	}
	return BaseAppVersion
}

func setPlan(st module.State, p Plan) {
	ensureAccount(st)
	acct.SetUint(st, slots.Word(slotPlanHeight), uint64(p.Height))
	writeString(st, slots.Word(slotPlanName), p.Name)
	writeString(st, slots.Word(slotPlanInfo), p.Info)
}

// clearPlan zeroes every word of the plan, long strings' data included,
// so a cancelled or applied plan leaves no storage behind.
func clearPlan(st module.State) {
	if _, ok := CurrentPlan(st); !ok {
		return
	}
	acct.SetUint(st, slots.Word(slotPlanHeight), 0)
	writeString(st, slots.Word(slotPlanName), "")
	writeString(st, slots.Word(slotPlanInfo), "")
}

// setDone records name as applied at height and bumps the app version.
func setDone(st module.State, name string, height int64) {
	ensureAccount(st)
	acct.SetUint(st, doneSlot(name), uint64(height))
	writeString(st, slots.Word(slotLastName), name)
	acct.SetUint(st, slots.Word(slotLastHeight), uint64(height))
	acct.SetUint(st, slots.Word(slotAppVersion), AppVersion(st)+1)
}

// readString reads a Solidity string at slot.
func readString(st module.Reader, slot common.Hash) string {
	head := acct.Get(st, slot)
	if head[31]&1 == 0 { // short: data in the high bytes, length*2 in the last
		return string(head[:head[31]/2])
	}
	n := slots.WordUint(head) / 2
	if n > maxString {
		return ""
	}
	data := crypto.Keccak256Hash(slot[:])
	out := make([]byte, 0, n)
	for i := uint64(0); uint64(len(out)) < n; i++ {
		w := acct.Get(st, slots.Offset(data, i))
		out = append(out, w[:min(32, int(n)-len(out))]...)
	}
	return string(out)
}

// writeString writes a Solidity string at slot, zeroing the data words of
// a longer previous value.
func writeString(st module.State, slot common.Hash, s string) {
	data := crypto.Keccak256Hash(slot[:])
	old := readString(st, slot)
	for i := 0; len(old) >= 32 && i*32 < len(old); i++ {
		acct.Set(st, slots.Offset(data, uint64(i)), common.Hash{})
	}
	b := []byte(s)
	if len(b) < 32 {
		var head common.Hash
		copy(head[:], b)
		head[31] = byte(len(b) * 2)
		acct.Set(st, slot, head)
		return
	}
	acct.Set(st, slot, slots.Word(uint64(len(b))*2+1))
	for i := 0; i*32 < len(b); i++ {
		var w common.Hash
		copy(w[:], b[i*32:])
		acct.Set(st, slots.Offset(data, uint64(i)), w)
	}
}
