package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// names lists the relation names an item brings into the FROM clause: its
// own, or for a parenthesized join those of the relations inside it.
func (it *fromItem) names() []string {
	if it.pulled {
		if it.pulledAs == "" {
			return nil
		}
		return []string{it.pulledAs}
	}
	if it.nested != nil && it.name == "" {
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
	savedPlain := b.pullUpPlainOnly
	b.pullUpPlainOnly = true
	items, sc, pending, err := b.buildFrom(outer.parent, []*pg_query.Node{n}, outer.ctes)
	b.pullUpPlainOnly = savedPlain
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
	position := make(map[int]int, width) // a column's slot in sc -> its place in cols
	for i := range cols {
		src := i
		if order != nil {
			src = order[i]
		}
		cols[i] = sc.cols[src]
		position[cols[i].slot] = i
	}
	for i := range cols {
		// A LEFT JOIN's marker inside the join counts from the item's
		// first column, which addItem places.
		if c := &cols[i]; c.hasNullMark {
			c.nullMark, c.hasNullMark = position[c.nullMark]
		}
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
					r[i] = cx.row[sc.cols[src].slot]
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

// aliasedJoinItem compiles a join with an alias ((a JOIN b USING (x)) AS
// j (c1, ...)) as one item named j: its columns are the join's as * lists
// them (a USING pair's merged column once), renamed by the alias's column
// list, and the relations inside are out of reach by their own names.
func (b *binder) aliasedJoinItem(sc *scope, j *pg_query.JoinExpr, alias *pg_query.Alias) (*fromItem, []scopeCol, error) {
	it, cols, err := b.nestedJoinItem(sc, &pg_query.Node{Node: &pg_query.Node_JoinExpr{JoinExpr: j}})
	if err != nil {
		return nil, nil, err
	}
	var visible []int
	for i := range cols {
		c := &cols[i]
		c.usingAliases = nil // the alias hides them as it hides the relations
		if c.hidden {
			c.rel, c.merged = "", true
			continue
		}
		if c.rel != "" && !slices.Contains(sc.hiddenRels, c.rel) {
			sc.hiddenRels = append(sc.hiddenRels, c.rel)
		}
		c.rel, c.joinAlias = alias.Aliasname, true
		visible = append(visible, i)
	}
	names := strs(alias.Colnames)
	if len(names) > len(visible) {
		return nil, nil, pgerror.Newf(pgerror.InvalidColumnReference, "join expression \"%s\" has %d columns available but %d columns specified", alias.Aliasname, len(visible), len(names))
	}
	for k, name := range names {
		cols[visible[k]].name = name
	}
	it.name = alias.Aliasname
	return it, cols, nil
}
