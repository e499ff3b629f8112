package sqlexec

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// PL/pgSQL. PostgreSQL's own PL/pgSQL parser (pg_query_go's
// ParsePlPgSqlToJSON) turns a body into a tree of statements over numbered
// variables ("datums"); this file reads that tree into plStmt values,
// plpgsql_exec.go runs them, and plpgsql_expr.go evaluates the SQL
// expressions and statements inside them with the executor, the variables
// bound as the statement's parameters. Everything runs in the caller's
// store transaction; an EXCEPTION block is a savepoint of it.

// plFunction is a parsed PL/pgSQL body.
type plFunction struct {
	fn     *funcDesc
	datums []*plDatum
	body   *plStmt
	// found is the datum of FOUND.
	found int
	// scoped marks the datums a block or loop declares; the others
	// (parameters, FOUND, the trigger variables) are seen everywhere.
	scoped map[int]bool
	// aliases are the body's ALIAS FOR declarations, in body order.
	aliases []plAliasDecl
	// sourceLines maps the lines of the body's layout, which the tree's
	// line numbers count, to the body's own (scopeLayout).
	sourceLines []int
	// resultChecks are the checks of the domains the result is declared
	// of (compiledRoutine.resultChecks), which RETURN and RETURN NEXT
	// apply to the value they cast to the result type.
	resultChecks []domainCheck
}

// sourceLine is the body's line of the tree's line n.
func (p *plFunction) sourceLine(n int) int {
	if n < 1 || n > len(p.sourceLines) {
		return n
	}
	return p.sourceLines[n-1]
}

// plAliasDecl is a declaration name ALIAS FOR target, at a line of the
// laid-out body (scopeLayout). The parse tree keeps no trace of an alias
// but the statements' own references it resolved, so the reader finds the
// declarations in the body's tokens to resolve the names in its SQL.
type plAliasDecl struct {
	name, target string
	line         int
}

// plDatum is a variable: a scalar (PLpgSQL_var), a record (PLpgSQL_rec),
// or a row of other variables that a SELECT INTO fills (PLpgSQL_row).
type plDatum struct {
	name string
	kind byte // 'v' var, 'r' record, 'w' row, 'f' field of a record (fields[0])
	// typName is the declared type as written; typ its resolution.
	typName string
	typ     types.Type
	// domain checks a value against the constraints of the domain the
	// declared type names (compilePlpgsql), nil for another type.
	domain domainCheck
	// fieldChecks check the fields of a variable of a composite type
	// against the domains the type declares them with (compositeFieldChecks).
	fieldChecks []domainCheck
	def         *plExpr
	notNull     bool
	isConst     bool
	line        int
	// fields are the datums a row stands for, or a field's record.
	fields []int
	// cursor is the query of a bound cursor variable (DECLARE c CURSOR
	// FOR query).
	cursor *plCursorDecl
}

// plStmt is one statement; the fields used depend on kind (the PLpgSQL_stmt_
// node name without its prefix).
type plStmt struct {
	kind  string
	line  int
	label string
	// block
	body     []*plStmt
	decls    []int
	handlers []*plHandler
	// expressions
	expr, cond, lower, upper, step *plExpr
	params                         []*plExpr
	// targets
	varno  int
	target int
	into   bool
	strict bool
	// modifies marks an SQL statement that is an INSERT, UPDATE, DELETE
	// or MERGE (after any WITH): INTO it fails on more than one row.
	modifies bool
	// if / case
	thenBody []*plStmt
	elsifs   []*plCond
	elseBody []*plStmt
	hasElse  bool
	// loops
	reverse bool
	isExit  bool
	// slice is FOREACH's SLICE dimension count.
	slice int
	// chain is COMMIT or ROLLBACK AND CHAIN.
	chain bool
	// dynamic marks RETURN QUERY EXECUTE, whose expr is the query string.
	dynamic bool
	// raise
	level   int
	message string
	cond2   string
	options []plRaiseOption
	// get diagnostics
	diag    []plDiag
	stacked bool
	// cursor statements (plpgsql_cursor.go)
	cur *plCursorStmt
}

type plCond struct {
	cond *plExpr
	body []*plStmt
}

type plHandler struct {
	conditions []string
	body       []*plStmt
}

type plRaiseOption struct {
	kind int
	expr *plExpr
}

