package sqlexec

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/cursorpos"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The SQL/XML mapping of data (xml.c's query_to_xml, table_to_xml,
// schema_to_xml, database_to_xml): a query's rows as XML elements named
// after its columns, inside a root element named after the table (or
// "table") or, with tableforest, one root element a row. The XML Schema
// variants (*_xmlschema, *_and_xmlschema) are not implemented and answer
// 0A000 through pg_proc.

// The XML Schema instance namespace, which the root element declares.
const xmlNamespaceXSI = "http://www.w3.org/2001/XMLSchema-instance"

func init() {
	text, b := types.Text, types.Bool
	add := func(fn string, eval func(x *execCtx, a []any) (any, error), args ...types.Type) {
		addSysFunc(fn, sysFunc{args: args, result: types.XMLType, volatile: true, eval: eval})
	}
	add("query_to_xml", func(x *execCtx, a []any) (any, error) {
		var out strings.Builder
		err := xmlQuery(x, &out, a[0].(string), "", a[1].(bool), a[2].(bool), a[3].(string), true)
		return out.String(), err
	}, text, b, b, text)
	add("table_to_xml", func(x *execCtx, a []any) (any, error) {
		var out strings.Builder
		err := xmlTable(x, &out, a[0].(int64), a[1].(bool), a[2].(bool), a[3].(string), true)
		return out.String(), err
	}, types.Regclass, b, b, text)
	add("cursor_to_xml", func(x *execCtx, a []any) (any, error) {
		var out strings.Builder
		err := xmlCursor(x, &out, a[0].(string), a[1].(int64), a[2].(bool), a[3].(bool), a[4].(string))
		return out.String(), err
	}, types.Refcursor, types.Int4, b, b, text)
	add("schema_to_xml", func(x *execCtx, a []any) (any, error) {
		var out strings.Builder
		nsp, err := xmlSchemaOid(x, a[0].(string))
		if err != nil {
			return nil, err
		}
		err = xmlSchema(x, &out, nsp, a[0].(string), a[1].(bool), a[2].(bool), a[3].(string), true)
		return out.String(), err
	}, types.Name, b, b, text)
	add("database_to_xml", func(x *execCtx, a []any) (any, error) {
		nulls, forest, ns := a[0].(bool), a[1].(bool), a[2].(string)
		var out strings.Builder
		name := types.XMLNameFull(x.s.database(), true, false)
		xmlRootStart(&out, name, ns, true)
		out.WriteByte('\n')
		rows, err := xmlInternalRows(x, "SELECT oid, nspname FROM pg_catalog.pg_namespace WHERE pg_catalog.has_schema_privilege (oid, 'USAGE') AND NOT (nspname ~ '^pg_' OR nspname = 'information_schema') ORDER BY nspname")
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if err := xmlSchema(x, &out, r[0].(int64), r[1].(string), nulls, forest, ns, false); err != nil {
				return nil, err
			}
			out.WriteByte('\n')
		}
		out.WriteString("</" + name + ">\n")
		return out.String(), nil
	}, b, b, text)
}

// xmlRootStart is xmldata_root_element_start without a schema: the root
// element's start tag, declaring the namespaces at the top level.
func xmlRootStart(out *strings.Builder, name, targetNS string, topLevel bool) {
	out.WriteString("<" + name)
	if topLevel {
		out.WriteString(` xmlns:xsi="` + xmlNamespaceXSI + `"`)
		if targetNS != "" {
			out.WriteString(` xmlns="` + targetNS + `"`)
		}
	}
	out.WriteString(">\n")
}

