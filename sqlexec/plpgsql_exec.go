package sqlexec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// plSignal is how a statement ended: normally, or by EXIT, CONTINUE or
// RETURN, which unwind to the loop, block or function they name.
type plSignal int

const (
	plNext plSignal = iota
	plExit
	plContinue
	plReturn
)

// plFlow is a statement's outcome: the signal and the label EXIT or
// CONTINUE named.
type plFlow struct {
	sig   plSignal
	label string
}

// The elog levels of RAISE, as the parser reports them.
const (
	plLevelDebug   = 14
	plLevelLog     = 15
	plLevelInfo    = 17
	plLevelNotice  = 18
	plLevelWarning = 19
	plLevelError   = 21
)

// compilePlpgsql parses f's body and resolves its variables' types.
func compilePlpgsql(s *Session, cat *catalog, f *funcDesc) (*plFunction, error) {
	b := &binder{s: s, cat: cat}
	p, err := parsePlpgsql(f, plRowTypes(b))
	if err != nil {
		return nil, err
	}
	if f.result.Oid == types.OidTrigger {
		p.datums = append(p.datums, triggerDatums()...)
	}
	if f.result.Oid == types.OidEventTrigger {
		p.datums = append(p.datums, eventTriggerDatums()...)
	}
	for i, d := range p.datums {
		if d.typ.Oid != 0 {
			continue
		}
		switch {
		case i < len(f.params):
			// A parameter of a row type is a record to the parser
			// (plpgsqlSource); its type is known.
			d.typ, d.kind = f.params[i].typ, 'v'
		case d.kind == 'r' && d.typName != "":
			// A variable of a row type: a record of the type's fields,
			// which starts NULL and takes values as the type's rows.
			if d.typ, err = resolvePlType(b, d.typName); err != nil {
				return nil, err
			}
			if _, known := d.typ.Fields(); !known || !d.typ.IsRecord() {
				return nil, pgerror.Unsupported("a PL/pgSQL record variable of type " + d.typName)
			}
			if d.domain, err = plDomainCheck(b, d.typName); err != nil {
				return nil, err
			}
			d.kind = 'v'
		case d.kind == 'r' || d.kind == 'w' || d.kind == 'f' || d.kind == '?':
			d.typ = types.RecordType(nil)
			d.typ.Typmod = -1
		default:
			if d.typ, err = resolvePlType(b, d.typName); err != nil {
				return nil, err
			}
			if d.domain, err = plDomainCheck(b, d.typName); err != nil {
				return nil, err
			}
		}
	}
	for i, prm := range f.params {
		if prm.dom.oid == 0 || i >= len(p.datums) {
			continue
		}
		// A parameter of a domain is a variable of the domain, which
		// assignments check.
		t := b.domainByOid(prm.dom.oid)
		if t == nil || t.domain == nil {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "type with OID %d does not exist", prm.dom.oid)
		}
		if p.datums[i].domain, err = b.domainCheckFor(t); err != nil {
			return nil, err
		}
	}
	for _, d := range p.datums {
		if d.kind == 'v' && d.typ.IsComposite() {
			if d.fieldChecks, err = compositeFieldChecks(b, d.typ); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// compositeFieldChecks compiles the checks of the domains the fields of composite
// type t (a table's row type or a composite type) are declared with, and
// those of the fields of its fields of a composite type: a value converted
// to the type, or a PL/pgSQL variable of it, takes only field values they
// accept. nil when there are none.
func compositeFieldChecks(b *binder, t types.Type) ([]domainCheck, error) {
	c := b.catalogNow()
	var td *typeDesc
	if tab, array := c.tableOfRowType(uint32(t.Oid)); tab != nil && !array {
		td = tab.rowTypeDesc()
	} else if td = c.typeByOid(uint32(t.Oid)); td == nil {
		return nil, nil
	}
	checks, err := b.fieldDomainChecks(td)
	if err != nil {
		return nil, err
	}
	for i, f := range td.fields {
		if i < len(checks) && checks[i] != nil || !f.Type.IsComposite() {
			continue
		}
		inner, err := compositeFieldChecks(b, f.Type)
		if err != nil {
			return nil, err
		}
		if inner == nil {
			continue
		}
		if checks == nil {
			checks = make([]domainCheck, len(td.fields))
		}
		checks[i] = func(x *execCtx, v any) error {
			r, _ := v.([]any)
			for j, check := range inner {
				if check != nil && j < len(r) {
					if err := check(x, r[j]); err != nil {
						return err
					}
				}
			}
			return nil
		}
	}
	return checks, nil
}

// plDomainCheck compiles the check of the domain a declared type name
// names: a variable of a domain type takes only values its constraints
// accept, as in PostgreSQL. It is nil for any other type.
func plDomainCheck(b *binder, name string) (domainCheck, error) {
	if lower := strings.ToLower(name); strings.HasSuffix(lower, "%type") || strings.HasSuffix(lower, "%rowtype") {
		return nil, nil
	}
	tn, err := parseTypeString(name)
	if err != nil {
		return nil, nil
	}
	dom := b.domainNamed(tn)
	if dom == nil {
		return nil, nil
	}
	return b.domainCheckFor(dom)
}

// resolvePlType resolves a declared type: a type name, table%ROWTYPE or
// table.column%TYPE.
func resolvePlType(b *binder, name string) (types.Type, error) {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, "%rowtype"):
		t, err := plTable(b, name[:len(name)-len("%rowtype")])
		if err != nil {
			// A composite type's name takes %ROWTYPE too.
			if tn, perr := parseTypeString(name[:len(name)-len("%rowtype")]); perr == nil {
				if ct, cerr := b.typeName(tn); cerr == nil && ct.IsComposite() {
					return ct, nil
				}
			}
			return types.Type{}, err
		}
		if t.rowType != 0 {
			return t.rowTypeDesc().typ(), nil
		}
		fields := make([]types.Field, len(t.cols))
		for i, c := range t.cols {
			fields[i] = types.Field{Name: c.name, Type: c.typ}
		}
		return types.RecordType(fields), nil
	case strings.HasSuffix(lower, "%type"):
		ref := name[:len(name)-len("%type")]
		dot := strings.LastIndex(ref, ".")
		if dot < 0 {
			return types.Type{}, pgerror.Unsupported("%TYPE of a variable")
		}
		t, err := plTable(b, ref[:dot])
		if err != nil {
			return types.Type{}, err
		}
		col := strings.ToLower(strings.Trim(ref[dot+1:], `"`))
		i := t.colIndex(col)
		if i < 0 {
			return types.Type{}, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, t.name)
		}
		return t.cols[i].typ, nil
	}
	tn, err := parseTypeString(name)
	if err != nil {
		return types.Type{}, err
	}
	return b.typeName(tn)
}

