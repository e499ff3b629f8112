package sqlexec

import (
	"errors"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// plExpr is an SQL expression or statement of a PL/pgSQL body, planned at
// its first evaluation in a session and again when a record variable it
// reads changed shape (a record takes the shape of the row last assigned).
type plExpr struct {
	text string
	// mode is the parser's RawParseMode: 0 a statement, 2 an expression,
	// 3 an assignment "target := expression".
	mode     int
	compiled *plCompiled
	// scope holds the variables the expression's names may refer to.
	scope *plScope
	// assignTo is, for an assignment (mode 3 to 5), the datum it assigns.
	assignTo int
	// cursor marks a cursor's query, whose rows carry their positions
	// for WHERE CURRENT OF (current_of.go).
	cursor bool
}

// plCompiled is a planned plExpr: a scalar for a plain expression, a plan
// for anything with FROM, WHERE, and the like, and the statements.
type plCompiled struct {
	shapes []types.Type
	// version is the catalog version the plan was made for.
	version uint64
	// transitions names the transition tables the plan may read.
	transitions string
	// replica is the session's replication role the plan was made in.
	replica bool
	// path is the effective search path it was made under (planPath): a
	// body that changes search_path plans its later statements again.
	path   string
	scalar *scalar
	plan   *stmtPlan
	// outTargets are, for a CALL, the datums its OUT and INOUT arguments
	// name, one per result column of the procedure (-1 for an argument
	// left to its default).
	outTargets []int
	// element is the subscripted target of an assignment a[i] := x.
	element *arrayAssign
	// cursorShape is a cursor query's shape (current_of.go).
	cursorShape *cursorShape
}

// plFrame is one invocation of a PL/pgSQL body: the variables' values and
// types by datum number (the values are the parameters every planned
// expression reads), the rows RETURN NEXT and RETURN QUERY gathered, and
// the errors the enclosing handlers caught.
type plFrame struct {
	s     *Session
	x     *execCtx
	pl    *plFunction
	vals  []any
	typs  []types.Type
	rows  [][]any
	count int64
	// caught is the stack of errors being handled, innermost last.
	caught []*pgerror.Error
	// scalarCtx is the context plain expressions (no subqueries, so no
	// statement state to keep apart) are evaluated in, made once.
	scalarCtx *execCtx
	// fieldErr is the error of the last reference to a field a record
	// variable does not have (recordField), reported when the expression
	// being compiled fails to bind.
	fieldErr error
	// shaped are the record variables that are NULL with a known tuple
	// structure, as a trigger's NEW and OLD are when its event has no
	// such row (PostgreSQL's empty expanded records): assigning a field
	// starts from a row of NULLs. Assigning the variable ends it.
	shaped map[int]bool
	// annotated is the last error the frame gave its CONTEXT line
	// (plpgsql_context.go).
	annotated *pgerror.Error
}

// sql returns the SQL text an expression is planned from.
func (e *plExpr) sql() (string, error) {
	switch e.mode {
	case 2:
		return "SELECT " + e.text, nil
	case 3, 4, 5:
		i := strings.Index(e.text, ":=")
		skip := 2
		if i < 0 {
			i, skip = strings.Index(e.text, "="), 1
		}
		if i < 0 {
			return "", pgerror.Newf(pgerror.SyntaxError, "syntax error in assignment \"%s\"", e.text)
		}
		return "SELECT " + e.text[i+skip:], nil
	}
	return e.text, nil
}

// compile plans e for the frame's current variable types and the
// catalog the session sees now: DDL the body ran (or another session
// committed) since the plan was made plans it again, as PostgreSQL's plan
// cache invalidation does.
func (fr *plFrame) compile(e *plExpr) (*plCompiled, error) {
	c, err := fr.compileQuery(e)
	if err != nil {
		return nil, e.preparationError(err)
	}
	return c, nil
}

// preparationError is err, raised preparing e, as PostgreSQL's SPI reports
// it: an error with a position in the query points into the query as the
// body has it (QUERY and its LINE pointer), any other names the query in
// a CONTEXT line.
func (e *plExpr) preparationError(err error) error {
	var pe *pgerror.Error
	if !errors.As(err, &pe) || pe.Position == 0 {
		return withContext(err, e.queryContext())
	}
	ne := *pe
	ne.Position = 0
	ne.InternalQuery = e.text
	ne.InternalPosition = pe.Position
	if e.mode >= 2 {
		// Planned as "SELECT expr": the expression starts past the
		// prefix in the planned text, past "target :=" in e.text.
		ne.InternalPosition -= len("SELECT ")
		if text, _ := e.sql(); e.mode >= 3 {
			ne.InternalPosition += utf8.RuneCountInString(e.text) - utf8.RuneCountInString(text[len("SELECT "):])
		}
	}
	if ne.InternalPosition < 1 {
		ne.InternalPosition = 0
	}
	return &ne
}

// compileQuery is compile without the CONTEXT line.
func (fr *plFrame) compileQuery(e *plExpr) (*plCompiled, error) {
	cat, version := fr.s.catalog()
	if c := e.compiled; c != nil && c.version == version && sameShapes(c.shapes, fr.typs) && c.transitions == fr.s.transitionNames() && c.replica == fr.s.replica() && c.path == fr.s.planPath() {
		return c, nil
	}
	text, err := e.sql()
	if err != nil {
		return nil, err
	}
	sts, err := parseStatements(text)
	if err != nil {
		return nil, err
	}
	if len(sts) != 1 {
		return nil, pgerror.Newf(pgerror.SyntaxError, "query \"%s\" is not a single statement", e.text)
	}
	st := sts[0]
	b := &binder{s: fr.s, cat: cat, full: text, params: append([]types.Type(nil), fr.typs...), varsConflict: true,
		vars: func(b *binder, fields []string, loc int32) (*scalar, bool) { return fr.vars(e.scope, fields) }}
	c := &plCompiled{shapes: append([]types.Type(nil), fr.typs...), version: version, transitions: fr.s.transitionNames(), replica: fr.s.replica(), path: fr.s.planPath()}
	if c.element, err = fr.elementTarget(b, e, e.assignTo); err != nil {
		return nil, err
	}
	fr.fieldErr = nil
	if sel := st.node.GetSelectStmt(); e.mode != 0 && isBareTarget(sel) {
		if c.scalar, err = b.expr(nil, sel.TargetList[0].GetResTarget().Val); err != nil {
			return nil, fr.bindError(err)
		}
		if c.scalar.typ.Oid == types.OidUnknown || unresolved(c.scalar) {
			if c.scalar, err = b.coerce(c.scalar, types.Text, types.CastImplicit); err != nil {
				return nil, err
			}
		}
	} else {
		if st.isTxn {
			return nil, pgerror.Unsupported("transaction control in PL/pgSQL")
		}
		if e.cursor {
			b.declaring = st.node.GetSelectStmt()
		}
		if c.plan, err = b.statement(st); err != nil {
			return nil, fr.bindError(err)
		}
		if b.declaring != nil {
			if c.cursorShape = b.cursorShape; c.cursorShape == nil {
				sel := b.declaring
				c.cursorShape = &cursorShape{notScan: sel.Op != pg_query.SetOperation_SETOP_UNION || !sel.All}
			}
		}
		c.plan.locks, c.plan.perms = b.locks, b.perms
		if cs := st.node.GetCallStmt(); cs != nil {
			if c.outTargets, err = fr.callTargets(b, e.scope, cs.Funccall); err != nil {
				return nil, err
			}
		}
	}
	e.compiled = c
	return c, nil
}

// bindError is the error of an expression that failed to bind: PostgreSQL's
// for a field a record variable lacks when the expression named one and
// the binder found no column or table of that name either.
func (fr *plFrame) bindError(err error) error {
	var pe *pgerror.Error
	if fr.fieldErr != nil && errors.As(err, &pe) && (pe.Code == pgerror.UndefinedColumn || pe.Code == pgerror.UndefinedTable) {
		return fr.fieldErr
	}
	return err
}

// isBareTarget reports whether sel is SELECT expr and nothing else.
func isBareTarget(sel *pg_query.SelectStmt) bool {
	if sel == nil || len(sel.TargetList) != 1 {
		return false
	}
	reads := false
	walk(sel.TargetList[0], func(n *pg_query.Node) bool {
		reads = reads || n.GetSubLink() != nil
		return !reads
	})
	return !reads && len(sel.TargetList) == 1 && len(sel.FromClause) == 0 && sel.WhereClause == nil &&
		len(sel.GroupClause) == 0 && sel.HavingClause == nil && len(sel.SortClause) == 0 && sel.LimitCount == nil &&
		sel.LimitOffset == nil && len(sel.DistinctClause) == 0 && len(sel.ValuesLists) == 0 && sel.WithClause == nil &&
		sel.IntoClause == nil && sel.Op == pg_query.SetOperation_SETOP_NONE && len(sel.LockingClause) == 0 &&
		len(sel.WindowClause) == 0
}

func sameShapes(a, b []types.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// execCtx is the context an expression of the frame runs in: the caller's
// transaction, with the variables as parameters.
func (fr *plFrame) execCtx() *execCtx {
	return &execCtx{ctx: fr.x.ctx, s: fr.s, txn: fr.x.txn, params: fr.vals, env: fr.x.env,
		caches: &stmtCaches{}, stmtMark: fr.x.stmtMark, asOf: fr.x.asOf, withSnapshot: fr.x.withSnapshot}
}

// value evaluates an expression to one value and its type.
func (fr *plFrame) value(e *plExpr) (any, types.Type, error) {
	c, err := fr.compile(e)
	if err != nil {
		return nil, types.Type{}, err
	}
	if c.scalar != nil {
		if fr.scalarCtx == nil {
			fr.scalarCtx = fr.execCtx()
		}
		if c.scalar.volatile && fr.x.asOf == 0 {
			// In a volatile routine an expression is a statement of its
			// own: the STABLE functions it calls see the writes so far.
			fr.scalarCtx.stmtMark = fr.x.txn.WriteMark()
		}
		v, err := c.scalar.eval(fr.scalarCtx)
		return v, c.scalar.typ, err
	}
	res, err := fr.s.runRoutineStatement(fr.x, c.plan, fr.vals, e.text)
	if err != nil {
		return nil, types.Type{}, withContext(err, e.queryContext())
	}
	if len(res.Columns) != 1 {
		return nil, types.Type{}, pgerror.Newf(pgerror.SyntaxError, "query \"%s\" returned %d columns", e.text, len(res.Columns))
	}
	if len(res.Rows) > 1 {
		return nil, types.Type{}, pgerror.Newf(pgerror.CardinalityViolation, "query \"%s\" returned more than one row", e.text)
	}
	t := types.Type{Oid: types.Oid(res.Columns[0].TypeOID), Typmod: res.Columns[0].TypeMod}
	if len(res.Rows) == 0 {
		return nil, t, nil
	}
	return res.Rows[0][0], t, nil
}

// condition evaluates a boolean expression; NULL is false.
func (fr *plFrame) condition(e *plExpr) (bool, error) {
	v, t, err := fr.value(e)
	if err != nil {
		return false, err
	}
	if v == nil {
		return false, nil
	}
	if t.Oid != types.OidBool {
		if v, err = fr.cast(v, t, types.Bool); err != nil {
			return false, err
		}
	}
	return v.(bool), nil
}

// query runs a statement of the body and returns its result.
func (fr *plFrame) query(e *plExpr) (*Result, error) {
	c, err := fr.compile(e)
	if err != nil {
		return nil, err
	}
	if c.plan == nil {
		return nil, pgerror.Newf(pgerror.SyntaxError, "\"%s\" is not a query", e.text)
	}
	res, err := fr.s.runRoutineStatement(fr.x, c.plan, fr.vals, e.text)
	if err != nil {
		return nil, withContext(err, e.queryContext())
	}
	return res, nil
}

// cast converts v of type from to type to as PL/pgSQL assigns: by the
// assignment cast, else through the types' text forms.
func (fr *plFrame) cast(v any, from, to types.Type) (any, error) {
	if v == nil || to.Oid == 0 || from.Oid == to.Oid && (to.Typmod < 0 || from.Typmod == to.Typmod) {
		return v, nil
	}
	if from.Oid == types.OidUnknown {
		from = types.Text
	}
	if f, err := types.LookupCastEnv(from, to, types.CastAssignment); err == nil {
		return f(fr.x.env, v)
	}
	return types.ParseTextEnv(fr.x.env, to, types.FormatTextEnv(fr.x.env, from, v))
}

// lookupDatum returns the datum a name refers to in scope: the innermost
// variable or alias of that name, else one seen everywhere (a parameter,
// FOUND).
func (fr *plFrame) lookupDatum(scope *plScope, name string) int {
	return fr.pl.lookup(scope, name, func(k int) bool { return !fr.pl.scoped[k] })
}

// lookup returns the datum name refers to in scope, else the last datum of
// that name that global accepts; -1 for none.
func (p *plFunction) lookup(scope *plScope, name string, global func(int) bool) int {
	named := func(k int) bool { d := p.datums[k]; return d.name == name && d.kind != 'w' && d.kind != 'f' }
	for sc := scope; sc != nil; sc = sc.outer {
		for i := len(sc.aliases) - 1; i >= 0; i-- {
			if sc.aliases[i].name == name {
				return sc.aliases[i].dno
			}
		}
		for i := len(sc.dnos) - 1; i >= 0; i-- {
			if named(sc.dnos[i]) {
				return sc.dnos[i]
			}
		}
	}
	for i := len(p.datums) - 1; i >= 0; i-- {
		if global(i) && named(i) {
			return i
		}
	}
	return -1
}

// vars resolves variable names in the body's SQL: x, label.x,
// function.x, rec.field and label.rec.field.
func (fr *plFrame) vars(scope *plScope, fields []string) (*scalar, bool) {
	if len(fields) == 1 {
		return fr.varScalar(fr.lookupDatum(scope, fields[0]), fields[0])
	}
	if len(fields) == 3 {
		for sc := scope; sc != nil; sc = sc.outer {
			if sc.label == fields[0] {
				return fr.recordField(fr.lookupDatum(&plScope{dnos: sc.dnos, aliases: sc.aliases}, fields[1]), fields[2])
			}
		}
		return nil, false
	}
	if len(fields) != 2 {
		return nil, false
	}
	if k := fr.lookupDatum(scope, fields[0]); k >= 0 && fr.typs[k].IsRecord() {
		return fr.recordField(k, fields[1])
	}
	for sc := scope; sc != nil; sc = sc.outer {
		if sc.label == fields[0] {
			return fr.varScalar(fr.lookupDatum(&plScope{dnos: sc.dnos, aliases: sc.aliases}, fields[1]), fields[1])
		}
	}
	if !(fields[0] == fr.pl.fn.name && fr.pl.fn.hasParam(fields[1])) {
		return nil, false // a table's column, not label.x or function.parameter
	}
	return fr.varScalar(fr.lookupDatum(nil, fields[1]), fields[1])
}

// recordField resolves the field name of record datum k; false when k is
// not a record of a known shape with that field, and then, when k is a
// record, the error PostgreSQL gives for the reference is the frame's
// fieldErr, which the expression's compilation reports if no table column
// takes the name either.
func (fr *plFrame) recordField(k int, name string) (*scalar, bool) {
	if k < 0 || !fr.typs[k].IsRecord() {
		return nil, false
	}
	shape, known := fr.typs[k].Fields()
	if !known {
		fr.fieldErr = recordNotAssigned(fr.pl.datums[k].name)
		return nil, false
	}
	fr.fieldErr = pgerror.Newf(pgerror.UndefinedColumn, "record \"%s\" has no field \"%s\"", fr.pl.datums[k].name, name)
	for i, f := range shape {
		if f.Name == name {
			fr.fieldErr = nil
			return &scalar{typ: f.Type, slot: -1, name: f.Name, eval: func(x *execCtx) (any, error) {
				r, _ := x.params[k].([]any)
				if r == nil {
					return nil, nil
				}
				return r[i], nil
			}}, true
		}
	}
	return nil, false
}

func (fr *plFrame) varScalar(k int, name string) (*scalar, bool) {
	if k < 0 {
		return nil, false
	}
	return &scalar{typ: fr.typs[k], slot: -1, name: name, eval: func(x *execCtx) (any, error) { return x.params[k], nil }}, true
}

// assign stores v of type from into datum k: a variable (cast to its
// type), a record (which takes the value's shape, or casts it to its
// declared %ROWTYPE), or a row of variables.
func (fr *plFrame) assign(k int, v any, from types.Type) error {
	if d := fr.pl.datums[k]; d.isConst {
		return pgerror.Newf(pgerror.ErrorInAssignment, "variable \"%s\" is declared CONSTANT", d.name)
	}
	return fr.store(k, v, from)
}

// store is assign without its CONSTANT check: the declaration of a
// CONSTANT variable gives it its value this way.
func (fr *plFrame) store(k int, v any, from types.Type) error {
	d := fr.pl.datums[k]
	delete(fr.shaped, k)
	switch {
	case d.kind == 'f':
		return fr.assignField(d, v, from)
	case d.kind == 'w' && len(d.fields) == 1 && (fr.pl.datums[d.fields[0]].kind == 'r' ||
		fr.typs[d.fields[0]].Oid == types.OidRecord && fr.pl.datums[d.fields[0]].kind != 'f'):
		// INTO a lone record variable takes the whole row; INTO a lone
		// field of one takes the first column, as a variable does.
		return fr.assign(d.fields[0], v, from)
	case d.kind == 'w' && len(d.fields) == 1 && fr.pl.datums[d.fields[0]].kind == 'v' && fr.typs[d.fields[0]].IsComposite():
		// INTO a lone variable of a composite type fills its fields.
		r, _ := v.([]any)
		shape, _ := from.Fields()
		return fr.assignComposite(d.fields[0], r, shape)
	case d.kind == 'w':
		r, _ := v.([]any)
		shape, _ := from.Fields()
		for i, f := range d.fields {
			var fv any
			var ft types.Type
			if i < len(r) {
				fv = r[i]
			}
			if i < len(shape) {
				ft = shape[i].Type
			}
			if err := fr.assign(f, fv, ft); err != nil {
				return err
			}
		}
		return nil
	case d.kind == 'r' || fr.typs[k].Oid == types.OidRecord && !declaredShape(d):
		// A record takes the shape of the row assigned, a composite
		// type's too.
		if from.IsRecord() {
			fr.typs[k] = from
		}
		fr.vals[k] = v
		return nil
	}
	cv, err := fr.rowValue(v, from, fr.typs[k])
	if err != nil {
		return err
	}
	if r, _ := cv.([]any); r != nil {
		for i, check := range d.fieldChecks {
			if check != nil && i < len(r) {
				if err := check(fr.x, r[i]); err != nil {
					return err
				}
			}
		}
	}
	if d.domain != nil {
		if err := d.domain(fr.x, cv); err != nil {
			return err
		}
	}
	if cv == nil && d.notNull {
		return pgerror.Newf(pgerror.NullValueNotAllowed, "null value cannot be assigned to variable \"%s\" declared NOT NULL", d.name)
	}
	fr.vals[k] = cv
	return nil
}

// declaredShape reports whether d's declared type has fields of its own:
// a variable of a row type, not a record that takes its values' shapes.
func declaredShape(d *plDatum) bool {
	_, fixed := d.typ.Fields()
	return fixed
}

// rowValue is v of type from as a value of type to, as PL/pgSQL assigns
// it: a row assigned to a variable of a row type of another shape gives
// its fields by position to the type's fields (a field without a value
// NULL, a value without a field dropped), each cast as an assignment is;
// any other value is cast.
func (fr *plFrame) rowValue(v any, from, to types.Type) (any, error) {
	r, isRow := v.([]any)
	declared, fixed := to.Fields()
	shape, known := from.Fields()
	if !isRow || !fixed || !known || !to.IsRecord() || from == to {
		return fr.cast(v, from, to)
	}
	out := make([]any, len(declared))
	for i := range declared {
		if i >= len(r) || i >= len(shape) {
			break
		}
		cv, err := fr.cast(r[i], shape[i].Type, declared[i].Type)
		if err != nil {
			return nil, err
		}
		out[i] = cv
	}
	return out, nil
}

// assignRow stores a result row (nil for none) into the target datum: a
// scalar variable takes its first column.
func (fr *plFrame) assignRow(k int, row []any, cols []Column) error {
	if row != nil {
		if err := fr.strictMultiAssignment(k, len(cols)); err != nil {
			return err
		}
	}
	fields := make([]types.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field{Name: c.Name, Type: types.Type{Oid: types.Oid(c.TypeOID), Typmod: c.TypeMod}}
	}
	if d := fr.pl.datums[k]; d.kind == 'v' && fr.typs[k].IsComposite() {
		return fr.assignComposite(k, row, fields)
	}
	if d := fr.pl.datums[k]; d.kind == 'v' && fr.typs[k].Oid != types.OidRecord {
		var v any
		if row != nil && len(row) > 0 {
			v = row[0]
		}
		t := fr.typs[k]
		if len(fields) > 0 {
			t = fields[0].Type
		}
		return fr.assign(k, v, t)
	}
	var v any
	if row != nil {
		v = row
	}
	return fr.assign(k, v, types.RecordType(fields))
}

// assignComposite stores a query's row into variable k of a composite
// type, as PostgreSQL does: column by column into the type's fields, a
// field without a column NULL and a column without a field dropped.
func (fr *plFrame) assignComposite(k int, row []any, cols []types.Field) error {
	shape, _ := fr.typs[k].Fields()
	out := make([]any, len(shape))
	for i := range shape {
		if i >= len(row) || i >= len(cols) {
			break
		}
		v, err := fr.cast(row[i], cols[i].Type, shape[i].Type)
		if err != nil {
			return err
		}
		out[i] = v
	}
	return fr.assign(k, out, fr.typs[k])
}

// recordNotAssigned is the error of a reference to a field of a record
// variable that has no shape yet.
func recordNotAssigned(name string) error {
	return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", name).
		WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
}

// assignField stores v into a field of a record variable (NEW.col := v).
func (fr *plFrame) assignField(d *plDatum, v any, from types.Type) error {
	parent := d.fields[0]
	shape, known := fr.typs[parent].Fields()
	r, _ := fr.vals[parent].([]any)
	if known && r == nil && (declaredShape(fr.pl.datums[parent]) || fr.shaped[parent]) {
		// A variable of a row type that is NULL, or a trigger's NEW or
		// OLD without a row, becomes a row of NULLs before its field is
		// set.
		r = make([]any, len(shape))
	}
	if !known || r == nil {
		return recordNotAssigned(fr.pl.datums[parent].name)
	}
	for i, f := range shape {
		if f.Name == d.name {
			cv, err := fr.cast(v, from, f.Type)
			if err != nil {
				return err
			}
			if checks := fr.pl.datums[parent].fieldChecks; i < len(checks) && checks[i] != nil {
				if err := checks[i](fr.x, cv); err != nil {
					return err
				}
			}
			nr := append([]any(nil), r...)
			nr[i] = cv
			// A variable of a domain over a row type checks the whole
			// new row.
			if dom := fr.pl.datums[parent].domain; dom != nil {
				if err := dom(fr.x, nr); err != nil {
					return err
				}
			}
			fr.vals[parent] = nr
			return nil
		}
	}
	return pgerror.Newf(pgerror.UndefinedColumn, "record \"%s\" has no field \"%s\"", fr.pl.datums[parent].name, d.name)
}
