package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"sort"

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
}

type vcol struct {
	name string
	typ  types.Type
}

var virtualTables = map[string]*virtualTable{}

func registerVirtual(vt *virtualTable) { virtualTables[vt.schema+"."+vt.name] = vt }

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
	it := &fromItem{name: alias, sub: func(x *execCtx) ([][]any, error) {
		c, _ := x.s.catalog()
		return vt.rows(x.s, c), nil
	}}
	return it, cols, nil
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

// builtinTypeOIDs lists the types pg_type shows.
var builtinTypeOIDs = []types.Oid{types.OidBool, types.OidBytea, types.OidChar, types.OidName, types.OidInt8, types.OidInt2,
	types.OidInt4, types.OidText, types.OidOid, types.OidJSON, types.OidFloat4, types.OidFloat8, types.OidUnknown,
	types.OidBpchar, types.OidVarchar, types.OidDate, types.OidTimestamp, types.OidTimestamptz, types.OidInterval,
	types.OidNumeric, types.OidRegclass, types.OidUUID, types.OidJSONB}

func init() {
	name, text, oid, i2, i4, b := types.Name, types.Text, types.OidType, types.Int2, types.Int4, types.Bool
	textArray, _ := types.ArrayOf(types.Text)
	int2Array, _ := types.ArrayOf(types.Int2)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_namespace",
		cols: []vcol{{"oid", oid}, {"nspname", name}, {"nspowner", oid}, {"nspacl", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			out := [][]any{{int64(oidPgCatalog), "pg_catalog", int64(10), nil}, {int64(oidInfoSchema), "information_schema", int64(10), nil}}
			for _, sc := range sortedSchemas(c) {
				out = append(out, []any{int64(sc.oid), sc.name, int64(10), schemaACL(s, sc.name)})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_class",
		cols: []vcol{{"oid", oid}, {"relname", name}, {"relnamespace", oid}, {"relkind", types.Char}, {"relowner", oid},
			{"reltuples", types.Float4}, {"relhasindex", b}, {"relpersistence", types.Char}, {"relnatts", i2}, {"relispartition", b}, {"relam", oid},
			{"relchecks", i2}, {"relhasrules", b}, {"relhastriggers", b}, {"relrowsecurity", b}, {"relforcerowsecurity", b},
			{"reltablespace", oid}, {"reloftype", oid}, {"relreplident", types.Char}, {"reltoastrelid", oid}, {"relpartbound", text},
			{"relacl", textArray}, {"reloptions", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			// row is one relation; the columns after relam are those of a
			// relation without checks, rules, triggers, row security,
			// tablespace, type, TOAST table, partition bound, ACL or options,
			// with replica identity "default" (n for the others).
			row := func(oid uint32, name string, ns int64, kind string, tuples float64, hasIndex bool, natts int, am int64) []any {
				ident := "n"
				if kind == "r" {
					ident = "d"
				}
				return []any{int64(oid), name, ns, kind, int64(10), tuples, hasIndex, "p", int64(natts), false, am,
					int64(0), false, false, false, false, int64(0), int64(0), ident, int64(0), nil, nil, nil}
			}
			referenced := referencedTables(c)
			for _, t := range sortedTables(c) {
				r := row(t.oid, t.name, schemaOID(c, t.schema), "r", -1, len(t.indexes) > 0 || t.pk != nil, len(t.cols), 2)
				r[11] = int64(len(t.checks))
				r[13] = len(t.fks) > 0 || referenced[t.oid]
				out = append(out, r)
				if t.pk != nil && t.pkIndex == nil {
					out = append(out, row(primaryKeyIndexOID(t), t.pkName, schemaOID(c, t.schema), "i", 0, false, len(t.pk), 403))
				}
				for _, ix := range t.indexes {
					out = append(out, row(ix.oid, ix.name, schemaOID(c, t.schema), "i", 0, false, len(ix.cols), 403))
				}
			}
			for _, sc := range sortedSchemas(c) {
				names := make([]string, 0, len(sc.seqs))
				for n := range sc.seqs {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					q := sc.seqs[n]
					out = append(out, row(q.oid, q.name, int64(sc.oid), "S", 1, false, 3, 0))
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_attribute",
		cols: []vcol{{"attrelid", oid}, {"attname", name}, {"atttypid", oid}, {"attnum", i2}, {"attlen", i2}, {"atttypmod", i4},
			{"attnotnull", b}, {"atthasdef", b}, {"attisdropped", b}, {"attidentity", types.Char}, {"attgenerated", types.Char},
			{"attcollation", oid}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, col := range t.cols {
					ident := ""
					if col.identity != 0 {
						ident = string(col.identity)
					}
					_, hasDef := columnDefaultExpr(col)
					out = append(out, []any{int64(t.oid), col.name, int64(col.typ.Oid), int64(col.attnum), int64(col.typ.Size()), int64(col.typ.Typmod),
						col.notNull, hasDef, false, ident, "", typeCollation(col.typ.Oid)})
				}
				// An index's attributes are the columns it keys on, numbered
				// from 1 in key order, none with a default.
				indexAttrs := func(ix uint32, keys []int) {
					for i, k := range keys {
						col := t.cols[k]
						out = append(out, []any{int64(ix), col.name, int64(col.typ.Oid), int64(i + 1), int64(col.typ.Size()), int64(col.typ.Typmod),
							false, false, false, "", "", typeCollation(col.typ.Oid)})
					}
				}
				if t.pk != nil && t.pkIndex == nil {
					indexAttrs(primaryKeyIndexOID(t), t.pk)
				}
				for _, ix := range t.indexes {
					indexAttrs(ix.oid, ix.cols)
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_type",
		cols: []vcol{{"oid", oid}, {"typname", name}, {"typnamespace", oid}, {"typlen", i2}, {"typtype", types.Char},
			{"typcategory", types.Char}, {"typelem", oid}, {"typarray", oid}, {"typbasetype", oid}, {"typrelid", oid}, {"typnotnull", b},
			{"typcollation", oid}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, o := range builtinTypeOIDs {
				t, _ := types.TypeByOid(o)
				out = append(out, []any{int64(o), t.Name(), int64(oidPgCatalog), int64(t.Size()), "b", string(rune(t.Category())), int64(0), int64(types.ArrayTypeOid(o)), int64(0), int64(0), false, typeCollation(o)})
			}
			arrays := types.ArrayTypeOids()
			sort.Slice(arrays, func(i, j int) bool { return arrays[i] < arrays[j] })
			for _, o := range arrays {
				t, _ := types.TypeByOid(o)
				out = append(out, []any{int64(o), t.Name(), int64(oidPgCatalog), int64(t.Size()), "b", string(rune(t.Category())), int64(types.ElemTypeOid(o)), int64(0), int64(0), int64(0), false, typeCollation(o)})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_am",
		cols: []vcol{{"oid", oid}, {"amname", name}, {"amtype", types.Char}},
		rows: func(s *Session, c *catalog) [][]any {
			return [][]any{{int64(2), "heap", "t"}, {int64(403), "btree", "i"}, {int64(405), "hash", "i"}}
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_database",
		cols: []vcol{{"oid", oid}, {"datname", name}, {"datdba", oid}, {"encoding", i4}, {"datlocprovider", types.Char},
			{"datistemplate", b}, {"datallowconn", b}, {"datconnlimit", i4}, {"dattablespace", oid}, {"datcollate", text},
			{"datctype", text}, {"daticulocale", text}, {"datcollversion", text}, {"datacl", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, e := range s.engine.cluster.databases() {
				template := e.oid == oidTemplate0 || e.oid == oidTemplate1
				var acl any
				if template {
					// initdb revokes CONNECT on the templates from PUBLIC
					// for template0 and grants it for template1; both
					// list the owner's rights explicitly.
					u := s.user()
					acl = []any{"=c/" + u, u + "=CTc/" + u}
				}
				out = append(out, []any{int64(e.oid), e.Name(), int64(10), int64(6), "c", template, e.allowConn, int64(-1),
					int64(1663), "C", "C", nil, nil, acl})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_cursors",
		cols: []vcol{{"name", text}, {"statement", text}, {"is_holdable", b}, {"is_binary", b}, {"is_scrollable", b}, {"creation_time", types.Timestamptz}},
		rows: func(s *Session, c *catalog) [][]any { return s.cursorRows() }})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_roles",
		cols: []vcol{{"oid", oid}, {"rolname", name}, {"rolsuper", b}, {"rolinherit", b}, {"rolcreaterole", b}, {"rolcreatedb", b},
			{"rolcanlogin", b}, {"rolreplication", b}, {"rolconnlimit", i4}, {"rolvaliduntil", types.Timestamptz}, {"rolbypassrls", b}},
		rows: func(s *Session, c *catalog) [][]any {
			// The one role is the session's user, a superuser like initdb's.
			return [][]any{{int64(10), s.user(), true, true, true, true, true, true, int64(-1), nil, true}}
		}})
	// fickle has one role, so no role is a member of another.
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_auth_members",
		cols: []vcol{{"roleid", oid}, {"member", oid}, {"grantor", oid}, {"admin_option", b}},
		rows: func(s *Session, c *catalog) [][]any { return nil }})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_settings",
		cols: []vcol{{"name", text}, {"setting", text}},
		rows: func(s *Session, c *catalog) [][]any {
			names := make([]string, 0, len(settingDefs))
			for k := range settingDefs {
				names = append(names, k)
			}
			sort.Strings(names)
			var out [][]any
			for _, k := range names {
				v, _ := s.settings.get(k)
				out = append(out, []any{settingDefs[k].name, v})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_tables",
		cols: []vcol{{"schemaname", name}, {"tablename", name}, {"tableowner", name}, {"hasindexes", b}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				out = append(out, []any{t.schema, t.name, s.user(), len(t.indexes) > 0 || t.pk != nil})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_index",
		cols: []vcol{{"indexrelid", oid}, {"indrelid", oid}, {"indisunique", b}, {"indisprimary", b}, {"indisclustered", b},
			{"indisvalid", b}, {"indisreplident", b}, {"indnatts", i2}, {"indkey", int2Array}, {"indnkeyatts", i2},
			{"indimmediate", b}, {"indnullsnotdistinct", b}, {"indpred", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				if t.pk != nil {
					out = append(out, []any{int64(primaryKeyIndexOID(t)), int64(t.oid), true, true, false, true, false, int64(len(t.pk)), attnums(t, t.pk),
						int64(len(t.pk)), true, false, nil})
				}
				for _, ix := range t.indexes {
					if ix == t.pkIndex {
						continue
					}
					out = append(out, []any{int64(ix.oid), int64(t.oid), ix.unique, false, false, true, false, int64(len(ix.cols)), attnums(t, ix.cols),
						int64(len(ix.cols)), true, false, nil})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "tables",
		cols: []vcol{{"table_catalog", name}, {"table_schema", name}, {"table_name", name}, {"table_type", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				out = append(out, []any{s.database(), t.schema, t.name, "BASE TABLE"})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "columns",
		cols: []vcol{{"table_catalog", name}, {"table_schema", name}, {"table_name", name}, {"column_name", name},
			{"ordinal_position", i4}, {"column_default", text}, {"is_nullable", text}, {"data_type", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				for i, col := range t.cols {
					nullable := "YES"
					if col.notNull {
						nullable = "NO"
					}
					var def any
					if col.def != nil {
						def = deparseExpr(col.def)
					}
					out = append(out, []any{s.database(), t.schema, t.name, col.name, int64(i + 1), def, nullable, types.FormatType(types.Type{Oid: col.typ.Oid, Typmod: -1})})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "schemata",
		cols: []vcol{{"catalog_name", name}, {"schema_name", name}, {"schema_owner", name}},
		rows: func(s *Session, c *catalog) [][]any {
			out := [][]any{{s.database(), "pg_catalog", s.user()}, {s.database(), "information_schema", s.user()}}
			for _, sc := range sortedSchemas(c) {
				out = append(out, []any{s.database(), sc.name, s.user()})
			}
			return out
		}})
}

// schemaACL is pg_namespace.nspacl: NULL (the owner's default privileges)
// except for public, which PostgreSQL 15 creates granting USAGE to everyone.
// fickle's one role owns every schema, so it stands where PostgreSQL names
// pg_database_owner.
func schemaACL(s *Session, schema string) any {
	if schema != "public" {
		return nil
	}
	u := s.user()
	return []any{u + "=UC/" + u, "=U/" + u}
}
