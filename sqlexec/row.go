package sqlexec

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Row constructors: ROW(a, b) and (a, b) build an anonymous record whose
// fields are named f1, f2, ... and typed by their expressions. Compared
// with another row constructor, a row compares field by field as
// PostgreSQL's make_row_comparison_op does (= is the AND of the fields'
// =, < is lexicographic, a NULL field makes the answer NULL); compared with
// a record value it uses the record operators (types.recordComparison),
// which treat two NULL fields as equal.

// rowExpr compiles a row constructor.
func (b *binder) rowExpr(sc *scope, r *pg_query.RowExpr) (*scalar, error) {
	args, err := b.expandRowStars(sc, r.Args)
	if err != nil {
		if pe, ok := err.(*pgerror.Error); ok && pe.Position == 0 {
			return nil, b.errAt(pe, r.Location)
		}
		return nil, err
	}
	fields := make([]*scalar, len(args))
	shape := make([]types.Field, len(args))
	var refs uint64
	volatile := false
	for i, a := range args {
		e, err := b.exprAlone(sc, a)
		if err != nil {
			return nil, err
		}
		fields[i] = e
		shape[i] = types.Field{Name: "f" + strconv.Itoa(i+1), Type: e.typ}
		if unresolved(e) {
			// A parameter stays unknown until a row comparison types it
			// by the field it is compared with, as PostgreSQL's does;
			// elsewhere it ends as text.
			shape[i].Type = types.Text
		}
		refs |= e.refs
		volatile = volatile || e.volatile
	}
	evals := make([]evalFn, len(fields))
	for i, f := range fields {
		evals[i] = f.eval
	}
	return &scalar{typ: types.RecordType(shape), slot: -1, refs: refs, volatile: volatile, name: "row", row: fields,
		eval: func(x *execCtx) (any, error) {
			out := make([]any, len(evals))
			for i, ev := range evals {
				v, err := ev(x)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}}, nil
}

// plainValue is e without its row constructor fields: a record value.
func plainValue(e *scalar) *scalar {
	if e.row == nil {
		return e
	}
	c := *e
	c.row = nil
	return &c
}

// recordIsNull is IS NULL (isNull) or IS NOT NULL of a record: true when
// every field is NULL, or when none is.
func recordIsNull(fields []any, isNull bool) bool {
	for _, f := range fields {
		if (f == nil) != isNull {
			return false
		}
	}
	return true
}

func isStarRef(c *pg_query.ColumnRef) bool {
	return len(c.Fields) > 0 && c.Fields[len(c.Fields)-1].GetAStar() != nil
}

// rowComparison compiles l op r for two row constructors field by field.
func (b *binder) rowComparison(op string, l, r *scalar, loc int32) (*scalar, error) {
	if len(l.row) != len(r.row) {
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "unequal number of entries in row expressions"), loc)
	}
	switch op {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
	default:
		if e, done, err := b.userRowComparison(op, l, r, loc); done {
			return e, err
		}
		return b.rowComparisonOther(op, l, r, loc)
	}
	if op == "!=" {
		op = "<>"
	}
	n := len(l.row)
	if e, done, err := b.userRowComparison(op, l, r, loc); done {
		return e, err
	}
	if e, done, err := b.rowComparisonWithoutBtree(op, l, r, loc); done {
		return e, err
	}
	eqs := make([]evalFn, n)
	cmps := make([]evalFn, n)
	refs := l.refs | r.refs
	for i := 0; i < n; i++ {
		eq, err := b.binary("=", l.row[i], r.row[i], loc)
		if err != nil {
			return nil, err
		}
		if eq.typ != types.Bool {
			return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "row comparison operator must yield type boolean, not type %s", eq.typ), loc)
		}
		eqs[i] = eq.eval
		if op != "=" && op != "<>" {
			c, err := b.binary(op, l.row[i], r.row[i], loc)
			if err != nil {
				return nil, err
			}
			cmps[i] = c.eval
		}
	}
	if n == 0 {
		return nil, b.errAt(pgerror.Unsupported("comparison of empty rows"), loc)
	}
	eval := func(x *execCtx) (any, error) {
		sawNull := false
		for i := 0; i < n; i++ {
			v, err := eqs[i](x)
			if err != nil {
				return nil, err
			}
			switch {
			case op == "=" || op == "<>":
				// = is the AND of the fields' =, <> the OR of their <>.
				if v == nil {
					sawNull = true
				} else if !v.(bool) {
					return op == "<>", nil
				}
				continue
			case v == nil:
				return nil, nil
			case !v.(bool):
				return cmps[i](x)
			}
		}
		if sawNull {
			return nil, nil
		}
		switch op {
		case "=", "<=", ">=":
			return true, nil
		}
		return false, nil
	}
	return &scalar{typ: types.Bool, slot: -1, refs: refs, volatile: l.volatile || r.volatile, name: "?column?", eval: eval}, nil
}

