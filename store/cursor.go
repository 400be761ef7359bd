package store

import (
	"bytes"

	"github.com/ethereum/go-ethereum/ethdb"
)

// A cursor walks a sorted set of log positions.
type cursor interface {
	// seek returns the smallest position >= p, or false when there is none.
	seek(p logPos) (logPos, bool)
	release()
}

// keyCursor walks the positions stored as suffixes of keys under a prefix,
// up to a last position. Seeking a little ahead steps the iterator; seeking
// far ahead reopens it at the target, so sparse intersections stay cheap.
type keyCursor struct {
	s      *Store
	prefix []byte
	last   logPos
	it     ethdb.Iterator
	cur    logPos
	valid  bool
	done   bool
}

func (s *Store) newKeyCursor(prefix []byte, last logPos) *keyCursor {
	return &keyCursor{s: s, prefix: prefix, last: last}
}

// maxSteps is how many keys a seek steps over before reopening the iterator.
const maxSteps = 8

func (c *keyCursor) seek(p logPos) (logPos, bool) {
	if c.done {
		return logPos{}, false
	}
	if c.valid && bytes.Compare(c.cur[:], p[:]) >= 0 {
		return c.cur, true
	}
	if c.it != nil {
		for i := 0; i < maxSteps && c.step(); i++ {
			if bytes.Compare(c.cur[:], p[:]) >= 0 {
				return c.cur, true
			}
		}
		if c.done {
			return logPos{}, false
		}
		c.it.Release()
	}
	c.it = c.s.db.NewIterator(c.prefix, p[:])
	if !c.step() {
		return logPos{}, false
	}
	return c.cur, true
}

// step moves to the next key, marking the cursor done past the last position.
func (c *keyCursor) step() bool {
	if !c.it.Next() {
		c.valid, c.done = false, true
		return false
	}
	key := c.it.Key()
	if len(key) != len(c.prefix)+posLen {
		// Not a position key of this index: nothing more to walk.
		c.valid, c.done = false, true
		return false
	}
	copy(c.cur[:], key[len(c.prefix):])
	if bytes.Compare(c.cur[:], c.last[:]) > 0 {
		c.valid, c.done = false, true
		return false
	}
	c.valid = true
	return true
}

// stepTo moves an open cursor forward to p by at most maxSteps keys,
// reporting whether it landed exactly on p. It never reopens the iterator.
func (c *keyCursor) stepTo(p logPos) bool {
	if c.it == nil || c.done {
		return false
	}
	for i := 0; ; i++ {
		if c.valid {
			switch cmp := bytes.Compare(c.cur[:], p[:]); {
			case cmp == 0:
				return true
			case cmp > 0:
				return false
			}
		}
		if i == maxSteps || !c.step() {
			return false
		}
	}
}

// value is the value of the key at the cursor; valid until it moves.
func (c *keyCursor) value() []byte { return c.it.Value() }

func (c *keyCursor) release() {
	if c.it != nil {
		c.it.Release()
		c.it = nil
	}
}

// union is the positions of any of its cursors.
type union []cursor

func (u union) seek(p logPos) (logPos, bool) {
	var (
		best  logPos
		found bool
	)
	for _, c := range u {
		if q, ok := c.seek(p); ok && (!found || bytes.Compare(q[:], best[:]) < 0) {
			best, found = q, true
		}
	}
	return best, found
}

func (u union) release() {
	for _, c := range u {
		c.release()
	}
}

// intersect calls emit for every position present in all dims, from start
// on, in order (a leapfrog join: each cursor jumps to the largest position
// any other has reached).
func intersect(dims []cursor, start logPos, emit func(logPos) error) error {
	p := start
	for {
		agreed := 0
		for agreed < len(dims) {
			for _, d := range dims {
				q, ok := d.seek(p)
				if !ok {
					return nil
				}
				if q != p {
					p, agreed = q, 0
					continue
				}
				agreed++
			}
		}
		if err := emit(p); err != nil {
			return err
		}
		var ok bool
		if p, ok = p.next(); !ok {
			return nil
		}
	}
}
