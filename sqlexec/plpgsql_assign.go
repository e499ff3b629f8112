package sqlexec

import (
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Assignment to array elements and slices in PL/pgSQL (a[i] := x,
// a[i][j] := x, a[lo:hi] := arr): the variable's value with the element
// replaced, as UPDATE ... SET col[i] = x computes it (arrayAssign).

// elementTarget compiles the subscripts of an assignment whose target is
// subscripted; nil for any other expression.
func (fr *plFrame) elementTarget(b *binder, e *plExpr) (*arrayAssign, error) {
	if e.mode < 3 {
		return nil, nil
	}
	i := strings.Index(e.text, ":=")
	if i < 0 {
		i = strings.Index(e.text, "=")
	}
	target := strings.TrimSpace(e.text[:i])
	if !strings.Contains(target, "[") {
		return nil, nil
	}
	sts, err := parseStatements("SELECT " + target)
	if err != nil {
		return nil, bodyError(err)
	}
	ind := sts[0].node.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal().GetAIndirection()
	if ind == nil {
		return nil, pgerror.Unsupported("this assignment target in PL/pgSQL")
	}
	name := strings.ToLower(target[:strings.Index(target, "[")])
	k := fr.lookupDatum(e.scope, strings.TrimSpace(name))
	if k < 0 || fr.pl.datums[k].kind != 'v' {
		return nil, pgerror.Unsupported("assignment to a subscripted field of a record in PL/pgSQL")
	}
	if fr.pl.datums[k].isConst {
		return nil, pgerror.Newf(pgerror.ErrorInAssignment, "variable \"%s\" is declared CONSTANT", fr.pl.datums[k].name)
	}
	col := &columnDesc{name: fr.pl.datums[k].name, typ: fr.typs[k]}
	return b.bindArrayAssign(nil, col, ind.Indirection, -1)
}

// assignElement stores v of type from at a's subscripts of datum k.
func (fr *plFrame) assignElement(k int, a *arrayAssign, v any, from types.Type) error {
	cv, err := fr.cast(v, from, a.valType)
	if err != nil {
		return err
	}
	if fr.scalarCtx == nil {
		fr.scalarCtx = fr.execCtx()
	}
	next, err := a.apply(fr.scalarCtx, fr.vals[k], cv)
	if err != nil {
		return err
	}
	// A variable of a domain over an array checks the whole new array, as
	// PostgreSQL does after an element assignment.
	if d := fr.pl.datums[k]; d.domain != nil {
		if err := d.domain(fr.x, next); err != nil {
			return err
		}
	}
	fr.vals[k] = next
	return nil
}
