package isolation

// SetRowFormat makes the history log (Config.Log) carry the row image of
// every committed write to table id, rendered by f as a JSON object, so
// that a report can show the values a stale read saw and the ones it
// missed. f must be a pure function of the row; it runs under the store's
// lock.
func (s *Store) SetRowFormat(id TableID, f func(row []any) string) error {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	tb, err := s.e.table(id)
	if err != nil {
		return err
	}
	tb.formatRow = f
	return nil
}
