package sqlexec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The SQL statements of PL/pgSQL: statements with INTO, EXECUTE and GET
// DIAGNOSTICS.

// rowCount reads the count of rows a command tag reports.
func rowCount(res *Result) int64 {
	if res.Rows != nil || strings.HasPrefix(res.Tag, "SELECT") {
		return int64(len(res.Rows))
	}
	f := strings.Fields(res.Tag)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
	return n
}

// execSQL runs an SQL statement of the body, with INTO.
func (fr *plFrame) execSQL(st *plStmt) error {
	res, err := fr.query(st.expr)
	if err != nil {
		return err
	}
	return fr.into(st, res, st.modifies)
}

// into stores a statement's result in its INTO target and sets FOUND and
// the row count.
func (fr *plFrame) into(st *plStmt, res *Result, dml bool) error {
	fr.count = rowCount(res)
	fr.setFound(fr.count > 0)
	if !st.into {
		return nil
	}
	if len(res.Rows) == 0 {
		if st.strict {
			return pgerror.New(pgerror.NoDataFound, "query returned no rows")
		}
		return fr.assignRow(st.target, nil, res.Columns)
	}
	if len(res.Rows) > 1 {
		tooMany := pgerror.New(pgerror.TooManyRows, "query returned more than one row").
			WithHint("Make sure the query returns a single row, or use LIMIT 1.")
		if st.strict || dml {
			return tooMany
		}
		if err := fr.extraCheck(plCheckTooManyRows, tooMany); err != nil {
			return err
		}
	}
	return fr.assignRow(st.target, res.Rows[0], res.Columns)
}

// dynamic runs EXECUTE's query string with the USING values as $n.
func (fr *plFrame) dynamic(qe *plExpr, params []*plExpr) (*Result, error) {
	q, qt, err := fr.value(qe)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return nil, pgerror.New(pgerror.NullValueNotAllowed, "query string argument of EXECUTE is null")
	}
	text := types.FormatTextEnv(fr.x.env, qt, q)
	vals := make([]any, len(params))
	ptypes := make([]types.Type, len(params))
	for i, p := range params {
		if vals[i], ptypes[i], err = fr.value(p); err != nil {
			return nil, err
		}
	}
	sts, err := parseStatements(text)
	if err != nil {
		return nil, err
	}
	if len(sts) != 1 {
		return nil, pgerror.New(pgerror.SyntaxError, "EXECUTE needs exactly one statement")
	}
	if sts[0].isTxn {
		return nil, pgerror.Unsupported("transaction control in EXECUTE")
	}
	cat, _ := fr.s.catalog()
	b := &binder{s: fr.s, cat: cat, full: text, params: ptypes}
	plan, err := b.statement(sts[0])
	if err != nil {
		return nil, err
	}
	plan.locks, plan.perms = b.locks, b.perms
	res, err := fr.s.runRoutineStatement(fr.x, plan, vals, text)
	if err != nil {
		return nil, withContext(err, fmt.Sprintf("SQL statement \"%s\"", text))
	}
	return res, nil
}

func (fr *plFrame) dynExecute(st *plStmt) error {
	res, err := fr.dynamic(st.expr, st.params)
	if err != nil {
		return err
	}
	fr.count = rowCount(res)
	if !st.into {
		return nil
	}
	if len(res.Rows) == 0 && st.strict {
		return pgerror.New(pgerror.NoDataFound, "query returned no rows")
	}
	if len(res.Rows) > 1 && st.strict {
		return pgerror.New(pgerror.TooManyRows, "query returned more than one row")
	}
	var row []any
	if len(res.Rows) > 0 {
		row = res.Rows[0]
	}
	return fr.assignRow(st.target, row, res.Columns)
}

func (fr *plFrame) getDiagnostics(st *plStmt) error {
	var cur *pgerror.Error
	if st.stacked {
		if len(fr.caught) == 0 {
			return pgerror.New(pgerror.StackedDiagnosticsAccessedWithoutActiveHandler, "GET STACKED DIAGNOSTICS cannot be used outside an exception handler")
		}
		cur = fr.caught[len(fr.caught)-1]
	}
	for _, d := range st.diag {
		var v any
		t := types.Text
		switch d.kind {
		case "ROW_COUNT":
			v, t = fr.count, types.Int8
		case "RETURNED_SQLSTATE":
			v = string(cur.Code)
		case "MESSAGE_TEXT":
			v = cur.Message
		case "PG_EXCEPTION_DETAIL":
			v = cur.Detail
		case "PG_EXCEPTION_HINT":
			v = cur.Hint
		case "CONSTRAINT_NAME":
			v = cur.Constraint
		case "TABLE_NAME":
			v = cur.Table
		case "COLUMN_NAME":
			v = cur.Column
		case "PG_EXCEPTION_CONTEXT":
			v = cur.Where
		case "SCHEMA_NAME", "PG_DATATYPE_NAME", "PG_CONTEXT":
			v = ""
		default:
			return pgerror.Unsupported("GET DIAGNOSTICS " + d.kind)
		}
		if err := fr.assign(d.target, v, t); err != nil {
			return err
		}
	}
	return nil
}

// sameQueryShape is RETURN QUERY's check that the query's columns are the
// function's result columns, in number and type (42804), as PostgreSQL
// checks it: no cast is applied, an untyped literal counts as text.
func sameQueryShape(have []Column, want []types.Field) error {
	mismatch := func(detail string, args ...any) error {
		return pgerror.New(pgerror.DatatypeMismatch, "structure of query does not match function result type").WithDetail(detail, args...)
	}
	if len(have) != len(want) {
		return mismatch("Number of returned columns (%d) does not match expected column count (%d).", len(have), len(want))
	}
	for i, c := range have {
		got := types.Oid(c.TypeOID)
		if got == types.OidUnknown {
			got = types.OidText
		}
		if got != want[i].Type.Oid {
			return mismatch("Returned type %s does not match expected type %s in column %d.",
				types.Type{Oid: got, Typmod: -1}, want[i].Type, i+1)
		}
	}
	return nil
}
