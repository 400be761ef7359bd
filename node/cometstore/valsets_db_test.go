package cometstore

import (
	"bytes"
	"math/rand"
	"testing"

	dbm "github.com/cometbft/cometbft-db"
	"github.com/cometbft/cometbft/crypto/ed25519"
	cmtstate "github.com/cometbft/cometbft/proto/tendermint/state"
	sm "github.com/cometbft/cometbft/state"
	cmttypes "github.com/cometbft/cometbft/types"
)

// valsetPair is the same CometBFT state data in two stores, one reading
// through valsetsDB.
type valsetPair struct {
	plain, filled sm.Store
	filledDB      *valsetsDB
	plainDB       dbm.DB
}

func newValsetPair() *valsetPair {
	plainDB, filledDB := dbm.NewMemDB(), &valsetsDB{DB: dbm.NewMemDB()}
	return &valsetPair{plain: sm.NewStore(plainDB, sm.StoreOptions{}), filled: sm.NewStore(filledDB, sm.StoreOptions{}),
		filledDB: filledDB, plainDB: plainDB}
}

// save writes height's validators record as CometBFT's Save does after block
// height-2: the whole set where height == changed or at a checkpoint, else a
// pointer back to changed.
func (p *valsetPair) save(t *testing.T, height, changed int64, set *cmttypes.ValidatorSet) {
	t.Helper()
	st := sm.State{ChainID: "t", InitialHeight: 1, LastBlockHeight: height - 2,
		Validators: set, NextValidators: set, LastValidators: set, LastHeightValidatorsChanged: changed,
		ConsensusParams: *cmttypes.DefaultConsensusParams(), LastHeightConsensusParamsChanged: 1}
	for _, s := range []sm.Store{p.plain, p.filled} {
		if err := s.Save(st); err != nil {
			t.Fatal(err)
		}
	}
}

// same loads height from both stores and requires the same answer: the
// set's bytes with every priority and the proposer, or both failing.
func (p *valsetPair) same(t *testing.T, height int64) {
	t.Helper()
	want, werr := p.plain.LoadValidators(height)
	got, gerr := p.filled.LoadValidators(height)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("height %d: error %v, CometBFT's %v", height, gerr, werr)
	}
	if werr != nil {
		return
	}
	if w, g := setBytes(t, want), setBytes(t, got); !bytes.Equal(w, g) {
		t.Fatalf("height %d: set differs from CometBFT's\n got %v\nwant %v", height, got, want)
	}
}