// patternRowOps are the built-in btree operators whose names are not the
// six comparisons: text_pattern_ops' and bpchar_pattern_ops' ~<~ ~<=~
// ~>=~ ~>~, with the strategies they stand for. Their order is the
// bytes', which is the C collation's.
var patternRowOps = map[string]string{"~<~": "<", "~<=~": "<=", "~>=~": ">=", "~>~": ">"}

// rowComparisonOther compiles a row comparison with an operator other than
// = <> < <= > >=, as make_row_comparison_op does: every field pair resolves
// the operator (42883 when none exists) to a boolean; one field is that
// operator alone, more need a btree meaning, which among the built-in
// operators only the pattern comparisons have.
func (b *binder) rowComparisonOther(op string, l, r *scalar, loc int32) (*scalar, error) {
	var single *scalar
	for i := range l.row {
		e, err := b.binary(op, l.row[i], r.row[i], loc)
		if err != nil {
			return nil, err
		}
		if e.typ != types.Bool {
			return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "row comparison operator must yield type boolean, not type %s", e.typ), loc)
		}
		single = e
	}
	if len(l.row) == 1 {
		return single, nil
	}
	if std, ok := patternRowOps[op]; ok {
		return b.rowComparison(std, l, r, loc)
	}
	return nil, b.errAt(pgerror.Newf(pgerror.FeatureNotSupported, "could not determine interpretation of row comparison operator %s", op).
		WithHint("Row comparison operators must be associated with btree operator families."), loc)
}

// rowComparisonWithoutBtree compiles a row comparison over a geometric
// type, whose operators named =, <, <> ... belong to no btree family: one
// field compares with the field's own operator, as make_row_comparison_op
// does for rows of one; more fields are refused with its 0A000, where
// comparing them field by field would take area or point-count equality
// for btree semantics. done is false for rows without geometric fields.
func (b *binder) rowComparisonWithoutBtree(op string, l, r *scalar, loc int32) (e *scalar, done bool, err error) {
	geometric := false
	for i := range l.row {
		geometric = geometric || types.IsGeometric(l.row[i].typ.Oid) || types.IsGeometric(r.row[i].typ.Oid)
	}
	switch {
	case !geometric:
		return nil, false, nil
	case len(l.row) > 1:
		for i := range l.row {
			if _, err := b.binary(op, l.row[i], r.row[i], loc); err != nil {
				return nil, true, err
			}
		}
		return nil, true, b.errAt(pgerror.Newf(pgerror.FeatureNotSupported, "could not determine interpretation of row comparison operator %s", op).
			WithHint("Row comparison operators must be associated with btree operator families."), loc)
	}
	e, err = b.binary(op, l.row[0], r.row[0], loc)
	if err == nil && e.typ != types.Bool {
		err = b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "row comparison operator must yield type boolean, not type %s", e.typ), loc)
	}
	return e, true, err
}

// rowDistinct compiles l IS [NOT] DISTINCT FROM r for two row
// constructors: the OR of their fields' IS DISTINCT FROM.
func (b *binder) rowDistinct(l, r *scalar, not bool, loc int32) (*scalar, error) {
	if len(l.row) != len(r.row) {
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "unequal number of entries in row expressions"), loc)
	}
	pairs := make([]evalFn, len(l.row))
	for i := range l.row {
		d, err := b.isDistinct(l.row[i], r.row[i], false, loc)
		if err != nil {
			return nil, err
		}
		pairs[i] = d.eval
	}
	return &scalar{typ: types.Bool, slot: -1, refs: l.refs | r.refs, volatile: l.volatile || r.volatile, name: "?column?",
		eval: func(x *execCtx) (any, error) {
			for _, p := range pairs {
				v, err := p(x)
				if err != nil {
					return nil, err
				}
				if v.(bool) {
					return !not, nil
				}
			}
			return not, nil
		}}, nil
}
