package sqlexec

import (
	"github.com/fickle-db/fickle/sqlexec/types"
)

// wholeRowRef compiles a FROM item named alone where a value goes
// ("SELECT foo FROM (SELECT 1) foo"): the record of the item's columns,
// named after the item, as PostgreSQL reads a whole-row reference of a
// subquery, VALUES list or function. ok is false when no item of that name
// is in scope, or when it is a table: PostgreSQL gives a table's whole row
// the table's own row type, which fickle does not make for tables, so the
// reference stays an error there.
func (b *binder) wholeRowRef(sc *scope, name string) (e *scalar, ok bool) {
	depth := 0
	for cur := sc; cur != nil; cur, depth = cur.parent, depth+1 {
		var cols []scopeCol
		for _, c := range cur.cols {
			if c.rel == name && !c.hidden {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			continue
		}
		if len(cols) == 1 && cols[0].scalarItem {
			e, err := b.resolveCol(sc, []string{name, cols[0].name}, -1)
			if err != nil {
				return nil, false
			}
			e.name = name
			return e, true
		}
		fields := make([]*scalar, len(cols))
		shape := make([]types.Field, len(cols))
		var refs uint64
		for i, c := range cols {
			if c.tableOID != 0 {
				return nil, false
			}
			slot, d := c.slot, depth
			if d == 0 {
				fields[i] = &scalar{typ: c.typ, slot: slot, refs: itemBit(c.item), name: c.name,
					eval: func(x *execCtx) (any, error) { return x.row[slot], nil }}
				refs |= itemBit(c.item)
			} else {
				cur.pending |= itemBit(c.item)
				fields[i] = &scalar{typ: c.typ, slot: -1, name: c.name,
					eval: func(x *execCtx) (any, error) { return x.outer[len(x.outer)-d][slot], nil }}
			}
			shape[i] = types.Field{Name: c.name, Type: c.typ}
		}
		return &scalar{typ: types.RecordType(shape), slot: -1, refs: refs, name: name, row: fields,
			eval: func(x *execCtx) (any, error) {
				out := make([]any, len(fields))
				for i, f := range fields {
					v, err := f.eval(x)
					if err != nil {
						return nil, err
					}
					out[i] = v
				}
				return out, nil
			}}, true
	}
	return nil, false
}
