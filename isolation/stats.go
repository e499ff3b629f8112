package isolation

// Stats counts what a store keeps (docs/memory.md): for tests, benchmarks
// and anyone wondering where the memory goes.
type Stats struct {
	// OpenSessions are the sessions not closed.
	OpenSessions int
	// Pending are the transactions in progress.
	Pending int
	// Placed are the transactions after the staleness horizon in co, and
	// Kept the entries they keep (MaxKept's measure).
	Placed, Kept int
	// DirtyKeys are the keys with more than one version.
	DirtyKeys int
	// Collections counts the moves of the horizon so far.
	Collections int
}

// Stats returns the store's counts.
func (s *Store) Stats() Stats {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	placed := e.co.n - 1
	if e.horizon != nil {
		placed--
	}
	return Stats{OpenSessions: len(e.open), Pending: len(e.active), Placed: placed, Kept: e.kept,
		DirtyKeys: len(e.dirty), Collections: e.collections}
}
