package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// names lists the relation names an item brings into the FROM clause: its
// own, or for a parenthesized join those of the relations inside it.
func (it *fromItem) names() []string {
	if it.nested != nil {
		var out []string
		for _, n := range it.nested {
			out = append(out, n.names()...)
		}
		return out
	}
	if it.name == "" {
		return nil
	}
	return []string{it.name}
}

// nestedJoinItem compiles a parenthesized join that the enclosing join
// treats as one relation (a LEFT JOIN's right side, a RIGHT JOIN's left
// side, the right side of JOIN ... USING): its relations are planned and
// joined by themselves, and the item's rows are the joined rows, read once
// per run of the query level. The item's columns keep the names of the
// relations they come from, so a.x still names a column inside it.
//
// The join's own conditions see only its relations (and enclosing query
// levels), as in PostgreSQL, where they may not name the other relations
// of the FROM clause.
func (b *binder) nestedJoinItem(outer *scope, n *pg_query.Node) (*fromItem, []scopeCol, error) {
	items, sc, pending, err := b.buildFrom(outer.parent, []*pg_query.Node{n}, outer.ctes)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range outer.cols {
		sc.hiddenRels = append(sc.hiddenRels, c.rel)
	}
	var pre []*conj
	if err := b.placeConds(sc, items, pending, nil, &pre); err != nil {
		return nil, nil, err
	}
	chooseAccesses(items)
	planJoins(items)
	width := len(sc.cols)
	order := sc.starOrder
	cols := make([]scopeCol, width)
	for i := range cols {
		src := i
		if order != nil {
			src = order[i]
		}
		cols[i] = sc.cols[src]
	}
	it := &fromItem{nested: items, kind: itemJoin}
	it.sub = func(x *execCtx) ([][]any, error) {
		if ir := x.items[it]; ir != nil {
			return ir.rows, nil
		}
		cx := *x
		cx.row = make([]any, width)
		cx.items, cx.marks, cx.epq = nil, nil, nil
		var rows [][]any
		ok, err := allHold(&cx, pre, false)
		if err == nil && ok {
			ok, err = allHold(&cx, pre, true)
		}
		if err != nil {
			return nil, err
		}
		if ok {
			err := runItems(&cx, items, 0, func() error {
				r := make([]any, width)
				for i := range r {
					src := i
					if order != nil {
						src = order[i]
					}
					r[i] = cx.row[src]
				}
				rows = append(rows, r)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		if x.items == nil {
			x.items = map[*fromItem]*itemRows{}
		}
		x.items[it] = &itemRows{rows: rows}
		return rows, nil
	}
	return it, cols, nil
}
