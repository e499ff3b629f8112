package sqlexec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// User-defined functions and procedures (CREATE FUNCTION, CREATE
// PROCEDURE). A routine is a funcDesc in its schema's funcs, immutable once
// published like every descriptor; CREATE OR REPLACE and DROP build new
// slices of overloads in the DDL's catalog clone, so that they are
// transactional like the rest of DDL. Calls resolve in functions_call.go,
// bodies run in functions_sql.go (LANGUAGE sql) and plpgsql*.go.

// funcDesc is a pg_proc row of a user routine.
type funcDesc struct {
	oid    uint32
	schema string
	name   string
	// kind is pg_proc.prokind: 'f' function, 'p' procedure.
	kind byte
	// lang is "sql", "plpgsql", or "c" for an extension's function
	// (extensions.go), whose src is its symbol in library.
	lang    string
	library string
	// bound, when set, is the implementation of a C function bound to
	// the types of one call (boundExtensionCall), which its symbol's
	// cannot see.
	bound func(x *execCtx, args []any) ([][]any, error)
	// extension is the OID of the extension the routine belongs to, 0
	// for none: DROP EXTENSION drops it, DROP FUNCTION refuses to.
	extension uint32
	params    []funcParam
	// in are the types of the parameters a call passes arguments for
	// (funcParam.arg): pg_proc.proargtypes, plus a procedure's OUT
	// parameters, which are part of its signature; nDefaults of the last
	// of them have defaults.
	in        []types.Type
	nDefaults int
	// result is the declared result type: a scalar, void, trigger, or a
	// record whose fields outCols names (OUT parameters, RETURNS TABLE).
	result  types.Type
	outCols []types.Field
	// resultDom is the domain the result is declared of (RETURNS, a lone
	// OUT parameter), whose base type result is.
	resultDom routineDomain
	retSet    bool
	strict    bool
	// secDef is SECURITY DEFINER: the routine runs as its owner, the
	// role that created it (or ALTER ... OWNER TO named), whose privileges
	// current_user reports inside it.
	secDef bool
	owner  string
	// config are the SET options, applied while the routine runs
	// (pg_proc.proconfig).
	config []funcSetting
	// volatility is pg_proc.provolatile: 'v', 's' or 'i'.
	volatility byte
	// parallel is pg_proc.proparallel as PARALLEL gave it ('s', 'r' or
	// 'u'), 0 for the default; leakproof is LEAKPROOF; cost and rows are
	// COST and ROWS, 0 for the defaults. fickle runs no plan in parallel
	// and plans without them: they are what the catalog shows.
	parallel   byte
	leakproof  bool
	cost, rows float64
	// src is the body as written (pg_proc.prosrc); sqlBody the statements
	// of a BEGIN ATOMIC or RETURN body, nil for a string body.
	src     string
	sqlBody []*pg_query.Node
	// agg is an aggregate's (kind 'a') pg_aggregate row
	// (aggregates_user.go).
	agg *aggDesc
}

// funcSetting is a SET option of a routine: a setting and its value.
type funcSetting struct{ name, value string }

// readSetting reads a SET or RESET option: SET replaces the setting's
// value, RESET (and SET ... TO DEFAULT) drops it, RESET ALL drops them all,
// as PostgreSQL edits proconfig. FROM CURRENT and the role settings are
// refused.
func (f *funcDesc) readSetting(vs *pg_query.VariableSetStmt) error {
	name := strings.ToLower(vs.Name)
	switch {
	case vs.Kind == pg_query.VariableSetKind_VAR_RESET_ALL:
		f.config = nil
		return nil
	case vs.Kind == pg_query.VariableSetKind_VAR_SET_CURRENT:
		return pgerror.Unsupported("function option SET ... FROM CURRENT")
	case vs.Kind != pg_query.VariableSetKind_VAR_SET_VALUE && vs.Kind != pg_query.VariableSetKind_VAR_RESET &&
		vs.Kind != pg_query.VariableSetKind_VAR_SET_DEFAULT:
		return pgerror.Unsupported("function option " + vs.Kind.String())
	case name == "role" || name == "session_authorization":
		return pgerror.Unsupported("function option SET " + name)
	case settingDefs[name] == nil && !strings.Contains(name, "."):
		return pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter \"%s\"", vs.Name)
	}
	at := slices.IndexFunc(f.config, func(c funcSetting) bool { return c.name == name })
	if vs.Kind != pg_query.VariableSetKind_VAR_SET_VALUE {
		if at >= 0 {
			f.config = slices.Delete(f.config, at, at+1)
		}
		return nil
	}
	value, err := setValue(name, vs.Args)
	if err != nil {
		return err
	}
	if at >= 0 {
		f.config[at].value = value
		return nil
	}
	f.config = append(f.config, funcSetting{name: name, value: value})
	return nil
}

