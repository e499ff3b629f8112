package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalog's view of rules: pg_rewrite rows, pg_rules and
// pg_get_ruledef, which prints a rule as ruleutils does (psql's \d shows
// it). A rule whose actions the printer does not cover (INSERT ... SELECT,
// multi-row VALUES, FROM or USING items) is refused with 0A000 rather than
// printed differently.

// ruleRelations are the tables and views with rules, as table
// descriptors, in OID order.
func ruleRelations(c *catalog) []*tableDesc {
	var out []*tableDesc
	for _, t := range sortedTables(c) {
		if len(t.rules) > 0 {
			out = append(out, t)
		}
	}
	for _, v := range sortedViews(c) {
		if len(v.rules) > 0 {
			out = append(out, viewTable(v))
		}
	}
	return out
}

// evType is pg_rewrite.ev_type of an event.
func evType(e pg_query.CmdType) string {
	switch e {
	case pg_query.CmdType_CMD_UPDATE:
		return "2"
	case pg_query.CmdType_CMD_INSERT:
		return "3"
	case pg_query.CmdType_CMD_DELETE:
		return "4"
	}
	return "1"
}

// ruleRewriteRows are pg_rewrite's rows of the rules CREATE RULE made.
func ruleRewriteRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range ruleRelations(c) {
		for _, r := range t.rules {
			var qual any = "<>"
			if r.where != nil {
				qual = deparseExpr(r.where)
			}
			var actions []string
			for _, a := range r.actions {
				actions = append(actions, deparseStatement(a))
			}
			out = append(out, []any{int64(r.oid), r.name, int64(t.oid), evType(r.event), "O", r.instead, qual,
				"(" + strings.Join(actions, "; ") + ")"})
		}
	}
	return out
}

func init() {
	name, text := types.Name, types.Text
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_rules",
		cols: []vcol{{"schemaname", name}, {"tablename", name}, {"rulename", name}, {"definition", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range ruleRelations(c) {
				for _, r := range t.rules {
					if r.name == viewRuleName {
						continue // pg_rules leaves out every rule of that name
					}
					def, err := ruleDefinition(s, c, t, r, false)
					var d any = def
					if err != nil {
						d = nil
					}
					out = append(out, []any{t.schema, t.name, r.name, d})
				}
			}
			return out
		}})
}

// userRuleDef is pg_get_ruledef of a rule CREATE RULE made; ok is false
// for any other OID.
func userRuleDef(s *Session, c *catalog, oid int64, pretty bool) (def string, ok bool, err error) {
	for _, t := range ruleRelations(c) {
		for _, r := range t.rules {
			if int64(r.oid) == oid {
				def, err := ruleDefinition(s, c, t, r, pretty)
				return def, true, err
			}
		}
	}
	return "", false, nil
}

// ruleDefinition prints rule r of t as pg_get_ruledef does.
func ruleDefinition(s *Session, c *catalog, t *tableDesc, r *ruleDesc, pretty bool) (string, error) {
	var sb strings.Builder
	sb.WriteString("CREATE RULE " + types.QuoteIdent(r.name) + " AS\n    ON " + eventName(r.event) + " TO " + relationText(s, c, t, !pretty))
	b := (&binder{s: s, cat: c}).ruleBinder(t, nil)
	if r.where != nil {
		d := &deparser{b: b, qualify: true, pretty: pretty}
		n, err := d.analyze(qualifiedRuleColumns(t, r.event, r.where))
		if err != nil {
			return "", err
		}
		sb.WriteString("\n   WHERE " + d.print(n, nil, pretty, false))
	}
	sb.WriteString(" DO ")
	if r.instead {
		sb.WriteString("INSTEAD ")
	}
	switch len(r.actions) {
	case 0:
		sb.WriteString("NOTHING")
	case 1:
		a, err := actionText(b, c, t, r.actions[0], pretty)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(a, "\n") {
			text := strings.TrimRight(sb.String(), " ")
			sb.Reset()
			sb.WriteString(text)
		}
		sb.WriteString(a)
	default:
		sb.WriteString("(")
		for _, an := range r.actions {
			a, err := actionText(b, c, t, an, pretty)
			if err != nil {
				return "", err
			}
			sb.WriteString(a + ";\n")
		}
		sb.WriteString(")")
	}
	sb.WriteString(";")
	return sb.String(), nil
}

// qualifiedRuleColumns is a rule's condition with the columns it names
// bare written as the row they are read from (NEW for an INSERT rule, OLD
// for a DELETE one), as PostgreSQL resolves and ruleutils prints them;
// subqueries keep their own names.
func qualifiedRuleColumns(t *tableDesc, event pg_query.CmdType, where *pg_query.Node) *pg_query.Node {
	row := map[pg_query.CmdType]string{pg_query.CmdType_CMD_INSERT: "new", pg_query.CmdType_CMD_DELETE: "old"}[event]
	if row == "" {
		return where
	}
	out := proto.Clone(where).(*pg_query.Node)
	walk(out, func(n *pg_query.Node) bool {
		if n.GetSubLink() != nil {
			return false
		}
		if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil && t.colIndex(cr.Fields[0].GetString_().Sval) >= 0 {
			cr.Fields = append([]*pg_query.Node{pg_query.MakeStrNode(row)}, cr.Fields...)
		}
		return true
	})
	return out
}

