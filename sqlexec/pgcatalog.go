package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"sort"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// virtualTable is a read-only system table computed from the catalog: the
// part of pg_catalog and information_schema that drivers and tools query.
// Its rows are not versioned and reads of it are not recorded.
type virtualTable struct {
	schema string
	name   string
	cols   []vcol
	rows   func(s *Session, c *catalog) [][]any
	// read, when set, makes the rows instead: they are data in the
	// store, read in the statement's transaction (pg_largeobject), and
	// the statement needs SELECT on the table.
	read func(x *execCtx) ([][]any, error)
	// unreadable, when set, is the error of a statement that reads column
	// col (nil when it may): a column PostgreSQL's view computes with a
	// call that fails for some rows (ddl_foreign_table.go).
	unreadable func(s *Session, c *catalog, col string) error
	// restricted says PostgreSQL grants PUBLIC no SELECT on the relation
	// (pg_user_mapping): reading it needs the privilege its relacl
	// gives, which only superusers hold.
	restricted bool
}

type vcol struct {
	name string
	typ  types.Type
}

var virtualTables = map[string]*virtualTable{}

func registerVirtual(vt *virtualTable) { virtualTables[vt.schema+"."+vt.name] = vt }

// unservedSystemRelation is the error for a name that is one of PostgreSQL
// 15's system tables or views (pg_locks, pg_replication_slots, ...) that
// fickle has no rows for: 0A000 naming it, since PostgreSQL would answer,
// not 42P01. An unqualified name is pg_catalog's, as pg_catalog is
// searched first; nil for any other name.
func unservedSystemRelation(rv *pg_query.RangeVar) *pgerror.Error {
	schema := rv.Schemaname
	if schema == "" {
		schema = "pg_catalog"
	}
	r, ok := systemRelationNamed(schema, rv.Relname)
	if !ok {
		return nil
	}
	kind := "system table"
	if r.kind == relView {
		kind = "system view"
	}
	return pgerror.Unsupported(kind + " " + r.schema + "." + r.name)
}

// virtualTableFor returns the system table a name refers to, if any.
// pg_catalog is searched first unless the name is qualified otherwise.
func virtualTableFor(schema, name string, _ []string) *virtualTable {
	if schema == "" {
		schema = "pg_catalog"
	}
	return virtualTables[schema+"."+name]
}

func (b *binder) virtualItem(vt *virtualTable, alias string, a *pg_query.Alias) (*fromItem, []scopeCol, error) {
	cols := make([]scopeCol, len(vt.cols))
	for i, c := range vt.cols {
		cols[i] = scopeCol{rel: alias, name: c.name, typ: c.typ}
	}
	if err := applyColAliases(cols, a); err != nil {
		return nil, nil, err
	}
	if r, ok := systemRelationNamed(vt.schema, vt.name); ok && r.kind == relTable {
		cols = append(cols, scopeCol{rel: alias, name: "tableoid", typ: types.OidType, hidden: true, system: true, relOID: r.oid})
		if vt.read != nil || vt.restricted {
			b.requirePrivilege(r.oid, vt.name, "table", 'r')
		}
	}
	var use *columnUse
	if vt.unreadable != nil {
		use = trackedColumns(nil, len(vt.cols))
		use.track(cols)
	}
	colTypes := make([]types.Type, len(vt.cols))
	for i, c := range vt.cols {
		colTypes[i] = c.typ
	}
	// entry returns the rows as the statement sees them, with the
	// indexes made over them.
	entry := func(x *execCtx) (*systemRowsEntry, error) {
		c := x.systemCatalog
		if c == nil {
			c, _ = x.s.catalog()
		}
		if use != nil {
			for i, read := range use.used {
				if err := vt.unreadable(x.s, c, vt.cols[i].name); read && err != nil {
					return nil, err
				}
			}
		}
		// A statement reads a system table as often as a correlated
		// subquery or a join's inner side asks: its rows are made once
		// for each catalog the statement sees (and kept across
		// statements, catalog_rows_cache.go).
		key := virtualRowsKey{vt, c}
		if e, ok := x.memoGet(key); ok {
			return e.(*systemRowsEntry), nil
		}
		e := x.s.systemRows(vt, c, colTypes)
		if x.caches != nil {
			x.memoSet(key, e)
			if !e.kept { // a statement's own rows; the database's are kept already and shared
				e.kept = true
			}
		}
		return e, nil
	}
	it := &fromItem{name: alias, catalogTypes: colTypes, sub: func(x *execCtx) ([][]any, error) {
		if vt.read != nil {
			return vt.read(x)
		}
		e, err := entry(x)
		if err != nil {
			return nil, err
		}
		return e.rows, nil
	}}
	if vt.read == nil {
		it.catalogRows = entry
	}
	return it, cols, nil
}

// virtualRowsKey keys a system table's rows in a statement's memo.
type virtualRowsKey struct {
	vt  *virtualTable
	cat *catalog
}