// checkRoutineSettings checks the values of a new routine's SET options
// as SET would, when check_function_bodies is on, as PostgreSQL's CREATE
// FUNCTION does.
func (d *ddl) checkRoutineSettings(f *funcDesc) error {
	if on, _ := d.s.settings.get("check_function_bodies"); on == "off" {
		return nil
	}
	for _, c := range f.config {
		if def := settingDefs[c.name]; def != nil && def.normalize != nil {
			if _, err := def.normalize(c.value); err != nil {
				return err
			}
		}
	}
	return nil
}

// funcParam is one declared parameter.
// hasParam reports whether the function has a parameter of that name.
func (f *funcDesc) hasParam(name string) bool {
	for _, p := range f.params {
		if p.name == name {
			return true
		}
	}
	return false
}

type funcParam struct {
	name string
	typ  types.Type
	// mode is pg_proc.proargmodes' letter: i, o, b (INOUT), v (VARIADIC),
	// t (TABLE column).
	mode byte
	def  *pg_query.Node
	// arg says a call passes an argument for the parameter: IN, INOUT,
	// VARIADIC, and a procedure's OUT.
	arg bool
	// dom is the domain the parameter is declared of, 0 for none: typ is
	// then its base type, which the body sees, and dom the type of the
	// routine's signature (pg_proc's), whose constraints a call checks.
	dom routineDomain
}

// routineDomain is a domain a routine's parameter or result is declared
// of: its OID and its name as format_type printed it then (a domain is
// not renamed while a routine uses it: see renameType).
type routineDomain struct {
	oid  uint32
	name string
}

// sigType is the type t of a parameter or result declared of domain dom
// as the routine's signature has it: the domain's OID in place of its
// base type's (a Type that only identifies the domain).
func (dom routineDomain) sigType(t types.Type) types.Type {
	if dom.oid == 0 {
		return t
	}
	return types.Type{Oid: types.Oid(dom.oid), Typmod: -1}
}

// typeName is the name format_type gives a parameter or result of type t
// declared of domain dom.
func (dom routineDomain) typeName(t types.Type) string {
	if dom.oid == 0 {
		return t.String()
	}
	return dom.name
}

// isIn reports whether a call passes the parameter.
func (p funcParam) isIn() bool { return p.mode == 'i' || p.mode == 'b' || p.mode == 'v' }

// isOut reports whether the parameter is part of the result.
func (p funcParam) isOut() bool { return p.mode == 'o' || p.mode == 'b' || p.mode == 't' }

// kindName is "function" or "procedure", as messages say.
func (f *funcDesc) kindName() string {
	if f.kind == 'p' {
		return "procedure"
	}
	return "function"
}

// aclNoun names the routine's kind in PostgreSQL's privilege errors, which
// call an aggregate one.
func (f *funcDesc) aclNoun() string {
	if f.kind == 'a' {
		return "aggregate"
	}
	return f.kindName()
}

// signature is name(type, ...) as PostgreSQL's messages print a routine.
func (f *funcDesc) signature() string {
	return fmt.Sprintf("%s(%s)", f.name, f.inputTypeNames())
}

// inputTypeNames are the names of inputTypes, joined by ", ".
func (f *funcDesc) inputTypeNames() string {
	var parts []string
	for _, p := range f.params {
		if p.isIn() {
			parts = append(parts, p.dom.typeName(p.typ))
		}
	}
	return strings.Join(parts, ", ")
}

// objectSignature is f as PostgreSQL describes the object (format_procedure,
// in dependency, ownership and privilege messages): its input types
// separated by commas alone.
func (f *funcDesc) objectSignature() string {
	return strings.ReplaceAll(f.signature(), ", ", ",")
}

// inputTypes are the types of the IN, INOUT and VARIADIC parameters,
// pg_proc.proargtypes (a domain's OID for a parameter of a domain).
func (f *funcDesc) inputTypes() []types.Type {
	var out []types.Type
	for _, p := range f.params {
		if p.isIn() {
			out = append(out, p.dom.sigType(p.typ))
		}
	}
	return out
}

// sigIn are the types of the parameters a call passes arguments for as
// the signature has them: f.in with a domain's OID for a parameter of a
// domain.
func (f *funcDesc) sigIn() []types.Type {
	var out []types.Type
	for _, p := range f.params {
		if p.arg {
			out = append(out, p.dom.sigType(p.typ))
		}
	}
	return out
}

func typeNames(ts []types.Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// sameTypes reports whether two argument lists name the same types.
func sameTypes(a, b []types.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Oid != b[i].Oid {
			return false
		}
	}
	return true
}

// lookupFuncs returns the routines a possibly qualified name names: those
// of its schema, or of the schemas of the search path but the temporary
// one, which PostgreSQL never searches for routines.
func (s *Session) lookupFuncs(c *catalog, names []string) []*funcDesc {
	name := names[len(names)-1]
	if len(names) > 1 {
		if sc := c.schemas[s.schemaAlias(names[len(names)-2])]; sc != nil {
			return withCurrentRowTypes(c, sc.funcs[name])
		}
		return nil
	}
	var out []*funcDesc
	for _, p := range s.searchPath() {
		if sc := c.schemas[p]; sc != nil && !isTempSchema(p) {
			out = append(out, sc.funcs[name]...)
		}
	}
	return withCurrentRowTypes(c, out)
}

