package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE locks the rows
// it returns, as PostgreSQL's LockRows node does: the query reads, joins,
// filters and sorts its rows first (the reads of locked tables are
// isolation.ReadOptions.ForLock reads), then each output row, in order,
// has the rows of its locked tables locked with isolation.Txn.LockRow. A
// row that SKIP LOCKED skips, or that a concurrent transaction deleted
// meanwhile, is left out; a row that changed is re-checked on its newest
// version (EvalPlanQual): the query's join and WHERE conditions are run
// again with every item fixed to the current row's, the locked ones at
// their new versions, and the output is computed from it, or the row is
// left out. OFFSET and LIMIT count only the rows that come through, so
// "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED" locks one row, the first
// one no one else holds, as job queues expect.

// rowMarks tracks, while a locking query joins its items, what its lock
// stage needs of the current joined row (by item index): the store key of
// each locked item's row, the member of an inheritance parent or
// partitioned table it lives in (keyedRow.member), and which items were
// null-extended.
type rowMarks struct {
	keys    [][]byte
	members []int
	nullExt []bool
}

// lockCandidate is a joined row of a locking query waiting for its locks.
type lockCandidate struct {
	full    []any // every item's columns, as execCtx.row holds them
	keys    [][]byte
	members []int
	nullExt []bool
}

// epqRows fixes every item of a query level to one row for an EvalPlanQual
// re-check (runItems reads them instead of the items' sources).
type epqRows struct {
	full    []any
	nullExt []bool
}

// lockStage is the LockRows step of one query level.
type lockStage struct {
	items []*fromItem
	outs  []*scalar
	width int
}

// start makes the row marks of one run of the query level.
func (ls *lockStage) start() *rowMarks {
	return &rowMarks{keys: make([][]byte, len(ls.items)), members: make([]int, len(ls.items)), nullExt: make([]bool, len(ls.items))}
}

// candidate copies the current joined row and its marks.
func (ls *lockStage) candidate(x *execCtx) lockCandidate {
	return lockCandidate{
		full:    append([]any(nil), x.row...),
		keys:    append([][]byte(nil), x.marks.keys...),
		members: append([]int(nil), x.marks.members...),
		nullExt: append([]bool(nil), x.marks.nullExt...),
	}
}

// apply locks the candidate rows in the order of rows (each row's last
// column is its candidate's index) and returns, after OFFSET and up to
// LIMIT, the output rows that came through, without that column.
func (ls *lockStage) apply(x *execCtx, rows [][]any, cands []lockCandidate, lim, off int64, hasLimit bool) ([][]any, error) {
	var out [][]any
	passed := int64(0)
	for _, r := range rows {
		if hasLimit && lim >= 0 && passed >= off+lim {
			break
		}
		if err := x.checkCancel(); err != nil {
			return nil, err
		}
		idx := len(r) - 1
		row, ok, err := ls.lock(x, cands[r[idx].(int)], r[:idx])
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if passed++; passed > off {
			out = append(out, row)
		}
	}
	return out, nil
}

// lock locks the rows of c's locked items and returns the output row, row
// itself when no locked row changed, else computed by the re-check; ok is
// false when the row is skipped, deleted or no longer matches. A row of an
// inheritance parent or partitioned table is locked in the member it lives
// in, as PostgreSQL locks it in the leaf partition.
func (ls *lockStage) lock(x *execCtx, c lockCandidate, row []any) ([]any, bool, error) {
	changed := false
	for i, it := range ls.items {
		if it.lock == isolation.RowLockNone {
			continue
		}
		t, m := it.table, (*inhMember)(nil)
		if c.members[i] > 0 {
			m = it.members[c.members[i]]
			t = m.t
		}
		got, err := x.txn.LockRow(x.ctx, t.id, c.keys[i], isolation.LockRequest{Mode: it.lock, Wait: it.wait})
		if err != nil {
			return nil, false, err
		}
		if got.Skipped || !got.Live {
			return nil, false, nil
		}
		if got.Key != nil {
			c.keys[i] = got.Key // a concurrent update moved the row to another primary key
		}
		if got.Changed {
			prow := got.Row
			if m != nil {
				prow = m.toParent(prow)
			}
			if it.versions {
				prow = withRowVersion(prow, got.Version)
			}
			copy(c.full[it.off:it.off+len(prow)], prow)
			changed = true
		}
	}
	if !changed {
		return row, true, nil
	}
	ex := *x
	// The marks keep the rows' keys, for a cursor's row positions.
	ex.row, ex.items, ex.marks = make([]any, ls.width), nil, &rowMarks{keys: c.keys, members: c.members, nullExt: slices.Clone(c.nullExt)}
	ex.epq = &epqRows{full: c.full, nullExt: c.nullExt}
	var out []any
	err := runItems(&ex, ls.items, 0, func() error {
		p, err := project(&ex, ls.outs)
		out = p
		if err != nil {
			return err
		}
		return errLimitReached
	})
	if err != nil && err != errLimitReached {
		return nil, false, err
	}
	if out == nil {
		return nil, false, nil
	}
	return append(out, row[len(out):]...), true, nil
}

// rowLockStrength is the strength of a locking clause.
func rowLockStrength(lc *pg_query.LockingClause) isolation.RowLock {
	switch lc.Strength {
	case pg_query.LockClauseStrength_LCS_FORKEYSHARE:
		return isolation.RowLockKeyShare
	case pg_query.LockClauseStrength_LCS_FORSHARE:
		return isolation.RowLockShare
	case pg_query.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return isolation.RowLockNoKeyUpdate
	}
	return isolation.RowLockUpdate
}

