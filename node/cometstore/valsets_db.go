package cometstore

import (
	"bytes"
	"math/big"
	"strconv"
	"sync"

	dbm "github.com/cometbft/cometbft-db"
	cmtcfg "github.com/cometbft/cometbft/config"
	cmtstate "github.com/cometbft/cometbft/proto/tendermint/state"
	cmttypes "github.com/cometbft/cometbft/types"
)

// CometBFT v0.38 stores a block height's validator set whole only where it
// changed and every 100,000 heights; other heights point back to that
// record, and its LoadValidators brings the stored set's proposer
// priorities forward one height at a time. Each block loads the previous
// height's set twice (commit info for PrepareProposal and FinalizeBlock),
// so a chain's blocks cost more the longer its validators stay the same,
// until on a long-lived chain those loads dominate the node's work per
// block (upstream cometbft#1693; the fix, #6039, is not in v0.38).
//
// valsetsDB, around CometBFT's state database, answers the read of such a
// height's record with the set filled in, as LoadValidators would compute
// it, brought forward from the set it computed last instead of from the
// stored one. CometBFT then takes it as stored. What is on disk does not
// change.
//
// PruneStates also reads these records, and would keep fewer base records
// than the heights after the pruned ones need if it saw them filled. It runs
// only when the app asks CometBFT to drop blocks (RetainHeight), which
// Ember never does.
type valsetsDB struct {
	dbm.DB
	mu   sync.Mutex
	last *advancedSet
}

// advancedSet is a set brought forward from its stored base record.
type advancedSet struct {
	base    int64  // height of the record holding the stored set
	baseRaw []byte // that record: a base rewritten since (a rewind) is a new base
	height  int64
	set     *cmttypes.ValidatorSet
}

// valSetCheckpointInterval is CometBFT's (state/store.go, unexported): the
// heights where a set is stored whole although it did not change.
const valSetCheckpointInterval = 100_000

const validatorsKeyPrefix = "validatorsKey:"

// withValsets wraps the "state" database open returns.
func withValsets(open cmtcfg.DBProvider) cmtcfg.DBProvider {
	return func(ctx *cmtcfg.DBContext) (dbm.DB, error) {
		db, err := open(ctx)
		if err != nil || ctx.ID != "state" {
			return db, err
		}
		return &valsetsDB{DB: db}, nil
	}
}

func (d *valsetsDB) Get(key []byte) ([]byte, error) {
	raw, err := d.DB.Get(key)
	if err != nil || len(raw) == 0 || !bytes.HasPrefix(key, []byte(validatorsKeyPrefix)) {
		return raw, err
	}
	height, perr := strconv.ParseInt(string(key[len(validatorsKeyPrefix):]), 10, 64)
	if perr != nil {
		return raw, nil
	}
	var info cmtstate.ValidatorsInfo
	if info.Unmarshal(raw) != nil || info.ValidatorSet != nil {
		return raw, nil // stored whole, or for CometBFT to report unreadable
	}
	filled, ok := d.fill(height, &info)
	if !ok {
		return raw, nil // CometBFT computes it, or fails, as it would
	}
	return filled, nil
}

// fill returns height's record with the set CometBFT's LoadValidators would
// compute for it, or false where it cannot, leaving that to CometBFT.
func (d *valsetsDB) fill(height int64, info *cmtstate.ValidatorsInfo) ([]byte, bool) {
	base := max(height-height%valSetCheckpointInterval, info.LastHeightChanged)
	if base >= height {
		return nil, false
	}
	baseRaw, err := d.DB.Get([]byte(validatorsKeyPrefix + strconv.FormatInt(base, 10)))
	if err != nil || len(baseRaw) == 0 {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	set, ok := d.advance(base, baseRaw, height)
	if !ok {
		return nil, false
	}
	pb, err := set.ToProto()
	if err != nil {
		return nil, false
	}
	info.ValidatorSet = pb
	out, err := info.Marshal()
	return out, err == nil
}

// advance is the set at height: the last one computed, moved on, where
// that is exactly what computing it from the base would give; otherwise
// computed from the base as CometBFT does. Caller holds d.mu.
func (d *valsetsDB) advance(base int64, baseRaw []byte, height int64) (*cmttypes.ValidatorSet, bool) {
	if l := d.last; l != nil && l.base == base && l.height <= height && bytes.Equal(l.baseRaw, baseRaw) {
		if l.height == height {
			return l.set, true
		}
		if incrementIsPlain(l.set) {
			set := l.set.Copy()
			set.IncrementProposerPriority(int32(height - l.height))
			d.last = &advancedSet{base: base, baseRaw: l.baseRaw, height: height, set: set}
			return set, true
		}
	}
	var stored cmtstate.ValidatorsInfo
	if stored.Unmarshal(baseRaw) != nil || stored.ValidatorSet == nil {
		return nil, false
	}
	set, err := cmttypes.ValidatorSetFromProto(stored.ValidatorSet)
	if err != nil || height-base > 1<<31-1 {
		return nil, false
	}
	set.IncrementProposerPriority(int32(height - base))
	d.last = &advancedSet{base: base, baseRaw: bytes.Clone(baseRaw), height: height, set: set}
	return set, true
}

// incrementIsPlain tells whether IncrementProposerPriority(k) on set only
// makes its k increments: its rescale leaves priorities within twice the
// total power alone, and its shift by their average (big.Int's Euclidean
// division) moves nothing when the sum is in [0, n). Then n increments on
// top of m give what m+n from the base gives.
func incrementIsPlain(set *cmttypes.ValidatorSet) bool {
	lo, hi := set.Validators[0].ProposerPriority, set.Validators[0].ProposerPriority
	sum := new(big.Int)
	for _, v := range set.Validators {
		lo, hi = min(lo, v.ProposerPriority), max(hi, v.ProposerPriority)
		sum.Add(sum, big.NewInt(v.ProposerPriority))
	}
	diff := new(big.Int).Sub(big.NewInt(hi), big.NewInt(lo))
	diffMax := new(big.Int).Mul(big.NewInt(cmttypes.PriorityWindowSizeFactor), big.NewInt(set.TotalVotingPower()))
	return diff.Cmp(diffMax) <= 0 && sum.Sign() >= 0 && sum.Cmp(big.NewInt(int64(len(set.Validators)))) < 0
}
