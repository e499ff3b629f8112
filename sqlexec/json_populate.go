package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The functions that turn JSON objects into records: json(b)_populate_record
// and json(b)_populate_recordset, whose first argument gives the record type
// (a NULL of a composite type, or a row) and the values of the fields the
// object lacks, and json(b)_to_record(set), whose record type comes from a
// column definition list in FROM. In FROM their fields are the item's
// columns; in a select list each call's value is the record.

// addPopulateFuncs adds the functions to setFuncs.
func addPopulateFuncs() {
	for _, isB := range []bool{false, true} {
		prefix, jt := "json", types.JSON
		if isB {
			prefix, jt = "jsonb", types.JSONB
		}
		for _, set := range []bool{false, true} {
			suffix := "record"
			if set {
				suffix = "recordset"
			}
			populate, to := prefix+"_populate_"+suffix, prefix+"_to_"+suffix
			setFuncs[populate] = &setFunc{schema: "pg_catalog", record: true,
				bind:       bindPopulate(populate, jt),
				recordRows: populateRows(populate, set, true)}
			setFuncs[to] = &setFunc{schema: "pg_catalog", record: true,
				bind:       bindToRecord(to, jt),
				recordRows: populateRows(to, set, false)}
		}
	}
}

// bindPopulate checks json(b)_populate_record(set)(base, json): base must
// be a row; the fields are its type's, nil for a record of unknown shape.
func bindPopulate(name string, jt types.Type) func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	return func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
		if len(args) != 2 {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
		}
		base := args[0]
		if base.null || unresolved(base) || base.typ.Oid == types.OidUnknown {
			return nil, b.errAt(pgerror.New(pgerror.DatatypeMismatch, "could not determine polymorphic type because input has type unknown"), loc)
		}
		if !base.typ.IsRecord() {
			return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "first argument of %s must be a row type", name), loc)
		}
		if err := coerceArgTo(b, args, 1, jt); err != nil {
			return nil, err
		}
		fields, _ := base.typ.Fields()
		return fields, nil
	}
}

// bindToRecord checks json(b)_to_record(set)(json); the fields come from
// the column definition list.
func bindToRecord(name string, jt types.Type) func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	return func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
		if len(args) != 1 {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
		}
		return nil, coerceArgTo(b, args, 0, jt)
	}
}

// coerceArgTo coerces args[k] to t implicitly.
func coerceArgTo(b *binder, args []*scalar, k int, t types.Type) error {
	e, err := b.coerce(args[k], t, types.CastImplicit)
	if err != nil {
		return err
	}
	args[k] = e
	return nil
}

// populateRows makes the rows of a call: the record, or one record per
// array element for the set forms. A NULL json argument gives the base
// record (NULL: a row of NULLs in FROM) or, for the set forms, no rows.
func populateRows(name string, set, hasBase bool) func(x *execCtx, shape types.Type, args []any) ([][]any, error) {
	return func(x *execCtx, shape types.Type, args []any) ([][]any, error) {
		var base []any
		js := args[0]
		if hasBase {
			base, _ = args[0].([]any)
			js = args[1]
		}
		if js == nil {
			if set {
				return nil, nil
			}
			return [][]any{base}, nil
		}
		if set {
			return types.PopulateRecordSet(x.env, shape, base, js.(string), name)
		}
		r, err := types.PopulateRecord(x.env, shape, base, js.(string))
		return [][]any{r}, err
	}
}

// applyColumnDefinitions gives a record-returning call in FROM the columns
// of its column definition list, which a record of unknown shape needs
// and a composite type forbids.
func (b *binder) applyColumnDefinitions(call *setCall, rf *pg_query.RangeFunction, loc int32) error {
	if len(rf.Coldeflist) == 0 {
		if call.cols == nil {
			return b.errAt(pgerror.New(pgerror.SyntaxError, "a column definition list is required for functions returning \"record\""), loc)
		}
		return nil
	}
	if call.shape.IsComposite() {
		return b.errAt(pgerror.New(pgerror.SyntaxError, "a column definition list is redundant for a function returning a named composite type"), loc)
	}
	defs, err := b.columnDefinitions(rf)
	if err != nil {
		return err
	}
	if call.cols != nil {
		same := len(call.cols) == len(defs)
		for i := 0; same && i < len(defs); i++ {
			same = call.cols[i].Type == defs[i].Type
		}
		if !same {
			return b.errAt(pgerror.New(pgerror.DatatypeMismatch, "function return row and query-specified return row do not match"), loc)
		}
	}
	call.cols = defs
	call.shape = types.RecordType(defs)
	return nil
}

// columnDefinitions reads the column definition list of a call in FROM.
func (b *binder) columnDefinitions(rf *pg_query.RangeFunction) ([]types.Field, error) {
	var defs []types.Field
	for _, n := range rf.Coldeflist {
		cd := n.GetColumnDef()
		if cd == nil {
			return nil, pgerror.Unsupported("this form of column definition list")
		}
		t, err := b.typeName(cd.TypeName)
		if err != nil {
			return nil, err
		}
		defs = append(defs, types.Field{Name: cd.Colname, Type: t})
	}
	return defs, nil
}

// fieldDomainChecks compiles the checks of the domains composite type t
// declares its fields with, one per field (nil for a field of no domain);
// nil when there are none.
func (b *binder) fieldDomainChecks(t *typeDesc) ([]domainCheck, error) {
	var fields []domainCheck
	for i, oid := range t.fieldDomains {
		dom := b.domainByOid(oid)
		if dom == nil {
			continue
		}
		if fields == nil {
			fields = make([]domainCheck, len(t.fieldDomains))
		}
		check, err := b.domainCheckFor(dom)
		if err != nil {
			return nil, err
		}
		fields[i] = check
	}
	return fields, nil
}

// recordDomainChecks compiles the checks of the domains a populated record
// must satisfy: the domain its base argument was cast to, and those its
// composite type declares fields with. nil when there are none.
func (b *binder) recordDomainChecks(call *setCall) (func(x *execCtx, row []any) error, error) {
	var whole domainCheck
	if len(call.args) > 0 && call.args[0].domain != nil {
		var err error
		if whole, err = b.domainCheckFor(call.args[0].domain); err != nil {
			return nil, err
		}
	}
	var fields []domainCheck
	if t := b.catalogNow().typeByOid(uint32(call.shape.Oid)); t != nil {
		var err error
		if fields, err = b.fieldDomainChecks(t); err != nil {
			return nil, err
		}
	}
	if whole == nil && fields == nil {
		return nil, nil
	}
	return func(x *execCtx, row []any) error {
		for i, check := range fields {
			if check == nil || row == nil {
				continue
			}
			if err := check(x, row[i]); err != nil {
				return err
			}
		}
		if whole != nil {
			var v any
			if row != nil {
				v = row
			}
			return whole(x, v)
		}
		return nil
	}, nil
}
