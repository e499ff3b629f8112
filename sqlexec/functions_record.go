package sqlexec

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Functions declared RETURNS record or SETOF record without OUT
// parameters return rows of a shape only the call knows: in FROM, the
// column definition list (SELECT * FROM f() AS t(a int, b text)) gives
// it, and the function's rows are checked against it as PostgreSQL checks
// them (a PL/pgSQL function's record must have the listed types, a SQL
// function's final statement must cast to them by assignment). Elsewhere
// the function returns one anonymous record value.

var (
	errColumnDefinitionsRequired   = pgerror.New(pgerror.SyntaxError, "a column definition list is required for functions returning \"record\"")
	errColumnDefinitionsNotAllowed = pgerror.New(pgerror.SyntaxError, "a column definition list is only allowed for functions returning \"record\"")
)

// anonRecord reports whether f returns records of no declared shape.
func (f *funcDesc) anonRecord() bool {
	return f.result.Oid == types.OidRecord && len(f.outCols) == 0
}

// recordCall is the set call of a user function in FROM: with a function
// returning record, its rows have the column definition list's shape,
// which the call passes to the body (execCtx.recordShape).
func (b *binder) recordCall(rf *pg_query.RangeFunction, fc *pg_query.FuncCall, call *routineCall) (*setCall, error) {
	sc := call.setCall()
	if !call.fn.anonRecord() {
		if len(rf.Coldeflist) > 0 {
			return nil, b.columnDefinitionsNotAllowed(rf)
		}
		return sc, nil
	}
	if len(rf.Coldeflist) == 0 {
		return nil, b.errAt(errColumnDefinitionsRequired, fc.Location)
	}
	shape, err := b.columnDefinitions(rf)
	if err != nil {
		return nil, err
	}
	f := call.fn
	sc.cols = shape
	sc.fn = &setFunc{schema: f.schema, strict: f.strict && f.retSet, volatile: f.volatility == 'v', outParam: true, rows: func(x *execCtx, args []any) ([][]any, error) {
		cx := *x
		cx.recordShape = shape
		rows, err := x.s.invoke(&cx, f, args)
		return f.fromRows(len(shape), rows, err)
	}}
	return sc, nil
}

// columnDefinitionsNotAllowed is the error of a column definition list
// given to a function that does not return record, at the list.
func (b *binder) columnDefinitionsNotAllowed(rf *pg_query.RangeFunction) error {
	return b.errAt(errColumnDefinitionsNotAllowed, rf.Coldeflist[0].GetColumnDef().GetLocation())
}

// conformRecord turns a PL/pgSQL record value v of type t into a row of
// the call's shape: it must have as many fields, of the same types (42804
// with what as the message otherwise). A NULL record is a row of NULLs.
func conformRecord(v any, t types.Type, shape []types.Field, what string) ([]any, error) {
	if v == nil {
		return make([]any, len(shape)), nil
	}
	row, _ := v.([]any)
	fields, _ := t.Fields()
	mismatch := func(detail string, args ...any) error {
		return pgerror.New(pgerror.DatatypeMismatch, what).WithDetail(detail, args...)
	}
	if len(row) != len(shape) {
		return nil, mismatch("Number of returned columns (%d) does not match expected column count (%d).", len(row), len(shape))
	}
	for i, f := range shape {
		got := types.Text
		if i < len(fields) && fields[i].Type.Oid != types.OidUnknown {
			got = fields[i].Type
		}
		if got.Oid != f.Type.Oid {
			return nil, mismatch("Returned type %s does not match expected type %s in column %d.", got, f.Type, i+1)
		}
	}
	return row, nil
}

// sqlRecordRows returns a SQL function's rows for a function returning
// record: in the call's shape, cast by assignment as check_sql_fn_retval
// allows, or as one record value each where the call gives no shape.
func sqlRecordRows(x *execCtx, rows [][]any, cols []Column) ([][]any, error) {
	shape := x.recordShape
	if shape == nil {
		out := make([][]any, len(rows))
		for i, r := range rows {
			out[i] = []any{r}
		}
		return out, nil
	}
	mismatch := func(detail string) error {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "return type mismatch in function declared to return record").WithDetail("%s", detail)
	}
	switch {
	case len(cols) > len(shape):
		return nil, mismatch("Final statement returns too many columns.")
	case len(cols) < len(shape):
		return nil, mismatch("Final statement returns too few columns.")
	}
	for i, c := range cols {
		from := types.Type{Oid: types.Oid(c.TypeOID), Typmod: c.TypeMod}
		if from.Oid == shape[i].Type.Oid || from.Oid == types.OidUnknown {
			continue
		}
		if _, err := types.LookupCastEnv(from, shape[i].Type, types.CastAssignment); err != nil {
			return nil, mismatch(fmt.Sprintf("Final statement returns %s instead of %s at column %d.", from, shape[i].Type, i+1))
		}
	}
	return coerceRows(x, rows, cols, shape)
}

// resultCols are the columns the frame's rows have: the call's shape for
// a function returning record called with one, else the declared ones.
func (fr *plFrame) resultCols() []types.Field {
	if fr.pl.fn.anonRecord() && fr.x.recordShape != nil {
		return fr.x.recordShape
	}
	return fr.pl.fn.resultCols()
}

// recordRow is the row a function returning record returns for the
// record value v of type t: the value itself, or its fields in the call's
// shape.
func (fr *plFrame) recordRow(v any, t types.Type, what string) ([]any, error) {
	if _, isRow := v.([]any); v != nil && !isRow {
		return nil, pgerror.New(pgerror.DatatypeMismatch, "cannot return non-composite value from function returning composite type")
	}
	if fr.x.recordShape == nil {
		return []any{v}, nil
	}
	return conformRecord(v, t, fr.x.recordShape, what)
}

// returnsRowOf reports whether f returns a composite type that a value of
// type t is not: a row built another way (ROW(...), a record variable),
// whose fields PL/pgSQL's RETURN and RETURN NEXT take by position only
// when their types are the type's (conformRecord), with no cast.
func (f *funcDesc) returnsRowOf(t types.Type) bool {
	return f.result.IsComposite() && !f.hasOutParams() && t.Oid != f.result.Oid
}

// compositeRow is a PL/pgSQL value returned from a function returning a
// composite type, as its row (see returnsRowOf).
func (fr *plFrame) compositeRow(v any, t types.Type, what string) ([]any, error) {
	if _, isRow := v.([]any); v != nil && !isRow {
		return nil, pgerror.New(pgerror.DatatypeMismatch, "cannot return non-composite value from function returning composite type")
	}
	return conformRecord(v, t, fr.pl.fn.outCols, what)
}

// queryRows are the rows RETURN QUERY adds for the query's result: of the
// function's result columns (42804 when the query's differ), or one
// record each for a function returning record called without a shape.
func (fr *plFrame) queryRows(res *Result) ([][]any, error) {
	if fr.pl.fn.anonRecord() && fr.x.recordShape == nil {
		return sqlRecordRows(fr.x, res.Rows, res.Columns)
	}
	if err := sameQueryShape(res.Columns, fr.resultCols()); err != nil {
		return nil, err
	}
	if fr.pl.resultChecks != nil {
		// PostgreSQL takes a column only of the declared domain itself,
		// which fickle cannot tell from one of the domain's base type.
		return nil, pgerror.Unsupported("RETURN QUERY in a function whose result is of a domain type")
	}
	return coerceRows(fr.x, res.Rows, res.Columns, fr.resultCols())
}
