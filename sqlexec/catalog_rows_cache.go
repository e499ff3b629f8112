package sqlexec

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// A system table's rows are made from the catalog, and ORMs and psql read
// the same few tables once or several times for every table they
// introspect: remaking pg_attribute or pg_attrdef (whose defaults are
// deparsed) for each of those statements made introspection quadratic in
// the number of tables. So a database keeps the rows of the system tables
// whose rows depend only on what a session can tell has not changed, for
// the sessions that see the same, and makes them again when any of it has.

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

// systemCache is what a session keeps of the catalog it sees: the
// fingerprint of its settings (for settings version settingsVersion), and
// values derived from the catalog alone (derived, for catalog
// derivedFrom).
type systemCache struct {
	settings        string
	settingsVersion uint64
	derivedFrom     *catalog
	derived         map[any]any
}

// sharedSystemRows holds a database's kept system-table rows, shared by
// its sessions: introspecting 600 tables keeps tens of megabytes of them.
type sharedSystemRows struct {
	mu      sync.Mutex
	entries map[systemRowsKey]*systemRowsEntry
}

// systemRowsKey is what a system table's rows are made from: the table,
// the catalog, the session's settings (search_path qualifies names,
// DateStyle formats values), the roles (ACLs and owners print role
// names) and the current user.
type systemRowsKey struct {
	vt       *virtualTable
	cat      *catalog
	settings string
	roles    uint64
	user     string
}

// maxSharedSystemRows bounds the entries kept (sessions with different
// settings each have their own): past it all go.
const maxSharedSystemRows = 128

// settingsFingerprint returns the session's settings as one string, made
// again when they change.
func (s *Session) settingsFingerprint() string {
	sc := &s.sysCache
	if sc.settings == "" || sc.settingsVersion != s.settings.version {
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(s.settings.vals)) {
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(s.settings.vals[k])
			b.WriteByte(0)
		}
		sc.settings, sc.settingsVersion = b.String(), s.settings.version
	}
	return sc.settings
}

// catalogMemo returns the value make derives from catalog c alone, made
// once for each catalog the session sees. c is the session's catalog (or
// another published one): a catalog a DDL statement is building changes.
func (s *Session) catalogMemo(c *catalog, key any, make func() any) any {
	sc := &s.sysCache
	if sc.derivedFrom != c {
		sc.derivedFrom, sc.derived = c, map[any]any{}
	}
	v, ok := sc.derived[key]
	if !ok {
		v = make()
		sc.derived[key] = v
	}
	return v
}

// systemRowsEntry is a system table's rows as the sessions or a
// statement made them, with the indexes made over them.
type systemRowsEntry struct {
	rows     [][]any
	colTypes []types.Type
	// kept says the entry outlives one read of the rows (the database's
	// or a statement's memo holds it), so that an index over them pays
	// off.
	kept bool
	mu   sync.Mutex
	// indexes hold the positions of the rows by the key of a column's
	// value, by column.
	indexes map[int]map[string][]int32
}

// systemRows returns vt's rows over catalog c, of columns of types
// colTypes: those made before for a session with the same settings, roles
// and user when vt is one of catalogOnlyTables. Callers do not change the
// rows.
func (s *Session) systemRows(vt *virtualTable, c *catalog, colTypes []types.Type) *systemRowsEntry {
	if !catalogOnlyTables[vt.schema+"."+vt.name] {
		return &systemRowsEntry{rows: vt.rows(s, c), colTypes: colTypes}
	}
	key := systemRowsKey{vt: vt, cat: c, settings: s.settingsFingerprint(), roles: s.engine.cluster.roles.version.Load(), user: s.user()}
	shared := &s.engine.sysRows
	shared.mu.Lock()
	e := shared.entries[key]
	shared.mu.Unlock()
	if e != nil {
		return e
	}
	e = &systemRowsEntry{rows: vt.rows(s, c), colTypes: colTypes, kept: true}
	published, _ := s.engine.published()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	// Rows of catalogs that are neither this one nor the published one
	// (older versions, other transactions' DDL) go.
	for k := range shared.entries {
		if k.cat != c && k.cat != published {
			delete(shared.entries, k)
		}
	}
	if len(shared.entries) >= maxSharedSystemRows {
		clear(shared.entries)
	}
	if shared.entries == nil {
		shared.entries = map[systemRowsKey]*systemRowsEntry{}
	}
	shared.entries[key] = e
	return e
}

// index returns the positions of the rows by the key of column col's
// value, made on first use; NULLs are left out.
func (e *systemRowsEntry) index(col int) map[string][]int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	idx := e.indexes[col]
	if idx == nil {
		idx = map[string][]int32{}
		typ := e.colTypes[col]
		for i, r := range e.rows {
			if r[col] != nil {
				k := string(types.AppendKey(nil, typ, r[col]))
				idx[k] = append(idx[k], int32(i))
			}
		}
		if e.indexes == nil {
			e.indexes = map[int]map[string][]int32{}
		}
		e.indexes[col] = idx
	}
	return idx
}

