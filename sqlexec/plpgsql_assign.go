package sqlexec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Assignment to array elements and slices and to fields in PL/pgSQL
// (a[i] := x, a[i][j] := x, a[lo:hi] := arr, r.f[i] := x, r.f.g := x): the
// variable's (or the record field's) value with the element or field
// replaced, as UPDATE ... SET col[i] = x and col.f = x compute it
// (arrayAssign).

// elementTarget compiles the indirection of an assignment whose target
// has more than the variable (or record field) it assigns, the datum k:
// subscripts, or fields of a composite value. nil for any other
// expression.
func (fr *plFrame) elementTarget(b *binder, e *plExpr, k int) (*arrayAssign, error) {
	if e.mode < 3 || k < 0 {
		return nil, nil
	}
	i := strings.Index(e.text, ":=")
	if i < 0 {
		i = strings.Index(e.text, "=")
	}
	if i < 0 {
		return nil, nil
	}
	target := strings.TrimSpace(e.text[:i])
	sts, err := parseStatements("SELECT " + target)
	if err != nil {
		return nil, bodyError(err)
	}
	if len(sts) != 1 {
		return nil, pgerror.Unsupported("this assignment target in PL/pgSQL")
	}
	val := sts[0].node.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal()
	// steps are the target's names and indirection, one node each.
	var steps []*pg_query.Node
	var ind []*pg_query.Node
	if ai := val.GetAIndirection(); ai != nil {
		val, ind = ai.Arg, ai.Indirection
	}
	switch {
	case val.GetParamRef() != nil:
		steps = []*pg_query.Node{pg_query.MakeStrNode(fmt.Sprintf("$%d", val.GetParamRef().Number))}
	case val.GetColumnRef() != nil:
		steps = val.GetColumnRef().Fields
	default:
		return nil, pgerror.Unsupported("this assignment target in PL/pgSQL")
	}
	steps = append(slices.Clip(steps), ind...)
	name := func(i int) string {
		if i < len(steps) && steps[i].GetString_() != nil {
			return steps[i].GetString_().Sval
		}
		return ""
	}
	// The steps the parser resolved to datum k: the variable (or the
	// record of a field, then the field), by its name or an alias, after
	// a label or not.
	d := fr.pl.datums[k]
	owner := k
	if d.kind == 'f' {
		owner = d.fields[0]
	}
	names := func(i int) bool {
		// "$0" is the variable of a polymorphic result (withResultVar),
		// named as a variable.
		if n, err := strconv.Atoi(strings.TrimPrefix(name(i), "$")); err == nil && strings.HasPrefix(name(i), "$") && name(i) != "$0" {
			return n-1 == owner && owner < len(fr.pl.fn.params)
		}
		return name(i) != "" && (name(i) == fr.pl.datums[owner].name || fr.lookupDatum(e.scope, name(i)) == owner)
	}
	n := 1
	if !names(0) {
		if !names(1) {
			return nil, pgerror.Unsupported("this assignment target in PL/pgSQL")
		}
		n = 2 // label.variable
	}
	variable := name(n - 1)
	if d.kind == 'f' {
		if name(n) != d.name {
			return nil, pgerror.Unsupported("this assignment target in PL/pgSQL")
		}
		n++
	}
	rest := steps[n:]
	if len(rest) == 0 {
		return nil, nil
	}
	if d.isConst {
		return nil, pgerror.Newf(pgerror.ErrorInAssignment, "variable \"%s\" is declared CONSTANT", d.name)
	}
	// PostgreSQL's messages name the variable, the record of a field.
	col := &columnDesc{name: variable, typ: fr.typs[k]}
	if d.kind == 'f' {
		f, err := fr.fieldOf(d)
		if err != nil {
			return nil, err
		}
		col.typ = f.Type
	} else if d.kind != 'v' {
		return nil, pgerror.Unsupported("this assignment target in PL/pgSQL")
	}
	return b.bindArrayAssign(nil, col, rest, -1)
}

// fieldOf returns record field datum d's field, and its index, in its
// record's shape now: 55000 when the record has none yet, 42703 when it
// has no such field.
func (fr *plFrame) fieldOf(d *plDatum) (types.Field, error) {
	parent := d.fields[0]
	shape, known := fr.typs[parent].Fields()
	if !known {
		return types.Field{}, recordNotAssigned(fr.pl.datums[parent].name)
	}
	for _, f := range shape {
		if f.Name == d.name {
			return f, nil
		}
	}
	return types.Field{}, pgerror.Newf(pgerror.UndefinedColumn, "record \"%s\" has no field \"%s\"", fr.pl.datums[parent].name, d.name)
}

// assignElement stores v of type from at a's subscripts or fields of
// datum k, a variable or a record's field.
func (fr *plFrame) assignElement(k int, a *arrayAssign, v any, from types.Type) error {
	cv, err := fr.cast(v, from, a.valType)
	if err != nil {
		return err
	}
	if fr.scalarCtx == nil {
		fr.scalarCtx = fr.execCtx()
	}
	d := fr.pl.datums[k]
	cur := fr.vals[k]
	if d.kind == 'f' {
		parent := d.fields[0]
		shape, _ := fr.typs[parent].Fields()
		r, _ := fr.vals[parent].([]any)
		cur = nil
		for i, f := range shape {
			if f.Name == d.name && i < len(r) {
				cur = r[i]
			}
		}
	}
	next, err := a.apply(fr.scalarCtx, cur, cv)
	if err != nil {
		return err
	}
	if d.kind == 'f' {
		return fr.assignField(d, next, a.col.typ)
	}
	// A variable of a domain over an array checks the whole new array, as
	// PostgreSQL does after an element assignment.
	if d.domain != nil {
		if err := d.domain(fr.x, next); err != nil {
			return err
		}
	}
	fr.vals[k] = next
	return nil
}