func plTable(b *binder, name string) (*tableDesc, error) {
	parts := strings.Split(strings.ToLower(name), ".")
	schema := ""
	if len(parts) == 2 {
		schema = parts[0]
	}
	t := b.s.lookupTable(b.cat, schema, parts[len(parts)-1])
	if t == nil {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	return t, nil
}

// invokePlpgsql runs a PL/pgSQL routine.
func (s *Session) invokePlpgsql(x *execCtx, f *funcDesc, vals []any) ([][]any, error) {
	if f.result.Oid == types.OidTrigger || f.result.Oid == types.OidEventTrigger {
		return nil, withContext(pgerror.New(pgerror.FeatureNotSupported, "trigger functions can only be called as triggers"),
			fmt.Sprintf("compilation of PL/pgSQL function \"%s\" near line 1", f.name))
	}
	fr, err := s.newFrame(x, f)
	if err != nil {
		return nil, err
	}
	return fr.run(vals)
}

// newFrame prepares an invocation of f.
func (s *Session) newFrame(x *execCtx, f *funcDesc) (*plFrame, error) {
	c, err := s.compiled(f)
	if err != nil {
		return nil, err
	}
	p := c.pl
	fr := &plFrame{s: s, x: x, pl: p, vals: make([]any, len(p.datums)), typs: make([]types.Type, len(p.datums))}
	for i, d := range p.datums {
		fr.typs[i] = d.typ
	}
	return fr, nil
}

// run runs the body with the input arguments vals.
func (fr *plFrame) run(vals []any) ([][]any, error) {
	p, f := fr.pl, fr.pl.fn
	in := 0
	for i, prm := range f.params {
		if prm.arg {
			if prm.isIn() {
				fr.vals[i] = vals[in]
			}
			in++
		}
	}
	if p.found >= 0 {
		fr.vals[p.found] = false
	}
	flow, err := fr.exec(p.body)
	if err != nil {
		return nil, err
	}
	if f.resultDom.oid != 0 && f.result.IsComposite() && !f.retSet {
		// The row of a domain over a composite type, which the
		// composite paths of RETURN build (PostgreSQL's RETURN NEXT
		// stores the row as the composite type's, unchecked).
		if err := checkResultRows(fr.x, f, p.resultChecks, fr.rows); err != nil {
			return nil, err
		}
	}
	switch {
	case f.retSet:
		return fr.rows, nil
	case flow.sig == plReturn:
		return fr.rows, nil
	case f.result.Oid == types.OidVoid || f.result.Oid == types.OidEventTrigger:
		if f.kind == 'p' {
			return nil, nil
		}
		return [][]any{{""}}, nil
	case f.hasOutParams() || f.kind == 'p':
		return [][]any{fr.outRow()}, nil
	}
	return nil, pgerror.New(pgerror.FunctionExecutedNoReturnStatement, "control reached end of function without RETURN")
}

// outRow is the row of the OUT and INOUT parameters' values.
func (fr *plFrame) outRow() []any {
	var row []any
	for i, p := range fr.pl.fn.params {
		if p.isOut() {
			row = append(row, fr.vals[i])
		}
	}
	return row
}

func (fr *plFrame) execList(list []*plStmt) (plFlow, error) {
	for _, st := range list {
		flow, err := fr.exec(st)
		if err != nil || flow.sig != plNext {
			return flow, err
		}
	}
	return plFlow{}, nil
}

func (fr *plFrame) setFound(b bool) {
	if fr.pl.found >= 0 {
		fr.vals[fr.pl.found] = b
	}
}

// exec runs one statement; an error it raises gets the function's CONTEXT
// line naming the innermost statement.
func (fr *plFrame) exec(st *plStmt) (plFlow, error) {
	flow, err := fr.execStatement(st)
	if err != nil {
		err = fr.statementContext(err, st)
	}
	return flow, err
}

func (fr *plFrame) execStatement(st *plStmt) (plFlow, error) {
	switch st.kind {
	case "block":
		return fr.block(st)
	case "assign":
		v, t, err := fr.value(st.expr)
		if err != nil {
			return plFlow{}, err
		}
		if a := st.expr.compiled.element; a != nil {
			return plFlow{}, fr.assignElement(st.varno, a, v, t)
		}
		return plFlow{}, fr.assign(st.varno, v, t)
	case "if":
		ok, err := fr.condition(st.cond)
		if err != nil || ok {
			return fr.result(err, st.thenBody)
		}
		for _, c := range st.elsifs {
			if ok, err := fr.condition(c.cond); err != nil || ok {
				return fr.result(err, c.body)
			}
		}
		return fr.execList(st.elseBody)
	case "case":
		return fr.caseStmt(st)
	case "loop", "while", "fori":
		return fr.loop(st)
	case "fors", "dynfors":
		return fr.forQuery(st)
	case "foreach_a":
		return fr.forEach(st)
	case "exit":
		if st.cond != nil {
			ok, err := fr.condition(st.cond)
			if err != nil || !ok {
				return plFlow{}, err
			}
		}
		if st.isExit {
			return plFlow{sig: plExit, label: st.label}, nil
		}
		return plFlow{sig: plContinue, label: st.label}, nil
	case "return":
		return fr.returnStmt(st)
	case "return_next":
		return plFlow{}, fr.returnNext(st)
	case "return_query":
		var res *Result
		var err error
		if st.dynamic {
			res, err = fr.dynamic(st.expr, st.params)
		} else {
			res, err = fr.query(st.expr)
		}
		if err != nil {
			return plFlow{}, err
		}
		rows, err := fr.queryRows(res)
		if err != nil {
			return plFlow{}, err
		}
		fr.rows = append(fr.rows, rows...)
		fr.count = int64(len(res.Rows))
		fr.setFound(len(res.Rows) > 0)
		return plFlow{}, err
	case "raise":
		return plFlow{}, fr.raise(st)
	case "assert":
		ok, err := fr.condition(st.cond)
		if err != nil || ok {
			return plFlow{}, err
		}
		msg := "assertion failed"
		if st.expr != nil {
			v, t, err := fr.value(st.expr)
			if err != nil {
				return plFlow{}, err
			}
			if v != nil {
				msg = types.FormatTextEnv(fr.x.env, t, v)
			}
		}
		return plFlow{}, pgerror.New(pgerror.AssertFailure, msg)
	case "perform":
		res, err := fr.query(st.expr)
		if err != nil {
			return plFlow{}, err
		}
		fr.count = int64(len(res.Rows))
		fr.setFound(len(res.Rows) > 0)
		return plFlow{}, nil
	case "call":
		return plFlow{}, fr.call(st.expr)
	case "execsql":
		return plFlow{}, fr.execSQL(st)
	case "dynexecute":
		return plFlow{}, fr.dynExecute(st)
	case "commit", "rollback":
		return plFlow{}, fr.endTransaction(st.kind == "commit", st.chain)
	case "getdiag":
		return plFlow{}, fr.getDiagnostics(st)
	case "open":
		return plFlow{}, fr.openCursor(st)
	case "fetch":
		return plFlow{}, fr.fetchCursor(st)
	case "close":
		return plFlow{}, fr.closeCursor(st)
	case "forc":
		return fr.forCursor(st)
	}
	return plFlow{}, pgerror.Unsupported("PL/pgSQL statement " + st.kind)
}

func (fr *plFrame) result(err error, body []*plStmt) (plFlow, error) {
	if err != nil {
		return plFlow{}, err
	}
	return fr.execList(body)
}

// block runs a BEGIN ... END block: its declarations, its body and, when
// it has EXCEPTION handlers, the body inside a savepoint that a caught
// error rolls back to, as PostgreSQL runs it in a subtransaction.
func (fr *plFrame) block(st *plStmt) (plFlow, error) {
	if k, err := fr.initDeclarations(st); err != nil {
		return plFlow{}, fr.functionContext(err, fr.pl.datums[k].line, "during statement block local variable initialization")
	}
	if len(st.handlers) == 0 {
		flow, err := fr.execList(st.body)
		return fr.labeled(st, flow, err)
	}
	s := fr.s
	name := fmt.Sprintf("\x00plpgsql %d %d", s.routineDepth, len(s.txn.savepoints))
	if err := s.savepoint(fr.x.ctx, name); err != nil {
		return plFlow{}, err
	}
	flow, err := fr.execList(st.body)
	if err == nil {
		return fr.labeled(st, flow, s.releaseSavepoint(name))
	}
	var pe *pgerror.Error
	if !errors.As(err, &pe) || fr.x.txn.Ended() {
		return plFlow{}, err
	}
	for _, h := range st.handlers {
		if !handles(h, pe.Code) {
			continue
		}
		if rerr := s.rollbackToSavepoint(name); rerr != nil {
			return plFlow{}, err
		}
		if rerr := s.releaseSavepoint(name); rerr != nil {
			return plFlow{}, rerr
		}
		fr.setErrorVars(pe)
		fr.caught = append(fr.caught, pe)
		flow, herr := fr.execList(h.body)
		fr.caught = fr.caught[:len(fr.caught)-1]
		return fr.labeled(st, flow, herr)
	}
	return plFlow{}, err
}

// initDeclarations gives the variables a block declares their initial
// values; k is the variable that failed.
func (fr *plFrame) initDeclarations(st *plStmt) (k int, err error) {
	for _, k := range st.decls {
		d := fr.pl.datums[k]
		fr.vals[k] = nil
		fr.typs[k] = d.typ
		if d.def != nil {
			v, t, err := fr.value(d.def)
			if err == nil {
				err = fr.store(k, v, t)
			}
			if err != nil {
				return k, err
			}
		} else if d.notNull {
			return k, pgerror.Newf(pgerror.NullValueNotAllowed, "variable \"%s\" must have a default value, since it's declared NOT NULL", d.name)
		} else if d.domain != nil {
			// The domain may reject the NULL the variable starts with.
			if err := d.domain(fr.x, nil); err != nil {
				return k, err
			}
		}
	}
	return 0, nil
}

// labeled ends a block: an EXIT naming its label ends there.
func (fr *plFrame) labeled(st *plStmt, flow plFlow, err error) (plFlow, error) {
	if err != nil {
		return plFlow{}, err
	}
	if flow.sig == plExit && flow.label != "" && flow.label == st.label {
		return plFlow{}, nil
	}
	return flow, nil
}

// setErrorVars sets SQLSTATE and SQLERRM, the handler's variables.
func (fr *plFrame) setErrorVars(pe *pgerror.Error) {
	for i, d := range fr.pl.datums {
		switch d.name {
		case "sqlstate":
			fr.vals[i] = string(pe.Code)
		case "sqlerrm":
			fr.vals[i] = pe.Message
		}
	}
}

// handles reports whether a handler's conditions catch code: OTHERS
// catches all but query_canceled and assert_failure.
func handles(h *plHandler, code pgerror.Code) bool {
	c := string(code)
	for _, cond := range h.conditions {
		if cond == "others" {
			if c != "57014" && c != "P0004" {
				return true
			}
			continue
		}
		codes, named := plConditions[cond]
		if !named {
			codes = []string{cond} // WHEN SQLSTATE 'xxxxx'
		}
		for _, k := range codes {
			// A class code (two characters then 000) catches the class.
			if k == c || strings.HasSuffix(k, "000") && strings.HasPrefix(c, k[:2]) {
				return true
			}
		}
	}
	return false
}

func (fr *plFrame) returnStmt(st *plStmt) (plFlow, error) {
	f := fr.pl.fn
	switch {
	case f.retSet:
		return plFlow{sig: plReturn}, nil
	case f.result.Oid == types.OidVoid || f.result.Oid == types.OidEventTrigger:
		if f.kind == 'p' {
			fr.rows = nil
		} else {
			fr.rows = [][]any{{""}}
		}
		return plFlow{sig: plReturn}, nil
	case f.kind == 'p' || f.hasOutParams():
		// A lone OUT parameter has no outCols: the function returns its
		// value as a scalar, the one column of outRow.
		fr.rows = [][]any{fr.outRow()}
		return plFlow{sig: plReturn}, nil
	}
	if st.expr == nil {
		// The parser ends every body with a RETURN of no value: reaching
		// it in a function that returns one is an error.
		return plFlow{}, pgerror.New(pgerror.FunctionExecutedNoReturnStatement, "control reached end of function without RETURN")
	}
	v, t, err := fr.value(st.expr)
	if err != nil {
		return plFlow{}, err
	}
	if f.result.Oid == types.OidTrigger {
		// A trigger returns the row to write (NEW or OLD), or NULL.
		if _, ok := v.([]any); v != nil && !ok {
			return plFlow{}, pgerror.New(pgerror.DatatypeMismatch, "returned row structure does not match the structure of the triggering table")
		}
		fr.rows = [][]any{{v}}
		return plFlow{sig: plReturn}, nil
	}
	if v == nil && (f.anonRecord() || f.result.IsComposite()) && !f.hasOutParams() {
		// A NULL of a composite type: no row, which makes the call's
		// value NULL, and a row of NULLs in FROM (fromRows).
		fr.rows = nil
		return plFlow{sig: plReturn}, nil
	}
	if f.anonRecord() {
		row, err := fr.recordRow(v, t, "returned record type does not match expected record type")
		fr.rows = [][]any{row}
		return plFlow{sig: plReturn}, err
	}
	if f.returnsRowOf(t) {
		row, err := fr.compositeRow(v, t, "returned record type does not match expected record type")
		fr.rows = [][]any{row}
		return plFlow{sig: plReturn}, err
	}
	if v, err = fr.cast(v, t, f.result); err != nil {
		return plFlow{}, err
	}
	fr.rows = [][]any{f.resultRow(v)}
	return plFlow{sig: plReturn}, checkResultRows(fr.x, f, fr.pl.resultChecks, fr.rows)
}

func (fr *plFrame) returnNext(st *plStmt) error {
	f := fr.pl.fn
	if !f.retSet {
		return pgerror.New(pgerror.SyntaxError, "cannot use RETURN NEXT in a non-SETOF function")
	}
	if st.expr == nil && st.varno < 0 {
		if !f.hasOutParams() {
			return pgerror.Unsupported("this form of RETURN NEXT")
		}
		fr.rows = append(fr.rows, fr.outRow())
		return nil
	}
	var v any
	var t types.Type
	var err error
	if st.varno >= 0 {
		v, t = fr.vals[st.varno], fr.typs[st.varno]
	} else if v, t, err = fr.value(st.expr); err != nil {
		return err
	}
	if f.anonRecord() {
		row, err := fr.recordRow(v, t, "wrong record type supplied in RETURN NEXT")
		fr.rows = append(fr.rows, row)
		return err
	}
	if f.returnsRowOf(t) {
		row, err := fr.compositeRow(v, t, "wrong record type supplied in RETURN NEXT")
		fr.rows = append(fr.rows, row)
		return err
	}
	if len(f.outCols) == 0 || !f.hasOutParams() {
		cv, err := fr.cast(v, t, f.result)
		if err != nil {
			return err
		}
		row := f.resultRow(cv)
		if f.result.IsComposite() {
			fr.rows = append(fr.rows, row)
			return nil
		}
		if err := checkResultRows(fr.x, f, fr.pl.resultChecks, [][]any{row}); err != nil {
			return err
		}
		fr.rows = append(fr.rows, row)
		return nil
	}
	row, _ := v.([]any)
	shape, _ := t.Fields()
	cols := make([]Column, len(shape))
	for i, c := range shape {
		cols[i] = Column{Name: c.Name, TypeOID: uint32(c.Type.Oid), TypeMod: c.Type.Typmod}
	}
	if row == nil {
		row = make([]any, len(f.outCols))
	}
	rows, err := coerceRows(fr.x, [][]any{row}, cols, f.outCols)
	fr.rows = append(fr.rows, rows...)
	return err
}
