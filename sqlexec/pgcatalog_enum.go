package sqlexec

import "github.com/fickle-db/fickle/sqlexec/types"

// pg_enum lists the labels of enum types. fickle has no enum types (CREATE
// TYPE ... AS ENUM is 0A000), so it is empty; drivers join it when they
// reflect types (SQLAlchemy's dialect reads it on every reflection).
func init() {
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_enum",
		cols: []vcol{{"oid", types.OidType}, {"enumtypid", types.OidType}, {"enumsortorder", types.Float4}, {"enumlabel", types.Name}},
		rows: func(*Session, *catalog) [][]any { return nil }})
}
