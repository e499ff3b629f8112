package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// Rows changed by an operation a statement triggered. PostgreSQL refuses
// (27000) to update or delete a row that a later command of the
// transaction, run by a trigger or function of the statement itself, has
// changed since the statement read it: applying the statement's change on
// top of the triggered one, or dropping it, would both lose a write; INSERT
// ... ON CONFLICT DO UPDATE refuses (21000) to update a row such a command
// inserted or updated, as one the statement itself wrote. The session
// remembers the rows that statements run inside routines insert, update or
// delete, and UPDATE, DELETE, MERGE and ON CONFLICT DO UPDATE check each
// row they are about to write against the changes made since they began at
// a deeper routine level.

// rowRef names a stored row: its table and store key.
type rowRef struct {
	table isolation.TableID
	key   string
}

// routineWrite is the last change a statement inside a routine made to a
// row: the session's write count after it and the routine depth it ran at.
type routineWrite struct {
	seq   uint64
	depth int
}

// modifyGuard is what an UPDATE or DELETE knows of its own start to tell
// the changes its triggers made from its own: the session's write count
// and routine depth when it began.
type modifyGuard struct {
	start uint64
	depth int
}

// noteWrite records that the statement running inserted, updated or
// deleted the row key of table. Only a change made deeper in routines than the outermost
// UPDATE or DELETE running can come from an operation one of them
// triggered, so only those are kept.
func (s *Session) noteWrite(table isolation.TableID, key []byte) {
	s.writeCount++
	if s.modifying == 0 || s.routineDepth <= s.outerModifyDepth {
		return
	}
	if s.routineWrites == nil {
		s.routineWrites = map[rowRef]routineWrite{}
	}
	s.routineWrites[rowRef{table, string(key)}] = routineWrite{seq: s.writeCount, depth: s.routineDepth}
}

// startModify begins an UPDATE or DELETE, which calls endModify when it
// ends.
func (s *Session) startModify() modifyGuard {
	if s.modifying == 0 {
		s.outerModifyDepth = s.routineDepth
	}
	s.modifying++
	return modifyGuard{start: s.writeCount, depth: s.routineDepth}
}

// endModify ends an UPDATE or DELETE; once none is running, the changes
// kept for them are forgotten.
func (s *Session) endModify() {
	s.modifying--
	if s.modifying == 0 {
		s.routineWrites = nil
	}
}

// check fails with 27000 when a routine the statement started has updated
// or deleted the row key of table since the statement began. verb is the
// statement's ("updated" or "deleted"); PostgreSQL says "updated" when it
// finds the change while locking the row for a BEFORE trigger.
func (g modifyGuard) check(s *Session, table isolation.TableID, key []byte, verb string) error {
	if !g.changed(s, table, key) {
		return nil
	}
	return pgerror.Newf(pgerror.TriggeredDataChangeViolation, "tuple to be %s was already modified by an operation triggered by the current command", verb).
		WithHint("Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.")
}

// changed reports whether a routine the statement started has written the
// row key of table since the statement began.
func (g modifyGuard) changed(s *Session, table isolation.TableID, key []byte) bool {
	w, ok := s.routineWrites[rowRef{table, string(key)}]
	return ok && w.seq > g.start && w.depth > g.depth
}
