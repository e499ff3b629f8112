package sqlexec

import (
	"strings"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The cumulative statistics views of tables and indexes. fickle keeps no
// statistics and says so: track_counts is off (settings.go), and with it
// off PostgreSQL's views list every table and index with zero counts and
// no times, which is what these show. Schema tools read them for the
// names (Drizzle Kit lists indexes from pg_stat_user_indexes). The system
// catalogs are in pg_stat_all_tables and pg_stat_sys_tables; their indexes
// and TOAST tables, which fickle's pg_class does not list either, are in
// none.

// statTable is a table as the statistics views list it.
type statTable struct {
	t       *tableDesc
	indexes []statIndex
}

// statIndex is an index of a table: its OID and name.
type statIndex struct {
	oid  uint32
	name string
}

// statTables returns the tables the statistics views list (relkind r, m
// and, for the tables' views, p) with their indexes, in OID order.
func statTables(c *catalog, partitioned bool) []statTable {
	var out []statTable
	for _, t := range sortedTables(c) {
		if t.part != nil && !partitioned || t.foreign != nil {
			continue
		}
		st := statTable{t: t}
		if t.pk != nil && t.pkIndex == nil {
			st.indexes = append(st.indexes, statIndex{primaryKeyIndexOID(t), t.pkName})
		}
		for _, ix := range t.indexes {
			st.indexes = append(st.indexes, statIndex{ix.oid, ix.name})
		}
		out = append(out, st)
	}
	return out
}

// userSchema reports whether the statistics views' _user_ variants list
// the relations of schema (their _sys_ variants list the others).
func userSchema(schema string) bool {
	return schema != "pg_catalog" && schema != "information_schema" && !strings.HasPrefix(schema, "pg_toast")
}

func init() {
	oid, name, i8, tz := types.OidType, types.Name, types.Int8, types.Timestamptz
	zero := int64(0)
	tableCols := []vcol{{"relid", oid}, {"schemaname", name}, {"relname", name}, {"seq_scan", i8}, {"seq_tup_read", i8},
		{"idx_scan", i8}, {"idx_tup_fetch", i8}, {"n_tup_ins", i8}, {"n_tup_upd", i8}, {"n_tup_del", i8},
		{"n_tup_hot_upd", i8}, {"n_live_tup", i8}, {"n_dead_tup", i8}, {"n_mod_since_analyze", i8},
		{"n_ins_since_vacuum", i8}, {"last_vacuum", tz}, {"last_autovacuum", tz}, {"last_analyze", tz},
		{"last_autoanalyze", tz}, {"vacuum_count", i8}, {"autovacuum_count", i8}, {"analyze_count", i8},
		{"autoanalyze_count", i8}}
	tableRow := func(oid uint32, schema, name string, indexed bool) []any {
		var idx any // sum() over no index is NULL
		if indexed {
			idx = zero
		}
		return []any{int64(oid), schema, name, zero, zero, idx, idx, zero, zero, zero, zero, zero, zero,
			zero, zero, nil, nil, nil, nil, zero, zero, zero, zero}
	}
	ioTableCols := []vcol{{"relid", oid}, {"schemaname", name}, {"relname", name}, {"heap_blks_read", i8},
		{"heap_blks_hit", i8}, {"idx_blks_read", i8}, {"idx_blks_hit", i8}, {"toast_blks_read", i8},
		{"toast_blks_hit", i8}, {"tidx_blks_read", i8}, {"tidx_blks_hit", i8}}
	ioTableRow := func(st statTable) []any {
		var idx any
		if len(st.indexes) > 0 {
			idx = zero
		}
		var toast any
		if toastRelationRows(st.t) != nil {
			toast = zero
		}
		return []any{int64(st.t.oid), st.t.schema, st.t.name, zero, zero, idx, idx, toast, toast, toast, toast}
	}
	indexCols := []vcol{{"relid", oid}, {"indexrelid", oid}, {"schemaname", name}, {"relname", name},
		{"indexrelname", name}, {"idx_scan", i8}, {"idx_tup_read", i8}, {"idx_tup_fetch", i8}}
	ioIndexCols := []vcol{{"relid", oid}, {"indexrelid", oid}, {"schemaname", name}, {"relname", name},
		{"indexrelname", name}, {"idx_blks_read", i8}, {"idx_blks_hit", i8}}

	// Each view comes in _all_, _user_ and _sys_ variants.
	variants := []struct {
		suffix string
		keep   func(schema string) bool
	}{
		{"all", func(string) bool { return true }},
		{"user", userSchema},
		{"sys", func(schema string) bool { return !userSchema(schema) }},
	}
	for _, v := range variants {
		keep := v.keep
		registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_stat_" + v.suffix + "_tables", cols: tableCols,
			rows: func(s *Session, c *catalog) [][]any {
				var out [][]any
				for _, r := range systemRelations().ordered {
					if r.row.kind == "r" && keep(r.schema) {
						out = append(out, tableRow(r.oid, r.schema, r.name, r.row.hasIndex))
					}
				}
				for _, st := range statTables(c, true) {
					if keep(st.t.schema) {
						out = append(out, tableRow(st.t.oid, st.t.schema, st.t.name, len(st.indexes) > 0))
					}
				}
				return out
			}})
		registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_statio_" + v.suffix + "_tables", cols: ioTableCols,
			rows: func(s *Session, c *catalog) [][]any {
				var out [][]any
				for _, st := range statTables(c, false) {
					if keep(st.t.schema) {
						out = append(out, ioTableRow(st))
					}
				}
				return out
			}})
		for _, io := range []bool{false, true} {
			name, cols := "pg_stat_"+v.suffix+"_indexes", indexCols
			if io {
				name, cols = "pg_statio_"+v.suffix+"_indexes", ioIndexCols
			}
			registerVirtual(&virtualTable{schema: "pg_catalog", name: name, cols: cols,
				rows: func(s *Session, c *catalog) [][]any {
					var out [][]any
					for _, st := range statTables(c, false) {
						if !keep(st.t.schema) {
							continue
						}
						for _, ix := range st.indexes {
							row := []any{int64(st.t.oid), int64(ix.oid), st.t.schema, st.t.name, ix.name, zero, zero}
							if !io {
								row = append(row, zero)
							}
							out = append(out, row)
						}
					}
					return out
				}})
		}
	}
}
