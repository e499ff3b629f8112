package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// UPDATE and DELETE ... WHERE CURRENT OF cursor act on the row of the
// target table that the cursor's current row came from, as PostgreSQL's
// execCurrentOf finds it. A cursor keeps, beside each of its rows, the
// row's position: for the tables of its query's top level, the store key,
// the member (inheritance child or partition) and the writer (xmin) of the
// version it read. The statement then reads that key, and goes on as for a
// row its own WHERE matched (locks, EvalPlanQual, triggers, RETURNING).
//
// PostgreSQL finds the row version the cursor read and follows its chain
// of updates to the version the statement's snapshot sees (TidNext): an
// updated row is updated again, a deleted one is not there. A table
// without a primary key has hidden row ids, which a row keeps for life and
// no other row takes: its key's version is that one. A table's primary
// key may change in an update (fickle moves the row to its new key) or be
// reused after a deletion, so fickle goes on there only when the version
// it reads is the one the cursor read (the same writer, and no write of
// the transaction's own since the DECLARE, isolation.Txn.WroteSince), and
// refuses otherwise.
//
// With a locking clause PostgreSQL takes the position from the row marks
// of the tables FOR UPDATE or FOR SHARE names, whatever the plan. Without
// one it looks for the table's scan in the plan through nodes that return
// their input's current row (Limit, Result, Append): fickle knows it
// finds it where the query reads one table (and its inheritance
// children) without ORDER BY, and certainly does not where the query
// groups, aggregates, joins only tables, or does not read the table at
// all (24000); in between (a sort, a view, a subquery) the answer depends
// on the plan PostgreSQL picks, and fickle refuses with 0A000.

// cursorShape is what WHERE CURRENT OF needs of a cursor's query: its top
// level's FROM items and which plan shapes PostgreSQL gives it.
type cursorShape struct {
	items []cursorItem
	// plain says every item is a table; single that the query is one
	// table without ORDER BY, whose scan PostgreSQL finds; notScan that
	// the plan's top node hides every scan (an aggregate, DISTINCT, a
	// window, a set-returning function, a set operation, VALUES).
	plain, single, notScan bool
	// locking is a query with FOR UPDATE / SHARE, limited one with LIMIT
	// or OFFSET.
	locking, limited bool
	// positions says the query's rows end with their cursorRowPos.
	positions bool
}

// cursorItem is one FROM item of a cursor's query: the tables its rows
// come from (the table, or its members), and whether FOR UPDATE or FOR
// SHARE locks them.
type cursorItem struct {
	tables []*tableDesc
	locked bool
}

// cursorRowPos is where a cursor's row came from: for each item of its
// query's top level, the row's store key (nil when the item has none in
// it), the member it lives in and the writer of the version read.
type cursorRowPos struct {
	keys    [][]byte
	members []int
	xmins   []uint32
}

// cursorPosColumn names the hidden last output column of a cursor's query
// that carries each row's cursorRowPos.
const cursorPosColumn = "\x00position"

// cursorPositions records in b.cursorShape the shape of st, the top level
// of the cursor's query with FROM items items, and returns the output
// column computing each row's position, nil when no WHERE CURRENT OF can
// use one. hides says the level groups, aggregates, has windows, DISTINCT
// or set-returning functions in its select list.
func (b *binder) cursorPositions(st *pg_query.SelectStmt, items []*fromItem, hides bool) *scalar {
	sh := &cursorShape{plain: len(items) > 0, notScan: hides, locking: len(st.LockingClause) > 0, limited: st.LimitCount != nil || st.LimitOffset != nil}
	b.cursorShape = sh
	for _, it := range items {
		ci := cursorItem{locked: it.lock != isolation.RowLockNone}
		if it.kind != itemTable || it.table == nil {
			sh.plain = false
		} else if it.members != nil {
			for _, m := range it.members {
				ci.tables = append(ci.tables, m.t)
			}
		} else {
			ci.tables = []*tableDesc{it.table}
		}
		sh.items = append(sh.items, ci)
	}
	if sh.plain && len(items) > 1 && !sh.notScan {
		// An inner join of tables: PostgreSQL's join node hides the
		// scans (an outer join's inner side may be removed).
		sh.notScan = true
		for _, it := range items {
			sh.notScan = sh.notScan && !it.left
		}
	}
	sh.single = sh.plain && len(items) == 1 && len(st.SortClause) == 0 && !sh.notScan
	if sh.notScan && !sh.locking || !sh.single && !sh.locking {
		return nil
	}
	if sh.single {
		items[0].cursorPos = true
	}
	sh.positions = true
	return &scalar{typ: types.Int8, slot: -1, name: cursorPosColumn, eval: func(x *execCtx) (any, error) {
		p := &cursorRowPos{keys: make([][]byte, len(items)), members: make([]int, len(items)), xmins: make([]uint32, len(items))}
		if x.marks == nil {
			return p, nil
		}
		for i, it := range items {
			if it.table == nil || x.marks.nullExt[i] || x.marks.keys[i] == nil {
				continue
			}
			p.keys[i], p.members[i] = x.marks.keys[i], x.marks.members[i]
			if it.versions {
				if v, ok := x.row[it.off+len(it.table.cols)].(types.XID); ok {
					p.xmins[i] = uint32(v)
				}
			}
		}
		return p, nil
	}}
}

