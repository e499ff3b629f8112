package sqlexec

import (
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// hstore 1.8: CREATE EXTENSION hstore creates the type hstore and its
// array type in the extension's schema (package types implements them,
// its operators and casts: types/hstore.go), and the script's functions
// over it as routines of language C of the extension, whose symbols name
// the Go implementations below. DROP EXTENSION drops them, refusing
// (2BP01) while a column, a domain, a composite type or a routine uses the
// type, as citext's does (extension_citext.go). The functions whose
// result depends on what fickle does not pass a C function (the record
// type of hstore(record) and populate_record) are bound to each call's
// types (boundExtensionCall).

func init() {
	registerExtension(&availableExtension{name: "hstore", version: "1.8", library: "hstore", relocatable: true,
		comment: "data type for storing sets of (key, value) pairs", createTypes: createHstoreType,
		otherVersions: []string{"1.4", "1.5", "1.6", "1.7"}})
	for _, f := range hstoreFuncs(types.Type{}) {
		extensionSymbols["hstore:"+f.symbol] = extensionRows(f)
	}
}

// extensionRows is f's implementation as its symbol runs it: its rows.
func extensionRows(f extensionFunc) func(x *execCtx, args []any) ([][]any, error) {
	if f.evalRows != nil {
		return f.evalRows
	}
	return func(x *execCtx, args []any) ([][]any, error) {
		v, err := f.eval(x, args)
		if err != nil {
			return nil, err
		}
		return [][]any{{v}}, nil
	}
}

// createHstoreType creates ext's type hstore in schema, and the
// functions over it.
func createHstoreType(d *ddl, schema string, ext *extensionDesc) error {
	if d.cat.schemas[schema].types["hstore"] != nil || d.relationExists(schema, "hstore") {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"hstore\" already exists")
	}
	t := &typeDesc{oid: newCompositeOID(), array: newCompositeOID(), schema: schema, name: "hstore", hstore: true,
		extension: ext.oid, owner: d.s.currentRole()}
	types.RegisterHstore(types.Oid(t.oid), types.Oid(t.array), t.name)
	d.cat.schemas[schema].types[t.name] = t
	return d.addExtensionFuncs(schema, ext, availableExtensions["hstore"], hstoreFuncs(t.typ()))
}

