package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// This file derives the collation of expressions as PostgreSQL's
// parse_collate.c does. fickle's databases use the C collation, and the
// collations an expression may name (C, POSIX, default) all compare
// bytewise, so a derived collation never changes a result; it decides
// the errors: two different COLLATE clauses meeting (42P21), a sort or
// set operation over columns of two different collations (42P21), and a
// comparison whose inputs agree on no collation (42P22, when it runs).

// collStrength is how strongly an expression holds its collation, in
// PostgreSQL's order (CollateStrength): a stronger one wins a merge.
type collStrength uint8

const (
	collNone collStrength = iota
	collImplicit
	collConflict
	collExplicit
)

// collState is the collation derived for an expression: its name and
// strength; for a conflict of implicit collations, name and other are the
// two. indeterminate marks, with collNone, a value of a collatable type
// that has no collation (a column of a set operation whose sides
// disagreed), which a comparison cannot order.
type collState struct {
	strength      collStrength
	name, other   string
	indeterminate bool
}

// implicitCollation is the collation a value of type t carries by
// default: "default" for text types, "C" for name, none otherwise.
func implicitCollation(t types.Type) collState {
	switch typeCollation(t.Oid) {
	case 0:
		return collState{}
	case oidCCollation:
		return collState{strength: collImplicit, name: "C"}
	}
	return collState{strength: collImplicit, name: "default"}
}

// columnCollation is the collation a reference to a column of type t
// declared with collation name ("" for its type's) carries.
func columnCollation(t types.Type, name string) collState {
	c := implicitCollation(t)
	if c.strength != collNone && name != "" {
		c.name = name
	}
	return c
}

// storedCollation is the collation name a column or output column keeps
// for an expression's derived collation c: "" for the type's own, and
// collIndeterminateName when the expression agreed on none.
func storedCollation(c collState) string {
	if c.strength == collConflict || c.indeterminate {
		return collIndeterminateName
	}
	return c.name
}

// collIndeterminateName marks a stored column collation that could not be
// derived (PostgreSQL's InvalidOid on a collatable column).
const collIndeterminateName = "\x00indeterminate"

// outputCollation is the collation a reference to an output column whose
// stored collation is name carries, for a column of type t.
func outputCollation(t types.Type, name string) collState {
	if name == collIndeterminateName {
		if typeCollation(t.Oid) == 0 {
			return collState{}
		}
		return collState{indeterminate: true}
	}
	return columnCollation(t, name)
}

// merge folds a child expression's collation o into the state c of its
// parent (merge_collation_state): the stronger wins, two different
// explicit collations are an error, two different implicit ones a
// conflict that only some parents mind; "default" yields to any other
// implicit collation.
func (c *collState) merge(o collState) *pgerror.Error {
	if o.strength == collNone {
		c.indeterminate = c.indeterminate || o.indeterminate
		return nil
	}
	switch {
	case o.strength > c.strength:
		indeterminate := c.indeterminate
		*c = o
		c.indeterminate = indeterminate
	case o.strength < c.strength || o.name == c.name:
	case o.strength == collImplicit:
		if c.name == "default" {
			c.name = o.name
		} else if o.name != "default" {
			c.strength, c.other = collConflict, o.name
		}
	case o.strength == collExplicit:
		return pgerror.Newf(pgerror.CollationMismatch, "collation mismatch between explicit collations \"%s\" and \"%s\"", c.name, o.name)
	}
	return nil
}

// conflictError is the error of a sort, grouping or set operation over a
// conflict of implicit collations.
func (c collState) conflictError() *pgerror.Error {
	return pgerror.Newf(pgerror.CollationMismatch, "collation mismatch between implicit collations \"%s\" and \"%s\"", c.name, c.other).
		WithHint("You can choose the collation by applying the COLLATE clause to one or both expressions.")
}

// undetermined reports whether an operation whose inputs merged to c
// cannot tell which collation to compare with.
func (c collState) undetermined() bool {
	return c.strength == collConflict || c.strength == collNone && c.indeterminate
}

// errNoComparisonCollation is PostgreSQL's run-time error for comparing
// two strings with no collation.
func errNoComparisonCollation() *pgerror.Error {
	return pgerror.New(pgerror.IndeterminateCollation, "could not determine which collation to use for string comparison").
		WithHint("Use the COLLATE clause to set the collation explicitly.")
}