// checkLockingQuery refuses a locking clause on a query whose rows are not
// rows of tables, with PostgreSQL's words (CheckSelectLocking).
func checkLockingQuery(st *pg_query.SelectStmt, hasAgg, hasWindow bool) error {
	if len(st.LockingClause) == 0 {
		return nil
	}
	what := rowLockStrength(st.LockingClause[0].GetLockingClause()).String()
	var with string
	switch {
	case st.Op != pg_query.SetOperation_SETOP_NONE && st.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED:
		with = "UNION/INTERSECT/EXCEPT"
	case len(st.ValuesLists) > 0:
		return pgerror.Newf(pgerror.FeatureNotSupported, "%s cannot be applied to VALUES", what)
	case len(st.DistinctClause) > 0:
		with = "DISTINCT clause"
	case len(st.GroupClause) > 0:
		with = "GROUP BY clause"
	case st.HavingClause != nil:
		with = "HAVING clause"
	case hasAgg:
		with = "aggregate functions"
	case hasWindow:
		with = "window functions"
	default:
		return nil
	}
	return pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed with %s", what, with)
}

// joinNotLockable is PostgreSQL's error for a locking clause naming a join
// (by its alias or its USING alias).
func joinNotLockable(lock isolation.RowLock) *pgerror.Error {
	return pgerror.Newf(pgerror.FeatureNotSupported, "%s cannot be applied to a join", lock)
}

// waitRank orders wait policies as PostgreSQL combines them: NOWAIT over
// SKIP LOCKED over waiting.
var waitRank = map[isolation.WaitPolicy]int{isolation.WaitBlock: 0, isolation.WaitSkipLocked: 1, isolation.WaitNoWait: 2}

// applyLocking gives the items that the locking clauses name (every table
// without OF) their lock, with PostgreSQL's errors for items that cannot
// be locked (transformLockingClause): OF naming a WITH query or a
// function, or nothing in FROM; a nullable side of an outer join. A
// subquery in FROM, whose rows PostgreSQL locks inside it, is refused.
func (b *binder) applyLocking(st *pg_query.SelectStmt, sc *scope, items []*fromItem) error {
	for _, n := range st.LockingClause {
		lc := n.GetLockingClause()
		lock := rowLockStrength(lc)
		wait := isolation.WaitBlock
		switch lc.WaitPolicy {
		case pg_query.LockWaitPolicy_LockWaitError:
			wait = isolation.WaitNoWait
		case pg_query.LockWaitPolicy_LockWaitSkip:
			wait = isolation.WaitSkipLocked
		}
		apply := func(it *fromItem, named bool) *pgerror.Error {
			switch it.kind {
			case itemTable:
			case itemSubquery:
				return pgerror.Unsupported(lock.String() + " of a subquery in FROM")
			case itemCatalog:
				return pgerror.Unsupported(lock.String() + " of a system catalog relation")
			case itemCTE:
				if named {
					return pgerror.Newf(pgerror.FeatureNotSupported, "%s cannot be applied to a WITH query", lock)
				}
				return nil
			case itemFunction:
				if named {
					return pgerror.Newf(pgerror.FeatureNotSupported, "%s cannot be applied to a function", lock)
				}
				return nil
			case itemView:
				return pgerror.Unsupported(lock.String() + " of a view")
			case itemSequence:
				return pgerror.Newf(pgerror.WrongObjectType, "cannot lock rows in sequence \"%s\"", it.source)
			case itemJoin:
				return pgerror.Unsupported(lock.String() + " of the tables of a parenthesized join")
			}
			if it.table.matview != nil {
				return pgerror.Newf(pgerror.WrongObjectType, "cannot lock rows in materialized view \"%s\"", it.table.name)
			}
			if it.lock == isolation.RowLockNone { // FOR UPDATE / SHARE needs UPDATE too, as in PostgreSQL
				b.requireColumnsAs(b.privRole, it.table.oid, it.table.name, "table", 'w', &columnUse{})
			}
			// Clauses naming one table combine as in PostgreSQL: the
			// strongest lock, and the strictest wait policy.
			it.lock = max(it.lock, lock)
			// PostgreSQL opens a table whose rows it locks in ROW SHARE
			// mode, not ACCESS SHARE (pg_locks shows which).
			b.useTable(it.table, isolation.TableLockRowShare)
			for _, m := range it.members {
				b.useTable(m.t, isolation.TableLockRowShare)
			}
			if waitRank[wait] > waitRank[it.wait] {
				it.wait = wait
			}
			return nil
		}
		if len(lc.LockedRels) == 0 {
			for _, it := range items {
				if err := apply(it, false); err != nil {
					return err
				}
			}
			continue
		}
		for _, r := range lc.LockedRels {
			rv := r.GetRangeVar()
			if rv.Schemaname != "" || rv.Catalogname != "" {
				return b.errAt(pgerror.Newf(pgerror.SyntaxError, "%s must specify unqualified relation names", lock), rv.Location)
			}
			found := false
			for _, it := range items {
				if it.kind == itemJoin && it.name == rv.Relname {
					return b.errAt(joinNotLockable(lock), rv.Location)
				}
				if slices.Contains(it.names(), rv.Relname) {
					found = true
					if err := apply(it, true); err != nil {
						return b.errAt(err, rv.Location)
					}
				}
			}
			if !found && sc.usingAliasCols(rv.Relname) != nil {
				return b.errAt(joinNotLockable(lock), rv.Location)
			}
			if !found {
				return b.errAt(pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" in %s clause not found in FROM clause", rv.Relname, lock), rv.Location)
			}
		}
	}
	for _, it := range items {
		if it.lock != isolation.RowLockNone && it.left {
			return pgerror.Newf(pgerror.FeatureNotSupported, "%s cannot be applied to the nullable side of an outer join", it.lock)
		}
	}
	return nil
}
