package sqlexec

import (
	"fmt"
	"slices"
	"sort"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/cursorpos"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// SQL cursors (DECLARE, FETCH, MOVE, CLOSE). A cursor runs its query when
// it is declared and keeps the rows: the query reads at the cursor's
// snapshot, as PostgreSQL's does, and its reads are recorded as the
// DECLARE statement's. FETCH and MOVE then walk the rows in either
// direction. A cursor without HOLD ends with its transaction; one WITH
// HOLD outlives the commit of the transaction that declared it (and ends
// with its rollback), as in PostgreSQL. The server describes a cursor as a
// portal of that name (Session.CursorColumns).
//
// PostgreSQL computes a row when it is fetched, so the rows of a query
// that calls VOLATILE functions (which see the transaction's later
// writes and change sequences) or locks rows (skipping those the
// transaction changed since) depend on what ran in between; and the
// commit of such a cursor WITH HOLD computes all its rows again. fickle
// gives the rows it computed at DECLARE only where nothing can have
// changed them: it refuses to read such a cursor after other statements
// of the session, to read a row of it again, and to read one WITH HOLD
// after a commit that followed other statements. A cursor that only locks
// rows is read after other statements too: it leaves out the rows the
// transaction updated or deleted since, as PostgreSQL's row locks skip
// them (skipWritten).
//
// Each row of a cursor keeps where it came from, for UPDATE and DELETE
// ... WHERE CURRENT OF (current_of.go).

// The DECLARE options fickle reads (PostgreSQL's CURSOR_OPT_* bits).
const (
	cursorBinary   = 0x0001
	cursorScroll   = 0x0002
	cursorNoScroll = 0x0004
	cursorHold     = 0x0020
)

// unknownStatement is the statement number of a FETCH or MOVE that a
// PL/pgSQL function runs: other statements may have run since the
// cursor's last read in the same SQL statement.
const unknownStatement uint64 = 0

// cursor is a declared cursor. pos is its position: 0 before the first
// row, i on row i (from 1), len(rows)+1 after the last.
type cursor struct {
	name    string
	sql     string
	outs    []outCol
	cols    []Column
	rows    [][]any
	at      time.Time
	pos     int
	hold    bool
	scroll  bool
	created int // the session's cursor count when declared (savepoints)
	// lazy marks a query PostgreSQL computes row by row as it is fetched:
	// one that calls VOLATILE functions or locks rows; locksOnly one that
	// locks rows and calls no VOLATILE function.
	lazy, locksOnly bool
	// limited marks a query with LIMIT or OFFSET; checked is the
	// transaction's write mark when skipWritten last looked at its writes.
	limited bool
	checked isolation.WriteMark
	// declared and read are the session's statement numbers of the
	// DECLARE and of the cursor's last FETCH or MOVE (or its DECLARE).
	declared, read uint64
	// reached is the furthest position a FETCH or MOVE has read.
	reached int
	// stale marks a lazy cursor WITH HOLD whose commit followed other
	// statements: PostgreSQL computed its rows again then.
	stale bool
	// shape, positions (one for each row) and mark serve WHERE CURRENT
	// OF (current_of.go): the query's shape, where each row came from, and
	// the transaction's writes when the rows were read. held marks a
	// cursor WITH HOLD whose transaction committed.
	shape     *cursorShape
	positions []*cursorRowPos
	mark      isolation.WriteMark
	held      bool
	// failed is the data exception (class 22, a division by zero) the
	// query raised when fickle ran it at DECLARE: PostgreSQL runs the
	// query when the cursor is read, so its first FETCH or MOVE raises it
	// and leaves the cursor dead, which every later one reports.
	failed error
	dead   bool
}

// declarePlan compiles DECLARE name CURSOR [WITH HOLD] FOR query.
func (b *binder) declarePlan(dc *pg_query.DeclareCursorStmt, sql string) (*stmtPlan, error) {
	sel, err := declaredQuery(dc)
	if err != nil {
		return nil, err
	}
	hold := dc.Options&cursorHold != 0
	scroll := dc.Options&cursorScroll != 0 || dc.Options&cursorNoScroll == 0 && scrollsByDefault(sel)
	volatile := b.pgVolatileCalls
	b.declaring, b.cursorShape = sel, nil
	q, err := b.selectStatement(sel)
	b.declaring = nil
	if err != nil {
		return nil, err
	}
	shape := b.cursorShape
	if shape == nil {
		// VALUES, or a set operation: no scan on top, but UNION ALL's
		// Append of its branches.
		shape = &cursorShape{notScan: sel.Op != pg_query.SetOperation_SETOP_UNION || !sel.All}
	}
	outs := q.cols
	if shape.positions {
		outs = outs[:len(outs)-1]
	}
	lazy := b.pgVolatileCalls != volatile || len(sel.LockingClause) > 0
	locksOnly := b.pgVolatileCalls == volatile && len(sel.LockingClause) > 0
	limited := sel.LimitCount != nil || sel.LimitOffset != nil
	name := dc.Portalname
	return &stmtPlan{writes: q.writes, table: q.table, predicate: q.predicate, exec: func(x *execCtx) (*Result, error) {
		s := x.s
		if !hold && !s.txn.explicit {
			return nil, pgerror.New(pgerror.NoActiveSqlTransaction, "DECLARE CURSOR can only be used in transaction blocks")
		}
		if _, ok := s.cursors[name]; ok {
			return nil, pgerror.Newf(pgerror.DuplicateCursor, "cursor \"%s\" already exists", name)
		}
		mark := x.txn.WriteMark()
		res, err := q.exec(x)
		var failed error
		if err != nil {
			// A cursor WITH HOLD is run at its transaction's commit.
			if hold || pgerror.GetCode(err).Class() != "22" {
				return nil, err
			}
			failed, res = err, &Result{}
		}
		var positions []*cursorRowPos
		if shape.positions {
			res, positions = withoutPositions(res)
		}
		if s.cursors == nil {
			s.cursors = map[string]*cursor{}
		}
		s.cursorCount++
		s.cursors[name] = &cursor{name: name, sql: sql, outs: outs, cols: columnsOf(outs), rows: res.Rows, hold: hold, at: time.Now().UTC().Truncate(time.Microsecond),
			scroll: scroll, created: s.cursorCount, lazy: lazy, locksOnly: locksOnly, declared: s.statements, read: s.statements,
			shape: shape, positions: positions, mark: mark, checked: mark, limited: limited, failed: failed}
		return &Result{Tag: "DECLARE CURSOR"}, nil
	}}, nil
}

// declaredQuery returns the query of DECLARE dc, with PostgreSQL's errors
// for options it does not allow with it.
func declaredQuery(dc *pg_query.DeclareCursorStmt) (*pg_query.SelectStmt, error) {
	if dc.Options&cursorBinary != 0 {
		return nil, pgerror.Unsupported("DECLARE BINARY CURSOR")
	}
	sel := dc.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerror.New(pgerror.SyntaxError, "DECLARE CURSOR must be a SELECT or VALUES")
	}
	if len(sel.LockingClause) > 0 {
		strength := lockStrengthWords(sel.LockingClause[0].GetLockingClause())
		if dc.Options&cursorScroll != 0 {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "DECLARE SCROLL CURSOR ... %s is not supported", strength).
				WithDetail("Scrollable cursors must be READ ONLY.")
		}
		if dc.Options&cursorHold != 0 {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "DECLARE CURSOR WITH HOLD ... %s is not supported", strength).
				WithDetail("Holdable cursors must be READ ONLY.")
		}
	}
	return sel, nil
}