// withCurrentRowTypes returns fs with each function that returns a
// composite type given the type's columns as they are now: an ALTER TABLE
// since CREATE FUNCTION changes what the function returns, as the type is
// bound by OID in PostgreSQL.
func withCurrentRowTypes(c *catalog, fs []*funcDesc) []*funcDesc {
	cloned := false
	for i, f := range fs {
		if !f.result.IsComposite() || f.hasOutParams() {
			continue
		}
		cols, ok := c.compositeFields(uint32(f.result.Oid))
		if !ok || slices.Equal(cols, f.outCols) {
			continue
		}
		if !cloned {
			fs, cloned = slices.Clone(fs), true // the catalog's list stays as it is
		}
		nf := *f
		nf.outCols = cols
		fs[i] = &nf
	}
	return fs
}

// hasOutParams reports whether f has OUT or INOUT parameters (or TABLE
// columns), whose variables a PL/pgSQL body returns.
func (f *funcDesc) hasOutParams() bool {
	return slices.ContainsFunc(f.params, funcParam.isOut)
}

// nameCreationSchema is the schema a qualified name (its next-to-last
// part) or the search path gives an object CREATE makes.
func (d *ddl) nameCreationSchema(names []string) (string, error) {
	schema := ""
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	return d.creationSchema(schema)
}

// createFunction runs CREATE [OR REPLACE] FUNCTION and PROCEDURE.
func (d *ddl) createFunction(cs *pg_query.CreateFunctionStmt, full string) error {
	names := strs(cs.Funcname)
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	f := &funcDesc{schema: schema, name: names[len(names)-1], kind: 'f', volatility: 'v', owner: d.s.user()}
	if cs.IsProcedure {
		f.kind = 'p'
	}
	b := d.binder(full)
	if err := f.readParams(b, cs.Parameters); err != nil {
		return err
	}
	if err := f.readResult(b, cs); err != nil {
		return err
	}
	if err := f.readOptions(b, cs.Options); err != nil {
		return err
	}
	if err := d.checkPlannerOptions(f, nil); err != nil {
		return err
	}
	if name := f.sharedParamName(); name != "" && f.lang == "plpgsql" {
		return pgerror.Newf(pgerror.InvalidFunctionDefinition, "parameter name \"%s\" used more than once", name)
	}
	if err := d.checkRoutineSettings(f); err != nil {
		return err
	}
	if err := f.readBody(cs); err != nil {
		return err
	}
	if err := f.checkPolymorphic(cs); err != nil {
		return err
	}
	if err := d.validateBody(f, full); err != nil {
		return err
	}
	sc := d.cat.schemas[schema]
	overloads := sc.funcs[f.name]
	replaced := -1
	for i, old := range overloads {
		if !sameTypes(old.inputTypes(), f.inputTypes()) {
			continue
		}
		if !cs.Replace {
			return pgerror.Newf(pgerror.DuplicateFunction, "function \"%s\" already exists with same argument types", f.name)
		}
		if !d.s.actsAsOwner(d.s.routineOwner(old)) {
			// PostgreSQL names any routine a function here.
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of function %s", old.name)
		}
		if old.kind != f.kind {
			return pgerror.Newf(pgerror.WrongObjectType, "cannot change routine kind").
				WithDetail("\"%s\" is a %s.", old.name, old.kindName())
		}
		if old.result != f.result || old.resultDom.oid != f.resultDom.oid || old.retSet != f.retSet {
			return pgerror.Newf(pgerror.InvalidFunctionDefinition, "cannot change return type of existing function").
				WithHint("Use DROP FUNCTION %s first.", old.objectSignature())
		}
		if old.nDefaults > f.nDefaults {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "cannot remove parameter defaults from existing function")
		}
		for j, p := range old.params {
			if j < len(f.params) && p.isIn() && p.name != "" && p.name != f.params[j].name {
				return pgerror.Newf(pgerror.InvalidFunctionDefinition, "cannot change name of input parameter \"%s\"", p.name).
					WithHint("Use DROP FUNCTION %s first.", old.objectSignature())
			}
		}
		f.oid, f.owner = old.oid, old.owner
		replaced = i
	}
	next := append([]*funcDesc(nil), overloads...)
	if replaced >= 0 {
		next[replaced] = f
	} else {
		f.oid = d.cat.newOID()
		next = append(next, f)
		d.applyDefaultACL(aclFunction, f.oid, d.s.currentRole(), sc.oid)
	}
	sc.funcs[f.name] = next
	return nil
}

