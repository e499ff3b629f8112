package sqlexec

import (
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pg_aggregate: PostgreSQL's rows for its built-in aggregates, then a row
// for each user aggregate (CREATE AGGREGATE), which pg_dump reads to dump
// one.
func init() {
	oid, regproc, ch, b, i2, i4, text := types.OidType, types.Regproc, types.Char, types.Bool, types.Int2, types.Int4, types.Text
	cols := []vcol{{"aggfnoid", regproc}, {"aggkind", ch}, {"aggnumdirectargs", i2}, {"aggtransfn", regproc},
		{"aggfinalfn", regproc}, {"aggcombinefn", regproc}, {"aggserialfn", regproc}, {"aggdeserialfn", regproc},
		{"aggmtransfn", regproc}, {"aggminvtransfn", regproc}, {"aggmfinalfn", regproc}, {"aggfinalextra", b},
		{"aggmfinalextra", b}, {"aggfinalmodify", ch}, {"aggmfinalmodify", ch}, {"aggsortop", oid}, {"aggtranstype", oid},
		{"aggtransspace", i4}, {"aggmtranstype", oid}, {"aggmtransspace", i4}, {"agginitval", text}, {"aggminitval", text}}
	builtins := builtinRows(pgdata.PgAggregate, cols)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_aggregate", cols: cols,
		rows: func(s *Session, c *catalog) [][]any {
			out := append([][]any(nil), builtins()...)
			for _, f := range sortedFuncs(c) {
				if a := f.agg; a != nil {
					var initval any
					if a.initcond != nil {
						initval = *a.initcond
					}
					// CREATE AGGREGATE's defaults: a normal aggregate whose
					// final function only reads its state (FINALFUNC_MODIFY
					// = READ_ONLY), without a moving-aggregate form.
					out = append(out, []any{int64(f.oid), "n", int64(0), int64(a.sfuncOID), int64(a.finalOID),
						int64(a.combineOID), int64(0), int64(0), int64(0), int64(0), int64(0), false, false, "r", "r",
						int64(0), int64(a.stype.Oid), int64(0), int64(0), int64(0), initval, nil})
				}
			}
			return out
		}})
}