// lockStrengthWords names a locking clause as PostgreSQL's messages do.
func lockStrengthWords(lc *pg_query.LockingClause) string {
	switch lc.GetStrength() {
	case pg_query.LockClauseStrength_LCS_FORKEYSHARE:
		return "FOR KEY SHARE"
	case pg_query.LockClauseStrength_LCS_FORSHARE:
		return "FOR SHARE"
	case pg_query.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return "FOR NO KEY UPDATE"
	}
	return "FOR UPDATE"
}

// scrollsByDefault reports whether a cursor declared without SCROLL or NO
// SCROLL may move backwards. PostgreSQL decides by the plan: never with
// a locking clause, and only when every node of the plan can run
// backwards. fickle keeps a cursor's rows and could always scroll, so it
// refuses where the plan certainly cannot: a query without FROM (a Result
// node) and, without ORDER BY (whose Sort could), the nodes of DISTINCT,
// GROUP BY, UNION, INTERSECT and EXCEPT, and UNION ALL of such queries.
func scrollsByDefault(sel *pg_query.SelectStmt) bool {
	if len(sel.LockingClause) > 0 {
		return false
	}
	if len(sel.SortClause) > 0 && (sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.FromClause) > 0) {
		return true
	}
	switch sel.Op {
	case pg_query.SetOperation_SETOP_NONE:
		return len(sel.FromClause) > 0 && len(sel.DistinctClause) == 0 && len(sel.GroupClause) == 0 && sel.HavingClause == nil ||
			len(sel.ValuesLists) > 0
	case pg_query.SetOperation_SETOP_UNION:
		return sel.All && scrollsByDefault(sel.Larg) && scrollsByDefault(sel.Rarg)
	}
	return false
}