// pureInOutPair reports whether one of a and b is a pure input parameter
// (IN, VARIADIC) and the other a pure output one (OUT, TABLE): the pair
// PostgreSQL lets share a name.
func pureInOutPair(a, b funcParam) bool {
	pureIn := func(p funcParam) bool { return p.mode == 'i' || p.mode == 'v' }
	pureOut := func(p funcParam) bool { return p.mode == 'o' || p.mode == 't' }
	return pureIn(a) && pureOut(b) || pureOut(a) && pureIn(b)
}

// sharedParamName is a name two parameters of f share (an input's and an
// output's), "" when none does: PL/pgSQL declares every parameter as a
// variable, so its validator refuses such a function.
func (f *funcDesc) sharedParamName() string {
	seen := map[string]bool{}
	for _, p := range f.params {
		if p.name != "" && seen[p.name] {
			return p.name
		}
		seen[p.name] = true
	}
	return ""
}

// readParams reads the parameter list.
func (f *funcDesc) readParams(b *binder, params []*pg_query.Node) error {
	// seen holds the names of the parameters read so far, by whether they
	// are pure inputs (IN, VARIADIC): as in PostgreSQL, a pure input and a
	// pure output (OUT, TABLE) may share a name, no other two may.
	seen := map[string][]funcParam{}
	for _, n := range params {
		fp := n.GetFunctionParameter()
		t, err := b.routineTypeName(fp.ArgType)
		if err != nil {
			return err
		}
		if err := b.requireTypeNameUsage(fp.ArgType, uint32(t.Oid)); err != nil {
			return err
		}
		p := funcParam{name: fp.Name, typ: t, def: fp.Defexpr, dom: b.routineDomainOf(fp.ArgType)}
		switch fp.Mode {
		case pg_query.FunctionParameterMode_FUNC_PARAM_OUT:
			p.mode = 'o'
		case pg_query.FunctionParameterMode_FUNC_PARAM_INOUT:
			p.mode = 'b'
		case pg_query.FunctionParameterMode_FUNC_PARAM_TABLE:
			p.mode = 't'
		case pg_query.FunctionParameterMode_FUNC_PARAM_VARIADIC:
			if _, poly := types.PolymorphicElem(t); !t.IsArray() && !poly || p.dom.oid != 0 {
				// A domain over an array is not an array type here.
				return pgerror.New(pgerror.InvalidFunctionDefinition, "VARIADIC parameter must be an array")
			}
			p.mode = 'v'
		default:
			p.mode = 'i'
		}
		// A procedure's OUT parameters take arguments too (which the
		// call's result or PL/pgSQL's CALL assigns).
		p.arg = p.isIn() || f.kind == 'p' && p.mode == 'o'
		if p.name != "" {
			for _, prev := range seen[p.name] {
				if !pureInOutPair(prev, p) {
					return pgerror.Newf(pgerror.InvalidFunctionDefinition, "parameter name \"%s\" used more than once", p.name)
				}
			}
			seen[p.name] = append(seen[p.name], p)
		}
		if ins := f.inParams(); p.arg && len(ins) > 0 && ins[len(ins)-1].mode == 'v' {
			if !p.isIn() {
				return pgerror.New(pgerror.InvalidFunctionDefinition, "VARIADIC parameter must be the last parameter")
			}
			return pgerror.New(pgerror.InvalidFunctionDefinition, "VARIADIC parameter must be the last input parameter")
		}
		switch {
		case p.def != nil && !p.isIn():
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only input parameters can have default values")
		case !p.arg:
		case p.def != nil:
			f.nDefaults++
		case f.nDefaults > 0 && p.mode == 'o':
			return pgerror.New(pgerror.InvalidFunctionDefinition, "procedure OUT parameters cannot appear after one with a default value")
		case f.nDefaults > 0:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		}
		if p.arg {
			f.in = append(f.in, t)
		}
		f.params = append(f.params, p)
	}
	return nil
}

