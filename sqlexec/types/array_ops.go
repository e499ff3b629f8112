package types

import (
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The array operators: comparison (btarraycmp), containment (@>, <@),
// overlap (&&) and concatenation (||, array_cat, array_append,
// array_prepend). Their signatures are polymorphic (anyarray,
// anycompatiblearray), so they are resolved here rather than by candidate
// selection: an unknown literal takes the array type of the other operand.

// resolveArrayOp resolves op when at least one operand is an array.
func resolveArrayOp(op string, l, r Type) (*BinaryOp, error) {
	switch op {
	case "=", "<>", "<", "<=", ">", ">=", "@>", "<@", "&&":
		t, ok := sameArrayType(l, r)
		if !ok {
			return nil, operatorError(op, &l, &r, false)
		}
		if err := sameRecordShapes(l, r); err != nil {
			return nil, err
		}
		if l.Oid == OidRecordArray {
			t.Typmod = l.Typmod // record[]'s typmod is its records' shape
		}
		return arrayBinaryOp(op, l, r, t, t, false, arrayPredicate(op, t))
	case "||":
		return resolveArrayConcat(l, r)
	}
	return nil, operatorError(op, &l, &r, false)
}

// polymorphicArrayOp reports whether op over l and r is one of the array
// operators resolved by resolveArrayOp rather than by the candidates of
// binaryOperators (which hold the operators taking a particular array
// type, such as jsonb #> text[]).
func polymorphicArrayOp(op string, l, r Type) bool {
	if !l.IsArray() && !r.IsArray() || l.IsRange() || r.IsRange() || l.IsMultirange() || r.IsMultirange() {
		// An array's containment in a range of arrays is the range's.
		return false
	}
	switch op {
	case "=", "<>", "<", "<=", ">", ">=", "@>", "<@", "&&", "||":
		return true
	}
	return false
}

// SameRecordShapes is sameRecordShapes, for the ARRAY constructor.
func SameRecordShapes(l, r Type) *pgerror.Error { return sameRecordShapes(l, r) }

// sameRecordShapes refuses to combine two arrays of anonymous records (or
// such an array and a record) whose records have different shapes: fickle
// types an array's records by one shape, where PostgreSQL's carry each
// its own.
func sameRecordShapes(l, r Type) *pgerror.Error {
	shape := func(t Type) int32 {
		if e, ok := t.Elem(); ok {
			t = e
		}
		if t.Oid != OidRecord || t.Typmod < 0 {
			return -1
		}
		return t.Typmod &^ recordShapeHidden
	}
	if ls, rs := shape(l), shape(r); ls >= 0 && rs >= 0 && ls != rs {
		return pgerror.Unsupported("arrays of anonymous records of different shapes")
	}
	return nil
}

// sameArrayType is the anyarray resolution of two operands: both of one
// array type, or one of them an unknown literal.
func sameArrayType(l, r Type) (Type, bool) {
	switch {
	case l.Oid == OidUnknown && r.IsArray():
		return Type{r.Oid, -1}, true
	case r.Oid == OidUnknown && l.IsArray():
		return Type{l.Oid, -1}, true
	case l.IsArray() && l.Oid == r.Oid:
		return Type{l.Oid, -1}, true
	}
	return Type{}, false
}

// arrayPredicate returns the evaluation of a comparison, containment or
// overlap operator on two non-NULL arrays of type t.
func arrayPredicate(op string, t Type) opFunc {
	cmp := func(f func(int) bool) opFunc {
		return func(_ *Env, a, b any) (any, error) { return f(compareArrays(t, a, b)), nil }
	}
	elem, _ := t.Elem()
	switch op {
	case "=":
		return cmp(func(c int) bool { return c == 0 })
	case "<>":
		return cmp(func(c int) bool { return c != 0 })
	case "<":
		return cmp(func(c int) bool { return c < 0 })
	case "<=":
		return cmp(func(c int) bool { return c <= 0 })
	case ">":
		return cmp(func(c int) bool { return c > 0 })
	case ">=":
		return cmp(func(c int) bool { return c >= 0 })
	case "@>":
		return func(_ *Env, a, b any) (any, error) { return arrayContains(elem, b, a, true), nil }
	case "<@":
		return func(_ *Env, a, b any) (any, error) { return arrayContains(elem, a, b, true), nil }
	}
	return func(_ *Env, a, b any) (any, error) { return arrayContains(elem, a, b, false), nil }
}

// arrayContains is array_contain_compare: with all, whether every element
// of needles equals some element of hay (a NULL needle never does);
// without, whether any non-NULL needle does. NULL elements of hay match
// nothing. Both arrays count as their elements, whatever their shapes.
func arrayContains(elem Type, needleArray, hayArray any, all bool) bool {
	needles, _ := pgarray.Elems(needleArray)
	hay, _ := pgarray.Elems(hayArray)
	for _, n := range needles {
		if n == nil {
			if all {
				return false
			}
			continue
		}
		found := false
		for _, h := range hay {
			if h != nil && compare(elem, n, h) == 0 {
				found = true
				break
			}
		}
		if found && !all {
			return true
		}
		if !found && all {
			return false
		}
	}
	return all
}

// arrayBinaryOp builds the resolved operator: the operands of types l and
// r are coerced to the declared left and right types, NULL operands give
// NULL unless nullable, and eval sees the coerced datums.
func arrayBinaryOp(op string, l, r, left, right Type, nullable bool, eval opFunc) (*BinaryOp, error) {
	cl, err := lookupCast(l, left, CastImplicit)
	if err != nil {
		return nil, err
	}
	cr, err := lookupCast(r, right, CastImplicit)
	if err != nil {
		return nil, err
	}
	evalEnv := func(env *Env, a, b any) (any, error) {
		if !nullable && (a == nil || b == nil) {
			return nil, nil
		}
		var err error
		if a != nil {
			if a, err = cl(env, a); err != nil {
				return nil, err
			}
		}
		if b != nil {
			if b, err = cr(env, b); err != nil {
				return nil, err
			}
		}
		return eval(env, a, b)
	}
	result := Bool
	if op == "||" {
		result = left
		if !left.IsArray() {
			result = right
		}
	}
	return &BinaryOp{
		Name: op, Left: left, Right: right, Result: result,
		Eval:    func(a, b any) (any, error) { return evalEnv(nil, a, b) },
		EvalEnv: evalEnv,
	}, nil
}

// resolveArrayConcat resolves || with an array operand: array || array
// (array_cat), array || element (array_append) and element || array
// (array_prepend), the elements taking their common type
// (anycompatiblearray); an unknown literal beside an array is an array.
func resolveArrayConcat(l, r Type) (*BinaryOp, error) {
	le, lArr := l.Elem()
	re, rArr := r.Elem()
	if err := sameRecordShapes(l, r); err != nil {
		return nil, err
	}
	elemOf := func(t Type, isArr bool, e Type) Type {
		if isArr {
			t = e
		}
		if t.Oid == OidRecord {
			return t // an anonymous record's typmod is its shape
		}
		return Type{t.Oid, -1}
	}
	lElem, rElem := elemOf(l, lArr, le), elemOf(r, rArr, re)
	if !lArr {
		if l.Oid == OidUnknown {
			lElem, lArr = rElem, true
		}
	}
	if !rArr {
		if r.Oid == OidUnknown {
			rElem, rArr = lElem, true
		}
	}
	elem, err := commonType("||", []Type{lElem, rElem})
	if err != nil || !canCoerce(lElem, elem, CastImplicit) || !canCoerce(rElem, elem, CastImplicit) {
		return nil, operatorError("||", &l, &r, false)
	}
	arr, ok := ArrayOf(elem)
	if !ok {
		return nil, operatorError("||", &l, &r, false)
	}
	left, right := arr, arr
	if !lArr {
		left = elem
	}
	if !rArr {
		right = elem
	}
	// array_cat takes a NULL array as empty; array_append and
	// array_prepend add a NULL element and take a NULL array as empty.
	return arrayBinaryOp("||", l, r, left, right, true, func(_ *Env, a, b any) (any, error) {
		switch {
		case lArr && rArr:
			if a == nil && b == nil {
				return nil, nil
			}
			return concatArrays(a, b)
		case lArr:
			return pushElem(a, b, true)
		}
		return pushElem(b, a, false)
	})
}
