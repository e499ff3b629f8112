package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// groupedOuterRow is PostgreSQL's 42803 for a whole-row reference from a
// subquery to a FROM item of an enclosing query that groups, which only
// its aggregation row reaches; nil when the name resolves otherwise.
// PostgreSQL reads the row when the query groups by the whole row
// itself, which fickle refuses (0A000).
func (b *binder) groupedOuterRow(sc *scope, name string, loc int32) error {
	for cur, depth := sc, 0; cur != nil; cur, depth = cur.parent, depth+1 {
		if cur.usingAliasCols(name) == nil && !slices.ContainsFunc(cur.cols, func(c scopeCol) bool { return c.rel == name && (!c.hidden || c.merged) && !c.system }) {
			continue
		}
		if depth > 0 && cur.agg != nil {
			key := b.groupKey(cur.agg.from, pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(name)}, loc))
			err := b.errAt(pgerror.Newf(pgerror.GroupingError, "subquery uses ungrouped column \"%s.*\" from outer query", name), loc)
			if slices.ContainsFunc(cur.agg.groups, func(g groupEntry) bool { return g.key == key }) {
				err = b.errAt(pgerror.Unsupported("a subquery's reference to a whole row its enclosing query groups by"), loc)
			}
			if b.deferUngrouped(err) || b.deferUngroupedOf(cur.agg, err) {
				// Inside an aggregate call that may turn out to belong
				// to that level, where the row is no error.
				return nil
			}
			return err
		}
		return nil
	}
	return nil
}

// wholeRowRef compiles a FROM item named alone where a value goes
// ("SELECT foo FROM (SELECT 1) foo"): the record of the item's columns,
// named after the item, as PostgreSQL reads a whole-row reference of a
// subquery, VALUES list or function; of a table, the value of the table's
// row type (rowtype.go), whatever column aliases the item gives. ok is
// false when no item of that name is in scope.
func (b *binder) wholeRowRef(sc *scope, name string) (e *scalar, ok bool) {
	depth := 0
	for cur := sc; cur != nil; cur, depth = cur.parent, depth+1 {
		cols := cur.usingAliasCols(name)
		for _, c := range cur.cols {
			// A column USING merged into the other side's is still one of
			// the relation's own.
			if c.rel == name && (!c.hidden || c.merged) && !c.system {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			continue
		}
		if len(b.aggRefs) > 0 {
			b.noteColumnLevel(cur, -1)
		}
		if len(cols) == 1 && cols[0].scalarItem {
			e, err := b.resolveCol(sc, []string{name, cols[0].name}, -1)
			if err != nil {
				return nil, false
			}
			e.name = name
			return e, true
		}
		var rowType types.Type
		// absentWhenNull is a NOT NULL column of the item's table: a row
		// with NULL there is no row of the table but the NULLs an outer
		// join put in its place, whose whole-row value is NULL. Without
		// one, the LEFT JOIN's presence marker tells the two apart
		// (absentMark, at depth markDepth); where there is none either (a
		// FULL JOIN's side), a row of NULLs on the nullable side of an
		// outer join is either, and fickle refuses to answer.
		absentWhenNull := -1
		// A join alias's whole row is a row of its columns, as
		// PostgreSQL builds it: never NULL itself.
		nullable := !cols[0].joinAlias && slices.ContainsFunc(cols, func(c scopeCol) bool { return c.nullable })
		absentMark, markDepth := -1, depth
		if cols[0].hasNullMark && !cols[0].joinAlias && !slices.ContainsFunc(cols, func(c scopeCol) bool {
			return !c.hasNullMark || c.nullMark != cols[0].nullMark
		}) {
			absentMark = cols[0].nullMark
			if depth > 0 {
				cur.pending |= itemBit(cols[0].item)
			}
		}
		if t := b.cat.tables[cols[0].tableOID]; t != nil && !cols[0].joinAlias {
			if cols = tableRowCols(cols, t); cols == nil {
				return nil, false
			}
			rowType = t.rowTypeDesc().typ()
			for i, c := range t.cols {
				if c.notNull {
					absentWhenNull = i
					break
				}
			}
		}
		fields := make([]*scalar, len(cols))
		shape := make([]types.Field, len(cols))
		var refs uint64
		for i, c := range cols {
			c.markRead()
			slot, d := c.slot, depth
			if c.expr != nil {
				f, err := b.pulledRef(cur, c, depth, c.name, -1)
				if err != nil {
					return nil, false
				}
				fields[i] = f
				refs |= f.refs
			} else if d == 0 {
				fields[i] = &scalar{typ: c.typ, slot: slot, refs: itemBit(c.item), name: c.name,
					eval: func(x *execCtx) (any, error) { return x.row[slot], nil }}
				refs |= itemBit(c.item)
			} else {
				cur.pending |= itemBit(c.item)
				fields[i] = &scalar{typ: c.typ, slot: -1, name: c.name,
					eval: func(x *execCtx) (any, error) { return x.outer[len(x.outer)-d][slot], nil }}
			}
			if c.joinAlias {
				// An aliased join's row has a USING pair's merged column.
				m, err := b.usingMerged(c, fields[i])
				if err != nil {
					return nil, false
				}
				fields[i] = m
			}
			shape[i] = types.Field{Name: c.name, Type: fields[i].typ}
		}
		if rowType.Oid == 0 {
			rowType = cols[0].itemRowType
		}
		if rowType.Oid == 0 {
			rowType = types.RecordType(shape)
		}
		// The value is not a row constructor (no row fields): compared,
		// it uses the record operators, which want the same field types
		// and take two NULL fields as equal, as PostgreSQL's record_eq.
		return &scalar{typ: rowType, slot: -1, refs: refs, name: name,
			eval: func(x *execCtx) (any, error) {
				out := make([]any, len(fields))
				for i, f := range fields {
					v, err := f.eval(x)
					if err != nil {
						return nil, err
					}
					out[i] = v
				}
				switch {
				case absentWhenNull >= 0 && out[absentWhenNull] == nil:
					return nil, nil
				case absentMark >= 0:
					row := x.row
					if markDepth > 0 {
						row = x.outer[len(x.outer)-markDepth]
					}
					if row[absentMark] == nil {
						return nil, nil
					}
				case absentWhenNull < 0 && nullable && !slices.ContainsFunc(out, func(v any) bool { return v != nil }):
					return nil, pgerror.Unsupported("the whole-row value of a row of NULLs on the nullable side of an outer join, " +
						"of a relation without a NOT NULL column (a missing row's is NULL, a real row's is not)")
				}
				return out, nil
			}}, true
	}
	return nil, false
}

// tableRowCols returns the columns of a FROM item reading table t that
// make its row, in t's column order: all but the system ones, nil when
// they are not t's columns.
func tableRowCols(cols []scopeCol, t *tableDesc) []scopeCol {
	var out []scopeCol
	for _, c := range cols {
		if !c.system {
			out = append(out, c)
		}
	}
	if len(out) != len(t.cols) || t.rowType == 0 {
		return nil
	}
	for i, c := range out {
		if c.tableOID != t.oid || c.attnum != t.cols[i].attnum {
			return nil
		}
	}
	return out
}