// relationText names t, schema-qualified when qualify is set or the
// search path would not find it.
func relationText(s *Session, c *catalog, t *tableDesc, qualify bool) string {
	if qualify || !s.relationOnPath(c, t.schema, t.name) {
		return types.QuoteIdent(t.schema) + "." + types.QuoteIdent(t.name)
	}
	return types.QuoteIdent(t.name)
}

// hasIndirection reports whether an INSERT column list assigns to a
// subscript or field of a column.
func hasIndirection(cols []*pg_query.Node) bool {
	for _, c := range cols {
		if len(c.GetResTarget().GetIndirection()) > 0 {
			return true
		}
	}
	return false
}

// isBareSelect reports whether sel is SELECT of a target list and nothing
// else.
func isBareSelect(sel *pg_query.SelectStmt) bool {
	return len(sel.FromClause) == 0 && sel.WhereClause == nil && len(sel.GroupClause) == 0 && sel.HavingClause == nil &&
		len(sel.SortClause) == 0 && sel.LimitCount == nil && sel.LimitOffset == nil && len(sel.DistinctClause) == 0 &&
		sel.WithClause == nil && sel.Op == pg_query.SetOperation_SETOP_NONE && len(sel.WindowClause) == 0
}

// onConflictText prints an INSERT action's ON CONFLICT clause as ruleutils
// does: the inference columns with their collation and a non-default
// operator class, and the partial index's WHERE condition, its columns
// unqualified; then DO NOTHING, or DO UPDATE's SET list and WHERE over the
// target and EXCLUDED, qualified. An expression, an operator class fickle
// cannot tell from the default, or ON CONSTRAINT is refused.
func onConflictText(b *binder, t *tableDesc, oc *pg_query.OnConflictClause, pretty bool) (string, error) {
	unsupported := pgerror.Unsupported("printing this rule action")
	var sb strings.Builder
	sb.WriteString(" ON CONFLICT")
	if inf := oc.Infer; inf != nil {
		if inf.Conname != "" || len(inf.IndexElems) == 0 {
			return "", unsupported
		}
		var elems []string
		for _, e := range inf.IndexElems {
			ie := e.GetIndexElem()
			if ie == nil || ie.Name == "" || t.colIndex(ie.Name) < 0 {
				return "", unsupported
			}
			elem := types.QuoteIdent(ie.Name)
			if coll := strs(ie.Collation); len(coll) > 0 {
				elem += " COLLATE " + types.QuoteIdent(coll[len(coll)-1])
			}
			if opc := strs(ie.Opclass); len(opc) > 0 {
				name := opc[len(opc)-1]
				if !strings.HasSuffix(name, "_pattern_ops") {
					return "", unsupported
				}
				elem += " " + types.QuoteIdent(name)
			}
			elems = append(elems, elem)
		}
		sb.WriteString("(" + strings.Join(elems, ", ") + ")")
		if inf.WhereClause != nil {
			d := &deparser{b: b, sc: tableScope(t, t.name), pretty: pretty}
			a, err := d.analyze(inf.WhereClause)
			if err != nil {
				return "", err
			}
			sb.WriteString("\n  WHERE " + d.print(a, nil, pretty, false))
		}
	}
	if oc.Action == pg_query.OnConflictAction_ONCONFLICT_NOTHING {
		sb.WriteString(" DO NOTHING")
		return sb.String(), nil
	}
	if oc.Infer == nil {
		return "", unsupported
	}
	d := &deparser{b: b, sc: excludedScope(t), qualify: true, pretty: pretty}
	var sets []string
	for _, it := range oc.TargetList {
		rt := it.GetResTarget()
		i := t.colIndex(rt.Name)
		if i < 0 || len(rt.Indirection) > 0 || rt.Val.GetMultiAssignRef() != nil {
			return "", unsupported
		}
		a, err := d.analyze(rt.Val)
		if err != nil {
			return "", err
		}
		sets = append(sets, types.QuoteIdent(rt.Name)+" = "+d.print(d.coerce(a, t.cols[i].typ), nil, pretty, false))
	}
	sb.WriteString(" DO UPDATE SET " + strings.Join(sets, ", "))
	if oc.WhereClause != nil {
		a, err := d.analyze(oc.WhereClause)
		if err != nil {
			return "", err
		}
		sb.WriteString("\n  WHERE " + d.print(a, nil, pretty, false))
	}
	return sb.String(), nil
}

// excludedScope is the scope of an ON CONFLICT DO UPDATE: the target
// table's columns under its name, then EXCLUDED's.
func excludedScope(t *tableDesc) *scope {
	sc := tableScope(t, t.name)
	for i, c := range t.cols {
		sc.cols = append(sc.cols, scopeCol{rel: "excluded", name: c.name, typ: c.typ, slot: len(t.cols) + i, attnum: c.attnum, coll: c.collation})
	}
	return sc
}