func setBytes(t *testing.T, s *cmttypes.ValidatorSet) []byte {
	t.Helper()
	pb, err := s.ToProto()
	if err != nil {
		t.Fatal(err)
	}
	b, err := pb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func validatorSet(powers []int64, priorities []int64) *cmttypes.ValidatorSet {
	vals := make([]*cmttypes.Validator, len(powers))
	for i, p := range powers {
		vals[i] = cmttypes.NewValidator(ed25519.GenPrivKey().PubKey(), p)
	}
	set := cmttypes.NewValidatorSet(vals)
	for i, v := range set.Validators {
		if i < len(priorities) {
			v.ProposerPriority = priorities[i]
		}
	}
	return set
}

// TestValsetsMatchCometBFT: every validator set read through valsetsDB is
// the one CometBFT's LoadValidators computes from the stored records, for
// one validator and several of unequal power, heights read in order, at
// random and again, across a set change, a rewritten base record (a
// rewind) and a checkpoint.
func TestValsetsMatchCometBFT(t *testing.T) {
	cases := []struct {
		name       string
		powers     []int64
		priorities []int64
	}{
		{"one validator", []int64{10}, nil},
		{"unequal powers", []int64{1, 10, 100, 1000}, nil},
		// a spread over twice the total power: CometBFT rescales it first
		{"wide priorities", []int64{3, 5, 7}, []int64{1 << 40, -(1 << 40), 12345}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newValsetPair()
			first := validatorSet(c.powers, c.priorities)
			second := validatorSet(append([]int64{42}, c.powers...), nil)
			p.save(t, 2, 2, first)
			for h := int64(3); h < 1500; h++ {
				p.save(t, h, 2, first)
			}
			p.save(t, 1500, 1500, second)
			for h := int64(1501); h <= 2500; h++ {
				p.save(t, h, 1500, second)
			}
			for h := int64(2); h <= 2501; h++ { // 2501 has no record: both fail
				p.same(t, h)
			}
			rng := rand.New(rand.NewSource(1))
			for range 300 {
				p.same(t, 2+rng.Int63n(2500))
			}
			// The set CometBFT would compute now fills the record as read.
			var info cmtstate.ValidatorsInfo
			raw, _ := p.filledDB.Get([]byte("validatorsKey:2000"))
			if err := info.Unmarshal(raw); err != nil || info.ValidatorSet == nil {
				t.Fatalf("record of height 2000 read through valsetsDB: set %v, err %v", info.ValidatorSet, err)
			}
			var stored cmtstate.ValidatorsInfo
			raw, _ = p.plainDB.Get([]byte("validatorsKey:2000"))
			if err := stored.Unmarshal(raw); err != nil || stored.ValidatorSet != nil {
				t.Fatalf("stored record of height 2000 holds a set (%v) or is unreadable (%v)", stored.ValidatorSet, err)
			}

			// A rewind rewrites the base record with another set: the set
			// last computed (height 2500) is of the old one.
			p.same(t, 2500)
			p.save(t, 1500, 1500, validatorSet(c.powers, nil))
			p.same(t, 2500)
			for h := int64(1500); h <= 2500; h += 7 {
				p.same(t, h)
			}
		})
	}
}

// TestValsetsAcrossCheckpoint: past a checkpoint height (100,000) the set
// is brought forward from the checkpoint's record, as CometBFT does.
func TestValsetsAcrossCheckpoint(t *testing.T) {
	p := newValsetPair()
	set := validatorSet([]int64{1, 10, 100}, nil)
	p.save(t, 2, 2, set)
	for h := int64(99_990); h <= 100_020; h++ {
		cp := set.Copy()
		cp.IncrementProposerPriority(int32(1 + h%97)) // a checkpoint's own priorities, not the base's advanced
		p.save(t, h, 2, cp)
	}
	for h := int64(99_990); h <= 100_020; h++ {
		p.same(t, h)
	}
}

// TestIncrementIsPlain: a set computed from a base, moved on where
// incrementIsPlain allows it, is the set computed from the base in one go
// (random powers, priorities and distances; the wide ones rescale first).
func TestIncrementIsPlain(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	plain := 0
	for i := range 2000 {
		n := 1 + rng.Intn(6)
		powers, priorities := make([]int64, n), make([]int64, n)
		for j := range n {
			powers[j] = 1 + rng.Int63n(1000)
			priorities[j] = rng.Int63n(1<<(8+i%40)) - 1<<(7+i%40)
		}
		base := validatorSet(powers, priorities)
		m, k := int32(1+rng.Intn(50)), int32(1+rng.Intn(50))
		whole := base.Copy()
		whole.IncrementProposerPriority(m + k)
		moved := base.Copy()
		moved.IncrementProposerPriority(m)
		if !incrementIsPlain(moved) {
			continue
		}
		plain++
		moved.IncrementProposerPriority(k)
		if !bytes.Equal(setBytes(t, moved), setBytes(t, whole)) {
			t.Fatalf("case %d: %d then %d increments differ from %d\n got %v\nwant %v", i, m, k, m+k, moved, whole)
		}
	}
	if plain < 1000 {
		t.Fatalf("only %d of 2000 sets moved on", plain)
	}
	if incrementIsPlain(validatorSet([]int64{1, 2, 3}, []int64{7, 0, 0})) {
		t.Fatal("a set whose average priority is not 0 moved on")
	}
	if incrementIsPlain(validatorSet([]int64{1, 2, 3}, []int64{13, 0, -13})) {
		t.Fatal("a set spread over twice its power moved on")
	}
}