// fetchPlan compiles FETCH and MOVE. The rows are described by the cursor
// as it is when the statement is prepared; the plan is not cached, since
// the next cursor of that name may have other columns.
func (b *binder) fetchPlan(fs *pg_query.FetchStmt) (*stmtPlan, error) {
	p := &stmtPlan{noTxn: true, noCache: true}
	if c := b.s.cursors[fs.Portalname]; c != nil && !fs.Ismove {
		p.cols = c.outs
	}
	p.exec = func(x *execCtx) (*Result, error) {
		c := x.s.cursors[fs.Portalname]
		if c == nil {
			return nil, pgerror.Newf(pgerror.InvalidCursorName, "cursor \"%s\" does not exist", fs.Portalname)
		}
		op := cursorOpOf(fs)
		if !fs.Ismove && !c.scroll && op.Count == 0 && op.Direction != cursorpos.Absolute && c.pos > 0 && c.pos <= len(c.rows) {
			// PostgreSQL re-reads the current row by stepping back onto it;
			// MOVE 0 only reports whether there is one.
			return nil, pgerror.New(pgerror.ObjectNotInPrerequisiteState, "cursor can only scan forward").
				WithHint("Declare it with SCROLL option to enable backward scan.")
		}
		// MOVE RELATIVE 0 only reports whether the cursor is on a row.
		reads := !fs.Ismove || op.Direction != cursorpos.Relative || op.Count != 0
		var txn *isolation.Txn // FETCH runs outside the statement machinery: the transaction's store side, if it has one
		if x.s.txn != nil {
			txn = x.s.txn.kv
		}
		rows, moved, err := c.fetch(op.Direction, op.Count, x.s.statements, reads, txn)
		if err != nil {
			return nil, err
		}
		if fs.Ismove {
			return &Result{Tag: fmt.Sprintf("MOVE %d", moved)}, nil
		}
		return &Result{Columns: c.cols, Rows: rows, Tag: fmt.Sprintf("FETCH %d", len(rows))}, nil
	}
	return p, nil
}

// CursorOp is a FETCH, MOVE or CLOSE statement: cursors and the
// protocol's portals share one namespace, so the server runs it itself on
// a portal of that name (Statement.CursorOp).
type CursorOp struct {
	// Name is the cursor's name; "" with Close for CLOSE ALL.
	Name string
	// Close is CLOSE; otherwise the statement is FETCH, or MOVE with Move.
	Close     bool
	Move      bool
	Direction cursorpos.Direction
	Count     int64
}