type plDiag struct {
	kind   string
	target int
}

// plpgsqlSource is the CREATE FUNCTION statement PostgreSQL's PL/pgSQL
// parser reads f's body from: its parameters, result and body (f's body
// laid out by scopeLayout, its declarations retyped by retypeDeclarations).
func plpgsqlSource(f *funcDesc, body string) string {
	var params []string
	var table []string
	for _, p := range f.params {
		mode := map[byte]string{'i': "", 'o': "OUT ", 'b': "INOUT ", 'v': "VARIADIC "}[p.mode]
		name := ""
		if p.name != "" {
			name = types.QuoteIdent(p.name) + " "
		}
		typ := p.typ.String()
		if p.typ.IsComposite() {
			// The parser makes a parameter whose type is qualified by a
			// schema other than pg_catalog a record, whose fields p.x an
			// assignment may name, as PostgreSQL does for a parameter of a
			// row type; it reads nothing else of the name.
			typ = "pg_temp.record"
		}
		decl := mode + name + typ
		if p.mode == 't' {
			table = append(table, types.QuoteIdent(p.name)+" "+typ)
			continue
		}
		params = append(params, decl)
	}
	kind, ret := "FUNCTION", ""
	switch {
	case f.kind == 'p':
		kind = "PROCEDURE"
	case len(table) > 0:
		ret = " RETURNS TABLE (" + strings.Join(table, ", ") + ")"
	default:
		setof := ""
		if f.retSet {
			setof = "SETOF "
		}
		t := f.result.String()
		if f.result.Oid == types.OidRecord {
			t = "record"
		}
		ret = " RETURNS " + setof + t
	}
	// The routine's own name labels the body's outermost block, which
	// qualifies the parameters (f.x := 1).
	return fmt.Sprintf("CREATE %s %s(%s)%s LANGUAGE plpgsql AS %s", kind, types.QuoteIdent(f.name), strings.Join(params, ", "), ret, dollarQuote(body))
}

// scopeLayout returns a PL/pgSQL body with a line break after each ";",
// before each DECLARE and around each BEGIN, so that every declaration
// and statement starts a line of its own and a block's BEGIN (its line
// number) has a line to itself. The parse tree does not say which
// block declares a variable; the reader infers it from the line numbers
// of declarations and statements (plReader.stmt), which this layout makes
// unambiguous. Breaks go between tokens only, where they change neither
// the SQL text of an expression nor the meaning. lines maps each line of
// the layout (lines[n-1] for line n) to the body's line it begins in,
// which messages name. A body the scanner rejects is returned as written,
// for the parser to report.
func scopeLayout(src string) (layout string, lines []int) {
	lines = []int{1}
	res, err := pg_query.Scan(src)
	if err != nil {
		for i := strings.Count(src, "\n"); i > 0; i-- {
			lines = append(lines, len(lines)+1)
		}
		return src, lines
	}
	var b strings.Builder
	line := 1
	copySource := func(seg string) {
		b.WriteString(seg)
		for i := strings.Count(seg, "\n"); i > 0; i-- {
			line++
			lines = append(lines, line)
		}
	}
	breakLine := func() {
		b.WriteByte('\n')
		lines = append(lines, line)
	}
	last := 0
	for _, t := range res.Tokens {
		switch t.Token {
		case pg_query.Token_DECLARE:
			copySource(src[last:t.Start])
			breakLine()
			last = int(t.Start)
		case pg_query.Token_BEGIN_P:
			copySource(src[last:t.Start])
			breakLine()
			b.WriteString("BEGIN")
			breakLine()
			last = int(t.End)
		case pg_query.Token_ASCII_59:
			copySource(src[last:t.End])
			breakLine()
			last = int(t.End)
		}
	}
	copySource(src[last:])
	return b.String(), lines
}

// dollarQuote quotes text with a dollar tag it does not contain.
func dollarQuote(text string) string {
	tag := "$fickle$"
	for i := 0; strings.Contains(text, tag); i++ {
		tag = fmt.Sprintf("$fickle%d$", i)
	}
	return tag + text + tag
}