// readResult reads RETURNS (or derives the result from OUT parameters).
func (f *funcDesc) readResult(b *binder, cs *pg_query.CreateFunctionStmt) error {
	outs := 0
	for _, p := range f.params {
		if p.isOut() {
			outs++
		}
	}
	for _, p := range f.params {
		if p.isOut() {
			name := p.name
			if name == "" && outs > 1 {
				// PostgreSQL's name for an unnamed one of several OUT
				// parameters' columns.
				name = fmt.Sprintf("column%d", len(f.outCols)+1)
			}
			f.outCols = append(f.outCols, types.Field{Name: name, Type: p.typ})
		}
	}
	if f.kind == 'p' {
		f.result = types.Void
		if len(f.outCols) > 0 {
			f.result = types.RecordType(f.outCols)
		}
		return nil
	}
	var declared types.Type
	var declaredDom routineDomain
	if rt := cs.ReturnType; rt != nil {
		f.retSet = rt.Setof
		plain := proto.Clone(rt).(*pg_query.TypeName)
		plain.Setof = false
		t, err := b.routineTypeName(plain)
		if err != nil {
			return err
		}
		if err := b.requireTypeNameUsage(plain, uint32(t.Oid)); err != nil {
			return err
		}
		declared, declaredDom = t, b.routineDomainOf(plain)
	}
	switch {
	case len(f.outCols) == 0 && cs.ReturnType == nil:
		return pgerror.New(pgerror.InvalidFunctionDefinition, "function result type must be specified")
	case len(f.outCols) == 0:
		f.result, f.resultDom = declared, declaredDom
		if declared.IsComposite() {
			// A table's row type or a composite type: the function returns
			// rows of its columns, as with OUT parameters, typed by it.
			f.outCols, _ = declared.Fields()
		}
	case len(f.outCols) == 1:
		f.result = f.outCols[0].Type
		for _, p := range f.params {
			if p.isOut() {
				f.resultDom = p.dom
			}
		}
		if cs.ReturnType != nil && declaredDom.sigType(declared).Oid != f.resultDom.sigType(f.result).Oid {
			return pgerror.Newf(pgerror.InvalidFunctionDefinition, "function result type must be %s because of OUT parameters", f.resultDom.typeName(f.result))
		}
		if f.resultDom.oid != 0 && f.result.IsComposite() {
			return pgerror.Unsupported("functions returning a domain over a composite type")
		}
		f.outCols = nil
	default:
		if cs.ReturnType != nil && declared.Oid != types.OidRecord {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "function result type must be record because of OUT parameters")
		}
		f.result = types.RecordType(f.outCols)
	}
	return nil
}

// procedureAttributes are the options of a function that a procedure may
// not have: PostgreSQL's "invalid attribute in procedure definition".
var procedureAttributes = []string{"volatility", "strict", "leakproof", "cost", "rows", "support", "parallel", "window"}

// readOptions reads LANGUAGE, volatility, STRICT and the other options; b
// places errors in the statement's text.
func (f *funcDesc) readOptions(b *binder, opts []*pg_query.Node) error {
	f.lang = "sql"
	for _, o := range opts {
		de := o.GetDefElem()
		if f.kind == 'p' && slices.Contains(procedureAttributes, de.Defname) {
			return b.errAt(pgerror.New(pgerror.InvalidFunctionDefinition, "invalid attribute in procedure definition"), de.Location)
		}
		switch de.Defname {
		case "language":
			f.lang = strings.ToLower(de.Arg.GetString_().GetSval())
		case "volatility":
			f.volatility = de.Arg.GetString_().GetSval()[0]
		case "strict":
			f.strict = de.Arg.GetBoolean().GetBoolval()
		case "security":
			f.secDef = de.Arg.GetBoolean().GetBoolval()
		case "set":
			if err := f.readSetting(de.Arg.GetVariableSetStmt()); err != nil {
				return err
			}
		case "leakproof":
			f.leakproof = de.Arg.GetBoolean().GetBoolval()
		case "parallel":
			p, err := parallelSafety(de.Arg.GetString_().GetSval())
			if err != nil {
				return err
			}
			f.parallel = p
		case "cost", "rows":
			v, ok := numericOption(de.Arg)
			if !ok {
				return pgerror.Newf(pgerror.SyntaxError, "%s requires a numeric value", de.Defname)
			}
			if v <= 0 {
				return pgerror.Newf(pgerror.InvalidParameterValue, "%s must be positive", strings.ToUpper(de.Defname))
			}
			if de.Defname == "cost" {
				f.cost = v
			} else {
				f.rows = v
			}
		case "as":
		default:
			return pgerror.Unsupported("function option " + strings.ToUpper(de.Defname))
		}
	}
	switch f.lang {
	case "sql", "plpgsql":
	case "c", "internal":
		return pgerror.Unsupported("LANGUAGE " + f.lang)
	default:
		return pgerror.Newf(pgerror.UndefinedObject, "language \"%s\" does not exist", f.lang)
	}
	if (f.result.Oid == types.OidTrigger || f.result.Oid == types.OidEventTrigger) && f.lang != "plpgsql" {
		return pgerror.Newf(pgerror.InvalidFunctionDefinition, "%s functions cannot return type %s", strings.ToUpper(f.lang), f.result.Name())
	}
	return nil
}

// parallelSafety is pg_proc.proparallel for a PARALLEL option's value.
func parallelSafety(v string) (byte, error) {
	switch strings.ToLower(v) {
	case "safe":
		return 's', nil
	case "restricted":
		return 'r', nil
	case "unsafe":
		return 'u', nil
	}
	return 0, pgerror.New(pgerror.SyntaxError, "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE")
}

