package sqlexec

import (
	"fmt"
	"strings"
	"time"

	"github.com/fickle-db/fickle/internal/cursorpos"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// PL/pgSQL cursors: OPEN, FETCH, MOVE, CLOSE and FOR over a bound cursor.
// A cursor a body opens is a cursor of the session like one DECLAREd in
// SQL (cursor.go), named by its refcursor variable's value, or
// "<unnamed portal N>" when that is NULL, as PostgreSQL names it. So a
// function can return the refcursor and its caller FETCH from it in SQL
// until the transaction ends. OPEN runs the query (through the caller's
// transaction, recorded as the calling statement's like every statement
// of the body) and keeps its rows; FETCH and MOVE walk them.

// The cursor options of a declaration or OPEN (PostgreSQL's
// CURSOR_OPT_SCROLL and CURSOR_OPT_NO_SCROLL).
const (
	plCursorScroll   = 0x2
	plCursorNoScroll = 0x4
)

// plCursorDecl is a bound cursor variable's query, the row of its
// arguments' variables (-1 without arguments) and its options.
type plCursorDecl struct {
	query   *plExpr
	argRow  int
	options int
}

// plCursorStmt is OPEN, FETCH, MOVE, CLOSE or FOR over a cursor: the
// cursor variable and what the statement says of it.
type plCursorStmt struct {
	curvar  int
	options int
	// args are a bound cursor's argument values, as the SELECT list
	// "SELECT a1, a2 AS name" in parameter order.
	args *plExpr
	// query is OPEN ... FOR query; dynamic OPEN ... FOR EXECUTE with the
	// statement's params.
	query   *plExpr
	dynamic *plExpr
	// direction and howMany are FETCH's and MOVE's (count the count's
	// expression when not a constant).
	direction cursorpos.Direction
	howMany   int64
	count     *plExpr
	isMove    bool
}

// readCursorDecl reads the query of a bound cursor variable d, whose
// value starts as its own name in PostgreSQL 15.
func readCursorDecl(d *plDatum, b map[string]any) {
	q := readExpr(b["cursor_explicit_expr"])
	if q == nil {
		return
	}
	q.cursor = true
	d.cursor = &plCursorDecl{query: q, argRow: -1, options: jsonNum(b, "cursor_options")}
	if _, ok := b["cursor_explicit_argrow"]; ok {
		d.cursor.argRow = jsonNum(b, "cursor_explicit_argrow")
	}
	if d.def == nil {
		d.def = &plExpr{text: quoteLiteral(d.name), mode: 2}
	}
}

// cursorStmt reads OPEN, FETCH (and MOVE), CLOSE and FOR over a cursor.
func (r *plReader) cursorStmt(st *plStmt, b map[string]any) error {
	c := &plCursorStmt{curvar: jsonNum(b, "curvar"), options: jsonNum(b, "cursor_options"), query: r.expr(b["query"]),
		dynamic: r.expr(b["dynquery"]), direction: cursorpos.Direction(jsonNum(b, "direction")), count: r.expr(b["expr"]),
		isMove: jsonBool(b, "is_move")}
	c.howMany = 1
	if f, ok := b["how_many"].(float64); ok {
		c.howMany = int64(f)
		if f >= 1<<63-1 {
			c.howMany = 1<<63 - 1 // FETCH_ALL, beyond float64's exact integers
		}
	}
	if c.query != nil {
		c.query.cursor = true
	}
	if a := r.expr(b["argquery"]); a != nil {
		c.args = &plExpr{text: "SELECT " + a.text, scope: a.scope}
	}
	st.cur = c
	st.params = r.exprs(b["params"])
	switch st.kind {
	case "fetch":
		st.target = r.target(b["target"])
	case "forc":
		// The loop declares its record variable, seen in its body only.
		st.target = r.target(b["var"])
		r.claimed[st.target] = true
		leave := r.enter(st.label, []int{st.target})
		defer leave()
		var err error
		st.body, err = r.stmts(b["body"])
		return err
	}
	return nil
}

// openCursor runs OPEN.
func (fr *plFrame) openCursor(st *plStmt) error {
	_, err := fr.open(st)
	return err
}

// open opens the statement's cursor and returns it: the variable names
// the cursor, or it is NULL and the cursor gets a name it is set to.
func (fr *plFrame) open(st *plStmt) (*cursor, error) {
	s, c := fr.s, st.cur
	name, _ := fr.vals[c.curvar].(string)
	if _, open := s.cursors[name]; open && name != "" {
		return nil, pgerror.Newf(pgerror.DuplicateCursor, "cursor \"%s\" already in use", name)
	}
	options := c.options
	var res *Result
	var text string
	var query *plExpr // the static query, whose rows end with their positions
	var err error
	mark := fr.x.txn.WriteMark()
	switch decl := fr.pl.datums[c.curvar].cursor; {
	case decl != nil:
		options, text, query = decl.options, decl.query.text, decl.query
		if c.args != nil {
			if err := fr.cursorArgs(decl, c.args); err != nil {
				return nil, err
			}
		}
		res, err = fr.cursorQuery(decl.query)
	case c.dynamic != nil:
		res, err = fr.dynamic(c.dynamic, st.params)
		if err == nil && res.Columns == nil {
			err = pgerror.Newf(pgerror.InvalidCursorDefinition, "cannot open %s query as cursor", commandOf(res.Tag))
		}
	default:
		text, query = c.query.text, c.query
		res, err = fr.cursorQuery(c.query)
	}
	if err != nil {
		return nil, err
	}
	var shape *cursorShape
	var positions []*cursorRowPos
	if query != nil && query.compiled != nil {
		shape = query.compiled.cursorShape
		if shape != nil && shape.positions {
			res, positions = withoutPositions(res)
		}
	}
	if d := fr.pl.datums[c.curvar]; name == "" && d.isConst {
		// The variable would take the new cursor's name.
		return nil, pgerror.Newf(pgerror.ErrorInAssignment, "variable \"%s\" is declared CONSTANT", d.name)
	}
	if name == "" {
		s.unnamedPortals++
		name = fmt.Sprintf("<unnamed portal %d>", s.unnamedPortals)
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursor{}
	}
	s.cursorCount++
	cur := &cursor{name: name, sql: text, outs: outColsOf(res.Columns), cols: res.Columns, rows: res.Rows,
		at: time.Now().UTC().Truncate(time.Microsecond), scroll: options&plCursorNoScroll == 0, created: s.cursorCount,
		shape: shape, positions: positions, mark: mark, checked: mark}
	if shape != nil && shape.locking {
		// Its FETCHes skip the rows the body updates or deletes meanwhile
		// (cursor.skipWritten).
		cur.locksOnly, cur.limited = true, shape.limited
	}
	s.cursors[name] = cur
	fr.vals[c.curvar] = name
	return cur, nil
}

// cursorQuery runs a cursor's query, which must return rows.
func (fr *plFrame) cursorQuery(q *plExpr) (*Result, error) {
	comp, err := fr.compile(q)
	if err != nil {
		return nil, err
	}
	if comp.plan == nil || comp.plan.cols == nil {
		word, _, _ := strings.Cut(strings.TrimSpace(q.text), " ")
		return nil, pgerror.Newf(pgerror.InvalidCursorDefinition, "cannot open %s query as cursor", strings.ToUpper(word))
	}
	return fr.query(q)
}

// commandOf is the command of a command tag ("INSERT 0 1" is INSERT).
func commandOf(tag string) string {
	word, _, _ := strings.Cut(tag, " ")
	return word
}

// cursorArgs sets a bound cursor's argument variables to the values of
// the OPEN's (or FOR's) arguments.
func (fr *plFrame) cursorArgs(decl *plCursorDecl, args *plExpr) error {
	res, err := fr.query(args)
	if err != nil {
		return err
	}
	return fr.assignRow(decl.argRow, res.Rows[0], res.Columns)
}

// outColsOf describes result columns as a plan's output columns.
func outColsOf(cols []Column) []outCol {
	out := make([]outCol, len(cols))
	for i, c := range cols {
		out[i] = outCol{Name: c.Name, typ: types.Type{Oid: types.Oid(c.TypeOID), Typmod: c.TypeMod}, tableOID: c.TableOID, attnum: c.AttNum}
	}
	return out
}

// openedCursor returns the cursor the statement's variable names: 22004
// when the variable is NULL, 34000 when no cursor has that name.
func (fr *plFrame) openedCursor(st *plStmt) (*cursor, error) {
	v := fr.vals[st.cur.curvar]
	if v == nil {
		return nil, pgerror.Newf(pgerror.NullValueNotAllowed, "cursor variable \"%s\" is null", fr.pl.datums[st.cur.curvar].name)
	}
	name, _ := v.(string)
	c := fr.s.cursors[name]
	if c == nil {
		return nil, pgerror.Newf(pgerror.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	return c, nil
}

// fetchCursor runs FETCH ... INTO and MOVE: FETCH sets the target to the
// first row it passes over (NULLs when none), and both set FOUND and
// ROW_COUNT to the number of rows passed over.
func (fr *plFrame) fetchCursor(st *plStmt) error {
	c, err := fr.openedCursor(st)
	if err != nil {
		return err
	}
	count := st.cur.howMany
	if st.cur.count != nil {
		v, t, err := fr.value(st.cur.count)
		if err != nil {
			return err
		}
		if v == nil {
			return pgerror.New(pgerror.NullValueNotAllowed, "relative or absolute cursor position is null")
		}
		n, err := fr.cast(v, t, types.Int8)
		if err != nil {
			return err
		}
		count = n.(int64)
	}
	rows, moved, err := c.fetch(st.cur.direction, count, unknownStatement, true, fr.x.txn)
	if err != nil {
		return err
	}
	if !st.cur.isMove {
		var row []any
		if len(rows) > 0 {
			row = rows[0]
		}
		if err := fr.assignRow(st.target, row, c.cols); err != nil {
			return err
		}
	}
	fr.count = int64(moved)
	fr.setFound(moved > 0)
	return nil
}

// closeCursor runs CLOSE.
func (fr *plFrame) closeCursor(st *plStmt) error {
	c, err := fr.openedCursor(st)
	if err != nil {
		return err
	}
	delete(fr.s.cursors, c.name)
	return nil
}

// forCursor runs FOR target IN cursor [(args)] LOOP: it opens the bound
// cursor, fetches its rows one at a time into the target, and closes it
// when the loop ends; a variable that was NULL is NULL again.
func (fr *plFrame) forCursor(st *plStmt) (plFlow, error) {
	was := fr.vals[st.cur.curvar]
	c, err := fr.open(st)
	if err != nil {
		return plFlow{}, err
	}
	ran := false
	var out plFlow
	for {
		rows, _, err := c.fetch(cursorpos.Forward, 1, unknownStatement, true, fr.x.txn)
		if err != nil {
			return plFlow{}, err
		}
		if len(rows) == 0 {
			break
		}
		ran = true
		if err := fr.assignRow(st.target, rows[0], c.cols); err != nil {
			return plFlow{}, err
		}
		flow, done, err := fr.iterate(st)
		if err != nil {
			return plFlow{}, err
		}
		if done {
			out = flow
			break
		}
	}
	delete(fr.s.cursors, c.name)
	if was == nil {
		fr.vals[st.cur.curvar] = nil
	}
	fr.setFound(ran)
	return out, nil
}

// hasRefcursorParam reports whether f takes a refcursor parameter.
func (f *funcDesc) hasRefcursorParam() bool {
	for _, p := range f.params {
		if p.typ.Oid == types.OidRefcursor {
			return true
		}
	}
	return false
}