// hstoreFuncs are the functions hstore's script creates, over hstore
// type ht.
func hstoreFuncs(ht types.Type) []extensionFunc {
	text, boolean := types.Text, types.Bool
	record, anyElement := types.Type{Oid: types.OidRecord, Typmod: -1}, types.Type{Oid: types.OidAnyElement, Typmod: -1}
	textArray, _ := types.ArrayOf(types.Text)
	in := func(ts ...types.Type) []funcParam {
		ps := make([]funcParam, len(ts))
		for i, t := range ts {
			ps[i] = funcParam{typ: t, mode: 'i', arg: true}
		}
		return ps
	}
	hs := func(v any) types.Hstore { return v.(types.Hstore) }
	fn := func(name, symbol string, result types.Type, params []funcParam, eval func(a []any) (any, error)) extensionFunc {
		return extensionFunc{name: name, params: params, result: result, volatility: 'i', symbol: symbol,
			eval: func(_ *execCtx, a []any) (any, error) { return eval(a) }}
	}
	nonStrict := func(f extensionFunc) extensionFunc { f.nonStrict = true; return f }
	refused := func(name, symbol, what string, result types.Type, params []funcParam) extensionFunc {
		return fn(name, symbol, result, params, func([]any) (any, error) { return nil, pgerror.Unsupported(what) })
	}
	fetch := func(a []any) (any, error) { return types.HstoreFetch(hs(a[0]), a[1].(string)), nil }
	exists := func(a []any) (any, error) { return types.HstoreExists(hs(a[0]), a[1].(string)), nil }
	defined := func(a []any) (any, error) { return types.HstoreDefined(hs(a[0]), a[1].(string)), nil }
	contains := func(a []any) (any, error) { return types.HstoreContains(hs(a[0]), hs(a[1])), nil }
	contained := func(a []any) (any, error) { return types.HstoreContains(hs(a[1]), hs(a[0])), nil }
	fromText := func(a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		return types.HstoreFromText(a[0].(string), a[1])
	}
	cmp := func(test func(int) bool) func(a []any) (any, error) {
		return func(a []any) (any, error) {
			return test(types.CompareHstore(hs(a[0]), hs(a[1]))), nil
		}
	}
	// hash_any over the stored image, which hashtext computes over a
	// text's bytes.
	hashText, hashTextExtended := builtinFunc("hashtext", types.Text), builtinFunc("hashtextextended", types.Text, types.Int8)
	rows := func(name, symbol string, result types.Type, params []funcParam, each func(h types.Hstore) [][]any) extensionFunc {
		return extensionFunc{name: name, params: params, result: result, retSet: true, volatility: 'i', symbol: symbol,
			evalRows: func(_ *execCtx, a []any) ([][]any, error) { return each(hs(a[0])), nil }}
	}
	return []extensionFunc{
		refused("hstore_version_diag", "hstore_version_diag", "hstore_version_diag(), which reads PostgreSQL's storage format,", types.Int4, in(ht)),
		fn("fetchval", "hstore_fetchval", text, in(ht, text), fetch),
		fn("slice_array", "hstore_slice_to_array", textArray, in(ht, textArray), func(a []any) (any, error) {
			return types.HstoreSliceArray(hs(a[0]), a[1]), nil
		}),
		fn("slice", "hstore_slice_to_hstore", ht, in(ht, textArray), func(a []any) (any, error) {
			return types.HstoreSlice(hs(a[0]), a[1]), nil
		}),
		fn("isexists", "hstore_exists", boolean, in(ht, text), exists),
		fn("exist", "hstore_exists", boolean, in(ht, text), exists),
		fn("exists_any", "hstore_exists_any", boolean, in(ht, textArray), func(a []any) (any, error) {
			return types.HstoreExistsAny(hs(a[0]), a[1]), nil
		}),
		fn("exists_all", "hstore_exists_all", boolean, in(ht, textArray), func(a []any) (any, error) {
			return types.HstoreExistsAll(hs(a[0]), a[1]), nil
		}),
		fn("isdefined", "hstore_defined", boolean, in(ht, text), defined),
		fn("defined", "hstore_defined", boolean, in(ht, text), defined),
		fn("delete", "hstore_delete", ht, in(ht, text), func(a []any) (any, error) {
			return types.HstoreDelete(hs(a[0]), a[1].(string)), nil
		}),
		fn("delete", "hstore_delete_array", ht, in(ht, textArray), func(a []any) (any, error) {
			return types.HstoreDeleteKeys(hs(a[0]), a[1]), nil
		}),
		fn("delete", "hstore_delete_hstore", ht, in(ht, ht), func(a []any) (any, error) {
			return types.HstoreDeletePairs(hs(a[0]), hs(a[1])), nil
		}),
		fn("hs_concat", "hstore_concat", ht, in(ht, ht), func(a []any) (any, error) {
			return types.HstoreConcat(hs(a[0]), hs(a[1])), nil
		}),
		fn("hs_contains", "hstore_contains", boolean, in(ht, ht), contains),
		fn("hs_contained", "hstore_contained", boolean, in(ht, ht), contained),
		nonStrict(fn("tconvert", "hstore_from_text", ht, in(text, text), fromText)),
		nonStrict(fn("hstore", "hstore_from_text", ht, in(text, text), fromText)),
		nonStrict(fn("hstore", "hstore_from_arrays", ht, in(textArray, textArray), func(a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			return types.HstoreFromArrays(a[0], a[1])
		})),
		fn("hstore", "hstore_from_array", ht, in(textArray), func(a []any) (any, error) { return types.HstoreFromArray(a[0]) }),
		fn("hstore_to_json", "hstore_to_json", types.JSON, in(ht), func(a []any) (any, error) {
			return types.HstoreToJSON(hs(a[0]), false), nil
		}),
		fn("hstore_to_json_loose", "hstore_to_json_loose", types.JSON, in(ht), func(a []any) (any, error) {
			return types.HstoreToJSON(hs(a[0]), true), nil
		}),
		fn("hstore_to_jsonb", "hstore_to_jsonb", types.JSONB, in(ht), func(a []any) (any, error) {
			return types.HstoreToJSONB(hs(a[0]), false)
		}),
		fn("hstore_to_jsonb_loose", "hstore_to_jsonb_loose", types.JSONB, in(ht), func(a []any) (any, error) {
			return types.HstoreToJSONB(hs(a[0]), true)
		}),
		nonStrict(refused("hstore", "hstore_from_record", "hstore(record)", ht, in(record))),
		fn("hstore_to_array", "hstore_to_array", textArray, in(ht), func(a []any) (any, error) {
			return types.HstoreToArray(hs(a[0])), nil
		}),
		fn("hstore_to_matrix", "hstore_to_matrix", textArray, in(ht), func(a []any) (any, error) {
			return types.HstoreToMatrix(hs(a[0])), nil
		}),
		fn("akeys", "hstore_akeys", textArray, in(ht), func(a []any) (any, error) { return types.HstoreKeys(hs(a[0])), nil }),
		fn("avals", "hstore_avals", textArray, in(ht), func(a []any) (any, error) { return types.HstoreValues(hs(a[0])), nil }),
		rows("skeys", "hstore_skeys", text, in(ht), func(h types.Hstore) [][]any {
			out := make([][]any, len(h))
			for i, p := range h {
				out[i] = []any{p.Key}
			}
			return out
		}),
		rows("svals", "hstore_svals", text, in(ht), func(h types.Hstore) [][]any {
			out := make([][]any, len(h))
			for i, v := range types.HstoreValues(h) {
				out[i] = []any{v}
			}
			return out
		}),
		rows("each", "hstore_each", record, []funcParam{{name: "hs", typ: ht, mode: 'i', arg: true},
			{name: "key", typ: text, mode: 'o'}, {name: "value", typ: text, mode: 'o'}}, func(h types.Hstore) [][]any {
			out := make([][]any, len(h))
			for i, p := range h {
				var v any
				if !p.Null {
					v = p.Value
				}
				out[i] = []any{p.Key, v}
			}
			return out
		}),
		nonStrict(refused("populate_record", "hstore_populate_record", "populate_record(anyelement, hstore)", anyElement, in(anyElement, ht))),
		fn("hstore_eq", "hstore_eq", boolean, in(ht, ht), cmp(func(c int) bool { return c == 0 })),
		fn("hstore_ne", "hstore_ne", boolean, in(ht, ht), cmp(func(c int) bool { return c != 0 })),
		fn("hstore_gt", "hstore_gt", boolean, in(ht, ht), cmp(func(c int) bool { return c > 0 })),
		fn("hstore_ge", "hstore_ge", boolean, in(ht, ht), cmp(func(c int) bool { return c >= 0 })),
		fn("hstore_lt", "hstore_lt", boolean, in(ht, ht), cmp(func(c int) bool { return c < 0 })),
		fn("hstore_le", "hstore_le", boolean, in(ht, ht), cmp(func(c int) bool { return c <= 0 })),
		fn("hstore_cmp", "hstore_cmp", types.Int4, in(ht, ht), func(a []any) (any, error) {
			return int64(types.CompareHstore(hs(a[0]), hs(a[1]))), nil
		}),
		fn("hstore_hash", "hstore_hash", types.Int4, in(ht), func(a []any) (any, error) {
			return hashText(nil, []any{string(types.HstoreImage(hs(a[0])))})
		}),
		fn("hstore_hash_extended", "hstore_hash_extended", types.Int8, in(ht, types.Int8), func(a []any) (any, error) {
			return hashTextExtended(nil, []any{string(types.HstoreImage(hs(a[0]))), a[1]})
		}),
	}
}

