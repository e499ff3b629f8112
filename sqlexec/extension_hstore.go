package sqlexec

import (
	"slices"

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
// type of hstore(record) and populate_record), or on PostgreSQL's storage
// layout (hstore_hash), refuse with 0A000.

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
	return d.addExtensionFuncs(schema, ext, "hstore", hstoreFuncs(t.typ()))
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
		refused("hstore_hash", "hstore_hash", "hstore_hash(), which hashes PostgreSQL's storage format,", types.Int4, in(ht)),
		refused("hstore_hash_extended", "hstore_hash_extended", "hstore_hash_extended(), which hashes PostgreSQL's storage format,", types.Int8, in(ht, types.Int8)),
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

// hstoreOpclass checks the operator class an index key of type hstore
// names under method: the extension's class for the method.
func hstoreOpclass(name, method string) (string, error) {
	want, ok := hstoreOpclasses[method]
	switch {
	case !ok:
		return "", pgerror.Newf(pgerror.UndefinedObject, "data type hstore has no default operator class for access method \"%s\"", method).
			WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
	case name != want:
		return "", pgerror.Unsupported("operator class \"" + name + "\" for a key of type hstore")
	}
	return name, nil
}

// hstoreOutOfPath refuses a call of hstore's operators (one declared over
// the argument types declared) when the extension's schema is not on the
// session's search_path: PostgreSQL then does not see them.
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
