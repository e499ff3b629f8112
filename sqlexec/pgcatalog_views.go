package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalog's views of views: pg_rewrite's _RETURN rule of each view
// (and the rules of rules_catalog.go),
// pg_views, information_schema.views and pg_get_viewdef.

func init() {
	oid, name, text, b, ch := types.OidType, types.Name, types.Text, types.Bool, types.Char
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_rewrite",
		cols: []vcol{{"oid", oid}, {"rulename", name}, {"ev_class", oid}, {"ev_type", ch}, {"ev_enabled", ch}, {"is_instead", b},
			{"ev_qual", text}, {"ev_action", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, v := range append(sortedViews(c), matviewsAsViews(c)...) {
				// The rule has no OID of its own in fickle: the view's,
				// in the synthesized range, keeps it unique.
				out = append(out, []any{int64(synthesizedOID(v.oid, 62)), "_RETURN", int64(v.oid), "1", "O", true, nil,
					deparseQuery(s, c, v.query, v.colNames(), false)})
			}
			return append(out, ruleRewriteRows(c)...)
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_views",
		cols: []vcol{{"schemaname", name}, {"viewname", name}, {"viewowner", name}, {"definition", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, v := range sortedViews(c) {
				owner, _ := catalogNames{s: s}.roleName(v.ownerRole())
				out = append(out, []any{v.schema, v.name, unquoteIdent(owner), catalogViewDefinition(s, c, v)})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_matviews",
		cols: []vcol{{"schemaname", name}, {"matviewname", name}, {"matviewowner", name}, {"tablespace", name},
			{"hasindexes", b}, {"ispopulated", b}, {"definition", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedMatviews(c) {
				owner, _ := catalogNames{s: s}.roleName(relationOwner(c, aclTable, t.oid))
				out = append(out, []any{t.schema, t.name, unquoteIdent(owner), nil, len(t.indexes) > 0, t.matview.populated,
					catalogViewDefinition(s, c, matviewAsView(t))})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "views",
		cols: []vcol{{"table_catalog", isIdent}, {"table_schema", isIdent}, {"table_name", isIdent}, {"view_definition", isChars},
			{"check_option", isChars}, {"is_updatable", isYesNo}, {"is_insertable_into", isYesNo}, {"is_trigger_updatable", isYesNo},
			{"is_trigger_deletable", isYesNo}, {"is_trigger_insertable_into", isYesNo}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, v := range sortedViews(c) {
				ins, upd, del := viewWritable(s, c, v, 0)
				trigger := func(event int) string { // enabled or not, as PostgreSQL's
					return yesNo(slices.ContainsFunc(v.triggers, func(tr *triggerDesc) bool { return tr.tgtype&tgInstead != 0 && tr.tgtype&event != 0 }))
				}
				out = append(out, []any{s.database(), v.schema, v.name, catalogViewDefinition(s, c, v), v.checkOptionColumn(),
					yesNo(upd && del), yesNo(ins), trigger(tgUpdate), trigger(tgDelete), trigger(tgInsert)})
			}
			return out
		},
		unreadable: foreignUpdatabilityError("is_updatable", "is_insertable_into")})
	viewdef := func(x *execCtx, a []any) (any, error) {
		c, _ := x.s.catalog()
		var v *viewDesc
		var oid uint32
		switch rel := a[0].(type) {
		case string:
			o, err := catalogNames{s: x.s}.RelationOid(rel)
			if err != nil {
				return nil, err
			}
			oid = uint32(o)
		case int64:
			oid = uint32(rel)
		}
		v = viewByOid(c, oid)
		if t := c.tables[oid]; v == nil && t != nil && t.oid == oid && t.matview != nil {
			v = matviewAsView(t)
		}
		if v == nil {
			return nil, nil
		}
		return viewDefinition(x.s, c, v, len(a) > 1 && (a[1] == true || a[1] != false && a[1] != nil))
	}
	for _, rel := range []types.Type{types.OidType, types.Text} {
		addSysFunc("pg_get_viewdef", sysFunc{args: []types.Type{rel}, result: text, eval: viewdef})
		addSysFunc("pg_get_viewdef", sysFunc{args: []types.Type{rel, b}, result: text, eval: viewdef})
	}
	addSysFunc("pg_get_viewdef", sysFunc{args: []types.Type{types.OidType, types.Int4}, result: text, eval: viewdef})
	// pg_get_ruledef prints a view's _RETURN rule, its view qualified
	// unless pretty finds it on the search path, or a rule CREATE RULE
	// made (rules_catalog.go).
	ruledef := func(x *execCtx, a []any) (any, error) {
		c, _ := x.s.catalog()
		pretty := len(a) > 1 && a[1] == true
		if def, ok, err := userRuleDef(x.s, c, a[0].(int64), pretty); ok {
			return def, err
		}
		for _, v := range append(sortedViews(c), matviewsAsViews(c)...) {
			if int64(synthesizedOID(v.oid, 62)) != a[0].(int64) {
				continue
			}
			name := types.QuoteIdent(v.schema) + "." + types.QuoteIdent(v.name)
			if pretty && x.s.relationOnPath(c, v.schema, v.name) {
				name = types.QuoteIdent(v.name)
			}
			def, err := viewDefinition(x.s, c, v, pretty)
			if err != nil {
				return nil, err
			}
			return "CREATE RULE \"_RETURN\" AS\n    ON SELECT TO " + name + " DO INSTEAD " + def, nil
		}
		return nil, nil
	}
	addSysFunc("pg_get_ruledef", sysFunc{args: []types.Type{types.OidType}, result: text, eval: ruledef})
	addSysFunc("pg_get_ruledef", sysFunc{args: []types.Type{types.OidType, b}, result: text, eval: ruledef})
}

// viewWritable reports which commands can write v without its triggers,
// as PostgreSQL's pg_relation_is_updatable does: those with an
// unconditional INSTEAD rule, and for an automatically updatable view
// DELETE, and INSERT and UPDATE when it has an updatable column, as far
// as its base relation takes them too.
func viewWritable(s *Session, c *catalog, v *viewDesc, depth int) (ins, upd, del bool) {
	return viewWritableColumns(s, c, v, nil, depth)
}

// viewWritableColumns is viewWritable looking only at the view columns
// named in include (all when nil) for INSERT and UPDATE: a view over a
// view takes them when one of its updatable columns reads a column its
// base view can update, as PostgreSQL asks its base relation about those
// columns alone.
func viewWritableColumns(s *Session, c *catalog, v *viewDesc, include map[string]bool, depth int) (ins, upd, del bool) {
	for _, r := range v.rules {
		if r.instead && r.where == nil {
			ins = ins || r.event == pg_query.CmdType_CMD_INSERT
			upd = upd || r.event == pg_query.CmdType_CMD_UPDATE
			del = del || r.event == pg_query.CmdType_CMD_DELETE
		}
	}
	av, reason := (&binder{s: s, cat: c}).autoViewParts(v, v.name)
	if av == nil || reason != "" && reason != noUpdatableColumns || depth > maxViewDepth {
		return ins, upd, del
	}
	bv := s.lookupView(c, av.base.Schemaname, av.base.Relname)
	t := s.lookupTable(c, av.base.Schemaname, av.base.Relname)
	baseCols := map[string]bool{}
	for i, col := range av.cols {
		if col.base == "" || include != nil && !include[v.cols[i].name] {
			continue
		}
		if bv != nil && slices.Contains(bv.colNames(), col.base) || t != nil && t.colIndex(col.base) >= 0 {
			baseCols[col.base] = true
		}
	}
	cols := len(baseCols) > 0
	bi, bu, bd := true, true, true
	if bv != nil {
		if !cols {
			baseCols = nil // PostgreSQL's empty column set asks about every column
		}
		bi, bu, bd = viewWritableColumns(s, c, bv, baseCols, depth+1)
	}
	return ins || cols && bi, upd || cols && bu, del || bd
}

// viewColumnUpdatable reports whether column i of v is updatable without
// triggers in PostgreSQL's pg_column_is_updatable terms: UPDATE can write
// it and DELETE can delete the view's rows (viewColumnEvents).
func viewColumnUpdatable(s *Session, c *catalog, v *viewDesc, i int) bool {
	upd, del := viewColumnEvents(s, c, v, i, 0)
	return upd && del
}

// viewColumnEvents reports whether UPDATE can write column i of v and
// whether DELETE can delete from v, without triggers: through an
// unconditional INSTEAD rule, or, for an automatically updatable view,
// when its base relation takes them (UPDATE only for a column naming a
// column of the base).
func viewColumnEvents(s *Session, c *catalog, v *viewDesc, i int, depth int) (upd, del bool) {
	for _, r := range v.rules {
		if r.instead && r.where == nil {
			upd = upd || r.event == pg_query.CmdType_CMD_UPDATE
			del = del || r.event == pg_query.CmdType_CMD_DELETE
		}
	}
	av, reason := (&binder{s: s, cat: c}).autoViewParts(v, v.name)
	if av == nil || reason != "" && reason != noUpdatableColumns || depth > maxViewDepth || i >= len(av.cols) {
		return upd, del
	}
	base := av.cols[i].base
	if bv := s.lookupView(c, av.base.Schemaname, av.base.Relname); bv != nil {
		if j := slices.Index(bv.colNames(), base); base != "" && j >= 0 {
			bu, bd := viewColumnEvents(s, c, bv, j, depth+1)
			return upd || bu, del || bd
		}
		_, _, bd := viewWritable(s, c, bv, depth+1)
		return upd, del || bd
	}
	t := s.lookupTable(c, av.base.Schemaname, av.base.Relname)
	return upd || base != "" && t != nil && t.colIndex(base) >= 0, true
}