// CursorOp reports whether the statement is FETCH, MOVE or CLOSE, and
// returns what it asks for.
func (st *Statement) CursorOp() (CursorOp, bool) {
	switch v := st.node.Node.(type) {
	case *pg_query.Node_FetchStmt:
		return cursorOpOf(v.FetchStmt), true
	case *pg_query.Node_ClosePortalStmt:
		return CursorOp{Name: v.ClosePortalStmt.Portalname, Close: true}, true
	}
	return CursorOp{}, false
}

func cursorOpOf(fs *pg_query.FetchStmt) CursorOp {
	dir := map[pg_query.FetchDirection]cursorpos.Direction{pg_query.FetchDirection_FETCH_BACKWARD: cursorpos.Backward,
		pg_query.FetchDirection_FETCH_ABSOLUTE: cursorpos.Absolute, pg_query.FetchDirection_FETCH_RELATIVE: cursorpos.Relative}[fs.Direction]
	return CursorOp{Name: fs.Portalname, Move: fs.Ismove, Direction: dir, Count: fs.HowMany}
}

// closePlan compiles CLOSE name and CLOSE ALL.
func (b *binder) closePlan(cs *pg_query.ClosePortalStmt) *stmtPlan {
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		if cs.Portalname == "" {
			x.s.cursors = nil
			return &Result{Tag: "CLOSE CURSOR ALL"}, nil
		} else if _, ok := x.s.cursors[cs.Portalname]; !ok {
			return nil, pgerror.Newf(pgerror.InvalidCursorName, "cursor \"%s\" does not exist", cs.Portalname)
		} else {
			delete(x.s.cursors, cs.Portalname)
		}
		return &Result{Tag: "CLOSE CURSOR"}, nil
	}}
}

// fetch moves the cursor as FETCH direction count does, in the session's
// statement number stmt, and returns the rows it passes over (those of a
// FETCH) and how many it moved (MOVE's count). reads is false for a move
// PostgreSQL makes without computing rows. txn, when not nil, is the
// transaction, whose writes since the DECLARE a cursor that only locks
// rows may have to check (checkLazyRead).
func (c *cursor) fetch(dir cursorpos.Direction, count int64, stmt uint64, reads bool, txn *isolation.Txn) ([][]any, int, error) {
	if c.dead {
		return nil, 0, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "portal \"%s\" cannot be run", c.name)
	}
	if c.failed != nil && count != 0 {
		// Any move but to the start (ABSOLUTE 0) or onto the current
		// row (RELATIVE 0, FORWARD 0: none yet) runs the query.
		c.dead = true
		return nil, 0, c.failed
	}
	fresh := false // other statements ran, but the rows are still PostgreSQL's
	switch {
	case c.lazy && reads && !c.stale && stmt != unknownStatement && c.read != stmt-1:
		fresh = c.skipWritten(txn)
	case !c.lazy && c.locksOnly && reads && txn != nil && !c.skipWritten(txn):
		// A PL/pgSQL cursor's FETCH, which may follow any statement of
		// the body.
		return nil, 0, pgerror.Unsupported("FETCH, after the transaction updated or deleted one of its next rows, of a cursor whose query locks rows and has LIMIT or OFFSET").
			WithDetail("PostgreSQL skips the row and reads one past those fickle computed when the cursor was opened.")
	}
	idx, pos, err := cursorpos.Move(len(c.rows), c.pos, c.scroll, dir, count)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case c.lazy && reads:
		if err := c.checkLazyRead(idx, pos, stmt, fresh); err != nil {
			return nil, 0, err
		}
		c.read = stmt
	case c.lazy && c.read == stmt-1:
		c.read = stmt
	}
	if reads {
		c.reached = max(c.reached, min(pos, len(c.rows)))
	}
	c.pos = pos
	rows := make([][]any, len(idx))
	for i, r := range idx {
		rows[i] = c.rows[r]
	}
	return rows, len(rows), nil
}