// currentRow is the row a WHERE CURRENT OF acts on: the member of the
// target it lives in, its key, and the writer of the version the cursor
// read.
type currentRow struct {
	member int
	key    []byte
	xmin   uint32
}

// currentOf finds the row of the target tables (the target, or its
// members) that cursor name is on, with PostgreSQL's errors; ok is false
// when none of them gave the cursor's current row.
func (s *Session) currentOf(name string, targets []*tableDesc) (currentRow, *cursor, bool, error) {
	c := s.cursors[name]
	if c == nil {
		return currentRow{}, nil, false, pgerror.Newf(pgerror.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	if c.held {
		return currentRow{}, nil, false, pgerror.Newf(pgerror.InvalidCursorState, "cursor \"%s\" is held from a previous transaction", name)
	}
	sh := c.shape
	if sh == nil {
		return currentRow{}, nil, false, pgerror.Unsupported("WHERE CURRENT OF a cursor opened by PL/pgSQL's OPEN ... FOR EXECUTE")
	}
	found := currentRow{member: -1}
	for mi, t := range targets {
		item := -1
		if sh.locking {
			for i, ci := range sh.items {
				if !ci.locked || !coversTable(ci, t) {
					continue
				}
				if item >= 0 {
					return currentRow{}, nil, false, pgerror.Newf(pgerror.InvalidCursorState, "cursor \"%s\" has multiple FOR UPDATE/SHARE references to table \"%s\"", name, t.name)
				}
				item = i
			}
			if item < 0 {
				return currentRow{}, nil, false, pgerror.Newf(pgerror.InvalidCursorState, "cursor \"%s\" does not have a FOR UPDATE/SHARE reference to table \"%s\"", name, t.name)
			}
		} else {
			switch {
			case sh.single && coversTable(sh.items[0], t):
				item = 0
			case sh.notScan || sh.plain && !anyCovers(sh.items, t):
				return currentRow{}, nil, false, pgerror.Newf(pgerror.InvalidCursorState, "cursor \"%s\" is not a simply updatable scan of table \"%s\"", name, t.name)
			default:
				return currentRow{}, nil, false, pgerror.Unsupported("WHERE CURRENT OF a cursor whose query PostgreSQL may or may not plan as a scan of the table").
					WithDetail("fickle finds a cursor's row without FOR UPDATE or FOR SHARE only where the query reads one table without ORDER BY.")
			}
		}
		if c.pos <= 0 || c.pos > len(c.rows) {
			return currentRow{}, nil, false, pgerror.Newf(pgerror.InvalidCursorState, "cursor \"%s\" is not positioned on a row", name)
		}
		if !sh.positions || c.positions == nil {
			return currentRow{}, nil, false, pgerror.Unsupported("WHERE CURRENT OF this cursor")
		}
		p := c.positions[c.pos-1]
		if p == nil {
			return currentRow{}, nil, false, pgerror.Unsupported("WHERE CURRENT OF this cursor")
		}
		if key := p.keys[item]; key != nil && sh.items[item].tables[p.members[item]].oid == t.oid && found.member < 0 {
			found = currentRow{member: mi, key: key, xmin: p.xmins[item]}
		}
	}
	return found, c, found.member >= 0, nil
}

// coversTable reports whether the cursor item's rows come from t.
func coversTable(ci cursorItem, t *tableDesc) bool {
	for _, u := range ci.tables {
		if u.oid == t.oid {
			return true
		}
	}
	return false
}

func anyCovers(items []cursorItem, t *tableDesc) bool {
	for _, ci := range items {
		if coversTable(ci, t) {
			return true
		}
	}
	return false
}

// currentTarget reads the target row the WHERE CURRENT OF of m is on, at
// the statement's snapshot: none when the cursor is on no row of the
// target, or when the version it read is no longer the row's (replaced by
// the transaction since the DECLARE, or by a commit the statement sees).
func (m *modifyTarget) currentTarget(x *execCtx) ([]keyedRow, error) {
	first := m.items[0]
	targets := []*tableDesc{m.t}
	if first.members != nil {
		targets = targets[:0]
		for _, mem := range first.members {
			targets = append(targets, mem.t)
		}
	}
	name := m.currentOf
	if m.currentOfVar != nil {
		// PostgreSQL reads the cursor's name from the PL/pgSQL variable.
		v, err := m.currentOfVar.eval(x)
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return nil, pgerror.Unsupported("WHERE CURRENT OF a PL/pgSQL variable that is NULL or not a refcursor")
		}
		name = s
	}
	cr, c, ok, err := x.s.currentOf(name, targets)
	if err != nil || !ok {
		return nil, err
	}
	t := targets[cr.member]
	var v isolation.RowVersion
	phys, ok, err := x.txn.Get(x.ctx, t.id, cr.key, isolation.ReadOptions{AsOf: x.asOf, Version: &v})
	if err != nil {
		return nil, err
	}
	if !t.hidden && (!ok || v.Xmin != cr.xmin || x.txn.WroteSince(t.id, cr.key, c.mark)) {
		return nil, pgerror.Unsupported("WHERE CURRENT OF a row of a table with a primary key that changed since the cursor read it").
			WithDetail("PostgreSQL follows the row's chain of updates, which fickle cannot tell from a deletion and a new row with the same key.")
	}
	if !ok {
		return nil, nil
	}
	row := phys
	if first.members != nil {
		row = first.members[cr.member].toParent(phys)
	}
	if first.versions {
		row = withRowVersion(row, v)
	}
	copy(x.row[first.off:first.off+first.width], row)
	if ok, err := allHold(x, first.on, false); err != nil || !ok {
		return nil, err
	}
	return []keyedRow{{key: cr.key, row: row, member: cr.member, phys: phys}}, nil
}

// currentOfName returns the cursor a WHERE clause that is CURRENT OF names,
// "" for any other WHERE.
func currentOfName(where *pg_query.Node) string {
	if co := where.GetCurrentOfExpr(); co != nil {
		return co.CursorName
	}
	return ""
}

// currentOfView refuses WHERE CURRENT OF in an UPDATE or DELETE of a view,
// as PostgreSQL does whatever writes the view (a rule, an INSTEAD OF
// trigger, or the view's own table).
func (b *binder) currentOfView(rv *pg_query.RangeVar, where *pg_query.Node) error {
	if currentOfName(where) != "" && b.viewTarget(rv) != nil {
		return pgerror.New(pgerror.FeatureNotSupported, "WHERE CURRENT OF on a view is not implemented")
	}
	return nil
}

// withoutPositions returns the rows of a cursor's query without their
// last column, and the positions it held.
func withoutPositions(res *Result) (*Result, []*cursorRowPos) {
	out := *res
	out.Rows = make([][]any, len(res.Rows))
	positions := make([]*cursorRowPos, len(res.Rows))
	for i, r := range res.Rows {
		positions[i], _ = r[len(r)-1].(*cursorRowPos)
		out.Rows[i] = r[: len(r)-1 : len(r)-1]
	}
	if len(out.Columns) > 0 {
		out.Columns = out.Columns[: len(out.Columns)-1 : len(out.Columns)-1]
	}
	return &out, positions
}