// readBody reads AS '...' or the SQL-standard body.
func (f *funcDesc) readBody(cs *pg_query.CreateFunctionStmt) error {
	for _, o := range cs.Options {
		if de := o.GetDefElem(); de.Defname == "as" {
			items := de.Arg.GetList().GetItems()
			if len(items) != 1 {
				return pgerror.Newf(pgerror.InvalidFunctionDefinition, "only one AS item needed for language \"%s\"", f.lang)
			}
			f.src = items[0].GetString_().GetSval()
		}
	}
	if cs.SqlBody != nil {
		if hasOption(cs.Options, "as") {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "duplicate function body specified")
		}
		if f.lang != "sql" {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "inline SQL function body only valid for language SQL")
		}
		if r := cs.SqlBody.GetReturnStmt(); r != nil {
			f.sqlBody = []*pg_query.Node{returnAsSelect(r.Returnval)}
		} else {
			f.sqlBody = []*pg_query.Node{} // BEGIN ATOMIC END is a body too
			for _, l := range cs.SqlBody.GetList().GetItems() {
				for _, st := range l.GetList().GetItems() {
					if r := st.GetReturnStmt(); r != nil {
						st = returnAsSelect(r.Returnval)
					}
					f.sqlBody = append(f.sqlBody, st)
				}
			}
		}
		f.src = ""
		return nil
	}
	if cs.SqlBody == nil && !hasOption(cs.Options, "as") {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "no function body specified")
	}
	return nil
}

func hasOption(opts []*pg_query.Node, name string) bool {
	for _, o := range opts {
		if o.GetDefElem().GetDefname() == name {
			return true
		}
	}
	return false
}

// returnAsSelect is RETURN expr as the SELECT expr it means.
func returnAsSelect(e *pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
		TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: e}}}},
	}}}
}

// oidPgProc is pg_proc's OID, the class of routines' comments.
const oidPgProc = 1255

// findRoutine returns the routine an object name with arguments names in
// a statement about objType (FUNCTION, PROCEDURE or ROUTINE): nil and no
// error when there is none and missingOk, after a notice. drop says the
// statement is a DROP (see builtinRoutineFirst).
func (d *ddl) findRoutine(owa *pg_query.ObjectWithArgs, objType pg_query.ObjectType, missingOk, drop bool) (*funcDesc, error) {
	want := map[pg_query.ObjectType]byte{pg_query.ObjectType_OBJECT_FUNCTION: 'f', pg_query.ObjectType_OBJECT_PROCEDURE: 'p',
		pg_query.ObjectType_OBJECT_AGGREGATE: 'a'}[objType]
	kind := strings.ToLower(strings.TrimPrefix(objType.String(), "OBJECT_"))
	names := strs(owa.Objname)
	cands := d.s.lookupFuncs(d.cat, names)
	// argTypes are the input arguments' types; outList, when the list
	// names an OUT argument, is the whole list, which only a procedure's
	// parameters with the same types and OUT ones in the same places match.
	var argTypes []types.Type
	var argNames []string
	var outList []*pg_query.FunctionParameter
	if !owa.ArgsUnspecified {
		for _, a := range owa.Objargs {
			t, err := d.binder("").routineTypeName(a.GetTypeName())
			if err != nil {
				return nil, err
			}
			dom := d.binder("").routineDomainOf(a.GetTypeName())
			argTypes, argNames = append(argTypes, dom.sigType(t)), append(argNames, dom.typeName(t))
		}
		for _, a := range owa.Objfuncargs {
			if a.GetFunctionParameter().GetMode() == pg_query.FunctionParameterMode_FUNC_PARAM_OUT {
				for _, a := range owa.Objfuncargs {
					outList = append(outList, a.GetFunctionParameter())
				}
				break
			}
		}
	}
	sameParams := func(f *funcDesc) (bool, error) {
		if len(f.params) != len(outList) {
			return false, nil
		}
		for i, p := range f.params {
			t, err := d.binder("").typeName(outList[i].GetArgType())
			if err != nil {
				return false, err
			}
			t = d.binder("").routineDomainOf(outList[i].GetArgType()).sigType(t)
			out := outList[i].GetMode() == pg_query.FunctionParameterMode_FUNC_PARAM_OUT
			if t.Oid != p.dom.sigType(p.typ).Oid || out != (p.mode == 'o') {
				return false, nil
			}
		}
		return true, nil
	}
	// As in PostgreSQL 14 and later, a procedure is named by its input
	// arguments or by all of them, OUT ones included: a list that names
	// two procedures those two ways names neither.
	var match []*funcDesc
	for _, f := range cands {
		switch {
		case owa.ArgsUnspecified:
			if want == 0 || f.kind == want {
				match = append(match, f)
			}
		case f.kind == 'p' && outList != nil:
			same, err := sameParams(f)
			if err != nil {
				return nil, err
			}
			if same {
				match = append(match, f)
			}
		case sameTypes(f.inputTypes(), argTypes), f.kind == 'p' && sameTypes(f.sigIn(), argTypes):
			match = append(match, f)
		}
	}
	if len(names) == 1 {
		if err := d.builtinRoutineFirst(names[0], argTypes, owa.ArgsUnspecified, match, drop); err != nil {
			return nil, err
		}
	}
	if len(match) > 1 {
		err := pgerror.Newf(pgerror.AmbiguousFunction, "%s name \"%s\" is not unique", kind, names[len(names)-1])
		if owa.ArgsUnspecified {
			err = err.WithHint("Specify the argument list to select the %s unambiguously.", kind)
		}
		return nil, err
	}
	label := names[len(names)-1]
	if !owa.ArgsUnspecified {
		label = fmt.Sprintf("%s(%s)", label, strings.Join(argNames, ", "))
	}
	if len(match) == 0 {
		if missingOk {
			d.notice(pgerror.SuccessfulCompletion, "%s %s does not exist, skipping", kind, routineAsWritten(owa))
			return nil, nil
		}
		if owa.ArgsUnspecified {
			return nil, pgerror.Newf(pgerror.UndefinedFunction, "could not find a %s named \"%s\"", kind, label)
		}
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "%s %s does not exist", kind, label)
	}
	f := match[0]
	if f.kind == 'a' && want == 'f' && drop {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is an aggregate function", strings.Join(names, ".")).
			WithHint("Use DROP AGGREGATE to drop aggregate functions.")
	}
	// An aggregate is a function to GRANT, COMMENT, OWNER TO, RENAME and
	// SET SCHEMA, as in PostgreSQL.
	if want != 0 && f.kind != want && !(want == 'f' && f.kind == 'a') {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "%s is not a %s", d.s.visibleName(f.schema, f.signature()), kind)
	}
	return f, nil
}

