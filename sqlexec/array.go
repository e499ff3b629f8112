package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The array expressions: ARRAY[...] constructors, op ANY/ALL (array),
// subscripts and slices, and unnest in FROM. Array values are []any of
// element datums for one-dimensional arrays with lower bound 1, and
// *pgarray.Array for the others (package types).

// arrayExpr compiles ARRAY[e1, e2, ...]. elemHint is the element type an
// enclosing cast asks for (ARRAY[]::int[]), or the zero Type. Elements
// that are arrays (ARRAY[ARRAY[1,2], ARRAY[3,4]], or [[1,2],[3,4]]) build
// an array of one more dimension.
func (b *binder) arrayExpr(sc *scope, a *pg_query.A_ArrayExpr, elemHint types.Type) (*scalar, error) {
	elems := make([]*scalar, len(a.Elements))
	var known []types.Type
	nested := false
	for i, n := range a.Elements {
		var e *scalar
		var err error
		if sub := n.GetAArrayExpr(); sub != nil {
			nested = true
			e, err = b.arrayExpr(sc, sub, elemHint)
		} else {
			e, err = b.expr(sc, n)
		}
		if err != nil {
			return nil, err
		}
		if e.typ.IsArray() && types.ElemTypeOid(e.typ.Oid) == 0 {
			return nil, b.errAt(pgerror.Unsupported("arrays of "+e.typ.String()), a.Location)
		}
		nested = nested || e.typ.IsArray()
		elems[i] = e
		if !unresolved(e) {
			known = append(known, e.typ)
		}
	}
	elem := elemHint
	if elem.Oid == 0 {
		if len(elems) == 0 {
			return nil, b.errAt(pgerror.New(pgerror.IndeterminateDatatype, "cannot determine type of empty array").
				WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[]."), a.Location)
		}
		t, err := types.CommonType("ARRAY", known...)
		if err != nil {
			return nil, b.withPos(err, a.Location)
		}
		for _, k := range known[1:] {
			if err := types.SameRecordShapes(known[0], k); err != nil {
				return nil, b.errAt(err, a.Location)
			}
		}
		elem = t
		if sub, isArray := t.Elem(); isArray {
			elem = sub
		}
	}
	arr, ok := types.ArrayOf(elem)
	if !ok {
		return nil, b.noArrayType(elem, a.Location)
	}
	ctx := types.CastImplicit
	if elemHint.Oid != 0 {
		ctx = types.CastExplicit
	}
	target := elem
	if nested {
		target = arr
	}
	var refs uint64
	volatile := false
	for i, e := range elems {
		c, err := b.coerce(e, target, ctx)
		if err != nil {
			return nil, b.withPos(err, a.Location)
		}
		elems[i] = c
		refs |= c.refs
		volatile = volatile || c.volatile
	}
	return &scalar{typ: arr, slot: -1, refs: refs, volatile: volatile, name: "array", eval: func(x *execCtx) (any, error) {
		out := make([]any, len(elems))
		for i, e := range elems {
			v, err := e.eval(x)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		if nested {
			return types.StackArrayExprs(out)
		}
		return out, nil
	}}, nil
}

// typedArrayExpr compiles CAST(ARRAY[...] AS t[]), whose elements take t
// directly, so that ARRAY[] has a type.
func (b *binder) typedArrayExpr(sc *scope, tc *pg_query.TypeCast, t types.Type) (*scalar, bool, error) {
	a := tc.Arg.GetAArrayExpr()
	elem, isArray := t.Elem()
	if a == nil || !isArray {
		return nil, false, nil
	}
	e, err := b.arrayExpr(sc, a, elem)
	if err != nil || (t.Oid != types.OidInt2Vector && t.Oid != types.OidOidVector) {
		return e, true, err
	}
	return vectorOfArray(e, t), true, nil
}

// vectorOfArray is ARRAY[...]::int2vector or ::oidvector (ActiveRecord's
// proargtypes = ARRAY['uuid'::regtype]::oidvector): PostgreSQL builds the
// int2[] or oid[] array and labels it with the vector type. The vector
// compares and prints as PostgreSQL's; PostgreSQL's keeps the array's lower
// bound 1 where fickle's vectors have 0 (only a subscript of the cast's
// result would tell). An array that is no valid vector (NULL elements,
// none, or more than one dimension) is refused: PostgreSQL keeps it and
// fails only where it is printed.
func vectorOfArray(e *scalar, t types.Type) *scalar {
	return &scalar{typ: t, slot: -1, refs: e.refs, volatile: e.volatile, name: "array", eval: func(x *execCtx) (any, error) {
		v, err := e.eval(x)
		if err != nil || v == nil {
			return v, err
		}
		dims, _, elems, _ := pgarray.Shape(v)
		if len(dims) != 1 || slices.Contains(elems, nil) {
			return nil, pgerror.Unsupported("ARRAY[...]::" + t.String() + " of NULL elements, of no element or of more than one dimension")
		}
		return elems, nil
	}}
}

// anyAll compiles l op ANY (array) and l op ALL (array): the operator
// applied between l and each element, combined with three-valued OR or
// AND; an empty array gives false for ANY and true for ALL, a NULL array
// NULL. A parameter or literal on the right is an array of l's type.
func (b *binder) anyAll(sc *scope, a *pg_query.A_Expr) (*scalar, error) {
	e, _, _, err := b.anyAllParts(sc, a)
	return e, err
}

// anyAllParts is anyAll also returning the compiled left operand and
// array, so that "column = ANY (array)" can choose key lookups.
func (b *binder) anyAllParts(sc *scope, a *pg_query.A_Expr) (e, l, r *scalar, err error) {
	op := opName(a.Name)
	all := a.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ALL
	l, r, err = b.pair(sc, a.Lexpr, a.Rexpr)
	if err != nil {
		return nil, nil, nil, err
	}
	if unresolved(l) && (unresolved(r) || !r.typ.IsArray()) {
		if _, err := b.fix(l, types.Text); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := b.recordLiteral(l, r); err != nil {
		return nil, nil, nil, err
	}
	if unresolved(r) || r.lit != nil || r.null {
		lt := l.typ
		if lt.Oid == types.OidUnknown {
			lt = types.Text
		}
		elem := types.Type{Oid: lt.Oid, Typmod: -1}
		if _, err := types.ResolveBinaryOp(op, elem, elem); err != nil {
			// No operator takes the left type on both sides (tsvector @@
			// ANY ('{...}')): as make_scalar_array_op, the operator
			// resolved with an unknown right operand says the elements'.
			if o, err := types.ResolveBinaryOp(op, elem, types.Unknown); err == nil && o.Right.Oid != types.OidUnknown {
				elem = o.Right
			}
		}
		arr, ok := types.ArrayOf(elem)
		if !ok {
			return nil, nil, nil, b.noArrayType(lt, a.Location)
		}
		if r, err = b.coerce(r, arr, types.CastImplicit); err != nil {
			return nil, nil, nil, b.withPos(err, a.Location)
		}
	}
	elem, ok := r.typ.Elem()
	if !ok {
		return nil, nil, nil, b.errAt(pgerror.New(pgerror.WrongObjectType, "op ANY/ALL (array) requires array on right side"), a.Location)
	}
	var left, cur any
	leftHolder := &scalar{typ: l.typ, slot: -1, eval: func(*execCtx) (any, error) { return left, nil }}
	if unresolved(l) {
		leftHolder = l
	}
	if elem.Oid != types.OidRecord {
		elem.Typmod = -1 // an anonymous record's typmod is its shape
	}
	elemHolder := &scalar{typ: elem, slot: -1, eval: func(*execCtx) (any, error) { return cur, nil }}
	cmp, err := b.extensionBinary(strs(a.Name), leftHolder, elemHolder, a.Location)
	if cmp == nil && err == nil {
		cmp, err = b.builtinBinary(op, leftHolder, elemHolder, a.Location)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if cmp.typ.Oid != types.OidBool {
		return nil, nil, nil, b.errAt(pgerror.New(pgerror.WrongObjectType, "op ANY/ALL (array) requires operator to yield boolean"), a.Location)
	}
	le, re := l.eval, r.eval
	return &scalar{typ: types.Bool, slot: -1, refs: l.refs | r.refs, volatile: l.volatile || r.volatile, name: "?column?", eval: func(x *execCtx) (any, error) {
		lv, err := le(x)
		if err != nil {
			return nil, err
		}
		rv, err := re(x)
		if err != nil || rv == nil {
			return nil, err
		}
		left = lv
		elems, _ := pgarray.Elems(rv)
		return quantified(x, cmp, all, len(elems), func(i int) { cur = elems[i] })
	}}, l, r, nil
}

// quantified is op ANY (all false) or op ALL over n values: cmp compares
// the test value with the value set(i) puts in its holder. ANY is true on
// the first true comparison, ALL false on the first false one; otherwise a
// NULL comparison makes the answer NULL, as in PostgreSQL.
func quantified(x *execCtx, cmp *scalar, all bool, n int, set func(i int)) (any, error) {
	sawNull := false
	for i := range n {
		set(i)
		v, err := cmp.eval(x)
		if err != nil {
			return nil, err
		}
		switch {
		case v == nil:
			sawNull = true
		case v.(bool) && !all:
			return true, nil
		case !v.(bool) && all:
			return false, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return all, nil
}

// fieldSelection compiles (record).field.
func fieldSelection(arg *scalar, fields []types.Field, name string) (*scalar, error) {
	for i, f := range fields {
		if f.Name != name {
			continue
		}
		inner := arg.eval
		return &scalar{typ: f.Type, slot: -1, refs: arg.refs, volatile: arg.volatile, name: name, eval: func(x *execCtx) (any, error) {
			v, err := inner(x)
			if err != nil || v == nil {
				return nil, err
			}
			return v.([]any)[i], nil
		}}, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedColumn, "could not identify column \"%s\" in record data type", name)
}

// arraySubLink compiles ARRAY(subquery): the subquery's one column
// collected into an array, empty when it returns no rows.
func (b *binder) arraySubLink(sl *pg_query.SubLink, p *selectPlan, refs uint64, rows func(*execCtx) ([][]any, error)) (*scalar, error) {
	if len(p.cols) != 1 {
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "subquery must return only one column"), sl.Location)
	}
	col := p.cols[0].typ
	nested := types.ElemTypeOid(col.Oid) != 0
	if nested {
		col, _ = col.Elem()
	} else if col.IsArray() {
		return nil, b.errAt(pgerror.Unsupported("arrays of "+col.String()), sl.Location)
	}
	if col.Oid == types.OidUnknown {
		col = types.Text
	}
	arr, ok := types.ArrayOf(col)
	if !ok {
		return nil, b.noArrayType(col, sl.Location)
	}
	return &scalar{typ: arr, slot: -1, refs: refs, name: "array", eval: func(x *execCtx) (any, error) {
		rs, err := rows(x)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(rs))
		for i, r := range rs {
			out[i] = r[0]
		}
		if nested {
			return types.StackArrayRows(out)
		}
		return out, nil
	}}, nil
}

// unnestItem compiles unnest(a [, b ...]) [WITH ORDINALITY] in FROM: one
// row per element, several arrays side by side padded with NULLs. ok is
// false when rf is not a call of unnest. Like generate_series, its
// arguments may refer to enclosing queries but not to earlier FROM items.
func (b *binder) unnestItem(sc *scope, rf *pg_query.RangeFunction) (it *fromItem, cols []scopeCol, ok bool, err error) {
	if len(rf.Functions) != 1 {
		return nil, nil, false, nil
	}
	fl := rf.Functions[0].GetList()
	if fl == nil || len(fl.Items) == 0 {
		return nil, nil, false, nil
	}
	fc := fl.Items[0].GetFuncCall()
	if fc == nil || strings.ToLower(lastName(fc.Funcname)) != "unnest" {
		return nil, nil, false, nil
	}
	if rf.IsRowsfrom {
		return nil, nil, false, nil // rowsFromItem splits a multi-array unnest
	}
	if len(fc.Args) > 1 && (len(fc.Funcname) != 1 || len(rf.Coldeflist) > 0) {
		// Qualified, or with column definitions, it is no multi-array
		// unnest but a call of a function unnest(a, b, ...), which
		// PostgreSQL does not have.
		args := make([]*scalar, len(fc.Args))
		for i, a := range fc.Args {
			if args[i], err = b.expr(functionArgScope(sc), a); err != nil {
				return nil, nil, true, err
			}
		}
		return nil, nil, true, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", callText(strings.Join(strs(fc.Funcname), "."), fc.Args, args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
	}
	if len(rf.Coldeflist) > 0 || len(fc.Args) == 0 {
		return nil, nil, true, b.errAt(pgerror.Unsupported("this form of unnest in FROM"), fc.Location)
	}
	args := make([]*scalar, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.expr(functionArgScope(sc), a)
		if err != nil {
			return nil, nil, true, err
		}
		if len(fc.Args) == 1 && (e.typ.IsMultirange() || e.typ.Oid == types.OidTSVector) {
			// unnest(anymultirange) and unnest(tsvector) are ordinary
			// set-returning functions.
			return nil, nil, false, nil
		}
		if elem, _ := e.typ.Elem(); elem.Oid == types.OidRecord {
			return nil, nil, true, b.errAt(errColumnDefinitionsRequired, fc.Location)
		}
		if !e.typ.IsArray() {
			if unresolved(e) || e.lit != nil || e.null {
				return nil, nil, true, b.errAt(pgerror.New(pgerror.IndeterminateDatatype, "could not determine polymorphic type because input has type unknown"), fc.Location)
			}
			return nil, nil, true, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function unnest(%s) does not exist", e.typ), fc.Location)
		}
		args[i] = e
	}
	alias := "unnest"
	var colNames []string
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
		colNames = strs(rf.Alias.Colnames)
	}
	// Each array of a composite element type expands to the element's
	// fields, as PostgreSQL expands a function returning a composite type:
	// fields[i] are array i's (nil for a scalar element), at column
	// offsets[i].
	fields := make([][]types.Field, len(args))
	offsets := make([]int, len(args))
	var elemCols []types.Field
	for i, a := range args {
		elem, _ := a.typ.Elem()
		offsets[i] = len(elemCols)
		if fs, ok := elem.Fields(); ok && elem.IsComposite() {
			fields[i] = fs
			elemCols = append(elemCols, fs...)
			continue
		}
		name := "unnest"
		if rf.Alias != nil && len(args) == 1 {
			name = alias
		}
		elemCols = append(elemCols, types.Field{Name: name, Type: elem})
	}
	if rf.Ordinality {
		elemCols = append(elemCols, types.Field{Name: "ordinality", Type: types.Int8})
	}
	width := len(elemCols)
	if len(colNames) > width {
		return nil, nil, true, pgerror.Newf(pgerror.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", alias, width, len(colNames))
	}
	scalarItem := len(args) == 1 && fields[0] == nil && !rf.Ordinality
	var rowType types.Type
	if len(args) == 1 && fields[0] != nil && !rf.Ordinality {
		rowType, _ = args[0].typ.Elem()
	}
	for i, f := range elemCols {
		if i < len(colNames) {
			f.Name = colNames[i]
		}
		cols = append(cols, scopeCol{rel: alias, name: f.Name, typ: f.Type, scalarItem: scalarItem, itemRowType: rowType})
	}
	ordinality := rf.Ordinality
	it = &fromItem{name: alias, sub: func(x *execCtx) ([][]any, error) {
		arrays := make([][]any, len(args))
		n := 0
		for i, a := range args {
			v, err := a.eval(x)
			if err != nil {
				return nil, err
			}
			if v != nil {
				arrays[i], _ = pgarray.Elems(v)
				n = max(n, len(arrays[i]))
			}
		}
		rows := make([][]any, n)
		for r := range n {
			row := make([]any, width)
			for i, arr := range arrays {
				if r >= len(arr) {
					continue
				}
				if fields[i] == nil {
					row[offsets[i]] = arr[r]
					continue
				}
				// A NULL element is a row of NULL fields.
				if rec, ok := arr[r].([]any); ok {
					copy(row[offsets[i]:offsets[i]+len(fields[i])], rec)
				}
			}
			if ordinality {
				row[width-1] = int64(r + 1)
			}
			rows[r] = row
		}
		return rows, nil
	}}
	return it, cols, true, nil
}

// noArrayType is the error of an array of elem where fickle has no array
// type: PostgreSQL has one for anonymous records (record[]), which fickle
// lacks (0A000); for other types PostgreSQL's 42704.
func (b *binder) noArrayType(elem types.Type, loc int32) error {
	if elem.Oid == types.OidRecord {
		return b.errAt(pgerror.Unsupported("arrays of anonymous records (record[])"), loc)
	}
	return b.errAt(pgerror.Newf(pgerror.UndefinedObject, "could not find array type for data type %s", elem), loc)
}

// arrayTypeOf is the type t[] of a type name with array bounds (the bounds
// are not enforced, as in PostgreSQL).
func (b *binder) arrayTypeOf(t types.Type, loc int32) (types.Type, error) {
	arr, ok := types.ArrayOf(t)
	if !ok {
		return types.Type{}, b.noArrayType(t, loc)
	}
	return arr, nil
}