// exprCollated compiles n as expr does, deriving its collation from the
// collations of the subexpressions compiled meanwhile (which merge into
// local) and merging it into the enclosing expression's state.
func (b *binder) exprCollated(sc *scope, n *pg_query.Node) (*scalar, error) {
	parent := b.collCtx
	local := &collState{}
	b.collCtx = local
	var e *scalar
	var err error
	if fc := n.GetFuncCall(); fc != nil && isCollationFor(fc) {
		e, err = b.collationFor(sc, fc)
	} else {
		e, err = b.exprNode(sc, n)
	}
	b.collCtx = parent
	if err != nil {
		return nil, err
	}
	switch n.Node.(type) {
	case *pg_query.Node_CollateClause, *pg_query.Node_ColumnRef:
		// Their collation was set as they were compiled.
	case *pg_query.Node_SubLink:
		if n.GetSubLink().SubLinkType != pg_query.SubLinkType_EXPR_SUBLINK {
			e = b.deriveCollation(n, e, *local)
		}
	case *pg_query.Node_RowExpr:
		// A row's fields are independent: a row is never collatable.
		e.coll = collState{}
	default:
		e = b.deriveCollation(n, e, *local)
	}
	if parent != nil {
		if err := parent.merge(e.coll); err != nil {
			return nil, b.errAt(err, exprLocation(n))
		}
	}
	return e, nil
}

// deriveCollation gives e, compiled from n whose subexpressions merged to
// local, its collation: a collatable result takes its inputs' (its type's
// when they have none); a comparison whose inputs agree on none fails when
// it compares two values, as PostgreSQL's does.
func (b *binder) deriveCollation(n *pg_query.Node, e *scalar, local collState) *scalar {
	want := implicitCollation(e.typ)
	if want.strength != collNone && local.strength != collNone {
		want = local
		want.indeterminate = false
	}
	if ae := n.GetAExpr(); ae != nil && local.undetermined() && ae.Kind == pg_query.A_Expr_Kind_AEXPR_OP && isComparisonOp(opName(ae.Name)) {
		inner := e.eval
		c := *e
		c.eval = func(x *execCtx) (any, error) {
			v, err := inner(x)
			if err == nil && v != nil {
				return nil, errNoComparisonCollation()
			}
			return v, err
		}
		e = &c
	}
	if e.coll != want {
		if e.slot >= 0 || e.lit != nil || e.null || e.param != 0 {
			c := *e
			e = &c
		}
		e.coll = want
	}
	return e
}

// isComparisonOp reports whether op is one of the comparison operators,
// which order strings by a collation.
func isComparisonOp(op string) bool {
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=":
		return true
	}
	return false
}

// collateClause compiles expr COLLATE name: the collations fickle has
// (which all compare bytewise) are taken, and the expression's collation
// becomes the explicit one named.
func (b *binder) collateClause(sc *scope, cc *pg_query.CollateClause) (*scalar, error) {
	coll := strs(cc.Collname)
	name := coll[len(coll)-1]
	if name != "C" && name != "default" && name != "POSIX" {
		return nil, b.errAt(pgerror.Unsupported("COLLATE "+strings.Join(coll, ".")), cc.Location)
	}
	e, err := b.expr(sc, cc.Arg)
	if err != nil {
		return nil, err
	}
	if unresolved(e) {
		b.fix(e, types.Text)
	} else if (e.lit != nil || e.null) && e.typ.Oid != types.OidUnknown {
		if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
			return nil, err
		}
	}
	// An untyped literal stays untyped, as in transformCollateClause: its
	// type is the one its use gives it ('a'::citext = 'A' COLLATE "C"
	// compares citext).
	if e.typ.Oid != types.OidUnknown && typeCollation(e.typ.Oid) == 0 {
		return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "collations are not supported by type %s", e.typ), cc.Location)
	}
	c := *e
	c.coll = collState{strength: collExplicit, name: name}
	return &c, nil
}

// exprAlone compiles n as an expression of its own, whose collation the
// enclosing expression's does not take (a CASE operand, a row's field, an
// aggregate's ORDER BY).
func (b *binder) exprAlone(sc *scope, n *pg_query.Node) (*scalar, error) {
	saved := b.collCtx
	b.collCtx = nil
	defer func() { b.collCtx = saved }()
	return b.expr(sc, n)
}