// actionText prints one rule action of relation rel as ruleutils does
// inside a rule.
func actionText(b *binder, c *catalog, rel *tableDesc, n *pg_query.Node, pretty bool) (string, error) {
	if ns := n.GetNotifyStmt(); ns != nil {
		// ruleutils starts a utility action on a line of its own.
		a := "\n NOTIFY " + types.QuoteIdent(ns.Conditionname)
		if ns.Payload != "" {
			a += ", " + quoteLiteral(ns.Payload)
		}
		return a, nil
	}
	n = expandRuleStars(proto.Clone(n).(*pg_query.Node), rel)
	rv := modifiedTable(n)
	t := b.ruleTarget(rv)
	if t == nil {
		return "", pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
	}
	d := &deparser{b: b, sc: tableScope(t, t.name), qualify: true, pretty: pretty}
	expr := func(e *pg_query.Node, typ *types.Type) (string, error) {
		a, err := d.analyze(e)
		if err != nil {
			return "", err
		}
		switch {
		case typ != nil:
			a = d.coerce(a, *typ)
		case a.literal && a.typ.Oid == types.OidUnknown:
			return quoteLiteral(a.text), nil
		}
		return d.print(a, nil, pretty, false), nil
	}
	var sb strings.Builder
	name := relationText(b.s, c, t, false)
	var returning []*pg_query.Node
	switch v := n.Node.(type) {
	case *pg_query.Node_InsertStmt:
		ins := v.InsertStmt
		sel := ins.SelectStmt.GetSelectStmt()
		values := sel != nil && len(sel.ValuesLists) == 1
		onConflict := ins.OnConflictClause != nil
		if sel == nil || !values && !isBareSelect(sel) || ins.WithClause != nil || hasIndirection(ins.Cols) ||
			onConflict && ins.OnConflictClause.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE && ins.Relation.Alias != nil {
			return "", pgerror.Unsupported("printing this rule action")
		}
		d.sc = nil
		target, _, err := b.insertTargets(t, ins)
		if err != nil {
			return "", err
		}
		items := sel.TargetList
		if values {
			items = sel.ValuesLists[0].GetList().GetItems()
		}
		var cols, vals []string
		for i, item := range items {
			if i >= len(target) {
				break
			}
			col := t.cols[target[i]]
			cols = append(cols, types.QuoteIdent(col.name))
			typ := &col.typ
			if rt := item.GetResTarget(); rt != nil {
				item, typ = rt.Val, nil // a SELECT's literals keep their unknown type
			}
			e, err := expr(item, typ)
			if err != nil {
				return "", err
			}
			vals = append(vals, e)
		}
		sb.WriteString(" INSERT INTO " + name + " (" + strings.Join(cols, ", ") + ")")
		if values {
			sb.WriteString("\n  VALUES (" + strings.Join(vals, ", ") + ")")
		} else {
			sb.WriteString("  SELECT " + strings.Join(vals, ",\n            "))
		}
		if onConflict {
			text, err := onConflictText(b, t, ins.OnConflictClause, pretty)
			if err != nil {
				return "", err
			}
			sb.WriteString(text)
		}
		returning = ins.ReturningList
	case *pg_query.Node_UpdateStmt:
		up := v.UpdateStmt
		if len(up.FromClause) > 0 || up.WithClause != nil {
			return "", pgerror.Unsupported("printing this rule action")
		}
		var sets []string
		for _, it := range up.TargetList {
			rt := it.GetResTarget()
			i := t.colIndex(rt.Name)
			if i < 0 || len(rt.Indirection) > 0 || rt.Val.GetMultiAssignRef() != nil {
				return "", pgerror.Unsupported("printing this rule action")
			}
			e, err := expr(rt.Val, &t.cols[i].typ)
			if err != nil {
				return "", err
			}
			sets = append(sets, types.QuoteIdent(rt.Name)+" = "+e)
		}
		sb.WriteString(" UPDATE " + name + " SET " + strings.Join(sets, ", "))
		if up.WhereClause != nil {
			e, err := expr(up.WhereClause, nil)
			if err != nil {
				return "", err
			}
			sb.WriteString("\n  WHERE " + e)
		}
		returning = up.ReturningList
	case *pg_query.Node_DeleteStmt:
		del := v.DeleteStmt
		if len(del.UsingClause) > 0 || del.WithClause != nil {
			return "", pgerror.Unsupported("printing this rule action")
		}
		sb.WriteString(" DELETE FROM " + name)
		if del.WhereClause != nil {
			e, err := expr(del.WhereClause, nil)
			if err != nil {
				return "", err
			}
			sb.WriteString("\n  WHERE " + e)
		}
		returning = del.ReturningList
	}
	if len(returning) > 0 {
		d.sc = tableScope(t, t.name)
		list, err := d.targetList(returning, nil, pretty)
		if err != nil {
			return "", err
		}
		sb.WriteString("\n  RETURNING " + strings.Join(list, ",\n    "))
	}
	return sb.String(), nil
}