// returnShapeError is PostgreSQL's check, when it compiles a body, of a
// RETURN written in it (with an expression or not) against f's result: a
// set-returning function, a procedure, a void function and one with OUT
// parameters return no expression, any other function one.
func returnShapeError(f *funcDesc, hasExpr bool) error {
	out := false
	for _, p := range f.params {
		out = out || p.isOut()
	}
	mismatch := func(msg string) *pgerror.Error { return pgerror.New(pgerror.DatatypeMismatch, msg) }
	switch {
	case f.retSet:
		if hasExpr {
			return mismatch("RETURN cannot have a parameter in function returning set").WithHint("Use RETURN NEXT or RETURN QUERY.")
		}
	case f.kind == 'p' && !out:
		if hasExpr {
			return pgerror.New(pgerror.SyntaxError, "RETURN cannot have a parameter in a procedure")
		}
	case f.result.Oid == types.OidVoid || f.result.Oid == types.OidEventTrigger:
		if hasExpr {
			return mismatch("RETURN cannot have a parameter in function returning void")
		}
	case out:
		if hasExpr {
			return mismatch("RETURN cannot have a parameter in function with OUT parameters")
		}
	case !hasExpr:
		return pgerror.New(pgerror.SyntaxError, "missing expression at or near \";\"")
	}
	return nil
}

// parsePlpgsql parses f's body: 42601 for a syntax error. rowTypes tells
// which declared type names are row types (plRowTypes): the parser, which
// has no catalog, learns them from the body's text.
func parsePlpgsql(f *funcDesc, rowTypes func(name string) (bool, error)) (*plFunction, error) {
	if declaresCollation(f.src) {
		return nil, pgerror.Unsupported("COLLATE in a PL/pgSQL declaration")
	}
	layout, lines := scopeLayout(f.src)
	decls := scanDeclarations(layout)
	body, err := retypeDeclarations(layout, decls, rowTypes)
	if err != nil {
		return nil, err
	}
	fn, err := parsePlpgsqlBody(f, body)
	if err != nil {
		return nil, err
	}
	p := &plFunction{fn: f, found: -1, sourceLines: lines}
	for i, d := range jsonList(fn["datums"]) {
		pd := readDatum(d.(map[string]any))
		if pd.name == "found" && p.found < 0 {
			p.found = i
		}
		if pd.kind == 'r' && i >= len(f.params) {
			completeRecord(pd, decls)
		}
		p.datums = append(p.datums, pd)
	}
	p.scoped = map[int]bool{}
	if p.aliases, err = scanAliases(layout); err != nil {
		return nil, err
	}
	r := &plReader{f: p, claimed: map[int]bool{}, lines: strings.Split(layout, "\n")}
	for i := range p.datums {
		if i < len(f.params) || i == p.found {
			r.claimed[i] = true
		}
	}
	p.body, err = r.stmt(jsonObj(fn, "action"), 0)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// parsePlpgsqlBody runs PostgreSQL's PL/pgSQL parser over f with body,
// and returns the parsed function's tree.
func parsePlpgsqlBody(f *funcDesc, body string) (map[string]any, error) {
	out, err := pg_query.ParsePlPgSqlToJSON(plpgsqlSource(f, body))
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "must be of type cursor or refcursor") && f.hasRefcursorParam() {
			// pg_query's parser types every parameter unknown, so it
			// refuses a refcursor parameter where a cursor is expected.
			return nil, pgerror.Unsupported("a refcursor parameter in OPEN, FETCH, MOVE or CLOSE (assign it to a refcursor variable)")
		}
		if strings.Contains(msg, "is declared CONSTANT") {
			// The parser's check of an assignment target, which
			// PostgreSQL reports with its own code.
			return nil, pgerror.New(pgerror.ErrorInAssignment, msg)
		}
		if strings.Contains(msg, "must have a default value, since it's declared NOT NULL") {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, msg)
		}
		return nil, pgerror.New(pgerror.SyntaxError, msg)
	}
	var tree []map[string]any
	if err := json.Unmarshal([]byte(out), &tree); err != nil || len(tree) != 1 {
		return nil, pgerror.Newf(pgerror.InternalError, "reading the PL/pgSQL parse tree: %v", err)
	}
	return jsonObj(tree[0], "PLpgSQL_function"), nil
}

