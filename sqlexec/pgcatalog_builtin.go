package sqlexec

import (
	"sync"

	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The pg_catalog tables whose rows are PostgreSQL 15's built-in objects
// (package pgdata), with fickle's own objects after them: pg_type lists
// every built-in type and each table's row type and its array, as
// CREATE TABLE adds them; pg_proc, pg_operator and pg_range list the
// built-in functions, operators and range types, and pg_proc the user's
// routines after them (functions_catalog.go). Each table and view has its row type and the row type's array.

// The functions a table's row type and its array type read and write
// with, as PostgreSQL gives them.
const (
	oidRecordIn, oidRecordOut, oidRecordRecv, oidRecordSend = 2290, 2291, 2402, 2403
	oidArrayIn, oidArrayOut, oidArrayRecv, oidArraySend     = 750, 751, 2400, 2401
	oidArrayTypanalyze                                      = 3816
)

func init() {
	oid, name, b, ch, i2, i4, text := types.OidType, types.Name, types.Bool, types.Char, types.Int2, types.Int4, types.Text
	regproc := types.Regproc
	textArray, _ := types.ArrayOf(types.Text)
	oidArray, _ := types.ArrayOf(types.OidType)
	charArray, _ := types.ArrayOf(types.Char)

	typeCols := []vcol{{"oid", oid}, {"typname", name}, {"typnamespace", oid}, {"typowner", oid}, {"typlen", i2}, {"typbyval", b},
		{"typtype", ch}, {"typcategory", ch}, {"typispreferred", b}, {"typisdefined", b}, {"typdelim", ch}, {"typrelid", oid},
		{"typsubscript", regproc}, {"typelem", oid}, {"typarray", oid}, {"typinput", regproc}, {"typoutput", regproc},
		{"typreceive", regproc}, {"typsend", regproc}, {"typmodin", regproc}, {"typmodout", regproc}, {"typanalyze", regproc},
		{"typalign", ch}, {"typstorage", ch}, {"typnotnull", b}, {"typbasetype", oid}, {"typtypmod", i4}, {"typndims", i4},
		{"typcollation", oid}, {"typdefaultbin", text}, {"typdefault", text}, {"typacl", textArray}}
	builtinTypes := builtinRows(pgdata.PgType, typeCols)
	builtinTypeRow := sync.OnceValue(func() map[uint32][]any {
		byOID := map[uint32][]any{}
		for _, r := range builtinTypes() {
			byOID[uint32(r[0].(int64))] = r
		}
		return byOID
	})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_type", cols: typeCols,
		rows: func(s *Session, c *catalog) [][]any {
			out := append([][]any(nil), builtinTypes()...)
			rowTypes := map[uint32][]any{} // by pg_type OID, for domains over them
			for _, t := range rowTypeRelations(c) {
				row := int64(t.typ)
				arrayName := "_" + t.name
				if tab := c.tables[t.oid]; tab != nil {
					arrayName = arrayTypeName(tab)
				}
				owner := int64(relationOwner(c, aclTable, t.oid)) // a row type is its relation's owner's
				out = append(out,
					[]any{row, t.name, schemaOID(c, t.schema), owner, int64(-1), false, "c", "C", false, true, ",",
						int64(t.oid), int64(0), int64(0), int64(t.array), int64(oidRecordIn), int64(oidRecordOut), int64(oidRecordRecv),
						int64(oidRecordSend), int64(0), int64(0), int64(0), "d", "x", false, int64(0), int64(-1), int64(0), int64(0), nil, nil, nil},
					[]any{int64(t.array), arrayName, schemaOID(c, t.schema), owner, int64(-1), false, "b", "A", false, true, ",",
						int64(0), int64(arraySubscriptHandler), row, int64(0), int64(oidArrayIn), int64(oidArrayOut), int64(oidArrayRecv),
						int64(oidArraySend), int64(0), int64(0), int64(oidArrayTypanalyze), "d", "x", false, int64(0), int64(-1), int64(0),
						int64(0), nil, nil, nil})
				rowTypes[uint32(row)] = out[len(out)-2]
			}
			return append(out, userTypeRows(s, c, func(oid uint32) []any {
				if r := builtinTypeRow()[oid]; r != nil {
					return r
				}
				if t, array := c.tableOfRowType(oid); t != nil && !array {
					return rowTypes[t.rowType]
				}
				return nil
			})...)
		}})

	procCols := []vcol{{"oid", oid}, {"proname", name}, {"pronamespace", oid}, {"proowner", oid}, {"prolang", oid},
		{"procost", types.Float4}, {"prorows", types.Float4}, {"provariadic", oid}, {"prosupport", regproc}, {"prokind", ch},
		{"prosecdef", b}, {"proleakproof", b}, {"proisstrict", b}, {"proretset", b}, {"provolatile", ch}, {"proparallel", ch},
		{"pronargs", i2}, {"pronargdefaults", i2}, {"prorettype", oid}, {"proargtypes", types.OidVector},
		{"proallargtypes", oidArray}, {"proargmodes", charArray}, {"proargnames", textArray}, {"proargdefaults", text},
		{"protrftypes", oidArray}, {"prosrc", text}, {"probin", text}, {"prosqlbody", text}, {"proconfig", textArray},
		{"proacl", textArray}}
	builtinProcs := builtinRows(pgdata.PgProc, procCols)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_proc", cols: procCols,
		rows: func(s *Session, c *catalog) [][]any {
			return append(withBuiltinProcACLs(s, c, builtinProcs()), userProcRows(s, c)...)
		}})

	operCols := []vcol{{"oid", oid}, {"oprname", name}, {"oprnamespace", oid}, {"oprowner", oid}, {"oprkind", ch},
		{"oprcanmerge", b}, {"oprcanhash", b}, {"oprleft", oid}, {"oprright", oid}, {"oprresult", oid}, {"oprcom", oid},
		{"oprnegate", oid}, {"oprcode", regproc}, {"oprrest", regproc}, {"oprjoin", regproc}}
	builtinOpers := builtinRows(pgdata.PgOperator, operCols)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_operator", cols: operCols,
		rows: func(s *Session, c *catalog) [][]any { return append(builtinOpers(), extensionOperatorRows(c)...) }})

	rangeCols := []vcol{{"rngtypid", oid}, {"rngsubtype", oid}, {"rngmultitypid", oid}, {"rngcollation", oid},
		{"rngsubopc", oid}, {"rngcanonical", regproc}, {"rngsubdiff", regproc}}
	builtinRanges := builtinRows(pgdata.PgRange, rangeCols)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_range", cols: rangeCols,
		rows: func(s *Session, c *catalog) [][]any { return append(builtinRanges(), userRangeRows(c)...) }})
}
