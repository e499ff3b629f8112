package sqlexec

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The OIDs of the languages user routines are written in (pg_language).
const (
	oidLangInternal = 12
	oidLangC        = 13
	oidLangSQL      = 14
	oidLangPlpgsql  = 13563
)

// userProcRows are the pg_proc rows of the user routines of c, in the
// columns of the built-in rows (pgcatalog_builtin.go).
func userProcRows(s *Session, c *catalog) [][]any {
	var out [][]any
	for _, sc := range c.schemas {
		for _, overloads := range sc.funcs {
			for _, f := range overloads {
				owner := uint32(oidBootstrapSuperuser)
				if r := s.roleNamed(f.owner); r != nil {
					owner = r.oid
				}
				out = append(out, f.procRow(sc.oid, owner, aclText(s, c, aclFunction, f.oid)))
			}
		}
	}
	return out
}

// procost is the function's pg_proc.procost: its COST, by default 1 for C
// and internal functions and 100 for others, as CREATE FUNCTION sets it.
func (f *funcDesc) procost() float64 {
	switch {
	case f.cost != 0:
		return f.cost
	case f.lang == "c" || f.lang == "internal":
		return 1
	}
	return 100
}

func (f *funcDesc) procRow(namespace, owner uint32, acl any) []any {
	lang := int64(oidLangSQL)
	var library any
	switch f.lang {
	case "plpgsql":
		lang = oidLangPlpgsql
	case "c":
		lang, library = oidLangC, "$libdir/"+f.library
	case "internal":
		lang = oidLangInternal
	}
	cost := f.procost()
	rows := 0.0
	if f.retSet {
		rows = 1000
	}
	if f.rows != 0 {
		rows = f.rows
	}
	var in []string
	for _, t := range f.inputTypes() {
		in = append(in, strconv.Itoa(int(t.Oid)))
	}
	variadic := int64(0)
	if ins := f.inParams(); len(ins) > 0 && ins[len(ins)-1].mode == 'v' {
		elem, ok := ins[len(ins)-1].typ.Elem()
		if !ok {
			elem, _ = types.PolymorphicElem(ins[len(ins)-1].typ) // anyarray's is anyelement
		}
		variadic = int64(elem.Oid)
	}
	var allTypes, modes, names any
	hasNames := false
	all := make([]string, len(f.params))
	ms := make([]string, len(f.params))
	ns := make([]string, len(f.params))
	for i, p := range f.params {
		all[i], ms[i], ns[i] = strconv.Itoa(int(p.dom.sigType(p.typ).Oid)), string(p.mode), quoteArrayElem(p.name)
		hasNames = hasNames || p.name != ""
	}
	if f.hasOutParams() || len(in) != len(f.params) || variadic != 0 {
		allTypes = parseCatalogText(arrayType(types.OidType), "{"+strings.Join(all, ",")+"}")
		modes = parseCatalogText(arrayType(types.Char), "{"+strings.Join(ms, ",")+"}")
	}
	if hasNames {
		names = parseCatalogText(arrayType(types.Text), "{"+strings.Join(ns, ",")+"}")
	}
	var defaults any
	if f.nDefaults > 0 {
		var ds []string
		for _, p := range f.params {
			if p.isIn() && p.def != nil {
				ds = append(ds, storedCoercion(p.typ.Oid, deparseExpr(p.def)))
			}
		}
		defaults = listPrefix + strings.Join(ds, listSeparator)
	}
	var config any
	if len(f.config) > 0 {
		cs := make([]string, len(f.config))
		for i, c := range f.config {
			cs[i] = quoteArrayElem(c.displayName() + "=" + c.value)
		}
		config = parseCatalogText(arrayType(types.Text), "{"+strings.Join(cs, ",")+"}")
	}
	var src any = f.src
	parallel := "u"
	if f.lang == "c" {
		parallel = "s" // as the extensions' scripts declare their functions
	}
	if f.parallel != 0 {
		parallel = string(f.parallel)
	}
	return []any{int64(f.oid), f.name, int64(namespace), int64(owner), lang,
		cost, rows, variadic, int64(0), string(f.kind),
		f.secDef, f.leakproof, f.strict, f.retSet, string(f.volatility), parallel,
		int64(len(in)), int64(f.nDefaults), int64(f.resultDom.sigType(f.result).Oid), parseCatalogText(types.OidVector, strings.Join(in, " ")),
		allTypes, modes, names, defaults,
		nil, src, library, nil, config,
		acl}
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

// routineResult is pg_get_function_result of a routine: its RETURNS
// clause without the keyword (a built-in one's as PostgreSQL prints it);
// false when no routine has the OID.
func routineResult(c *catalog, oid uint32) (string, bool) {
	f := c.funcByOID(oid)
	if f == nil {
		if p := builtinIndex().procs[oid]; p != nil {
			return p.result, true
		}
		return "", false
	}
	var table []string
	for _, p := range f.params {
		if p.mode == 't' {
			table = append(table, types.QuoteIdent(p.name)+" "+p.dom.typeName(p.typ))
		}
	}
	switch {
	case f.kind == 'p':
		return "", false // a procedure has no result: NULL
	case len(table) > 0:
		return "TABLE(" + strings.Join(table, ", ") + ")", true
	case f.hasOutParams() && len(f.outCols) > 0:
		return setofPrefix(f) + "record", true
	}
	return setofPrefix(f) + f.resultDom.typeName(f.result), true
}

func setofPrefix(f *funcDesc) string {
	if f.retSet {
		return "SETOF "
	}
	return ""
}

// routineArguments is pg_get_function_arguments (withDefaults) or
// pg_get_function_identity_arguments of a routine, a built-in one's as
// PostgreSQL prints them.
func routineArguments(c *catalog, oid uint32, withDefaults bool) (string, bool) {
	f := c.funcByOID(oid)
	if f == nil {
		if p := builtinIndex().procs[oid]; p != nil {
			if withDefaults {
				return p.arguments, true
			}
			return p.identityArguments, true
		}
		return "", false
	}
	var out []string
	for _, p := range f.params {
		if p.mode == 't' {
			continue
		}
		mode := map[byte]string{'o': "OUT ", 'b': "INOUT ", 'v': "VARIADIC "}[p.mode]
		if f.kind == 'p' && p.mode == 'i' {
			mode = "IN "
		}
		arg := mode
		if p.name != "" {
			arg += types.QuoteIdent(p.name) + " "
		}
		arg += p.dom.typeName(p.typ)
		if _, known := types.TypeByOid(p.typ.Oid); !known && p.dom.oid == 0 && builtinIndex().types[uint32(p.typ.Oid)] != nil {
			// A pseudo-type an extension's function takes (internal).
			arg = mode + builtinIndex().types[uint32(p.typ.Oid)].name
		}
		if withDefaults && p.def != nil {
			arg += " DEFAULT " + p.defaultText()
		}
		out = append(out, arg)
	}
	return strings.Join(out, ", "), true
}

// defaultText is a parameter's default as pg_get_function_arg_default
// prints it.
func (p funcParam) defaultText() string {
	def := deparseExpr(p.def)
	if c := p.def.GetAConst(); c != nil && c.GetSval() != nil {
		// PostgreSQL stores the default coerced to the type.
		def += "::" + p.typ.String()
	}
	return def
}

// triggerDefinition is pg_get_triggerdef of a trigger; pretty (psql's
// \d) names the table without its schema when the search path finds it
// and puts the WHEN condition in one pair of parentheses.
func triggerDefinition(s *Session, c *catalog, oid uint32, pretty bool) (string, bool) {
	for _, t := range c.triggerRelations() {
		for _, tr := range t.triggers {
			if tr.oid != oid {
				continue
			}
			when := "AFTER"
			if tr.tgtype&tgBefore != 0 {
				when = "BEFORE"
			} else if tr.tgtype&tgInstead != 0 {
				when = "INSTEAD OF"
			}
			var events []string
			for _, e := range []struct {
				bit  int
				name string
			}{{tgInsert, "INSERT"}, {tgDelete, "DELETE"}, {tgUpdate, "UPDATE"}, {tgTruncate, "TRUNCATE"}} {
				if tr.tgtype&e.bit == 0 {
					continue
				}
				name := e.name
				if e.bit == tgUpdate && len(tr.cols) > 0 {
					cols := make([]string, len(tr.cols))
					for i, col := range tr.cols {
						cols[i] = types.QuoteIdent(t.cols[col].name)
					}
					name += " OF " + strings.Join(cols, ", ")
				}
				events = append(events, name)
			}
			level := "STATEMENT"
			if tr.tgtype&tgRow != 0 {
				level = "ROW"
			}
			table := types.QuoteIdent(t.schema) + "." + types.QuoteIdent(t.name)
			if pretty && (s.lookupTable(c, "", t.name) == t || s.lookupView(c, "", t.name).oidIs(t.oid)) {
				table = types.QuoteIdent(t.name)
			}
			kind, constraint := "TRIGGER", ""
			if tr.constraint {
				kind = "CONSTRAINT TRIGGER"
				if from := c.tables[tr.constrRel]; from != nil {
					constraint += "FROM " + types.QuoteIdent(from.schema) + "." + types.QuoteIdent(from.name) + " "
				}
				constraint += map[bool]string{true: "DEFERRABLE ", false: "NOT DEFERRABLE "}[tr.deferrable]
				constraint += map[bool]string{true: "INITIALLY DEFERRED ", false: "INITIALLY IMMEDIATE "}[tr.initDeferred]
			}
			if tr.oldTable != "" || tr.newTable != "" {
				constraint += "REFERENCING "
				if tr.oldTable != "" {
					constraint += "OLD TABLE AS " + types.QuoteIdent(tr.oldTable) + " "
				}
				if tr.newTable != "" {
					constraint += "NEW TABLE AS " + types.QuoteIdent(tr.newTable) + " "
				}
			}
			def := fmt.Sprintf("CREATE %s %s %s %s ON %s %sFOR EACH %s ", kind, types.QuoteIdent(tr.name), when,
				strings.Join(events, " OR "), table, constraint, level)
			if tr.when != nil {
				def += "WHEN (" + triggerWhenText(s, c, t, tr, pretty) + ") "
			}
			fn := "?"
			if f := c.funcByOID(tr.fn); f != nil {
				fn = catalogNames{s: s}.qualify(uint32(schemaOID(c, f.schema)), types.QuoteIdent(f.name))
			}
			args := make([]string, len(tr.args))
			for i, a := range tr.args {
				args[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
			}
			return def + "EXECUTE FUNCTION " + fn + "(" + strings.Join(args, ", ") + ")", true
		}
	}
	return "", false
}

// triggerWhenText prints a trigger's WHEN condition as ruleutils does:
// OLD's and NEW's columns qualified, the implicit casts shown. A condition
// the deparser cannot analyze prints as written, in parentheses unless
// pretty or ruleutils would print none.
func triggerWhenText(s *Session, c *catalog, t *tableDesc, tr *triggerDesc, pretty bool) string {
	sc := &scope{}
	for i, rel := range []string{"old", "new"} {
		for _, col := range tableScope(t, rel).cols {
			col.slot += i * len(t.cols)
			sc.cols = append(sc.cols, col)
		}
		sc.cols = append(sc.cols, scopeCol{rel: rel, name: "tableoid", typ: types.OidType, hidden: true, system: true, relOID: t.oid})
	}
	d := &deparser{b: &binder{s: s, cat: c}, sc: sc, qualify: true, pretty: pretty}
	if a, err := d.analyze(tr.when); err == nil {
		return d.print(a, nil, pretty, false)
	}
	if pretty || !ruleutilsParenthesizes(tr.when) {
		return deparseExpr(tr.when)
	}
	return "(" + deparseExpr(tr.when) + ")"
}

// ruleutilsParenthesizes reports whether PostgreSQL's deparser, when not
// pretty-printing, wraps the expression n in parentheses of its own: it
// does for operators and the like, not for a constant, a column, a
// function call or a cast.
func ruleutilsParenthesizes(n *pg_query.Node) bool {
	return n.GetAConst() == nil && n.GetColumnRef() == nil && n.GetFuncCall() == nil && n.GetTypeCast() == nil
}

// userProc is a user routine in the shape of a built-in's pg_proc row,
// for regproc and regprocedure; nil for nil.
func userProc(c *catalog, f *funcDesc) *builtinProc {
	if f == nil {
		return nil
	}
	p := &builtinProc{oid: f.oid, name: f.name}
	if sc := c.schemas[f.schema]; sc != nil {
		p.namespace = sc.oid
	}
	for _, t := range f.inputTypes() {
		p.args = append(p.args, uint32(t.Oid))
	}
	return p
}

// userProcsNamed are the user routines of a name, in every schema.
func userProcsNamed(c *catalog, name string) []*builtinProc {
	var out []*builtinProc
	for _, sc := range c.schemas {
		for _, f := range sc.funcs[name] {
			out = append(out, userProc(c, f))
		}
	}
	return out
}