// scanAliases finds the declarations name ALIAS FOR target in body, laid
// out by scopeLayout: target a variable's name or $n. An alias of a
// qualified name is refused.
func scanAliases(body string) ([]plAliasDecl, error) {
	res, err := pg_query.Scan(body)
	if err != nil {
		return nil, nil
	}
	toks := res.Tokens
	text := func(i int) string { return body[toks[i].Start:toks[i].End] }
	var out []plAliasDecl
	for i := 0; i+2 < len(toks); i++ {
		if !strings.EqualFold(text(i+1), "alias") || toks[i+2].Token != pg_query.Token_FOR {
			continue
		}
		if i+4 >= len(toks) || toks[i+4].Token != pg_query.Token_ASCII_59 {
			return nil, pgerror.Unsupported("ALIAS FOR a qualified name in PL/pgSQL")
		}
		line := 1 + strings.Count(body[:toks[i].Start], "\n")
		out = append(out, plAliasDecl{name: plIdent(text(i)), target: plIdent(text(i + 3)), line: line})
	}
	return out, nil
}

// plIdent is the name an identifier token stands for: a quoted one
// without its quotes, another folded to lower case.
func plIdent(tok string) string {
	if len(tok) >= 2 && tok[0] == '"' {
		return strings.ReplaceAll(tok[1:len(tok)-1], `""`, `"`)
	}
	return strings.ToLower(tok)
}

