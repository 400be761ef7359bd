package store

import "fmt"

// Rollback makes block h the head so that the blocks above it are
// executed again (`emberd rollback`, after an AppHash mismatch): Rewind,
// once h's state is known to be held (pruning may have removed it).
func (s *Store) Rollback(h uint64) error {
	head := s.Head()
	if head == nil || h >= head.Number.Uint64() {
		return nil
	}
	if _, err := s.ExportableState(h); err != nil {
		return fmt.Errorf("cannot roll back to block %d: %w", h, err)
	}
	return s.Rewind(h)
}
