package sqlexec

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Extensions. CREATE EXTENSION installs an extension PostgreSQL 15 ships
// whose objects fickle implements (availableExtensions): its functions
// are created in the extension's schema as routines of language C, whose
// symbols name Go implementations, and belong to the extension, which
// DROP EXTENSION removes with them; an extension with a type (citext)
// creates it there too (availableExtension.createTypes), and so do the
// operators, operator classes and text search dictionaries an extension
// declares (extension_operators.go, extension_unaccent.go). plpgsql is
// always installed, as initdb leaves it. Any other extension is refused
// with 0A000.

// extensionDesc is an installed extension (pg_extension's row).
type extensionDesc struct {
	oid     uint32
	name    string
	schema  string
	version string
	owner   uint32
	// operators and opclasses are its operators and operator classes
	// (extension_operators.go).
	operators []*operatorDesc
	opclasses []*opclassDesc
	// dictionaries are its text search dictionaries and their templates
	// (extension_unaccent.go).
	dictionaries []*tsDictDesc
	// accessMethods are its index access methods
	// (extension_access_methods.go).
	accessMethods []*accessMethodDesc
}

// availableExtension is an extension fickle can install: its control
// file's default version, comment and relocatability, its library, and
// its functions.
type availableExtension struct {
	name, version, comment, library string
	relocatable                     bool
	functions                       []extensionFunc
	// otherVersions are the versions PostgreSQL 15 can install besides
	// the default one, which fickle refuses (0A000).
	otherVersions []string
	// createTypes, when set, creates the extension's types in schema.
	createTypes func(d *ddl, schema string, ext *extensionDesc) error
	// operators and opclasses are the operators and operator classes it
	// creates after its functions (extension_operators.go); an operator
	// class without a function to follow comes after them all.
	operators []extensionOperator
	opclasses []extensionOpclass
	// accessMethods are the index access methods it creates, each after
	// its handler function (extension_access_methods.go).
	accessMethods []extensionAccessMethod
	// dictionaries are the text search dictionaries it creates, each with
	// its template, after its functions.
	dictionaries []extensionDictionary
}

// extensionFunc is a function an extension's script creates, implemented
// in Go: the C symbol its CREATE FUNCTION names. params include OUT
// parameters (arg false), which make the result a record of them;
// nonStrict is a function declared without STRICT. eval computes a
// scalar function's value; evalRows, when set, a set-returning one's rows.
type extensionFunc struct {
	name       string
	params     []funcParam
	result     types.Type
	volatility byte
	nonStrict  bool
	retSet     bool
	symbol     string
	eval       func(x *execCtx, args []any) (any, error)
	evalRows   func(x *execCtx, args []any) ([][]any, error)
}

// availableExtensions are the extensions CREATE EXTENSION installs.
var availableExtensions = map[string]*availableExtension{}

// extensionSymbols maps "library:symbol" to the Go implementation of an
// extension's C function, which returns its result rows. Overloads that
// share a symbol share the implementation, as they share the C function.
var extensionSymbols = map[string]func(x *execCtx, args []any) ([][]any, error){}

func registerExtension(e *availableExtension) {
	availableExtensions[e.name] = e
	for _, f := range e.functions {
		rows := f.evalRows
		if rows == nil {
			eval := f.eval
			rows = func(x *execCtx, args []any) ([][]any, error) {
				v, err := eval(x, args)
				if err != nil {
					return nil, err
				}
				return [][]any{{v}}, nil
			}
		}
		extensionSymbols[e.library+":"+f.symbol] = rows
	}
}

// oidPgExtensionClass is pg_extension's OID, the class of extensions'
// comments: CREATE EXTENSION gives its extension the control file's.
const oidPgExtensionClass = 3079

// The always-installed plpgsql, as initdb creates it.
const (
	plpgsqlVersion = "1.0"
	plpgsqlComment = "PL/pgSQL procedural language"
)

