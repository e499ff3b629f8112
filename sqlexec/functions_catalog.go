package sqlexec

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The OIDs of the languages user routines are written in (pg_language).
const (
	oidLangSQL     = 14
	oidLangPlpgsql = 13563
)

// userProcRows are the pg_proc rows of the user routines of c, in the
// columns of the built-in rows (pgcatalog_builtin.go).
func userProcRows(c *catalog) [][]any {
	var out [][]any
	for _, sc := range c.schemas {
		for _, overloads := range sc.funcs {
			for _, f := range overloads {
				out = append(out, f.procRow(sc.oid))
			}
		}
	}
	return out
}

func (f *funcDesc) procRow(namespace uint32) []any {
	lang := int64(oidLangSQL)
	if f.lang == "plpgsql" {
		lang = oidLangPlpgsql
	}
	rows := 0.0
	if f.retSet {
		rows = 1000
	}
	in := make([]string, len(f.in))
	for i, t := range f.in {
		in[i] = strconv.Itoa(int(t.Oid))
	}
	var allTypes, modes, names any
	hasNames := false
	all := make([]string, len(f.params))
	ms := make([]string, len(f.params))
	ns := make([]string, len(f.params))
	for i, p := range f.params {
		all[i], ms[i], ns[i] = strconv.Itoa(int(p.typ.Oid)), string(p.mode), quoteArrayElem(p.name)
		hasNames = hasNames || p.name != ""
	}
	if len(f.outCols) > 0 || len(f.in) != len(f.params) {
		allTypes = parseCatalogText(arrayType(types.OidType), "{"+strings.Join(all, ",")+"}")
		modes = parseCatalogText(arrayType(types.Char), "{"+strings.Join(ms, ",")+"}")
	}
	if hasNames {
		names = parseCatalogText(arrayType(types.Text), "{"+strings.Join(ns, ",")+"}")
	}
	var src any = f.src
	return []any{int64(f.oid), f.name, int64(namespace), int64(oidBootstrapSuperuser), lang,
		100.0, rows, int64(0), int64(0), string(f.kind),
		f.secDef, false, f.strict, f.retSet, string(f.volatility), "u",
		int64(len(f.in)), int64(f.nDefaults), int64(f.result.Oid), parseCatalogText(types.OidVector, strings.Join(in, " ")),
		allTypes, modes, names, nil,
		nil, src, nil, nil, nil,
		nil}
}

// quoteArrayElem quotes an array element's text where array input needs it.
func quoteArrayElem(s string) string {
	if s != "" && !strings.ContainsAny(s, `{},"\ `) && !strings.EqualFold(s, "null") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// parseCatalogText reads a catalog value from its text form, which fickle
// itself made.
func parseCatalogText(t types.Type, text string) any {
	v, err := types.ParseText(t, text)
	if err != nil {
		panic("catalog value " + text + ": " + err.Error())
	}
	return v
}

// arrayType is the array type of a built-in element type.
func arrayType(elem types.Type) types.Type {
	t, ok := types.ArrayOf(elem)
	if !ok {
		panic("no array type of " + elem.String())
	}
	return t
}