// checkLazyRead refuses, for a lazy cursor, the move to pos reading the
// rows idx in statement stmt where PostgreSQL would compute rows other
// than those computed at DECLARE: after other statements (unless fresh:
// skipWritten made its rows PostgreSQL's), or again.
func (c *cursor) checkLazyRead(idx []int, pos int, stmt uint64, fresh bool) error {
	detail := "Its query calls volatile functions or locks rows: PostgreSQL computes each row when it is fetched, fickle computed them when the cursor was declared."
	if c.stale || stmt == unknownStatement || c.read != stmt-1 && !fresh {
		return pgerror.Unsupported("FETCH or MOVE, after other statements, of a cursor whose query calls volatile functions or locks rows").WithDetail("%s", detail)
	}
	if pos < c.reached || slices.ContainsFunc(idx, func(r int) bool { return r < c.reached }) {
		return pgerror.Unsupported("reading a row again from a cursor whose query calls volatile functions or locks rows").WithDetail("%s", detail)
	}
	return nil
}

// skipWritten makes the rows a cursor that locks rows and calls no
// volatile function has not yet read those PostgreSQL computes for it now,
// after other statements, and reports whether it could. Its scan reads at
// the DECLARE's snapshot, so the rows are those fickle computed, but its
// row locks skip a row whose locked rows the transaction itself updated or
// deleted since the DECLARE (TM_SelfModified), and no one else changed them
// (fickle holds their locks since): those rows go. A query with LIMIT or
// OFFSET would then read rows past those fickle computed: there any such
// write fails it. The transaction's writes are looked at only when it wrote
// since the last look (checked).
func (c *cursor) skipWritten(txn *isolation.Txn) bool {
	if !c.locksOnly || txn == nil || c.positions == nil || c.shape == nil {
		return false
	}
	now := txn.WriteMark()
	if now == c.checked {
		return true
	}
	keep := c.reached
	for r := c.reached; r < len(c.rows); r++ {
		if c.locksWritten(c.positions[r], txn) {
			if c.limited {
				return false
			}
			continue
		}
		c.rows[keep], c.positions[keep] = c.rows[r], c.positions[r]
		keep++
	}
	c.rows, c.positions, c.checked = c.rows[:keep], c.positions[:keep], now
	return true
}

// locksWritten reports whether the transaction wrote, since the cursor
// last looked, a row the cursor's row at p locks.
func (c *cursor) locksWritten(p *cursorRowPos, txn *isolation.Txn) bool {
	if p == nil {
		return true
	}
	for i, ci := range c.shape.items {
		if ci.locked && p.keys[i] != nil && txn.WroteSince(ci.tables[p.members[i]].id, p.keys[i], c.checked) {
			return true
		}
	}
	return false
}

// endCursors closes the cursors a transaction's end ends: on commit those
// without HOLD, on rollback also those it declared. A lazy cursor WITH
// HOLD that a commit keeps has its rows computed again by PostgreSQL: the
// same rows only if nothing ran since its DECLARE.
func (s *Session) endCursors(committed bool, since int) {
	for name, c := range s.cursors {
		if !c.hold || !committed && c.created > since {
			delete(s.cursors, name)
			continue
		}
		c.held = c.held || committed
		if committed && c.lazy && !c.stale {
			c.lazy, c.stale = s.statements != c.declared, s.statements != c.declared
		}
	}
}

// rollbackCursors closes the cursors declared since a savepoint.
func (s *Session) rollbackCursors(since int) {
	for name, c := range s.cursors {
		if c.created > since {
			delete(s.cursors, name)
		}
	}
}

// CursorColumns describes the rows of the cursor called name, as a
// Describe of the portal of that name does; false when there is none.
func (s *Session) CursorColumns(name string) ([]Column, bool) {
	c := s.cursors[name]
	if c == nil {
		return nil, false
	}
	return c.cols, true
}

// cursorRows lists the session's cursors for pg_cursors, by name.
func (s *Session) cursorRows() [][]any {
	names := make([]string, 0, len(s.cursors))
	for n := range s.cursors {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([][]any, 0, len(names))
	for _, n := range names {
		c := s.cursors[n]
		out = append(out, []any{c.name, c.sql, c.hold, false, c.scroll, c.at})
	}
	return out
}
