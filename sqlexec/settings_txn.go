package sqlexec

// Settings follow PostgreSQL's rules at the end of a transaction
// (guc.c's AtEOXact_GUC): a transaction that rolls back undoes every SET
// it ran, ROLLBACK TO SAVEPOINT undoes those run since the savepoint, and a
// commit keeps plain SETs while SET LOCAL's values end with the
// transaction either way.

// savedSetting is a setting's state before a transaction level changed it.
type savedSetting struct {
	val        string
	session    string
	hasSession bool
}

// beginTxn opens the transaction level.
func (s *settings) beginTxn() { s.levels = []map[string]savedSetting{nil} }

// save records setting lk's state in the innermost level, the first time
// that level changes it.
func (s *settings) save(lk string) {
	if len(s.levels) == 0 {
		return
	}
	top := &s.levels[len(s.levels)-1]
	if _, ok := (*top)[lk]; ok {
		return
	}
	if *top == nil {
		*top = make(map[string]savedSetting)
	}
	sess, has := s.session[lk]
	(*top)[lk] = savedSetting{val: s.vals[lk], session: sess, hasSession: has}
}

// savepoint opens a level for a savepoint.
func (s *settings) savepoint() {
	if len(s.levels) > 0 {
		s.levels = append(s.levels, nil)
	}
}

// release folds the levels from depth (a savepoint's, 1 for the first)
// into the one below: their changes now belong to it.
func (s *settings) release(depth int) {
	if depth <= 0 || depth >= len(s.levels) {
		return
	}
	below := s.levels[depth-1]
	for _, lvl := range s.levels[depth:] {
		for k, v := range lvl {
			if _, ok := below[k]; !ok {
				if below == nil {
					below = make(map[string]savedSetting)
				}
				below[k] = v
			}
		}
	}
	s.levels[depth-1] = below
	s.levels = s.levels[:depth]
}

// rollbackTo undoes the changes of the levels from depth up and keeps
// level depth open (the savepoint stays).
func (s *settings) rollbackTo(depth int) {
	if depth <= 0 || depth >= len(s.levels) {
		return
	}
	for i := len(s.levels) - 1; i >= depth; i-- {
		s.restore(s.levels[i])
	}
	s.levels = s.levels[:depth+1]
	s.levels[depth] = nil
}

func (s *settings) restore(lvl map[string]savedSetting) {
	for k, v := range lvl {
		s.assign(k, v.val)
		if v.hasSession {
			s.session[k] = v.session
		} else {
			delete(s.session, k)
		}
	}
}

// endTxn ends the transaction: a rollback undoes every change, a commit
// keeps the plain SETs; SET LOCAL's values end either way.
func (s *settings) endTxn(committed bool) {
	if !committed {
		for i := len(s.levels) - 1; i >= 0; i-- {
			s.restore(s.levels[i])
		}
	}
	for k, v := range s.session {
		s.assign(k, v)
	}
	s.session, s.levels = nil, nil
}