// createExtension runs CREATE EXTENSION [IF NOT EXISTS] name [SCHEMA s]
// [VERSION v] [CASCADE].
func (d *ddl) createExtension(ce *pg_query.CreateExtensionStmt) error {
	if ce.Extname == "plpgsql" || d.cat.extensions[ce.Extname] != nil {
		if ce.IfNotExists {
			d.notice(pgerror.DuplicateObject, "extension \"%s\" already exists, skipping", ce.Extname)
			return nil
		}
		return pgerror.Newf(pgerror.DuplicateObject, "extension \"%s\" already exists", ce.Extname)
	}
	avail := availableExtensions[ce.Extname]
	if avail == nil {
		return pgerror.Newf(pgerror.FeatureNotSupported, "extension \"%s\" is not supported by fickle", ce.Extname)
	}
	schema, version := "", avail.version
	for _, o := range ce.Options {
		de := o.GetDefElem()
		switch de.GetDefname() {
		case "schema":
			schema = de.Arg.GetString_().GetSval()
		case "new_version":
			version = de.Arg.GetString_().GetSval()
		case "cascade":
		default:
			return pgerror.Unsupported("CREATE EXTENSION option " + de.GetDefname())
		}
	}
	if version != avail.version && slices.Contains(avail.otherVersions, version) {
		return pgerror.Unsupported(fmt.Sprintf("version \"%s\" of extension \"%s\" (fickle installs version \"%s\")", version, avail.name, avail.version))
	}
	if version != avail.version {
		return pgerror.Newf(pgerror.InvalidParameterValue, "extension \"%s\" has no installation script nor update path for version \"%s\"", ce.Extname, version)
	}
	// No CREATE on the schema is needed: PostgreSQL runs a trusted
	// extension's script as the bootstrap superuser.
	schema, err := d.defaultCreationSchema(schema)
	if err != nil {
		return err
	}
	ext := &extensionDesc{oid: d.cat.newOID(), name: avail.name, schema: schema, version: version, owner: d.s.currentRole()}
	if avail.createTypes != nil {
		if err := avail.createTypes(d, schema, ext); err != nil {
			return err
		}
	}
	if err := d.addExtensionFuncs(schema, ext, avail, avail.functions); err != nil {
		return err
	}
	if err := d.createExtensionOperators(avail, ext, ""); err != nil {
		return err
	}
	d.createExtensionDictionaries(avail, ext)
	d.s.loadLibrary(avail.library)
	d.cat.extensions[ext.name] = ext
	d.cat.setComment(commentKey{classOID: oidPgExtensionClass, objOID: ext.oid}, avail.comment)
	return nil
}

// addExtensionFuncs creates the functions fns of extension ext (avail) in
// schema, with the operators avail implements with them.
func (d *ddl) addExtensionFuncs(schema string, ext *extensionDesc, avail *availableExtension, fns []extensionFunc) error {
	sc := d.cat.schemas[schema]
	for _, ef := range fns {
		f := &funcDesc{oid: d.cat.newOID(), schema: schema, name: ef.name, kind: 'f', lang: "c", params: ef.params,
			result: ef.result, retSet: ef.retSet, strict: !ef.nonStrict, volatility: ef.volatility, owner: d.s.user(),
			src: ef.symbol, library: avail.library, extension: ext.oid}
		for _, p := range ef.params {
			if p.arg {
				f.in = append(f.in, p.typ)
			} else {
				f.outCols = append(f.outCols, types.Field{Name: p.name, Type: p.typ})
			}
		}
		if len(f.outCols) > 0 {
			f.result = types.RecordType(f.outCols)
		}
		if slices.ContainsFunc(sc.funcs[f.name], func(g *funcDesc) bool { return sameTypes(g.inputTypes(), f.inputTypes()) }) {
			return pgerror.Newf(pgerror.DuplicateFunction, "function \"%s\" already exists with same argument types", f.name)
		}
		sc.funcs[f.name] = append(slices.Clip(sc.funcs[f.name]), f)
		d.createExtensionAccessMethods(avail, ext, f)
		if err := d.createExtensionOperators(avail, ext, f.name); err != nil {
			return err
		}
	}
	return nil
}

// dropExtensions runs DROP EXTENSION: the extensions' functions go with
// them, after the objects that use them under CASCADE.
func (d *ddl) dropExtensions(ds *pg_query.DropStmt) error {
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	var exts []*extensionDesc
	for _, o := range ds.Objects {
		name := o.GetString_().GetSval()
		ext := d.cat.extensions[name]
		switch {
		case name == "plpgsql":
			return pgerror.Unsupported("DROP EXTENSION plpgsql")
		case ext == nil && ds.MissingOk:
			d.notice(pgerror.SuccessfulCompletion, "extension \"%s\" does not exist, skipping", name)
		case ext == nil:
			return pgerror.Newf(pgerror.UndefinedObject, "extension \"%s\" does not exist", name)
		default:
			exts = append(exts, ext)
		}
	}
	for _, ext := range exts {
		if err := d.dropExtension(ext, cascade); err != nil {
			return err
		}
	}
	return nil
}