// sortedTables returns the catalog's tables in OID order.
func sortedTables(c *catalog) []*tableDesc {
	ts := make([]*tableDesc, 0, len(c.tables))
	for _, t := range c.tables {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].oid < ts[j].oid })
	return ts
}

func sortedSchemas(c *catalog) []*schemaDesc {
	ss := make([]*schemaDesc, 0, len(c.schemas))
	for _, s := range c.schemas {
		ss = append(ss, s)
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].oid < ss[j].oid })
	return ss
}

func schemaOID(c *catalog, name string) int64 {
	if s := c.schemas[name]; s != nil {
		return int64(s.oid)
	}
	return 0
}

func init() {
	name, text, oid, i4, b := types.Name, types.Text, types.OidType, types.Int4, types.Bool
	textArray, _ := types.ArrayOf(types.Text)
	regtypeArray, _ := types.ArrayOf(types.Regtype)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_namespace",
		cols: []vcol{{"oid", oid}, {"nspname", name}, {"nspowner", oid}, {"nspacl", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			// initdb grants USAGE on pg_catalog and information_schema
			// to PUBLIC.
			systemACL := formatACL(s, []aclItem{{oidBootstrapSuperuser, oidBootstrapSuperuser, "UC"}, {0, oidBootstrapSuperuser, "U"}})
			out := [][]any{{int64(oidPgToast), "pg_toast", int64(10), nil}, {int64(oidPgCatalog), "pg_catalog", int64(10), systemACL},
				{int64(oidInfoSchema), "information_schema", int64(10), systemACL}}
			for _, sc := range sortedSchemas(c) {
				out = append(out, []any{int64(sc.oid), sc.name, int64(schemaOwner(sc)), aclText(s, c, aclSchema, sc.oid)})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_database",
		cols: []vcol{{"oid", oid}, {"datname", name}, {"datdba", oid}, {"encoding", i4}, {"datlocprovider", types.Char},
			{"datistemplate", b}, {"datallowconn", b}, {"datconnlimit", i4}, {"datfrozenxid", types.Type{Oid: types.OidXID, Typmod: -1}},
			{"datminmxid", types.Type{Oid: types.OidXID, Typmod: -1}}, {"dattablespace", oid}, {"datcollate", text},
			{"datctype", text}, {"daticulocale", text}, {"datcollversion", text}, {"datacl", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, e := range s.engine.cluster.databases() {
				out = append(out, []any{int64(e.oid), e.Name(), int64(e.owner()), int64(6), "c", isTemplateDatabase(e), e.allowConn, int64(-1),
					noTransactionID, noTransactionID, int64(1663), "C", "C", nil, nil, aclText(s, c, aclDatabase, e.oid)})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_cursors",
		cols: []vcol{{"name", text}, {"statement", text}, {"is_holdable", b}, {"is_binary", b}, {"is_scrollable", b}, {"creation_time", types.Timestamptz}},
		rows: func(s *Session, c *catalog) [][]any { return s.cursorRows() }})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_prepared_statements",
		cols: []vcol{{"name", text}, {"statement", text}, {"prepare_time", types.Timestamptz},
			{"parameter_types", regtypeArray}, {"from_sql", b}, {"generic_plans", types.Int8}, {"custom_plans", types.Int8}},
		rows: func(s *Session, c *catalog) [][]any { return s.preparedStatementRows() }})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_tables",
		cols: []vcol{{"schemaname", name}, {"tablename", name}, {"tableowner", name}, {"tablespace", name}, {"hasindexes", b},
			{"hasrules", b}, {"hastriggers", b}, {"rowsecurity", b}},
		rows: func(s *Session, c *catalog) [][]any {
			referenced := referencedTables(c)
			var out [][]any
			for _, t := range sortedTables(c) {
				if t.matview != nil || t.foreign != nil {
					continue // in pg_matviews, or no table
				}
				owner, _ := catalogNames{s: s}.roleName(relationOwner(c, aclTable, t.oid))
				out = append(out, []any{t.schema, t.name, unquoteIdent(owner), nil, len(t.indexes) > 0 || t.pk != nil, false,
					len(t.fks) > 0 || referenced[t.oid], t.rowSecurity})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_indexes",
		cols: []vcol{{"schemaname", name}, {"tablename", name}, {"indexname", name}, {"tablespace", name}, {"indexdef", types.Text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			add := func(t *tableDesc, ix uint32, ixName string) {
				def, _ := indexDefinition(s, c, ix, false)
				out = append(out, []any{t.schema, t.name, ixName, nil, def})
			}
			for _, t := range sortedTables(c) {
				if t.pk != nil && t.pkIndex == nil {
					add(t, primaryKeyIndexOID(t), t.pkName)
				}
				for _, ix := range t.indexes {
					add(t, ix.oid, ix.name)
				}
			}
			return out
		}})
}
