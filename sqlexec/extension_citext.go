package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// citext 1.6: CREATE EXTENSION citext creates the type citext and its
// array type in the extension's schema (package types implements them:
// types/citext.go); DROP EXTENSION drops them, refusing (2BP01) while a
// column, a domain, a composite type or a routine uses them.

func init() {
	registerExtension(&availableExtension{name: "citext", version: "1.6", library: "citext", relocatable: true,
		comment: "data type for case-insensitive character strings", createTypes: createCitextType})
}

// createCitextType creates ext's type citext in schema.
func createCitextType(d *ddl, schema string, ext *extensionDesc) error {
	if d.cat.schemas[schema].types["citext"] != nil || d.relationExists(schema, "citext") {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"citext\" already exists")
	}
	t := &typeDesc{oid: newCompositeOID(), array: newCompositeOID(), schema: schema, name: "citext", citext: true,
		extension: ext.oid, owner: d.s.currentRole()}
	types.RegisterCitext(types.Oid(t.oid), types.Oid(t.array), t.name)
	d.cat.schemas[schema].types[t.name] = t
	return nil
}

// extensionTypes lists ext's types.
func (d *ddl) extensionTypes(ext *extensionDesc) []*typeDesc {
	var out []*typeDesc
	for _, t := range d.cat.schemas[ext.schema].types {
		if t.extension == ext.oid {
			out = append(out, t)
		}
	}
	return out
}

// dropExtensionTypes drops ext's types, or names (as the lines of 2BP01's
// detail) what uses them. CASCADE, which would drop those objects, is
// refused.
func (d *ddl) dropExtensionTypes(ext *extensionDesc, cascade bool) ([]string, error) {
	ts := d.extensionTypes(ext)
	var details []string
	for _, t := range ts {
		for _, tab := range sortedTables(d.cat) {
			for _, col := range tab.cols {
				switch {
				case col.domain == 0 && uint32(col.typ.Oid) == t.oid:
					details = append(details, "column "+col.name+" of table "+tab.name+" depends on type "+t.name)
				case col.domain == 0 && uint32(col.typ.Oid) == t.array:
					details = append(details, "column "+col.name+" of table "+tab.name+" depends on type "+t.name+"[]")
				}
			}
		}
		if len(details) == 0 {
			if dep := d.cat.typeDependent(t, nil); dep != "" {
				details = append(details, dep+" depends on type "+t.name)
			}
		}
	}
	if len(details) > 0 {
		if cascade {
			return nil, pgerror.Unsupported("DROP EXTENSION citext ... CASCADE while objects use its type")
		}
		slices.Reverse(details)
		return details, nil
	}
	for _, t := range ts {
		delete(d.cat.schemas[t.schema].types, t.name)
		d.cat.dropComments(t.oid)
		d.cat.dropComments(t.array)
	}
	return nil, nil
}

// citextSetFunc is fn, regexp_matches or regexp_split_to_table, as a call
// with args resolves it where citext is among the arguments' types: the
// built-in function, or the extension's overload over (citext, citext [,
// text]), which calls it with the flags 'i' added unless they say 'c'.
func citextSetFunc(name string, fn *setFunc, args []*scalar) (*setFunc, error) {
	var ct types.Type
	inputs := make([]types.Type, len(args))
	for i, a := range args {
		inputs[i] = a.typ
		if a.typ.IsCitext() {
			ct = a.typ
		}
	}
	if ct.Oid == 0 {
		return fn, nil
	}
	text := types.Text
	overloads := [][]types.Type{{text, text}, {text, text, text}, {ct, ct}, {ct, ct, text}}
	chosen, err := types.ChooseOverload(name, inputs, overloads)
	if err != nil {
		return nil, err
	}
	if chosen < 2 {
		return fn, nil
	}
	rows := fn.rows
	withFlags := *fn
	withFlags.rows = func(x *execCtx, vals []any) ([][]any, error) { return rows(x, types.CitextRegexArgs(vals)) }
	return &withFlags, nil
}
