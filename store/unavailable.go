package store

import "fmt"

// StateUnavailableError is the answer for a height whose state this node
// does not hold: pruned (full mode) or before the snapshot it was
// state-synced from. Oldest is the first height whose state it has.
type StateUnavailableError struct {
	Height, Oldest uint64
}

func (e *StateUnavailableError) Error() string {
	return fmt.Sprintf("state of block %d is not available on this node: the oldest available is block %d", e.Height, e.Oldest)
}
