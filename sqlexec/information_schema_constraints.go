package sqlexec

import (
	"strconv"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// information_schema's constraint views: table_constraints (NOT NULL
// columns included, as CHECK constraints named PostgreSQL's way),
// key_column_usage, constraint_column_usage, referential_constraints and
// check_constraints.

// fkRules are the update_rule and delete_rule of each FK action.
var fkRules = map[byte]string{fkNoAction: "NO ACTION", fkRestrict: "RESTRICT", fkCascade: "CASCADE", fkSetNull: "SET NULL", fkDefault: "SET DEFAULT"}

// notNullName is the name PostgreSQL's information_schema gives a NOT NULL
// column's constraint.
func notNullName(c *catalog, t *tableDesc, col *columnDesc) string {
	return strconv.FormatInt(schemaOID(c, t.schema), 10) + "_" + strconv.FormatUint(uint64(t.oid), 10) + "_" +
		strconv.Itoa(int(col.attnum)) + "_not_null"
}

func init() {
	registerVirtual(&virtualTable{schema: "information_schema", name: "table_constraints",
		cols: []vcol{{"constraint_catalog", isIdent}, {"constraint_schema", isIdent}, {"constraint_name", isIdent},
			{"table_catalog", isIdent}, {"table_schema", isIdent}, {"table_name", isIdent}, {"constraint_type", isChars},
			{"is_deferrable", isYesNo}, {"initially_deferred", isYesNo}, {"enforced", isYesNo}, {"nulls_distinct", isYesNo}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			kinds := map[byte]string{'p': "PRIMARY KEY", 'u': "UNIQUE", 'f': "FOREIGN KEY", 'c': "CHECK"}
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, r := range tableConstraints(c, t) {
					if r.kind == 't' || r.kind == 'x' {
						continue // constraint triggers and exclusion constraints are not SQL's table constraints
					}
					var distinct any
					if r.kind == 'u' {
						distinct = "YES"
					}
					out = append(out, []any{db, t.schema, r.name, db, t.schema, t.name, kinds[r.kind], "NO", "NO", "YES", distinct})
				}
				for _, col := range t.cols {
					if col.notNull {
						out = append(out, []any{db, t.schema, notNullName(c, t, col), db, t.schema, t.name, "CHECK", "NO", "NO", "YES", nil})
					}
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "key_column_usage",
		cols: []vcol{{"constraint_catalog", isIdent}, {"constraint_schema", isIdent}, {"constraint_name", isIdent},
			{"table_catalog", isIdent}, {"table_schema", isIdent}, {"table_name", isIdent}, {"column_name", isIdent},
			{"ordinal_position", isCard}, {"position_in_unique_constraint", isCard}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, r := range tableConstraints(c, t) {
					if r.kind == 'c' || r.kind == 'x' {
						continue
					}
					for i, k := range r.cols {
						var inUnique any
						if r.kind == 'f' {
							inUnique = int64(i + 1)
						}
						out = append(out, []any{db, t.schema, r.name, db, t.schema, t.name, t.cols[k].name, int64(i + 1), inUnique})
					}
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "constraint_column_usage",
		cols: []vcol{{"table_catalog", isIdent}, {"table_schema", isIdent}, {"table_name", isIdent}, {"column_name", isIdent},
			{"constraint_catalog", isIdent}, {"constraint_schema", isIdent}, {"constraint_name", isIdent}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, r := range tableConstraints(c, t) {
					if r.kind == 'x' {
						continue // not a key, a foreign key or a check: PostgreSQL's view leaves it out
					}
					owner, cols := t, r.cols
					if r.kind == 'f' {
						owner, cols = c.tables[r.refTable], r.refCols
					}
					for _, k := range cols {
						out = append(out, []any{db, owner.schema, owner.name, owner.cols[k].name, db, t.schema, r.name})
					}
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "referential_constraints",
		cols: []vcol{{"constraint_catalog", isIdent}, {"constraint_schema", isIdent}, {"constraint_name", isIdent},
			{"unique_constraint_catalog", isIdent}, {"unique_constraint_schema", isIdent}, {"unique_constraint_name", isIdent},
			{"match_option", isChars}, {"update_rule", isChars}, {"delete_rule", isChars}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, r := range tableConstraints(c, t) {
					if r.kind != 'f' {
						continue
					}
					ref := c.tables[r.refTable]
					var uniqueName any
					for _, u := range tableConstraints(c, ref) {
						if (u.kind == 'p' || u.kind == 'u') && u.index == r.index {
							uniqueName = u.name
						}
					}
					match := "NONE"
					if r.fk.matchFull {
						match = "FULL"
					}
					out = append(out, []any{db, t.schema, r.name, db, ref.schema, uniqueName, match, fkRules[r.onUpdate], fkRules[r.onDelete]})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "check_constraints",
		cols: []vcol{{"constraint_catalog", isIdent}, {"constraint_schema", isIdent}, {"constraint_name", isIdent},
			{"check_clause", isChars}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, r := range tableConstraints(c, t) {
					if r.check != nil {
						out = append(out, []any{db, t.schema, r.name, "(" + decompile(s, c, r.check.text, t.oid, false) + ")"})
					}
				}
				for _, col := range t.cols {
					if col.notNull {
						out = append(out, []any{db, t.schema, notNullName(c, t, col), types.QuoteIdent(col.name) + " IS NOT NULL"})
					}
				}
			}
			return out
		}})
}
