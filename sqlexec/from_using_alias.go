package sqlexec

import (
	"cmp"
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// A JOIN ... USING (cols) AS alias names the join's merged columns, and
// only those: alias.col reads the merged column as an unqualified col
// does, alias.* and the whole-row alias list them in the USING list's
// order. The alias is a name of the FROM clause like a table's, visible
// where the join's relations are and hidden, as they are, by an alias of
// an enclosing parenthesized join. fickle marks each merged column with
// the aliases it answers to (scopeCol.usingAliases), so the mark travels
// with the column through nested joins.

// usingAlias is one JOIN ... USING ... AS alias a merged column answers
// to, with the column's place in that USING list.
type usingAlias struct {
	name string
	at   int
}

// withUsingAlias returns c answering also to alias name as the at-th
// column of its USING list.
func withUsingAlias(c scopeCol, name string, at int) scopeCol {
	c.usingAliases = append(slices.Clip(c.usingAliases), usingAlias{name: name, at: at})
	return c
}

// usingAliasCols returns the columns that the USING alias name stands for
// in sc, as references through the alias, in its USING list's order; nil
// when no join of sc has that alias.
func (sc *scope) usingAliasCols(name string) []scopeCol {
	out := sc.usingAliasSources(name)
	for i := range out {
		c := &out[i]
		// The alias's row is the join's, never a missing one.
		c.rel, c.joinAlias, c.hidden, c.merged, c.nullable, c.usingAliases = name, true, false, false, false, nil
	}
	return out
}

// usingAliasSources returns the columns of sc that answer to the USING
// alias name, as they are, in its USING list's order.
func (sc *scope) usingAliasSources(name string) []scopeCol {
	type placed struct {
		col scopeCol
		at  int
	}
	var found []placed
	for _, c := range sc.cols {
		for _, a := range c.usingAliases {
			if a.name == name {
				found = append(found, placed{c, a.at})
			}
		}
	}
	if found == nil {
		return nil
	}
	slices.SortStableFunc(found, func(a, b placed) int { return cmp.Compare(a.at, b.at) })
	out := make([]scopeCol, len(found))
	for i, p := range found {
		out[i] = p.col
	}
	return out
}

// checkFromNames fails with PostgreSQL's 42712 when a name that the FROM
// item it (of columns cols) brings, its own or a USING alias inside it, is
// already one of sc's FROM clause.
func checkFromNames(sc *scope, it *fromItem, cols []scopeCol) error {
	own := it.names()
	for _, name := range own {
		if fromNameTaken(sc, name) {
			return duplicateFromName(name)
		}
	}
	for _, c := range cols {
		for _, a := range c.usingAliases {
			if slices.Contains(own, a.name) || fromNameTaken(sc, a.name) {
				return duplicateFromName(a.name)
			}
		}
	}
	return nil
}

// fromNameTaken reports whether name is already a name of sc's FROM
// clause: an item's, or a USING alias of its columns.
func fromNameTaken(sc *scope, name string) bool {
	return slices.Contains(sc.rels, name) || slices.ContainsFunc(sc.cols, func(c scopeCol) bool {
		return slices.ContainsFunc(c.usingAliases, func(a usingAlias) bool { return a.name == name })
	})
}

func duplicateFromName(name string) *pgerror.Error {
	return pgerror.Newf(pgerror.DuplicateAlias, "table name \"%s\" specified more than once", name)
}