// checkSortCollations fails as PostgreSQL's sort does when one of its
// keys is a string without a collation: when the sort starts, whatever
// rows it gets.
func checkSortCollations(keys []sortKey) error {
	for _, k := range keys {
		if k.noCollation {
			return errNoComparisonCollation()
		}
	}
	return nil
}

// setOpCollation is the collation of a set operation's output column of
// type t whose sides derived l and r (select_common_collation): sides of
// two implicit collations are an error unless unionAll, where the column
// gets none.
func setOpCollation(l, r collState, t types.Type, unionAll bool) (collState, error) {
	c := collState{}
	if err := c.merge(l); err != nil {
		return collState{}, err
	}
	if err := c.merge(r); err != nil {
		return collState{}, err
	}
	return commonCollation(c, t, unionAll)
}

// commonCollation is the collation of a column of type t whose values
// merged to c: a conflict is an error unless noneOK, where the column
// gets none.
func commonCollation(c collState, t types.Type, noneOK bool) (collState, error) {
	if typeCollation(t.Oid) == 0 {
		return collState{}, nil
	}
	switch c.strength {
	case collConflict:
		if noneOK {
			return collState{indeterminate: true}, nil
		}
		return collState{}, c.conflictError()
	case collNone:
		if c.indeterminate {
			return collState{indeterminate: true}, nil
		}
		return implicitCollation(t), nil
	}
	return collState{strength: collImplicit, name: c.name}, nil
}

// declaredCollation is the name of column c's collation as PostgreSQL's
// messages print it: its COLLATE, else its type's.
func declaredCollation(c *columnDesc) string {
	if c.collation != "" {
		return c.collation
	}
	return implicitCollation(c.typ).name
}

// columnCollationOf is the collation a table or view column of type typ
// made from an output column that derived c keeps: 42P22 when the
// output column has none though its type is collatable.
func columnCollationOf(name string, typ types.Type, c collState) (string, error) {
	coll := storedCollation(c)
	if coll != collIndeterminateName {
		return coll, nil
	}
	if typeCollation(typ.Oid) == 0 {
		return "", nil
	}
	return "", pgerror.Newf(pgerror.IndeterminateCollation, "no collation was derived for column \"%s\" with collatable type %s", name, typ).
		WithHint("Use the COLLATE clause to set the collation explicitly.")
}

// outerCollateName is the collation the outermost COLLATE of expression n
// names, "" when n is not a COLLATE clause.
func outerCollateName(n *pg_query.Node) string {
	if cc := n.GetCollateClause(); cc != nil {
		names := strs(cc.Collname)
		return names[len(names)-1]
	}
	return ""
}

// recursiveCollations checks, as PostgreSQL does, that each column of a
// recursive query has the collation of its non-recursive term (base)
// overall, once the recursive term's (step) is merged in.
func recursiveCollations(name string, base, step []outCol, unionAll bool) error {
	for i := range base {
		if i >= len(step) {
			break
		}
		overall, err := setOpCollation(base[i].coll, step[i].coll, base[i].typ, unionAll)
		if err != nil {
			return err
		}
		nonRecursive := outputCollation(base[i].typ, storedCollation(base[i].coll))
		if overall.strength == collNone || nonRecursive.strength == collNone || overall.name == nonRecursive.name {
			continue
		}
		return pgerror.Newf(pgerror.CollationMismatch, "recursive query \"%s\" column %d has collation \"%s\" in non-recursive term but collation \"%s\" overall",
			name, i+1, nonRecursive.name, overall.name).
			WithHint("Use the COLLATE clause to set the collation of the non-recursive term.")
	}
	return nil
}

// isCollationFor reports whether fc is a plain call of pg_collation_for
// (COLLATION FOR (expr)).
func isCollationFor(fc *pg_query.FuncCall) bool {
	names := strs(fc.Funcname)
	if len(names) > 2 || len(names) == 2 && names[0] != "pg_catalog" || names[len(names)-1] != "pg_collation_for" {
		return false
	}
	return len(fc.Args) == 1 && fc.Over == nil && fc.AggFilter == nil && len(fc.AggOrder) == 0 && !fc.AggStar && !fc.AggDistinct && !fc.FuncVariadic
}