// routineAsWritten is how PostgreSQL's DROP ... IF EXISTS names a routine
// it does not find: the name and argument types as the statement spells
// them (the grammar spells int pg_catalog.int4), the types joined by commas.
func routineAsWritten(owa *pg_query.ObjectWithArgs) string {
	args := make([]string, len(owa.Objargs))
	for i, a := range owa.Objargs {
		tn := a.GetTypeName()
		args[i] = strings.Join(strs(tn.GetNames()), ".")
		if tn.GetPctType() {
			args[i] += "%TYPE"
		}
		if len(tn.GetArrayBounds()) > 0 {
			args[i] += "[]"
		}
	}
	return strings.Join(strs(owa.Objname), ".") + "(" + strings.Join(args, ",") + ")"
}

// dropFunctions runs DROP FUNCTION, PROCEDURE and ROUTINE.
func (d *ddl) dropFunctions(ds *pg_query.DropStmt) error {
	dropping := map[*funcDesc]bool{}
	var fs []*funcDesc
	for _, o := range ds.Objects {
		f, err := d.findRoutine(o.GetObjectWithArgs(), ds.RemoveType, ds.MissingOk, true)
		if err != nil {
			return err
		}
		if f != nil && !d.s.actsAsOwner(d.s.routineOwner(f)) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of %s %s", f.aclNoun(), f.name)
		}
		if f != nil && !dropping[f] {
			dropping[f] = true
			fs = append(fs, f)
		}
	}
	return d.dropRoutines(fs, ds.Behavior == pg_query.DropBehavior_DROP_CASCADE)
}

// dropRoutines drops fs, refusing (or, with cascade, dropping) what depends
// on them, as DROP FUNCTION does once it found them.
func (d *ddl) dropRoutines(fs []*funcDesc, cascade bool) error {
	dropping := map[*funcDesc]bool{}
	for _, f := range fs {
		dropping[f] = true
	}
	for _, f := range fs {
		if ext := d.cat.extensionOf(f); ext != nil {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s %s because extension %s requires it", f.kindName(), f.objectSignature(), ext.name).
				WithHint("You can drop extension %s instead.", ext.name)
		}
		if err := d.checkRoutineDependents(f, dropping, cascade); err != nil {
			return err
		}
		d.removeRoutine(f)
	}
	return nil
}

// removeRoutine drops f: it leaves its schema's overloads, and its
// comment and grants go.
func (d *ddl) removeRoutine(f *funcDesc) {
	d.unlistRoutine(f)
	d.dropSoftMembers(true, f.oid)
	delete(d.cat.comments, commentKey{classOID: oidPgProc, objOID: f.oid})
	delete(d.cat.acls, aclKey{kind: aclFunction, oid: f.oid})
}

// unlistRoutine takes f out of its schema's overloads.
func (d *ddl) unlistRoutine(f *funcDesc) {
	sc := d.cat.schemas[f.schema]
	next := slices.DeleteFunc(slices.Clone(sc.funcs[f.name]), func(g *funcDesc) bool { return g == f })
	if len(next) == 0 {
		delete(sc.funcs, f.name)
	} else {
		sc.funcs[f.name] = next
	}
}

