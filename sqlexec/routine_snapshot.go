package sqlexec

// A statement does not see its own writes, and neither do the STABLE and
// IMMUTABLE functions it calls: they read with the calling statement's
// snapshot. A VOLATILE function's statements each take a new snapshot,
// which includes what the calling statement wrote so far. fickle's store
// answers a read with the transaction's own last write, so each statement
// notes where the transaction's writes stood when it began
// (execCtx.stmtMark, isolation.Txn.WriteMark), and the reads of a
// non-volatile routine hide the own writes made after that mark
// (isolation.ReadOptions.AsOf).

// routineCtx is the context routine f runs in when called from x: a STABLE
// or IMMUTABLE one reads as of the calling statement's start.
func (x *execCtx) routineCtx(f *funcDesc) *execCtx {
	if f.volatility == 'v' || x.stmtMark == 0 {
		return x
	}
	c := *x
	c.asOf = x.stmtMark
	if x.withSnapshot != nil {
		c.asOf = x.withSnapshot.mark // the statement's start, before its WITH queries' writes
	}
	return &c
}

// beginRoutineStatement sets the snapshot of a statement of a routine body
// called from caller: inside a non-volatile routine, the calling
// statement's; inside a volatile one, the writes so far.
func (x *execCtx) beginRoutineStatement(caller *execCtx) {
	x.asOf = caller.asOf
	x.withSnapshot = caller.withSnapshot
	if x.asOf != 0 {
		x.stmtMark = x.asOf
		return
	}
	x.stmtMark = x.txn.WriteMark()
	if s := x.withSnapshot; s != nil && !s.refused {
		// PostgreSQL runs a data-modifying WITH query when the statement
		// first reads it, or at its end: whether a volatile function's new
		// snapshot sees its writes depends on where the call falls.
		x.withSnapshot = &withSnapshot{tables: s.tables, refused: true, ran: s.ran, top: s.top}
	}
}