// dropExtension removes ext and its functions, refusing (2BP01) while other
// objects use them, unless cascade drops those too, with one notice for
// them all as PostgreSQL gives.
func (d *ddl) dropExtension(ext *extensionDesc, cascade bool) error {
	members := d.extensionMembers(ext)
	dropping := map[*funcDesc]bool{}
	for _, f := range members {
		dropping[f] = true
	}
	// The objects using the members, by member in OID order, as
	// PostgreSQL's DETAIL lists them.
	var uses []memberUse
	for _, f := range members {
		name, _ := catalogNames{s: d.s, cat: d.cat}.procName(f.oid, true)
		for _, dep := range d.routineDependents(f, dropping) {
			uses = append(uses, memberUse{member: f.oid, dep: dep, detail: fmt.Sprintf("%s depends on %s %s", dep.what, f.kindName(), name)})
		}
	}
	opUses, err := d.extensionOperatorUses(ext)
	if err != nil {
		return err
	}
	uses = append(uses, opUses...)
	uses = append(uses, d.extensionTSUses(ext)...)
	slices.SortStableFunc(uses, func(a, b memberUse) int { return cmp.Compare(a.member, b.member) })
	var deps []routineDependent
	var details []string
	seen := map[string]bool{}
	for _, u := range uses {
		if seen[u.dep.what] {
			continue // a default that calls two of the functions is one object
		}
		seen[u.dep.what] = true
		deps, details = append(deps, u.dep), append(details, u.detail)
	}
	if len(deps) > 0 && !cascade {
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop extension %s because other objects depend on it", ext.name).
			WithDetail("%s", strings.Join(details, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if err := refuseUndroppable(deps); err != nil {
		return err
	}
	lines := make([]string, len(deps))
	for i, dep := range deps {
		lines[i] = dep.what
	}
	typeDeps, err := d.dropExtensionTypes(ext, cascade)
	if err != nil {
		return err
	}
	if len(typeDeps) > 0 {
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop extension %s because other objects depend on it", ext.name).
			WithDetail("%s", strings.Join(typeDeps, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	d.cascadeNotice(lines)
	for _, dep := range deps {
		dep.drop(d)
	}
	for _, f := range members {
		d.removeRoutine(f)
	}
	delete(d.cat.extensions, ext.name)
	delete(d.cat.comments, commentKey{classOID: oidPgExtensionClass, objOID: ext.oid})
	for _, am := range ext.accessMethods {
		delete(d.cat.comments, commentKey{classOID: oidPgAmClass, objOID: am.oid})
	}
	return nil
}

// extensionMembers lists ext's functions in OID order.
func (d *ddl) extensionMembers(ext *extensionDesc) []*funcDesc {
	var out []*funcDesc
	for _, fs := range d.cat.schemas[ext.schema].funcs {
		for _, f := range fs {
			if f.extension == ext.oid {
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}

// extensionOf returns the extension f belongs to, nil for none.
func (c *catalog) extensionOf(f *funcDesc) *extensionDesc {
	if f.extension == 0 {
		return nil
	}
	for _, e := range c.extensions {
		if e.oid == f.extension {
			return e
		}
	}
	return nil
}

// invokeExtension runs a function of an extension: its Go implementation.
func invokeExtension(x *execCtx, f *funcDesc, vals []any) ([][]any, error) {
	if f.bound != nil {
		return f.bound(x, vals)
	}
	eval := extensionSymbols[f.library+":"+f.src]
	if eval == nil {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "could not find function \"%s\" in file \"%s\"", f.src, f.library)
	}
	x.s.loadLibrary(f.library)
	return eval(x, vals)
}

func init() {
	oid, name, text, b := types.OidType, types.Name, types.Text, types.Bool
	textArray, _ := types.ArrayOf(types.Text)
	oidArray, _ := types.ArrayOf(types.OidType)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_extension",
		cols: []vcol{{"oid", oid}, {"extname", name}, {"extowner", oid}, {"extnamespace", oid}, {"extrelocatable", b},
			{"extversion", text}, {"extconfig", oidArray}, {"extcondition", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			out := [][]any{{int64(oidPlpgsqlExt), "plpgsql", int64(oidBootstrapSuperuser), int64(oidPgCatalog), false, plpgsqlVersion, nil, nil}}
			for _, e := range sortedExtensions(c) {
				out = append(out, []any{int64(e.oid), e.name, int64(e.owner), schemaOID(c, e.schema),
					availableExtensions[e.name].relocatable, e.version, nil, nil})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_available_extensions",
		cols: []vcol{{"name", name}, {"default_version", text}, {"installed_version", text}, {"comment", text}},
		rows: func(s *Session, c *catalog) [][]any {
			out := [][]any{{"plpgsql", plpgsqlVersion, plpgsqlVersion, plpgsqlComment}}
			names := make([]string, 0, len(availableExtensions))
			for n := range availableExtensions {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				e := availableExtensions[n]
				var installed any
				if ie := c.extensions[n]; ie != nil {
					installed = ie.version
				}
				out = append(out, []any{e.name, e.version, installed, e.comment})
			}
			return out
		}})
}

// sortedExtensions lists the installed extensions in OID order.
func sortedExtensions(c *catalog) []*extensionDesc {
	out := make([]*extensionDesc, 0, len(c.extensions))
	for _, e := range c.extensions {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}