// collationFor compiles COLLATION FOR (expr): the quoted name of the
// collation derived for expr, NULL for an untyped literal or a value
// without a collation, 42804 for a type without collations. Inside a
// routine, whose parameters and variables take the caller's collation,
// it is refused.
func (b *binder) collationFor(sc *scope, fc *pg_query.FuncCall) (*scalar, error) {
	if b.vars != nil {
		return nil, b.errAt(pgerror.Unsupported("COLLATION FOR in a routine body"), fc.Location)
	}
	arg, err := b.expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	var name any
	switch {
	case unresolved(arg) || arg.lit != nil || arg.null || arg.typ.Oid == types.OidUnknown:
	case typeCollation(arg.typ.Oid) == 0:
		return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "collations are not supported by type %s", arg.typ), fc.Location)
	case arg.coll.strength == collNone && !arg.coll.indeterminate:
		return nil, b.errAt(pgerror.Unsupported("COLLATION FOR of this expression"), fc.Location)
	case arg.coll.strength != collNone && arg.coll.strength != collConflict:
		name = types.QuoteIdent(arg.coll.name)
	}
	return &scalar{typ: types.Text, slot: -1, name: "pg_collation_for", eval: constEval(name)}, nil
}

// subLinkCollations merges the collation of each test value of
// test op ANY / ALL (subquery) with its subquery column's: two explicit
// ones are an error; it returns the columns that agree on none.
func (b *binder) subLinkCollations(tests []*scalar, p *selectPlan, loc int32) ([]int, error) {
	var undetermined []int
	for i, t := range tests {
		if i >= len(p.cols) || typeCollation(t.typ.Oid) == 0 {
			continue
		}
		c := t.coll
		if err := c.merge(outputCollation(p.cols[i].typ, storedCollation(p.cols[i].coll))); err != nil {
			return nil, b.errAt(err, loc)
		}
		if c.undetermined() {
			undetermined = append(undetermined, i)
		}
	}
	return undetermined, nil
}

// checkSubLinkCollations fails as PostgreSQL does when a subquery of
// op ANY / ALL returns a string in a column that agrees on no collation
// with its test value: PostgreSQL hashes (or, correlated, compares) it.
func checkSubLinkCollations(rows [][]any, undetermined []int, correlated bool) error {
	for _, r := range rows {
		for _, i := range undetermined {
			if r[i] == nil {
				continue
			}
			if correlated {
				return errNoComparisonCollation()
			}
			return pgerror.New(pgerror.IndeterminateCollation, "could not determine which collation to use for string hashing").
				WithHint("Use the COLLATE clause to set the collation explicitly.")
		}
	}
	return nil
}

// declaresCollation reports whether the PL/pgSQL body src says COLLATE in
// a DECLARE section (outside strings, quoted names and comments): a
// variable's collation, which fickle does not give variables.
func declaresCollation(src string) bool {
	inDecl := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && (src[j] != c || j+1 < len(src) && src[j+1] == c) {
				if src[j] == c {
					j++
				}
				j++
			}
			i = j + 1
		case strings.HasPrefix(src[i:], "--"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return false
			}
			i += j + 1
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 4
		case c == '$':
			j := i + 1
			for j < len(src) && (isIdentStart(src[j]) || isDigit(src[j])) {
				j++
			}
			if j >= len(src) || src[j] != '$' {
				i = j
				continue
			}
			tag := src[i : j+1]
			k := strings.Index(src[j+1:], tag)
			if k < 0 {
				return false
			}
			i = j + 1 + k + len(tag)
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			switch strings.ToLower(src[i:j]) {
			case "declare":
				inDecl = true
			case "begin":
				inDecl = false
			case "collate":
				if inDecl {
					return true
				}
			}
			i = j
		default:
			i++
		}
	}
	return false
}

// columnDefCollation is the collation a column definition cd (nil for
// none) gives a column of type typ: its COLLATE, "" for the type's.
func columnDefCollation(cd *pg_query.ColumnDef, typ types.Type) (string, error) {
	if cd == nil || cd.CollClause == nil {
		return "", nil
	}
	coll := strs(cd.CollClause.Collname)
	if len(coll) != 1 || (coll[0] != "C" && coll[0] != "default" && coll[0] != "POSIX") {
		return "", pgerror.Unsupported("COLLATE " + strings.Join(coll, "."))
	}
	if typeCollation(typ.Oid) == 0 {
		return "", pgerror.Newf(pgerror.DatatypeMismatch, "collations are not supported by type %s", typ)
	}
	return coll[0], nil
}