// lookup returns the rows whose column col equals v, in the rows' order.
// v is not NULL, and of a type keyCompatible with the column's.
func (e *systemRowsEntry) lookup(col int, v any) [][]any {
	return e.at(e.index(col)[string(types.AppendKey(nil, e.colTypes[col], v))])
}

// at returns the rows at positions.
func (e *systemRowsEntry) at(positions []int32) [][]any {
	if len(positions) == 0 {
		return nil
	}
	out := make([][]any, len(positions))
	for i, p := range positions {
		out[i] = e.rows[p]
	}
	return out
}

// keptCatalogRows returns a system table item's rows when they are kept
// (systemRowsEntry.kept) and the statement is not under EXPLAIN ANALYZE,
// whose counts are those of a scan; nil otherwise.
func keptCatalogRows(x *execCtx, it *fromItem) (*systemRowsEntry, error) {
	if it.catalogRows == nil || x.stats != nil {
		return nil, nil
	}
	e, err := it.catalogRows(x)
	if err != nil || !e.kept {
		return nil, err
	}
	return e, nil
}

// catalogKeyRows returns, for a system table item, the rows whose column
// equals the value of the keyConj of conds, and true: those are all the
// rows the conjunct lets through, so the item is read as PostgreSQL reads
// a catalog through its index. It returns false when no conjunct serves.
func catalogKeyRows(x *execCtx, it *fromItem, conds []*conj, earlier uint64) ([][]any, bool, error) {
	c := keyConj(it, conds, earlier)
	if c == nil {
		return nil, false, nil
	}
	e, err := keptCatalogRows(x, it)
	if e == nil {
		return nil, false, err
	}
	v, err := c.eqVal.eval(x)
	if err != nil {
		return nil, false, err
	}
	if v == nil {
		return nil, true, nil // = NULL holds for no row
	}
	return e.lookup(c.eqSlot-it.off, v), true, nil
}

// keyConj returns the first of conds that is "column = value" on a column
// of system table item it, with a value that the items in earlier (a mask
// of the level's items whose rows are current) and the enclosing levels
// compute; nil when there is none.
func keyConj(it *fromItem, conds []*conj, earlier uint64) *conj {
	if it.catalogRows == nil {
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

// catalogSemiJoinRows returns, for system table item i of items, only its
// rows that some row of a later inner system table item hashed on one of
// its columns (the next item, or one in its emptyJoins) can join, in their
// order, and true; false when there is no such item whose rows are known.
// A catalog query that joins pg_attribute to the pg_class row of one table
// named by a constant thus reads that table's attributes, not all of them,
// as PostgreSQL's plan starting from pg_class's index would; the rows left
// out would join nothing.
func catalogSemiJoinRows(x *execCtx, items []*fromItem, i int) ([][]any, bool, error) {
	it := items[i]
	if i+1 >= len(items) || x.epq != nil || it.left {
		return nil, false, nil
	}
	// The items hashed on item i's columns: those its successor checks
	// first, and the successor itself.
	later := items[i+1].emptyJoins
	if next := items[i+1]; next.cached && next.hashVal != nil && !next.left && !next.target {
		later = append(slices.Clip(later), next)
	}
	if len(later) == 0 {
		return nil, false, nil
	}
	e, err := keptCatalogRows(x, it)
	if e == nil {
		return nil, false, err
	}
	for _, j := range later {
		slot := j.hashVal.slot
		// Only a system table's rows are read ahead: a table's read is
		// an event of the history, which must not gain one where item i
		// has no rows.
		if j.catalogRows == nil || slot < it.off || slot >= it.off+len(it.catalogTypes) || it.catalogTypes[slot-it.off].Oid != j.hashTyp.Oid {
			continue
		}
		ir, err := cachedItem(x, j)
		if err != nil {
			return nil, false, err
		}
		if ir.lazy || len(ir.hash) > len(e.rows)/8 {
			continue // as many keys as rows: no gain
		}
		idx := e.index(slot - it.off)
		var positions []int32
		for k, rows := range ir.hash {
			if len(rows) > 0 {
				positions = append(positions, idx[k]...)
			}
		}
		slices.Sort(positions)
		return e.at(positions), true, nil
	}
	return nil, false, nil
}

// lazyCatalogRows answers a hash join's look-up of a system table item's
// rows by key from the index over the column, passing the rows through
// the item's local conditions once for each key asked, instead of
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
	var rows [][]any
	for _, r := range ir.entry.lookup(it.hashSlot, v) {
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