// The pg_type columns hstore's row sets beside typColOID and its kin.
const typColCategory, typColCollation = 7, 28

// hstoreTypeRow is hstore's pg_type row, made from text's (a varlena of
// alignment i, storage x, as hstore is): category U, no collation, and
// text's I/O functions, since fickle's pg_proc has no hstore_in (whose
// argument is a cstring) nor subscript handler.
func hstoreTypeRow(t *typeDesc, text []any) []any {
	if text == nil {
		return nil
	}
	row := slices.Clone(text)
	row[typColOID], row[typColName] = int64(t.oid), t.name
	row[typColPreferred], row[typColArray] = false, int64(t.array)
	row[typColCategory], row[typColCollation] = "U", int64(0)
	return row
}

// hstoreOpclasses are hstore's operator classes, each its access
// method's default for the type: btree and hash order and compare values
// as hstore_cmp does (types.AppendKey), gin and gist are accepted in
// CREATE INDEX and answer as a scan of the table would.
var hstoreOpclasses = map[string]string{"btree": "btree_hstore_ops", "hash": "hash_hstore_ops", "gin": "gin_hstore_ops", "gist": "gist_hstore_ops"}

func init() {
	// ghstore_options: gist_hstore_ops's signature length, which fickle
	// keeps no signatures for.
	opclassRelOpts[[2]string{"gist", "gist_hstore_ops"}] = map[string]relOpt{"siglen": {kind: relOptInt, min: 1, max: 2024}}
}