// alterRoutineOwner runs ALTER FUNCTION, PROCEDURE or ROUTINE ... OWNER TO
// role. Like ALTER TABLE ... OWNER TO (changeOwner), it accepts a role
// fickle does not know, so that pg_dump output loads without its roles.
func (d *ddl) alterRoutineOwner(ao *pg_query.AlterOwnerStmt) error {
	f, err := d.findRoutine(ao.Object.GetObjectWithArgs(), ao.ObjectType, false, false)
	if err != nil {
		return err
	}
	nf := *f
	nf.owner = d.s.roleSpecName(ao.Newowner.Roletype.String(), ao.Newowner.Rolename)
	r := d.s.roleNamed(nf.owner)
	if r != nil {
		nf.owner = r.name // postgres names the bootstrap superuser
	}
	if nf.owner == f.owner {
		return nil
	}
	if role := d.s.currentRole(); !d.s.isSuperuser(role) {
		if err := d.requireRoutineOwner(f); err != nil {
			return err
		}
		if r != nil && !d.s.belongsTo(role, r.oid) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", r.name)
		}
		if sc := d.cat.schemas[f.schema]; r != nil && sc != nil && !d.s.hasPrivilege(r.oid, aclSchema, sc.oid, []byte{'C'}) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", f.schema)
		}
	}
	if r != nil {
		d.giveRoutine(f, r)
		return nil
	}
	d.replaceRoutine(f, &nf)
	return nil
}

// requireRoutineOwner is PostgreSQL's ownership check before a routine is
// altered, renamed or moved: 42501 unless the role running the statement
// acts as the routine's owner.
func (d *ddl) requireRoutineOwner(f *funcDesc) error {
	if d.s.actsAsOwner(d.s.routineOwner(f)) {
		return nil
	}
	return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of %s %s", f.aclNoun(), f.name)
}

// requireSchemaCreate is the check that the role running the statement may
// create objects in schema (creating one, renaming one there, or moving
// one there): 42501 "permission denied for schema" otherwise. On the
// session's temporary schema it is TEMPORARY on the database that allows
// it, as in PostgreSQL.
func (d *ddl) requireSchemaCreate(schema string) error {
	role := d.s.currentRole()
	sc := d.cat.schemas[schema]
	switch {
	case sc == nil:
		return nil
	case schema == d.s.tempSchemaIfAny() && d.s.hasPrivilege(role, aclDatabase, d.s.engine.oid, []byte{'T'}),
		d.s.hasPrivilege(role, aclSchema, sc.oid, []byte{'C'}):
		return nil
	}
	return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", schema)
}

// alterRoutine runs ALTER FUNCTION, PROCEDURE or ROUTINE with the options
// CREATE FUNCTION reads (STRICT, volatility, SECURITY, SET, ...).
func (d *ddl) alterRoutine(af *pg_query.AlterFunctionStmt, full string) error {
	f, err := d.findRoutine(af.Func, af.Objtype, false, false)
	if err != nil {
		return err
	}
	if f.kind == 'a' {
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is an aggregate function", f.name)
	}
	if !d.s.actsAsOwner(d.s.routineOwner(f)) {
		// PostgreSQL names the routine as the statement wrote it.
		noun := strings.ToLower(strings.TrimPrefix(af.Objtype.String(), "OBJECT_"))
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of %s %s", noun, strings.Join(strs(af.Func.Objname), "."))
	}
	nf := *f
	nf.config = slices.Clone(f.config)
	lang := nf.lang
	if err := nf.readOptions(d.binder(full), af.Actions); err != nil {
		return err
	}
	nf.lang = lang
	if err := d.checkPlannerOptions(&nf, f); err != nil {
		return err
	}
	d.replaceRoutine(f, &nf)
	return nil
}

// checkPlannerOptions checks LEAKPROOF and ROWS once f's options are
// read (old is the routine ALTER changes, nil for CREATE): only a superuser
// makes a function leakproof, and ROWS is for set-returning functions.
func (d *ddl) checkPlannerOptions(f, old *funcDesc) error {
	if f.leakproof && (old == nil || !old.leakproof) && !d.s.isSuperuser(d.s.currentRole()) {
		return pgerror.New(pgerror.InsufficientPrivilege, "only superuser can define a leakproof function")
	}
	if f.rows != 0 && !f.retSet {
		return pgerror.New(pgerror.InvalidParameterValue, "ROWS is not applicable when function does not return a set")
	}
	return nil
}

// numericOption is a COST or ROWS option's value.
func numericOption(n *pg_query.Node) (float64, bool) {
	switch {
	case n.GetInteger() != nil:
		return float64(n.GetInteger().Ival), true
	case n.GetFloat() != nil:
		v, err := strconv.ParseFloat(n.GetFloat().Fval, 64)
		return v, err == nil
	}
	return 0, false
}

// replaceRoutine puts next in place of f among its schema's overloads.
func (d *ddl) replaceRoutine(f, next *funcDesc) {
	sc := d.cat.schemas[f.schema]
	overloads := slices.Clone(sc.funcs[f.name])
	overloads[slices.Index(overloads, f)] = next
	sc.funcs[f.name] = overloads
}

// isRoutineObject reports whether a statement's object type is FUNCTION,
// PROCEDURE or ROUTINE.
func isRoutineObject(t pg_query.ObjectType) bool {
	return t == pg_query.ObjectType_OBJECT_FUNCTION || t == pg_query.ObjectType_OBJECT_PROCEDURE || t == pg_query.ObjectType_OBJECT_ROUTINE ||
		t == pg_query.ObjectType_OBJECT_AGGREGATE
}