func jsonObj(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func jsonList(v any) []any {
	l, _ := v.([]any)
	return l
}

func jsonStr(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func jsonNum(m map[string]any, key string) int {
	f, _ := m[key].(float64)
	return int(f)
}

func jsonBool(m map[string]any, key string) bool {
	b, _ := m[key].(bool)
	return b
}

// node returns the one key of a node object and its body.
func jsonNode(v any) (string, map[string]any) {
	m, _ := v.(map[string]any)
	for k, b := range m {
		body, _ := b.(map[string]any)
		return k, body
	}
	return "", nil
}

func readDatum(m map[string]any) *plDatum {
	k, b := jsonNode(m)
	d := &plDatum{name: jsonStr(b, "refname"), line: jsonNum(b, "lineno"), notNull: jsonBool(b, "notnull"), isConst: jsonBool(b, "isconst")}
	switch k {
	case "PLpgSQL_var":
		d.kind = 'v'
		_, t := jsonNode(b["datatype"])
		d.typName = strings.TrimSpace(jsonStr(t, "typname"))
		d.def = readExpr(b["default_val"])
		readCursorDecl(d, b)
	case "PLpgSQL_rec":
		d.kind = 'r'
		if _, t := jsonNode(b["datatype"]); t != nil {
			d.typName = strings.TrimSpace(jsonStr(t, "typname"))
		}
	case "PLpgSQL_recfield":
		d.kind = 'f'
		d.name = jsonStr(b, "fieldname")
		d.fields = []int{jsonNum(b, "recparentno")}
	case "PLpgSQL_row":
		d.kind = 'w'
		for _, f := range jsonList(b["fields"]) {
			d.fields = append(d.fields, jsonNum(f.(map[string]any), "varno"))
		}
	default:
		d.kind = '?'
	}
	return d
}

// plReader reads statements; claimed marks the datums that belong to a
// block already (or are parameters, loop variables and the like).
type plReader struct {
	f       *plFunction
	claimed map[int]bool
	// line is the line of the last statement read, which bounds the
	// declarations of the next block.
	line int
	// scope holds the variables the statement being read sees.
	scope *plScope
	// lines are the body's lines as the parser numbered them.
	lines []string
}

// plScope is a block's (or an integer FOR loop's) variables, inside the
// scopes around it. A name in a body's SQL is the innermost variable of
// that name: an inner block's variable hides an outer one only inside
// the inner block, and a variable is unknown outside its block.
type plScope struct {
	// label is the block's or loop's label, which qualifies its variables.
	label string
	dnos  []int
	// aliases are the names the block's ALIAS FOR declarations give to
	// other variables.
	aliases []plAlias
	outer   *plScope
}

// plAlias is a name a block gives a variable with ALIAS FOR, declared at
// line.
type plAlias struct {
	name string
	dno  int
	line int
}

func (r *plReader) stmts(v any) ([]*plStmt, error) {
	var out []*plStmt
	for _, s := range jsonList(v) {
		st, err := r.stmt(s.(map[string]any), r.line)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// expr reads an expression of the statement being read, in the reader's
// current scope.
func (r *plReader) expr(v any) *plExpr {
	e := readExpr(v)
	if e != nil {
		e.scope = r.scope
	}
	return e
}

func (r *plReader) exprs(v any) []*plExpr {
	out := readExprs(v)
	for _, e := range out {
		e.scope = r.scope
	}
	return out
}

// enter opens a scope of the datums dnos and the aliases for the
// statements read until the returned function closes it. A variable's
// default value sees only the names declared before it.
func (r *plReader) enter(label string, dnos []int, aliases ...plAlias) func() {
	outer := r.scope
	r.scope = &plScope{label: label, dnos: dnos, aliases: aliases, outer: outer}
	for i, k := range dnos {
		r.f.scoped[k] = true
		if d := r.f.datums[k]; d.def != nil {
			d.def.scope = &plScope{label: label, dnos: dnos[:i], aliases: aliasesBefore(aliases, d.line), outer: outer}
		}
		if d := r.f.datums[k]; d.cursor != nil {
			d.cursor.query.scope = r.scope
			if d.cursor.argRow >= 0 {
				// The cursor's arguments are variables of its query
				// alone: OPEN's argument values read the names around.
				args := r.f.datums[d.cursor.argRow].fields
				for _, a := range args {
					r.f.scoped[a] = true
				}
				d.cursor.query.scope = &plScope{dnos: args, outer: r.scope}
			}
		}
	}
	return func() { r.scope = outer }
}

// aliasesBefore returns the aliases declared before line.
func aliasesBefore(aliases []plAlias, line int) []plAlias {
	var out []plAlias
	for _, a := range aliases {
		if a.line < line {
			out = append(out, a)
		}
	}
	return out
}

// blockAliases resolves the ALIAS FOR declarations of block st, which
// declares what follows the statement at prevLine up to its BEGIN: each
// target is a variable declared before the alias in the block or around
// it, a parameter ($n or its name) or a trigger variable.
func (r *plReader) blockAliases(st *plStmt, prevLine int) ([]plAlias, error) {
	var out []plAlias
	for _, a := range r.f.aliases {
		if st.line != 0 && (a.line <= prevLine || a.line > st.line) {
			continue
		}
		var earlier []int
		for _, k := range st.decls {
			if r.f.datums[k].line < a.line {
				earlier = append(earlier, k)
			}
		}
		k := r.f.lookup(&plScope{dnos: earlier, aliases: out, outer: r.scope}, a.target, func(k int) bool { return r.f.datums[k].line == 0 })
		if n, err := strconv.Atoi(strings.TrimPrefix(a.target, "$")); err == nil && strings.HasPrefix(a.target, "$") && n >= 1 && n <= len(r.f.fn.params) {
			k = n - 1
		}
		if k < 0 {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "variable \"%s\" does not exist", a.target)
		}
		out = append(out, plAlias{name: a.name, dno: k, line: a.line})
	}
	return out, nil
}

func readExpr(v any) *plExpr {
	_, b := jsonNode(v)
	if b == nil {
		return nil
	}
	return &plExpr{text: jsonStr(b, "query"), mode: jsonNum(b, "parseMode")}
}

func readExprs(v any) []*plExpr {
	var out []*plExpr
	for _, e := range jsonList(v) {
		out = append(out, readExpr(e))
	}
	return out
}

func (r *plReader) stmt(m map[string]any, prevLine int) (*plStmt, error) {
	k, b := jsonNode(m)
	st := &plStmt{kind: strings.TrimPrefix(k, "PLpgSQL_stmt_"), line: jsonNum(b, "lineno"), label: jsonStr(b, "label"), target: -1}
	if st.line > 0 {
		r.line = st.line
	}
	var err error
	switch st.kind {
	case "block":
		// The block declares the variables written after the previous
		// statement and up to its BEGIN.
		cursorArgs := map[int]bool{}
		for _, d := range r.f.datums {
			if d.cursor != nil && d.cursor.argRow >= 0 {
				for _, a := range r.f.datums[d.cursor.argRow].fields {
					cursorArgs[a] = true
				}
			}
		}
		for i, d := range r.f.datums {
			if !r.claimed[i] && d.kind != 'w' && (st.line == 0 || d.line > prevLine && d.line <= st.line) && !strings.HasPrefix(d.name, "__Case__Variable_") {
				// A bound cursor's arguments belong to its query's scope
				// (enter), not to the block's.
				if !cursorArgs[i] {
					st.decls = append(st.decls, i)
				}
				r.claimed[i] = true
			}
		}
		aliases, err := r.blockAliases(st, prevLine)
		if err != nil {
			return nil, err
		}
		leave := r.enter(st.label, st.decls, aliases...)
		defer leave()
		if st.body, err = r.stmts(b["body"]); err != nil {
			return nil, err
		}
		if exc := jsonObj(b, "exceptions"); exc != nil {
			for _, e := range jsonList(jsonObj(exc, "PLpgSQL_exception_block")["exc_list"]) {
				_, eb := jsonNode(e)
				h := &plHandler{}
				for _, c := range jsonList(eb["conditions"]) {
					_, cb := jsonNode(c)
					h.conditions = append(h.conditions, jsonStr(cb, "condname"))
				}
				if h.body, err = r.stmts(eb["action"]); err != nil {
					return nil, err
				}
				st.handlers = append(st.handlers, h)
			}
		}
	case "assign":
		st.varno, st.expr = jsonNum(b, "varno"), r.expr(b["expr"])
		st.expr.assignTo = st.varno
	case "if":
		st.cond = r.expr(b["cond"])
		if st.thenBody, err = r.stmts(b["then_body"]); err != nil {
			return nil, err
		}
		for _, e := range jsonList(b["elsif_list"]) {
			_, eb := jsonNode(e)
			c := &plCond{cond: r.expr(eb["cond"])}
			if c.body, err = r.stmts(eb["stmts"]); err != nil {
				return nil, err
			}
			st.elsifs = append(st.elsifs, c)
		}
		st.elseBody, err = r.stmts(b["else_body"])
	case "case":
		st.expr, st.varno, st.hasElse = r.expr(b["t_expr"]), jsonNum(b, "t_varno"), jsonBool(b, "have_else")
		for _, e := range jsonList(b["case_when_list"]) {
			_, eb := jsonNode(e)
			c := &plCond{cond: r.expr(eb["expr"])}
			if c.body, err = r.stmts(eb["stmts"]); err != nil {
				return nil, err
			}
			st.elsifs = append(st.elsifs, c)
		}
		st.elseBody, err = r.stmts(b["else_stmts"])
	case "loop", "while":
		st.cond = r.expr(b["cond"])
		st.body, err = r.stmts(b["body"])
	case "fori":
		_, v := jsonNode(b["var"])
		st.varno = r.findDatum(jsonStr(v, "refname"), jsonNum(v, "lineno"))
		st.lower, st.upper, st.step, st.reverse = r.expr(b["lower"]), r.expr(b["upper"]), r.expr(b["step"]), jsonBool(b, "reverse")
		leave := r.enter(st.label, []int{st.varno})
		st.body, err = r.stmts(b["body"])
		leave()
	case "fors", "dynfors":
		st.target = r.target(b["var"])
		st.expr = r.expr(b["query"])
		st.params = r.exprs(b["params"])
		st.body, err = r.stmts(b["body"])
	case "foreach_a":
		st.target, st.expr, st.slice = jsonNum(b, "varno"), r.expr(b["expr"]), jsonNum(b, "slice")
		r.claimed[st.target] = true
		st.body, err = r.stmts(b["body"])
	case "exit":
		st.isExit, st.cond = jsonBool(b, "is_exit"), r.expr(b["cond"])
	case "return", "return_next":
		st.expr = r.expr(b["expr"])
		if st.kind == "return" && st.line > 0 { // not the parser's own closing RETURN
			if err := returnShapeError(r.f.fn, st.expr != nil); err != nil {
				return nil, err
			}
		}
		st.varno = -1
		if _, ok := b["retvarno"]; ok {
			st.varno = jsonNum(b, "retvarno")
		}
		if st.kind == "return_next" && st.expr == nil && st.varno < 0 {
			st.expr = r.returnNextVariable(st.line)
		}
	case "return_query":
		st.expr = r.expr(b["query"])
		if st.expr == nil {
			// RETURN QUERY EXECUTE string [USING ...]
			st.dynamic, st.expr, st.params = true, r.expr(b["dynquery"]), r.exprs(b["params"])
		}
	case "raise":
		st.level, st.message, st.cond2 = jsonNum(b, "elog_level"), jsonStr(b, "message"), jsonStr(b, "condname")
		st.params = r.exprs(b["params"])
		for _, o := range jsonList(b["options"]) {
			_, ob := jsonNode(o)
			st.options = append(st.options, plRaiseOption{kind: jsonNum(ob, "opt_type"), expr: r.expr(ob["expr"])})
		}
	case "assert":
		st.cond, st.expr = r.expr(b["cond"]), r.expr(b["message"])
	case "perform", "call":
		st.expr = r.expr(b["expr"])
	case "execsql":
		st.expr, st.into, st.strict = r.expr(b["sqlstmt"]), jsonBool(b, "into"), jsonBool(b, "strict")
		st.target = r.target(b["target"])
		st.modifies = modifiesRows(st.expr.text)
	case "dynexecute":
		st.expr, st.into, st.strict = r.expr(b["query"]), jsonBool(b, "into"), jsonBool(b, "strict")
		st.target = r.target(b["target"])
		st.params = r.exprs(b["params"])
	case "getdiag":
		st.stacked = jsonBool(b, "is_stacked")
		for _, d := range jsonList(b["diag_items"]) {
			_, db := jsonNode(d)
			target := jsonNum(db, "target")
			if target < len(r.f.fn.params) && r.f.fn.params[target].typ.IsRecord() {
				// The parser types parameters unknown, so PostgreSQL's check
				// of a composite target is made here.
				return nil, pgerror.Newf(pgerror.SyntaxError, "\"%s\" is not a scalar variable", r.f.datums[target].name)
			}
			st.diag = append(st.diag, plDiag{kind: jsonStr(db, "kind"), target: target})
		}
	case "commit", "rollback":
		st.chain = jsonBool(b, "chain")
	case "open", "fetch", "close", "forc":
		err = r.cursorStmt(st, b)
	default:
		return nil, pgerror.Unsupported("PL/pgSQL statement " + strings.ToUpper(strings.ReplaceAll(st.kind, "_", " ")))
	}
	if err != nil {
		return nil, err
	}
	if (st.kind == "fors" || st.kind == "dynfors" || st.into) && st.target < 0 {
		return nil, pgerror.Unsupported("this PL/pgSQL loop or INTO target")
	}
	return st, nil
}

// modifiesRows reports whether an SQL statement of a body is an INSERT,
// UPDATE, DELETE or MERGE, a WITH in front of it or not (a WITH ... SELECT
// is a query).
func modifiesRows(text string) bool {
	sts, err := parseStatements(text)
	if err != nil || len(sts) != 1 || sts[0].node == nil {
		return !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(text)), "SELECT")
	}
	switch sts[0].node.Node.(type) {
	case *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt, *pg_query.Node_DeleteStmt, *pg_query.Node_MergeStmt:
		return true
	}
	return false
}

// target returns the datum a SELECT INTO or FOR target names: a record, or
// the row datum the parser made for a list of variables.
func (r *plReader) target(v any) int {
	k, b := jsonNode(v)
	if b == nil {
		return -1
	}
	if k == "PLpgSQL_rec" {
		d := jsonNum(b, "dno")
		return d
	}
	if k == "PLpgSQL_var" {
		return r.findDatum(jsonStr(b, "refname"), jsonNum(b, "lineno"))
	}
	// A row: the datum with the same fields.
	var fields []int
	for _, f := range jsonList(b["fields"]) {
		fields = append(fields, jsonNum(f.(map[string]any), "varno"))
	}
	for i, d := range r.f.datums {
		if d.kind == 'w' && d.line == jsonNum(b, "lineno") && fmt.Sprint(d.fields) == fmt.Sprint(fields) {
			return i
		}
	}
	return -1
}

// findDatum returns the datum declared by name at line (a loop variable).
func (r *plReader) findDatum(name string, line int) int {
	for i, d := range r.f.datums {
		if d.name == name && d.line == line && !r.claimed[i] {
			r.claimed[i] = true
			return i
		}
	}
	for i, d := range r.f.datums {
		if d.name == name && d.line == line {
			return i
		}
	}
	return -1
}