// hstoreOpclass checks the operator class an index key of type hstore
// names under method: the extension's class for the method; another of
// its classes does not exist for the method, and a built-in class gives
// its own error (it does not accept hstore).
func hstoreOpclass(names []string, method string, typ types.Type) (string, error) {
	name := names[len(names)-1]
	if want, ok := hstoreOpclasses[method]; ok && name == want {
		return name, nil
	}
	for _, oc := range hstoreOpclasses {
		if oc == name {
			return "", pgerror.Newf(pgerror.UndefinedObject, "operator class \"%s\" does not exist for access method \"%s\"", name, method)
		}
	}
	if _, _, err := indexOpclass(strings.Join(names, "."), name, method, typ); err != nil {
		return "", err
	}
	return "", pgerror.Unsupported("operator class \"" + name + "\" for a key of type hstore")
}

// hstoreOperatorOutOfPath refuses hstore's operator op over (l, r), the
// operand types it is declared with, when the extension's schema is not
// on the session's search_path: PostgreSQL then does not see it, and
// finds another operator through a cast, or none. Built-in operators
// and functions over hstore values, and its casts, need no search_path.
func (b *binder) hstoreOperatorOutOfPath(op string, l, r types.Type) *pgerror.Error {
	if !types.IsHstoreOperator(op, l, r) {
		return nil
	}
	return b.hstoreOutOfPath(l, r)
}

// hstoreOutOfPath refuses a use of hstore's operators over the types
// declared when the extension's schema is not on the session's
// search_path: PostgreSQL then does not see them. Its subscripts, which
// belong to the type, need no search_path.
func (b *binder) hstoreOutOfPath(declared ...types.Type) *pgerror.Error {
	for _, t := range declared {
		if !t.IsHstore() {
			continue
		}
		td := b.catalogNow().typeByOid(uint32(t.Oid))
		if td == nil || slices.Contains(b.s.searchPath(), td.schema) {
			continue
		}
		return pgerror.Unsupported("the hstore extension's operators of schema \"" + td.schema + "\", which is not on search_path,")
	}
	return nil
}

// hstoreSubscript compiles h[key] (hstore_subscript_handler's fetch): the
// key's value as text, NULL for an absent key, a NULL value or a NULL
// key. One subscript only, no slice, as hstore_subscript_transform
// allows; the key is coerced to text as an assignment would.
func (b *binder) hstoreSubscript(sc *scope, arg *scalar, list []*pg_query.Node) (*scalar, error) {
	key, err := b.hstoreSubscriptKey(sc, list)
	if err != nil {
		return nil, err
	}
	inner, keyEval := arg.eval, key.eval
	return &scalar{typ: types.Text, slot: -1, refs: arg.refs | key.refs, volatile: arg.volatile || key.volatile, name: arg.name,
		eval: func(x *execCtx) (any, error) {
			v, err := inner(x)
			if err != nil || v == nil {
				return nil, err
			}
			k, err := keyEval(x)
			if err != nil || k == nil {
				return nil, err
			}
			return types.HstoreFetch(v.(types.Hstore), k.(string)), nil
		}}, nil
}

// hstoreRecordFuncs are the symbols of hstore's functions over a record,
// which boundExtensionCall binds to the record type of each call:
// hstore_from_record (hstore(record)) and hstore_populate_record
// (populate_record(anyelement, hstore)).
var hstoreRecordFuncs = map[string]bool{"hstore:hstore_from_record": true, "hstore:hstore_populate_record": true}

// boundExtensionCall is f, a C function, as a call with args runs it:
// hstore's functions over a record get the record's type; other
// functions are f.
func (b *binder) boundExtensionCall(f *funcDesc, args []*scalar) (*funcDesc, error) {
	if !hstoreRecordFuncs[f.library+":"+f.src] || len(args) == 0 {
		return f, nil
	}
	rt := args[0].typ
	fields, ok := rt.Fields()
	if !ok {
		if f.src == "hstore_populate_record" {
			return nil, pgerror.New(pgerror.DatatypeMismatch, "first argument must be a rowtype")
		}
		return nil, pgerror.Unsupported("hstore(record) of a record whose type is not known when the statement is bound")
	}
	bound := *f
	if f.src == "hstore_from_record" {
		bound.bound = func(x *execCtx, a []any) ([][]any, error) {
			h, err := hstoreFromRecord(x, fields, a[0])
			return [][]any{{h}}, err
		}
		return &bound, nil
	}
	checks, err := compositeFieldChecks(b, rt)
	if err != nil {
		return nil, err
	}
	bound.bound = func(x *execCtx, a []any) ([][]any, error) {
		v, err := hstorePopulate(x, fields, checks, a[0], a[1])
		return [][]any{bound.resultRow(v)}, err
	}
	return &bound, nil
}

