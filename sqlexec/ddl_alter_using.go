package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// columnConversion returns how ALTER COLUMN ... TYPE computes column i's
// new value from a row: the USING expression over the row's columns,
// coerced to the new type as an assignment (knex's .alter() always writes
// one), or else the assignment cast of the old value. using reports
// whether there was a USING clause, which rewrites the column even when
// its type stays.
func (d *ddl) columnConversion(b *binder, t *tableDesc, i int, usingNode *pg_query.Node, to types.Type) (conv func(row []any) (any, error), using bool, err error) {
	col := t.cols[i]
	if usingNode == nil {
		cast, err := types.LookupCast(col.typ, to, types.CastAssignment)
		if err != nil {
			return nil, false, pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" cannot be cast automatically to type %s", col.name, to).
				WithHint("You might need to specify \"USING %s::%s\".", col.name, to)
		}
		return func(row []any) (any, error) {
			if row[i] == nil {
				return nil, nil
			}
			return cast(row[i])
		}, false, nil
	}
	if containsSubLink(usingNode) {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in transform expression")
	}
	sc := tableScope(t, t.name)
	sc.noAgg = "transform expressions"
	e, err := b.expr(sc, usingNode)
	if err != nil {
		return nil, true, err
	}
	if e, err = b.coerce(e, to, types.CastAssignment); err != nil {
		return nil, true, pgerror.Newf(pgerror.DatatypeMismatch, "result of USING clause for column \"%s\" cannot be cast automatically to type %s", col.name, to).
			WithHint("You might need to add an explicit cast.")
	}
	return func(row []any) (any, error) {
		d.x.row = row
		return e.eval(d.x)
	}, true, nil
}

// recheckConstraints binds again the CHECK constraints of t that read a
// column of altered, whose types just changed in t, as PostgreSQL
// re-creates them after ALTER COLUMN TYPE (from their stored text: errors
// carry no position in the statement), and checks them on every row
// converted by convert.
func (d *ddl) recheckConstraints(t *tableDesc, altered []int, convert func(row []any) ([]any, error)) error {
	type bound struct {
		name string
		e    *scalar
	}
	var checks []bound
	b := d.binder("")
	for _, ck := range t.checks {
		if !slices.ContainsFunc(altered, func(i int) bool { return readsColumn(ck.expr, t.cols[i].name) }) {
			continue
		}
		e, err := b.cond(tableScope(t, t.name), ck.expr, "CHECK")
		if err != nil {
			return err
		}
		checks = append(checks, bound{ck.name, e})
	}
	if len(checks) == 0 {
		return nil
	}
	return d.scanRows(t, func(row []any) error {
		nr, err := convert(row)
		if err != nil {
			return err
		}
		d.x.row = nr
		for _, ck := range checks {
			ok, err := ck.e.eval(d.x)
			if err != nil {
				return err
			}
			if ok == false {
				return pgerror.Newf(pgerror.CheckViolation, "check constraint \"%s\" of relation \"%s\" is violated by some row", ck.name, t.name)
			}
		}
		return nil
	})
}

// readsColumn says whether expression n refers to a column named name.
func readsColumn(n *pg_query.Node, name string) bool {
	uses := false
	walk(n, func(c *pg_query.Node) bool {
		if cr := c.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetString_().GetSval() == name {
			uses = true
		}
		return !uses
	})
	return uses
}

// convertedKeys checks, while the rows are scanned before the column is
// rewritten, that the unique indexes on column i still hold for the
// converted values: the rewrite cannot be undone once the index rebuild
// fails.
type convertedKeys struct {
	t       *tableDesc
	i       int
	to      types.Type
	indexes []*indexDesc
	seen    []map[string]bool
}

func newConvertedKeys(t *tableDesc, i int, to types.Type) *convertedKeys {
	k := &convertedKeys{t: t, i: i, to: to}
	for _, ix := range t.indexes {
		if ix.unique && ix.onColumnsOnly() && slices.Contains(ix.cols, i) {
			k.indexes = append(k.indexes, ix)
			k.seen = append(k.seen, map[string]bool{})
		}
	}
	return k
}

// add records a row whose column i becomes v, failing with 23505 when a
// unique index would see its key twice (keys with a NULL never collide).
func (k *convertedKeys) add(row []any, v any) error {
	for n, ix := range k.indexes {
		var key []byte
		null := false
		for _, c := range ix.cols {
			val, typ := row[c], k.t.cols[c].typ
			if c == k.i {
				val, typ = v, k.to
			}
			if val == nil {
				null = true
				break
			}
			key = types.AppendKey(key, typ, val)
		}
		if null {
			continue
		}
		if k.seen[n][string(key)] {
			return pgerror.Newf(pgerror.UniqueViolation, "could not create unique index \"%s\"", ix.name).
				WithDetail("Key (%s) is duplicated.", strings.Join(colNameList(k.t, ix.cols), ", "))
		}
		k.seen[n][string(key)] = true
	}
	return nil
}
