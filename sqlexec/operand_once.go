package sqlexec

// onceOperand serves an operand that several comparisons of one expression
// share (x IN (a, b, c), CASE x WHEN a ... WHEN b ..., x IS DISTINCT FROM
// y): PostgreSQL computes it once a row, which matters when it is volatile
// (nextval, random()). It returns the scalar the comparisons use in x's
// place and the function that runs the expression's evaluation with x
// computed once: x's value is held in the execution context while the
// evaluation runs, and the stand-in reads it there, as PostgreSQL's
// CaseTestExpr reads the CASE's value. An x that is not volatile (or nil,
// a CASE without one) serves as itself.
func onceOperand(x *scalar) (*scalar, func(xc *execCtx, eval func() (any, error)) (any, error)) {
	if x == nil || !x.volatile {
		return x, func(_ *execCtx, eval func() (any, error)) (any, error) { return eval() }
	}
	// The stand-in is volatile too, so that nothing folds it as a constant.
	standIn := &scalar{typ: x.typ, slot: -1, refs: x.refs, volatile: true, name: x.name}
	standIn.eval = func(xc *execCtx) (any, error) {
		for i := len(xc.operands) - 1; i >= 0; i-- {
			if xc.operands[i].standIn == standIn {
				return xc.operands[i].value, nil
			}
		}
		panic("sqlexec: a shared operand read outside its expression")
	}
	return standIn, func(xc *execCtx, eval func() (any, error)) (any, error) {
		v, err := x.eval(xc)
		if err != nil {
			return nil, err
		}
		n := len(xc.operands)
		xc.operands = append(xc.operands, operandValue{standIn: standIn, value: v})
		defer func() { xc.operands = xc.operands[:n] }()
		return eval()
	}
}

// operandValue is the value of a shared operand while its expression is
// evaluated (onceOperand).
type operandValue struct {
	standIn *scalar
	value   any
}
