package sqlexec

import (
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// Collation OIDs of PostgreSQL 15: the database default, which text-like
// columns carry, and "C", which name carries.
const (
	oidDefaultCollation = 100
	oidCCollation       = 950
	oidPOSIXCollation   = 951
)

// oidPlpgsqlExt is plpgsql's pg_extension row, which PostgreSQL 15's
// initdb creates.
const oidPlpgsqlExt = 13559

// typeCollation is pg_type.typcollation (and a column's attcollation): the
// collation PostgreSQL gives a collatable type, 0 for the others.
func typeCollation(o types.Oid) int64 {
	switch o {
	case types.OidText, types.OidVarchar, types.OidBpchar:
		return oidDefaultCollation
	case types.OidName:
		return oidCCollation
	}
	t := types.Type{Oid: o, Typmod: -1}
	if e, ok := t.Elem(); t.IsCitext() || ok && e.IsCitext() {
		return oidDefaultCollation
	}
	if e := types.ElemTypeOid(o); e != 0 {
		return typeCollation(e)
	}
	return 0
}

// columnCollationOid is the attcollation of a column of type typ declared
// with collation coll: the collation coll names, its type's for "" or when
// the type has none.
func columnCollationOid(typ types.Type, coll string) int64 {
	oid := typeCollation(typ.Oid)
	if c, ok := collationOIDs[coll]; ok && oid != 0 {
		return c
	}
	return oid
}

// storedDefault is pg_attrdef.adbin: the DEFAULT or generation
// expression, coerced to the column's type, in the form decompile reads
// (storedCoercion).
// Identity columns have no pg_attrdef row (their sequence is not a default
// in PostgreSQL), so they return ok false.
func storedDefault(col *columnDesc) (string, bool) {
	to := col.typ.Oid
	if col.domain != 0 {
		to = types.Oid(col.domain) // a value of the domain needs no coercion
	}
	if col.generated != nil {
		return storedCoercion(to, deparseExpr(col.generated)), true
	}
	if col.def == nil || col.identity != 0 {
		return "", false
	}
	return storedCoercion(to, deparseExpr(col.def)), true
}

// stringConst returns the value of a string literal node.
func stringConst(n *pg_query.Node) (string, bool) {
	if c := n.GetAConst(); c != nil && !c.Isnull {
		if sv := c.GetSval(); sv != nil {
			return sv.Sval, true
		}
	}
	return "", false
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// referencedTables returns the OIDs of tables some foreign key refers to:
// PostgreSQL puts internal triggers on both ends of a foreign key, so
// pg_class.relhastriggers is true for them.
func referencedTables(c *catalog) map[uint32]bool {
	out := map[uint32]bool{}
	for _, t := range c.tables {
		for _, fk := range t.fks {
			out[fk.refTable] = true
		}
	}
	return out
}

func init() {
	name, oid, i2, b, text := types.Name, types.OidType, types.Int2, types.Bool, types.Text
	charArray, _ := types.ArrayOf(types.Char)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_collation",
		cols: []vcol{{"oid", oid}, {"collname", name}, {"collnamespace", oid}, {"collowner", oid}, {"collprovider", types.Char},
			{"collisdeterministic", b}, {"collencoding", types.Int4}, {"collcollate", text}, {"collctype", text},
			{"colliculocale", text}, {"collversion", text}},
		rows: func(s *Session, c *catalog) [][]any {
			return append([][]any{{int64(oidDefaultCollation), "default", int64(oidPgCatalog), int64(oidBootstrapSuperuser), "d", true, int64(-1), nil, nil, nil, nil},
				{int64(oidCCollation), "C", int64(oidPgCatalog), int64(oidBootstrapSuperuser), "c", true, int64(-1), "C", "C", nil, nil},
				{int64(oidPOSIXCollation), "POSIX", int64(oidPgCatalog), int64(oidBootstrapSuperuser), "c", true, int64(-1), "POSIX", "POSIX", nil, nil}},
				userCollationRows(c)...)
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_sequence",
		cols: []vcol{{"seqrelid", oid}, {"seqtypid", oid}, {"seqstart", types.Int8}, {"seqincrement", types.Int8},
			{"seqmax", types.Int8}, {"seqmin", types.Int8}, {"seqcache", types.Int8}, {"seqcycle", b}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, sc := range sortedSchemas(c) {
				for _, q := range sc.seqs {
					out = append(out, []any{int64(q.oid), int64(q.typ), q.start, q.increment, q.max, q.min, q.cache, q.cycle})
				}
			}
			sort.Slice(out, func(i, j int) bool { return out[i][0].(int64) < out[j][0].(int64) })
			return out
		}})
	// pg_depend holds the dependencies psql and pg_dump read that fickle
	// tracks: an extension's functions on it, a sequence owned by a column, 'i' for an identity column's
	// and 'a' (auto) for a serial's or OWNED BY's; a column default on its
	// column and the sequences its nextval calls name (pg_dump dumps a
	// serial's default apart from its table for them); a view's rule on
	// its view and on the relations the view reads (dependencyRows).
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_depend",
		cols: []vcol{{"classid", oid}, {"objid", oid}, {"objsubid", types.Int4}, {"refclassid", oid}, {"refobjid", oid},
			{"refobjsubid", types.Int4}, {"deptype", types.Char}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, sc := range sortedSchemas(c) {
				for _, q := range sc.seqs {
					table, attnum := q.owner()
					t := c.tables[table]
					if t == nil {
						continue
					}
					kind := "a"
					for _, col := range t.cols {
						if col.attnum == attnum && col.identity != 0 {
							kind = "i"
						}
					}
					out = append(out, []any{int64(oidPgClass), int64(q.oid), int64(0), int64(oidPgClass), int64(table), int64(attnum), kind})
				}
			}
			out = append(out, dependencyRows(s, c)...)
			out = append(out, typeDependencyRows(c)...)
			// An extension's functions are its members ('e'): pg_dump
			// leaves them to CREATE EXTENSION.
			for _, sc := range c.schemas {
				for _, fs := range sc.funcs {
					for _, f := range fs {
						if f.extension != 0 {
							out = append(out, []any{int64(oidPgProc), int64(f.oid), int64(0), int64(oidPgExtensionClass), int64(f.extension), int64(0), "e"})
						}
					}
				}
			}
			out = append(out, extensionMemberRows(c)...)
			out = append(out, operatorDependencyRows(c)...)
			out = append(out, opclassDependencyRows(c)...)
			out = append(out, opclassUseDependencyRows(c)...)
			sort.Slice(out, func(i, j int) bool { return out[i][1].(int64) < out[j][1].(int64) })
			return out
		}})
	// adbin holds the expression's SQL text, which pg_get_expr decompiles.
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_attrdef",
		cols: []vcol{{"oid", oid}, {"adrelid", oid}, {"adnum", i2}, {"adbin", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, col := range t.cols {
					if expr, ok := storedDefault(col); ok {
						// The default has no OID of its own in fickle; the
						// column's position under the table's keeps it unique.
						out = append(out, []any{int64(t.oid)<<16 | int64(col.attnum), int64(t.oid), int64(col.attnum), expr})
					}
				}
			}
			return out
		}})
	// Extended statistics objects (ddl_statistics.go); stxexprs holds the
	// expressions' SQL text, which pg_get_expr decompiles.
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_statistic_ext",
		cols: []vcol{{"oid", oid}, {"stxrelid", oid}, {"stxname", name}, {"stxnamespace", oid}, {"stxowner", oid},
			{"stxstattarget", types.Int4}, {"stxkeys", types.Int2Vector}, {"stxkind", charArray}, {"stxexprs", text}},
		rows: func(s *Session, c *catalog) [][]any { return statsExtRows(c) }})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_trigger",
		cols: []vcol{{"oid", oid}, {"tgrelid", oid}, {"tgparentid", oid}, {"tgname", name}, {"tgfoid", oid}, {"tgtype", types.Int2},
			{"tgenabled", types.Char}, {"tgisinternal", b}, {"tgconstrrelid", oid}, {"tgconstrindid", oid}, {"tgconstraint", oid},
			{"tgdeferrable", b}, {"tginitdeferred", b}, {"tgnargs", types.Int2}, {"tgattr", types.Int2Vector},
			{"tgargs", types.Bytea}, {"tgqual", text}, {"tgoldtable", name}, {"tgnewtable", name}},
		rows: func(s *Session, c *catalog) [][]any { return triggerRows(c) }})
	// The languages of PostgreSQL 15's initdb (pg_extension: extensions.go).
	textArray, _ := types.ArrayOf(types.Text)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_language",
		cols: []vcol{{"oid", oid}, {"lanname", name}, {"lanowner", oid}, {"lanispl", b}, {"lanpltrusted", b},
			{"lanplcallfoid", oid}, {"laninline", oid}, {"lanvalidator", oid}, {"lanacl", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			return [][]any{{int64(12), "internal", int64(10), false, false, int64(0), int64(0), int64(2246), nil},
				{int64(13), "c", int64(10), false, false, int64(0), int64(0), int64(2247), nil},
				{int64(14), "sql", int64(10), false, true, int64(0), int64(0), int64(2248), nil},
				{int64(13563), "plpgsql", int64(10), true, true, int64(13560), int64(13561), int64(13562), nil}}
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_inherits",
		cols: []vcol{{"inhrelid", oid}, {"inhparent", oid}, {"inhseqno", types.Int4}, {"inhdetachpending", b}},
		rows: func(s *Session, c *catalog) [][]any { return inheritsRows(c) }})
}