// xmlInternalRows runs a catalog query of the mapping's own.
func xmlInternalRows(x *execCtx, sql string) ([][]any, error) {
	res, _, err := xmlRun(x, sql)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// xmlRun runs sql as SPI_execute does inside the calling statement,
// read-only: each of its statements in turn, the last of which must be a
// SELECT (else 22000 "invalid query"), whose rows and columns it returns.
func xmlRun(x *execCtx, sql string) ([][]any, []outCol, error) {
	sts, err := parseStatements(sql)
	if err != nil {
		return nil, nil, err
	}
	for _, st := range sts {
		if tag := readOnlyRefusal(st.node); tag != "" {
			return nil, nil, withContext(pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed in a non-volatile function", tag),
				"SQL statement \""+sql+"\"")
		}
	}
	if len(sts) == 0 || sts[len(sts)-1].node.GetSelectStmt() == nil {
		return nil, nil, pgerror.New(pgerror.DataException, "invalid query")
	}
	var rows [][]any
	var cols []outCol
	for _, st := range sts {
		cat, _ := x.s.catalog()
		b := &binder{s: x.s, cat: cat, full: sql}
		plan, err := b.statement(st)
		if err != nil {
			return nil, nil, err
		}
		plan.locks, plan.perms = b.locks, b.perms
		res, err := x.s.runRoutineStatement(x, plan, nil, st.sql)
		if err != nil {
			return nil, nil, err
		}
		rows, cols = res.Rows, plan.cols
	}
	return rows, cols, nil
}

// xmlCursor is cursor_to_xml: the next count rows of a cursor the session
// declared, as query_to_xml writes a query's.
func xmlCursor(x *execCtx, out *strings.Builder, name string, count int64, nulls, forest bool, targetNS string) error {
	if !forest {
		xmlRootStart(out, "table", targetNS, true)
		out.WriteByte('\n')
	}
	c := x.s.cursors[name]
	if c == nil {
		return pgerror.Newf(pgerror.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	var txn *isolation.Txn
	if x.s.txn != nil {
		txn = x.s.txn.kv
	}
	rows, _, err := c.fetch(cursorpos.Forward, count, x.s.statements, true, txn)
	if err != nil {
		return err
	}
	if err := xmlRows(x, out, rows, c.outs, "", nulls, forest, targetNS, true); err != nil {
		return err
	}
	if !forest {
		out.WriteString("</table>\n")
	}
	return nil
}

// xmlQuery is query_to_xml_internal without a schema: the rows of query as
// <row> elements in a root element named after table ("table" for a
// query), or each in a root element of its own (tableforest).
func xmlQuery(x *execCtx, out *strings.Builder, query, table string, nulls, forest bool, targetNS string, topLevel bool) error {
	rows, cols, err := xmlRun(x, query)
	if err != nil {
		return err
	}
	root := "table"
	if table != "" {
		root = types.XMLNameFull(table, true, false)
	}
	if !forest {
		xmlRootStart(out, root, targetNS, topLevel)
		out.WriteByte('\n')
	}
	if err := xmlRows(x, out, rows, cols, table, nulls, forest, targetNS, topLevel); err != nil {
		return err
	}
	if !forest {
		out.WriteString("</" + root + ">\n")
	}
	return nil
}

// xmlRows is SPI_sql_row_to_xmlelement for each row: a <row> element, or
// (tableforest) a root element named after table ("row" for a query), of
// one element a column, NULLs as xsi:nil with nulls, else left out.
func xmlRows(x *execCtx, out *strings.Builder, rows [][]any, cols []outCol, table string, nulls, forest bool, targetNS string, topLevel bool) error {
	rowName := "row"
	if table != "" {
		rowName = types.XMLNameFull(table, true, false)
	}
	for _, row := range rows {
		if forest {
			xmlRootStart(out, rowName, targetNS, topLevel)
		} else {
			out.WriteString("<row>\n")
		}
		for i, c := range cols {
			name := types.XMLNameFull(c.Name, true, false)
			if row[i] == nil {
				if nulls {
					out.WriteString("  <" + name + " xsi:nil=\"true\"/>\n")
				}
				continue
			}
			v, err := types.XMLValue(x.env, c.typ, row[i], true)
			if err != nil {
				return err
			}
			out.WriteString("  <" + name + ">" + v + "</" + name + ">\n")
		}
		if forest {
			out.WriteString("</" + rowName + ">\n\n")
		} else {
			out.WriteString("</row>\n\n")
		}
	}
	return nil
}

// xmlTable is table_to_xml_internal: SELECT * of the relation, named
// after it.
func xmlTable(x *execCtx, out *strings.Builder, relid int64, nulls, forest bool, targetNS string, topLevel bool) error {
	c, _ := x.s.catalog()
	_, name, ok := relationByOid(c, relid)
	if !ok {
		return pgerror.Newf(pgerror.UndefinedTable, "relation with OID %d does not exist", relid)
	}
	qualified, _ := catalogNames{s: x.s}.RelationName(relid)
	return xmlQuery(x, out, "SELECT * FROM "+qualified, name, nulls, forest, targetNS, topLevel)
}

// xmlSchemaOid is LookupExplicitNamespace: the schema's OID, 3F000 when
// there is none.
func xmlSchemaOid(x *execCtx, name string) (int64, error) {
	rows, err := xmlInternalRows(x, "SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = "+quoteLiteral(name))
	if err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		return 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	return rows[0][0].(int64), nil
}

// xmlSchema is schema_to_xml_internal: the schema's readable tables,
// views and materialized views in name order, in a root element named
// after the schema.
func xmlSchema(x *execCtx, out *strings.Builder, nsp int64, schema string, nulls, forest bool, targetNS string, topLevel bool) error {
	name := types.XMLNameFull(schema, true, false)
	xmlRootStart(out, name, targetNS, topLevel)
	out.WriteByte('\n')
	rows, err := xmlInternalRows(x, "SELECT oid FROM pg_catalog.pg_class WHERE relnamespace = "+strconv.FormatInt(nsp, 10)+
		" AND relkind IN ('r', 'm', 'v') AND pg_catalog.has_table_privilege (oid, 'SELECT') ORDER BY relname")
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := xmlTable(x, out, r[0].(int64), nulls, forest, targetNS, false); err != nil {
			return err
		}
		out.WriteByte('\n')
	}
	out.WriteString("</" + name + ">\n")
	return nil
}

// readOnlyRefusal is the command a read-only SPI_execute refuses in n:
// data modification and DDL; "" for what it runs.
func readOnlyRefusal(n *pg_query.Node) string {
	switch {
	case n.GetInsertStmt() != nil:
		return "INSERT"
	case n.GetUpdateStmt() != nil:
		return "UPDATE"
	case n.GetDeleteStmt() != nil:
		return "DELETE"
	case n.GetMergeStmt() != nil:
		return "MERGE"
	case n.GetSelectStmt() != nil:
		if n.GetSelectStmt().IntoClause != nil {
			return "SELECT INTO"
		}
		return ""
	}
	return ddlTag(n)
}
