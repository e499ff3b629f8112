package sqlexec

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// information_schema.routines, parameters and triggers over the user's
// functions, procedures and triggers, with the columns and values of
// PostgreSQL 15's view definitions (the built-in functions are left out,
// as the other views leave out the system tables).

// sortedFuncs lists the user routines of c by schema, name and OID.
func sortedFuncs(c *catalog) []*funcDesc {
	var out []*funcDesc
	for _, sc := range c.schemas {
		for _, overloads := range sc.funcs {
			out = append(out, overloads...)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.schema != b.schema {
			return a.schema < b.schema
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.oid < b.oid
	})
	return out
}

// specificName is a routine's specific_name, nameconcatoid(proname, oid).
func (f *funcDesc) specificName() string {
	return f.name + "_" + strconv.FormatUint(uint64(f.oid), 10)
}

// routineTypeFacts are a routine's result or parameter type as the views
// show it: data_type (ARRAY, USER-DEFINED or the type's SQL name) and the
// udt's schema and name.
func routineTypeFacts(s *Session, c *catalog, t types.Type) (dataType, udtSchema, udtName string) {
	if builtinIndex().types[uint32(t.Oid)] == nil {
		if ut := c.typeByOid(uint32(t.Oid)); ut != nil {
			return "USER-DEFINED", ut.schema, ut.name
		}
	}
	f := typeFacts(s, t)
	return f.dataType, "pg_catalog", f.udtName
}

func init() {
	registerVirtual(&virtualTable{schema: "information_schema", name: "routines",
		cols: []vcol{{"specific_catalog", isIdent}, {"specific_schema", isIdent}, {"specific_name", isIdent},
			{"routine_catalog", isIdent}, {"routine_schema", isIdent}, {"routine_name", isIdent}, {"routine_type", isChars},
			{"module_catalog", isIdent}, {"module_schema", isIdent}, {"module_name", isIdent}, {"udt_catalog", isIdent},
			{"udt_schema", isIdent}, {"udt_name", isIdent}, {"data_type", isChars}, {"character_maximum_length", isCard},
			{"character_octet_length", isCard}, {"character_set_catalog", isIdent}, {"character_set_schema", isIdent},
			{"character_set_name", isIdent}, {"collation_catalog", isIdent}, {"collation_schema", isIdent},
			{"collation_name", isIdent}, {"numeric_precision", isCard}, {"numeric_precision_radix", isCard},
			{"numeric_scale", isCard}, {"datetime_precision", isCard}, {"interval_type", isChars},
			{"interval_precision", isCard}, {"type_udt_catalog", isIdent}, {"type_udt_schema", isIdent},
			{"type_udt_name", isIdent}, {"scope_catalog", isIdent}, {"scope_schema", isIdent}, {"scope_name", isIdent},
			{"maximum_cardinality", isCard}, {"dtd_identifier", isIdent}, {"routine_body", isChars},
			{"routine_definition", isChars}, {"external_name", isChars}, {"external_language", isChars},
			{"parameter_style", isChars}, {"is_deterministic", isYesNo}, {"sql_data_access", isChars},
			{"is_null_call", isYesNo}, {"sql_path", isChars}, {"schema_level_routine", isYesNo},
			{"max_dynamic_result_sets", isCard}, {"is_user_defined_cast", isYesNo}, {"is_implicitly_invocable", isYesNo},
			{"security_type", isChars}, {"to_sql_specific_catalog", isIdent}, {"to_sql_specific_schema", isIdent},
			{"to_sql_specific_name", isIdent}, {"as_locator", isYesNo}, {"created", types.Timestamptz},
			{"last_altered", types.Timestamptz}, {"new_savepoint_level", isYesNo}, {"is_udt_dependent", isYesNo},
			{"result_cast_from_data_type", isChars}, {"result_cast_as_locator", isYesNo},
			{"result_cast_char_max_length", isCard}, {"result_cast_char_octet_length", isCard},
			{"result_cast_char_set_catalog", isIdent}, {"result_cast_char_set_schema", isIdent},
			{"result_cast_char_set_name", isIdent}, {"result_cast_collation_catalog", isIdent},
			{"result_cast_collation_schema", isIdent}, {"result_cast_collation_name", isIdent},
			{"result_cast_numeric_precision", isCard}, {"result_cast_numeric_precision_radix", isCard},
			{"result_cast_numeric_scale", isCard}, {"result_cast_datetime_precision", isCard},
			{"result_cast_interval_type", isChars}, {"result_cast_interval_precision", isCard},
			{"result_cast_type_udt_catalog", isIdent}, {"result_cast_type_udt_schema", isIdent},
			{"result_cast_type_udt_name", isIdent}, {"result_cast_scope_catalog", isIdent},
			{"result_cast_scope_schema", isIdent}, {"result_cast_scope_name", isIdent},
			{"result_cast_maximum_cardinality", isCard}, {"result_cast_dtd_identifier", isIdent}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			var out [][]any
			for _, f := range sortedFuncs(c) {
				var dataType, udtCatalog, udtSchema, udtName, dtd, nullCall any
				var routineType any = "PROCEDURE"
				if f.kind != 'p' {
					routineType, udtCatalog, dtd, nullCall = "FUNCTION", db, "0", yesNo(f.strict)
					dataType, udtSchema, udtName = routineTypeFacts(s, c, f.resultDom.sigType(f.result))
				}
				if f.kind == 'a' {
					routineType = nil // PostgreSQL's view names no type for an aggregate
				}
				body := "EXTERNAL"
				if f.lang == "sql" {
					body = "SQL"
				}
				security := "INVOKER"
				if f.secDef {
					security = "DEFINER"
				}
				row := []any{db, f.schema, f.specificName(), db, f.schema, f.name, routineType, nil, nil, nil, nil, nil, nil,
					dataType, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, udtCatalog, udtSchema, udtName,
					nil, nil, nil, nil, dtd, body, f.src, nil, strings.ToUpper(f.lang), "GENERAL", yesNo(f.volatility == 'i'),
					"MODIFIES", nullCall, nil, "YES", int64(0), nil, nil, security, nil, nil, nil, "NO", nil, nil, nil, "NO"}
				out = append(out, append(row, make([]any, 22)...))
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "parameters",
		cols: []vcol{{"specific_catalog", isIdent}, {"specific_schema", isIdent}, {"specific_name", isIdent},
			{"ordinal_position", isCard}, {"parameter_mode", isChars}, {"is_result", isYesNo}, {"as_locator", isYesNo},
			{"parameter_name", isIdent}, {"data_type", isChars}, {"character_maximum_length", isCard},
			{"character_octet_length", isCard}, {"character_set_catalog", isIdent}, {"character_set_schema", isIdent},
			{"character_set_name", isIdent}, {"collation_catalog", isIdent}, {"collation_schema", isIdent},
			{"collation_name", isIdent}, {"numeric_precision", isCard}, {"numeric_precision_radix", isCard},
			{"numeric_scale", isCard}, {"datetime_precision", isCard}, {"interval_type", isChars},
			{"interval_precision", isCard}, {"udt_catalog", isIdent}, {"udt_schema", isIdent}, {"udt_name", isIdent},
			{"scope_catalog", isIdent}, {"scope_schema", isIdent}, {"scope_name", isIdent}, {"maximum_cardinality", isCard},
			{"dtd_identifier", isIdent}, {"parameter_default", isChars}},
		rows: func(s *Session, c *catalog) [][]any {
			db := s.database()
			var out [][]any
			for _, f := range sortedFuncs(c) {
				for i, p := range f.params {
					mode := map[byte]string{'o': "OUT", 'b': "INOUT", 't': "OUT"}[p.mode]
					if mode == "" {
						mode = "IN"
					}
					var name, def any
					if p.name != "" {
						name = p.name
					}
					if p.def != nil {
						def = p.defaultText()
					}
					dataType, udtSchema, udtName := routineTypeFacts(s, c, p.dom.sigType(p.typ))
					n := strconv.Itoa(i + 1)
					out = append(out, []any{db, f.schema, f.specificName(), int64(i + 1), mode, "NO", "NO", name, dataType,
						nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, db, udtSchema, udtName,
						nil, nil, nil, nil, n, def})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "triggers",
		cols: []vcol{{"trigger_catalog", isIdent}, {"trigger_schema", isIdent}, {"trigger_name", isIdent},
			{"event_manipulation", isChars}, {"event_object_catalog", isIdent}, {"event_object_schema", isIdent},
			{"event_object_table", isIdent}, {"action_order", isCard}, {"action_condition", isChars},
			{"action_statement", isChars}, {"action_orientation", isChars}, {"action_timing", isChars},
			{"action_reference_old_table", isIdent}, {"action_reference_new_table", isIdent},
			{"action_reference_old_row", isIdent}, {"action_reference_new_row", isIdent}, {"created", types.Timestamptz}},
		rows: triggerViewRows})
}

// triggerCondition reads the WHEN condition and the EXECUTE FUNCTION
// clause out of pg_get_triggerdef's text, as the view's definition does.
var triggerCondition = regexp.MustCompile(`.{35,} WHEN \((.+)\) EXECUTE FUNCTION`)

// triggerViewRows are information_schema.triggers: a row per trigger and
// event (INSERT, DELETE, UPDATE; TRUNCATE is not shown), action_order
// numbering a table's triggers of one event, level and timing by name.
func triggerViewRows(s *Session, c *catalog) [][]any {
	db := s.database()
	type key struct {
		table       uint32
		event, kind int
	}
	var out [][]any
	var keys []key
	for _, t := range sortedTables(c) {
		trs := append([]*triggerDesc(nil), t.triggers...)
		sort.Slice(trs, func(i, j int) bool { return trs[i].name < trs[j].name })
		for _, tr := range trs {
			def, _ := triggerDefinition(s, c, tr.oid, false)
			var cond any
			if m := triggerCondition.FindStringSubmatch(def); m != nil {
				cond = m[1]
			}
			var stmt any
			if len(def) > 47 {
				if i := strings.Index(def[47:], "EXECUTE FUNCTION"); i >= 0 {
					stmt = def[47+i:]
				}
			}
			orientation := "STATEMENT"
			if tr.tgtype&tgRow != 0 {
				orientation = "ROW"
			}
			timing := "AFTER"
			switch {
			case tr.tgtype&tgBefore != 0:
				timing = "BEFORE"
			case tr.tgtype&tgInstead != 0:
				timing = "INSTEAD OF"
			}
			for _, ev := range []struct {
				bit  int
				name string
			}{{tgInsert, "INSERT"}, {tgDelete, "DELETE"}, {tgUpdate, "UPDATE"}} {
				if tr.tgtype&ev.bit == 0 {
					continue
				}
				out = append(out, []any{db, t.schema, tr.name, ev.name, db, t.schema, t.name, nil, cond, stmt, orientation,
					timing, nullIfEmpty(tr.oldTable), nullIfEmpty(tr.newTable), nil, nil, nil})
				keys = append(keys, key{t.oid, ev.bit, tr.tgtype & (tgRow | tgBefore | tgInstead)})
			}
		}
	}
	rank := map[key]int64{}
	for i, k := range keys {
		rank[k]++
		out[i][7] = rank[k]
	}
	return out
}
