package sqlexec

import (
	"strconv"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The views that describe sequences: pg_sequences and
// information_schema.sequences, over every sequence of the catalog in
// pg_class's order. Relations belong to the bootstrap superuser (as
// pg_class.relowner says).

// sortedSequences lists the catalog's sequences as pg_class does.
func sortedSequences(c *catalog) []*sequence {
	var out []*sequence
	for _, r := range relationRows(c) {
		if r.kind == "S" {
			schema, name, _ := relationByOid(c, int64(r.oid))
			out = append(out, c.schemas[schema].seqs[name])
		}
	}
	return out
}

func init() {
	name, i8 := types.Name, types.Int8
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_sequences",
		cols: []vcol{{"schemaname", name}, {"sequencename", name}, {"sequenceowner", name}, {"data_type", types.Regtype},
			{"start_value", i8}, {"min_value", i8}, {"max_value", i8}, {"increment_by", i8}, {"cycle", types.Bool},
			{"cache_size", i8}, {"last_value", i8}},
		rows: func(s *Session, c *catalog) [][]any {
			owner, _ := catalogNames{s: s}.roleName(oidBootstrapSuperuser)
			var out [][]any
			for _, q := range sortedSequences(c) {
				var last any
				if v, called := q.state(); called {
					last = v
				}
				out = append(out, []any{q.schema, q.name, unquoteIdent(owner), int64(q.typ), q.start, q.min, q.max, q.increment,
					q.cycle, q.cache, last})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "sequences",
		cols: []vcol{{"sequence_catalog", isIdent}, {"sequence_schema", isIdent}, {"sequence_name", isIdent},
			{"data_type", isChars}, {"numeric_precision", isCard}, {"numeric_precision_radix", isCard},
			{"numeric_scale", isCard}, {"start_value", isChars}, {"minimum_value", isChars}, {"maximum_value", isChars},
			{"increment", isChars}, {"cycle_option", isYesNo}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
			var out [][]any
			for _, q := range sortedSequences(c) {
				if c.identityTable(q) != nil {
					continue // an identity column's sequence is internal, as in PostgreSQL
				}
				f := typeFacts(s, types.Type{Oid: q.typ, Typmod: -1})
				out = append(out, []any{db, q.schema, q.name, f.dataType, f.numPrecision, f.numRadix, f.numScale,
					itoa(q.start), itoa(q.min), itoa(q.max), itoa(q.increment), yesNo(q.cycle)})
			}
			return out
		}})
}
