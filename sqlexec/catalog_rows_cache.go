package sqlexec

import (
	"sync"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// A system table's rows are made from the catalog, and ORMs and psql read
// the same few tables once or several times for every table they
// introspect: remaking pg_attribute or pg_attrdef (whose defaults are
// deparsed) for each of those statements made introspection quadratic in
// the number of tables. So a session keeps the rows of the system tables
// whose rows depend only on what it can tell has not changed, and makes
// them again when any of it has.

// catalogOnlyTables are the system tables whose rows are a function of the
// catalog, the roles (ACLs and owners print role names), and the
// session's settings and user (search_path qualifies names, DateStyle
// formats values, privileges hide rows): not of the store's data, the
// sequences' state, other sessions or the time.
var catalogOnlyTables = map[string]bool{
	"pg_catalog.pg_am": true, "pg_catalog.pg_attrdef": true, "pg_catalog.pg_attribute": true,
	"pg_catalog.pg_class": true, "pg_catalog.pg_collation": true, "pg_catalog.pg_constraint": true,
	"pg_catalog.pg_depend": true, "pg_catalog.pg_description": true, "pg_catalog.pg_enum": true,
	"pg_catalog.pg_index": true, "pg_catalog.pg_indexes": true, "pg_catalog.pg_inherits": true,
	"pg_catalog.pg_namespace": true, "pg_catalog.pg_opclass": true, "pg_catalog.pg_proc": true,
	"pg_catalog.pg_range": true, "pg_catalog.pg_sequence": true, "pg_catalog.pg_tables": true,
	"pg_catalog.pg_trigger": true, "pg_catalog.pg_type": true, "pg_catalog.pg_views": true,
	"pg_catalog.pg_statistic_ext": true, "pg_catalog.pg_extension": true,
}

// systemRowsEntry is a system table's rows as a session or a statement
// made them, with what they were made from and the indexes made over them.
type systemRowsEntry struct {
	cat      *catalog
	settings uint64 // the session's settings version
	roles    uint64 // the cluster's roles version
	user     string // current_user
	rows     [][]any
	// kept says the entry outlives one read of the rows (a session's or a
	// statement's memo holds it), so that an index over them pays off.
	kept bool
	mu   sync.Mutex
	// indexes hold the rows by the key of a column's value, by column.
	indexes map[int]map[string][][]any
}

// systemRows returns vt's rows over catalog c: those the session made
// before when vt is one of catalogOnlyTables and nothing they depend on
// changed since. Callers do not change the rows.
func (s *Session) systemRows(vt *virtualTable, c *catalog) *systemRowsEntry {
	if !catalogOnlyTables[vt.schema+"."+vt.name] {
		return &systemRowsEntry{rows: vt.rows(s, c)}
	}
	settings, roles, user := s.settings.version, s.engine.cluster.roles.version.Load(), s.user()
	if e := s.systemRowsCache[vt]; e != nil && e.cat == c && e.settings == settings && e.roles == roles && e.user == user {
		return e
	}
	e := &systemRowsEntry{cat: c, settings: settings, roles: roles, user: user, rows: vt.rows(s, c), kept: true}
	if s.systemRowsCache == nil {
		s.systemRowsCache = map[*virtualTable]*systemRowsEntry{}
	}
	s.systemRowsCache[vt] = e
	return e
}

// lookup returns the rows whose column col, of type typ, equals v, from
// an index over the column made on first use. v is not NULL, and of a
// type keyCompatible with typ.
func (e *systemRowsEntry) lookup(col int, typ types.Type, v any) [][]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	idx := e.indexes[col]
	if idx == nil {
		idx = map[string][][]any{}
		for _, r := range e.rows {
			if r[col] != nil {
				k := string(types.AppendKey(nil, typ, r[col]))
				idx[k] = append(idx[k], r)
			}
		}
		if e.indexes == nil {
			e.indexes = map[int]map[string][][]any{}
		}
		e.indexes[col] = idx
	}
	return idx[string(types.AppendKey(nil, typ, v))]
}

// catalogKeyRows returns, for a system table item, the rows whose column
// equals the value of the keyConj of conds, and true: those are all the
// rows the conjunct lets through, so the item is read as PostgreSQL reads
// a catalog through its index. It returns false when no conjunct serves,
// and under EXPLAIN ANALYZE, whose counts are those of a scan.
func catalogKeyRows(x *execCtx, it *fromItem, conds []*conj, earlier uint64) ([][]any, bool, error) {
	c := keyConj(it, conds, earlier)
	if c == nil || x.stats != nil {
		return nil, false, nil
	}
	v, err := c.eqVal.eval(x)
	if err != nil {
		return nil, false, err
	}
	if v == nil {
		return nil, true, nil // = NULL holds for no row
	}
	return it.catalogLookup(x, c.eqSlot-it.off, v)
}

// keyConj returns the first of conds that is "column = value" on a column
// of system table item it, with a value that the items in earlier (a mask
// of the level's items whose rows are current) and the enclosing levels
// compute; nil when there is none.
func keyConj(it *fromItem, conds []*conj, earlier uint64) *conj {
	if it.catalogLookup == nil {
		return nil
	}
	for _, c := range conds {
		if !c.deferred && c.eqVal != nil && c.eqSlot >= it.off && c.eqSlot < it.off+len(it.catalogTypes) &&
			c.eqVal.refs&^earlier == 0 && !c.eqVal.volatile && keyCompatible(it.catalogTypes[c.eqSlot-it.off], c.eqVal.typ) {
			return c
		}
	}
	return nil
}

// lazyCatalogRows answers a hash join's look-up of a system table item's
// rows by key from the index over the column (lookup), passing the rows
// through the item's local conditions once for each key asked, instead of
// filtering and hashing all the rows for every execution: a correlated
// subquery's join or a catalog query's runs once per table an ORM
// introspects.
func lazyCatalogRows(x *execCtx, it *fromItem, ir *itemRows) ([][]any, error) {
	v, err := it.hashVal.eval(x)
	if err != nil || v == nil {
		return nil, err
	}
	k := string(types.AppendKey(nil, it.hashTyp, v))
	if rows, ok := ir.hash[k]; ok {
		return rows, nil
	}
	bucket, _, err := it.catalogLookup(x, it.hashSlot, v)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, r := range bucket {
		copy(x.row[it.off:it.off+it.width], r)
		ok, err := allHold(x, it.local, false)
		if err != nil {
			return nil, err
		}
		if ok {
			rows = append(rows, r)
		}
	}
	ir.hash[k] = rows
	return rows, nil
}