// hstoreFromRecord is hstore(record): each field's name and text, NULL
// for a NULL field (every field of a NULL record).
func hstoreFromRecord(x *execCtx, fields []types.Field, rec any) (types.Hstore, error) {
	r, _ := rec.([]any)
	keys, values := make([]any, len(fields)), make([]any, len(fields))
	for i, f := range fields {
		keys[i] = f.Name
		if i < len(r) && r[i] != nil {
			values[i] = types.FormatTextEnv(x.env, f.Type, r[i])
		}
	}
	return types.HstoreFromArrays(keys, values)
}

// hstorePopulate is populate_record(rec, h) over a record of fields: the
// record with each field h has a key for set from the key's value, read
// by the field's input function (NULL for a NULL value); a NULL record is
// one of NULL fields, each of which h does not set is read as a NULL. The
// fields' domains (checks) check what is read, NULLs included.
func hstorePopulate(x *execCtx, fields []types.Field, checks []domainCheck, rec, hv any) (any, error) {
	if hv == nil {
		return rec, nil
	}
	h := hv.(types.Hstore)
	r, _ := rec.([]any)
	if len(h) == 0 && rec != nil {
		return rec, nil
	}
	out := make([]any, len(fields))
	copy(out, r)
	for i, f := range fields {
		v, present := types.HstoreLookup(h, f.Name)
		if !present && rec != nil {
			continue
		}
		out[i] = nil
		if v != nil {
			pv, err := types.ParseTextEnv(x.env, f.Type, v.(string))
			if err != nil {
				return nil, err
			}
			out[i] = pv
		}
		if i < len(checks) && checks[i] != nil {
			if err := checks[i](x, out[i]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// hstorePopulateOperator compiles rec #= h, populate_record(rec, h) as an
// operator; an untyped h is an hstore of the extension on search_path,
// #= being its only operator of the name.
func (b *binder) hstorePopulateOperator(l, r *scalar, loc int32) (*scalar, error) {
	if r.typ.Oid == types.OidUnknown {
		ht, ok := b.visibleHstore()
		if !ok {
			_, err := types.ResolveBinaryOp("#=", l.typ, r.typ)
			return nil, b.withPos(err, loc)
		}
		var err error
		if r, err = b.coerce(r, ht, types.CastImplicit); err != nil {
			return nil, err
		}
	}
	if err := b.hstoreOutOfPath(r.typ); err != nil {
		return nil, b.errAt(err, loc)
	}
	fields, ok := l.typ.Fields()
	if !ok {
		if unresolved(l) || !l.typ.IsPolymorphic() && l.typ.Oid != types.OidRecord {
			return nil, b.errAt(pgerror.New(pgerror.DatatypeMismatch, "first argument must be a rowtype"), loc)
		}
		return nil, b.errAt(pgerror.Unsupported("#= over a record whose type is not known when the statement is bound"), loc)
	}
	if unresolved(r) {
		b.fix(r, r.typ)
	}
	if err := b.readLiteralOperand(r, r.typ); err != nil {
		return nil, err
	}
	checks, err := compositeFieldChecks(b, l.typ)
	if err != nil {
		return nil, err
	}
	le, re := l.eval, r.eval
	return &scalar{typ: l.typ, slot: -1, refs: l.refs | r.refs, volatile: l.volatile || r.volatile, name: "?column?",
		eval: func(x *execCtx) (any, error) {
			lv, err := le(x)
			if err != nil {
				return nil, err
			}
			rv, err := re(x)
			if err != nil {
				return nil, err
			}
			return hstorePopulate(x, fields, checks, lv, rv)
		}}, nil
}

// hstorePrefixOperand is the operand of a prefix operator op: an untyped
// literal under %% or %#, hstore's only operators of the names, is an
// hstore of the extension on search_path, as func_select_candidate
// takes it; any other operand is arg.
func (b *binder) hstorePrefixOperand(op string, arg *scalar) (*scalar, error) {
	if op != "%%" && op != "%#" || !unresolved(arg) && arg.typ.Oid != types.OidUnknown {
		return arg, nil
	}
	if ht, ok := b.visibleHstore(); ok {
		return b.coerce(arg, ht, types.CastImplicit)
	}
	return arg, nil
}

// visibleHstore is the hstore type of the extension on the session's
// search_path; ok is false when it is not installed there.
func (b *binder) visibleHstore() (types.Type, bool) {
	cat := b.catalogNow()
	for _, schema := range b.s.searchPath() {
		if sc := cat.schemas[schema]; sc != nil {
			if t := sc.types["hstore"]; t != nil && t.hstore {
				return t.typ(), true
			}
		}
	}
	return types.Type{}, false
}

// bindHstoreAssign compiles the subscript of an assignment to col[key]
// of an hstore column or variable (UPDATE ... SET, INSERT INTO t
// (col[key]), PL/pgSQL's h[key] :=): one subscript, coerced to text as
// hstore_subscript_transform does; the value assigned is text.
func (b *binder) bindHstoreAssign(sc *scope, col *columnDesc, ind []*pg_query.Node, loc int32) (*arrayAssign, error) {
	key, err := b.hstoreSubscriptKey(sc, ind)
	if err != nil {
		return nil, err
	}
	return &arrayAssign{col: col, valType: types.Text, loc: loc, hstoreKey: key}, nil
}

// hstoreSubscriptKey binds the one subscript of an hstore value, its key,
// coerced to text as hstore_subscript_transform does.
func (b *binder) hstoreSubscriptKey(sc *scope, list []*pg_query.Node) (*scalar, error) {
	var idx *pg_query.A_Indices
	if len(list) == 1 {
		idx = list[0].GetAIndices()
	}
	if idx == nil || idx.IsSlice || idx.Uidx == nil {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "hstore allows only one subscript")
	}
	key, err := b.expr(sc, idx.Uidx)
	if err != nil {
		return nil, err
	}
	if key, err = b.coerce(key, types.Text, types.CastAssignment); err != nil {
		if pgerror.GetCode(err) == pgerror.CannotCoerce {
			return nil, pgerror.New(pgerror.DatatypeMismatch, "hstore subscript must have type text")
		}
		return nil, err
	}
	return key, nil
}

// hstoreAssign is hstore_subscript_assign: cur with key set to v, as ||
// sets it; a NULL cur becomes the one pair. The key must not be NULL.
func hstoreAssign(x *execCtx, key *scalar, cur, v any) (any, error) {
	k, err := key.eval(x)
	if err != nil {
		return nil, err
	}
	if k == nil {
		return nil, pgerror.New(pgerror.NullValueNotAllowed, "hstore subscript in assignment must not be null")
	}
	pair, err := types.HstoreFromText(k.(string), v)
	if err != nil {
		return nil, err
	}
	h, _ := cur.(types.Hstore)
	return types.HstoreConcat(h, pair), nil
}

// builtinFunc is the built-in function name over args, resolved the first
// time it is called.
func builtinFunc(name string, args ...types.Type) func(env *types.Env, a []any) (any, error) {
	var once sync.Once
	var fn *types.Func
	var err error
	return func(env *types.Env, a []any) (any, error) {
		once.Do(func() { fn, err = types.ResolveFunc(name, args) })
		if err != nil {
			return nil, err
		}
		return fn.Eval(env, a)
	}
}

// coercionCall reports whether fc, typename('literal'), is a cast
// whatever functions share the type's name (hstore's hstore()): none
// takes an untyped literal exactly, and func_get_detail tries the cast
// before the others, for any type but a composite one (FuncNameAsType).
func (b *binder) coercionCall(fc *pg_query.FuncCall) bool {
	tc := b.functionStyleCast(fc)
	if tc == nil {
		return false
	}
	t, err := b.typeName(tc.TypeName)
	return err == nil && !t.IsComposite()
}

// hstoreParamType is the type of a parameter a client declares with OID
// o (PREPARE's, or Parse's parameter OIDs) when o is the hstore type of
// the catalog, or its array type.
func hstoreParamType(cat *catalog, o uint32) (types.Type, bool) {
	t, _ := cat.typeByOidOrArray(o)
	if t == nil || !t.hstore {
		return types.Type{}, false
	}
	return types.Type{Oid: types.Oid(o), Typmod: -1}, true
}
