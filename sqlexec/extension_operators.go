package sqlexec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Extensions' operators and operator classes. An extension declares them
// as it declares its functions (availableExtension.operators, .opclasses);
// CREATE EXTENSION creates them in the extension's schema, where operator
// lookup finds an operator as PostgreSQL does (through search_path, or in
// the schema OPERATOR(schema.op) names), and CREATE INDEX an operator
// class. DROP EXTENSION removes them with the extension, and the indexes
// using its operator classes under CASCADE.

// extensionOperator is a binary operator an extension's script creates:
// its argument types and the name of the extension's function it calls.
// after names the function the script creates it after (its OID follows
// that function's), proc when empty.
type extensionOperator struct {
	name        string
	left, right types.Type
	proc        string
	commutator  string
	after       string
}

// extensionOpclass is an operator class an extension's script creates:
// its access method, input type, the options it takes (nil for none), the
// function the script creates it after ("" for after all of them),
// whether it is the input type's default class for the method, and the
// type its index stores when not the input type (opckeytype; its OID 0
// for none).
type extensionOpclass struct {
	name, method string
	input        types.Type
	options      map[string]relOpt
	after        string
	isDefault    bool
	keyType      types.Type
}

// operatorDesc is an operator an extension or CREATE OPERATOR made
// (pg_operator's row): def holds its name and argument types (left of
// OID 0 for a prefix operator).
type operatorDesc struct {
	oid    uint32
	schema string
	def    extensionOperator
	// fn is an extension operator's function; a user's operator calls the
	// function of OID code (0 for a shell), a user routine or a built-in.
	fn    *funcDesc
	owner uint32
	// result is oprresult, code oprcode; com and negate are the OIDs of
	// the commutator and negator, rest and join those of the selectivity
	// estimators (0 for none).
	result               types.Type
	code, com, negate    uint32
	rest, join           uint32
	hashes, merges, user bool
}

// opclassDesc is an installed extension's operator class (pg_opclass's
// row) and its operator family's OID.
type opclassDesc struct {
	oid, family uint32
	schema      string
	def         extensionOpclass
}

// createExtensionOperators creates avail's operators and operator classes
// that its script creates after its function fn, in ext's schema: their
// OIDs follow in the script's order, which DROP EXTENSION's DETAIL
// follows.
func (d *ddl) createExtensionOperators(avail *availableExtension, ext *extensionDesc, fn string) error {
	sc := d.cat.schemas[ext.schema]
	for _, op := range avail.operators {
		if cmp.Or(op.after, op.proc) != fn {
			continue
		}
		fns := sc.funcs[op.proc]
		i := slices.IndexFunc(fns, func(f *funcDesc) bool { return f.extension == ext.oid })
		if i < 0 {
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s, %s) does not exist", op.proc, op.left, op.right)
		}
		ext.operators = append(ext.operators, &operatorDesc{oid: d.cat.newOID(), schema: ext.schema, def: op, fn: fns[i],
			owner: ext.owner, result: fns[i].result, code: fns[i].oid})
	}
	for _, oc := range avail.opclasses {
		if oc.after != fn {
			continue
		}
		family := d.cat.newOID()
		ext.opclasses = append(ext.opclasses, &opclassDesc{oid: d.cat.newOID(), family: family, schema: ext.schema, def: oc})
	}
	return nil
}

// lookupSchemas are the schemas a name of an operator or operator class
// is looked up in: the one it names, the search path a stored expression's
// operator keeps (storedOperatorName), else search_path's but the
// temporary schema.
func (s *Session) lookupSchemas(names []string) []string {
	if path, ok := storedOperatorPath(names); ok {
		return path
	}
	if len(names) > 1 {
		return []string{s.schemaAlias(names[len(names)-2])}
	}
	// As namespace.c's lookups of these, never the temporary schema.
	return slices.DeleteFunc(slices.Clone(s.searchPath()), isTempSchema)
}

// storedOperatorName is the name a stored expression keeps an operator
// under when extensions' or users' operators share its name: as its schema,
// storedPathMark and the schemas of the search path it was resolved with
// that hold candidates (pg_catalog and those with operators of the name),
// comma-separated. Bound anew where the expression is used, it resolves
// among the operators of those schemas in that order, as PostgreSQL's
// expression keeps the operator its creation found. The text survives
// deparsing to SQL and parsing back (pg_attrdef, pg_dump) as a quoted
// identifier of at most 63 bytes; a longer one is not made (ok false).
func storedOperatorName(path []string, name string) ([]*pg_query.Node, bool) {
	schema := storedPathMark + strings.Join(path, ",")
	if len(schema) > 63 {
		return nil, false
	}
	return []*pg_query.Node{pg_query.MakeStrNode(schema), pg_query.MakeStrNode(name)}, true
}

// storedPathMark starts the schema part of a name storedOperatorName
// made: a control character, which no schema's name starts with.
const storedPathMark = "\x01"

// storedOperatorPath is the search path a name storedOperatorName made
// keeps; false for another name.
func storedOperatorPath(names []string) ([]string, bool) {
	if len(names) == 2 && strings.HasPrefix(names[0], storedPathMark) {
		return strings.Split(names[0][len(storedPathMark):], ","), true
	}
	return nil, false
}

// extensionOpclass returns the installed extensions' operator class of
// access method method the (possibly qualified) name resolves to, nil
// for none.
func (s *Session) extensionOpclass(c *catalog, names []string, method string) *opclassDesc {
	name := names[len(names)-1]
	for _, schema := range s.lookupSchemas(names) {
		for _, ext := range sortedExtensions(c) {
			for _, oc := range ext.opclasses {
				if oc.schema == schema && oc.def.name == name && oc.def.method == method {
					return oc
				}
			}
		}
	}
	return nil
}

// extensionDefaultOpclass is the installed extensions' default operator
// class of access method method for a key of type typ (its own type's, or
// the one it is binary-coercible to), nil for none.
func (s *Session) extensionDefaultOpclass(c *catalog, method string, typ types.Type) *opclassDesc {
	for _, in := range opclassInputTypes(typ) {
		for _, ext := range sortedExtensions(c) {
			for _, oc := range ext.opclasses {
				if oc.def.isDefault && oc.def.method == method && uint32(oc.def.input.Oid) == in {
					return oc
				}
			}
		}
	}
	return nil
}

// memberUse is an object that uses a member of an extension being
// dropped: the member's OID, the object, and the DETAIL line naming both.
type memberUse struct {
	member uint32
	dep    routineDependent
	detail string
	// object is the OID of the object (its table's for a default or a
	// constraint), which orders the users of one member by creation.
	object uint32
}

// extensionOperatorUses lists the objects that use ext's operators (the
// stored expressions that name them) and operator classes (the indexes,
// whose tables it locks as PostgreSQL's deletion locks them).
func (d *ddl) extensionOperatorUses(ext *extensionDesc) ([]memberUse, error) {
	var out []memberUse
	for _, op := range ext.operators {
		uses := func(n *pg_query.Node, t *tableDesc, isQuery bool) bool {
			return usesOperator(n, op) && d.appliesOperator(n, t, isQuery, op)
		}
		detail := fmt.Sprintf(" depends on operator %s(%s,%s)", op.def.name, types.FormatTypeBe(op.def.left), types.FormatTypeBe(op.def.right))
		for _, u := range d.exprDependents(uses) {
			u.member, u.detail = op.oid, u.dep.what+detail
			out = append(out, u)
		}
	}
	for _, oc := range ext.opclasses {
		var found []*indexDesc
		for _, t := range d.cat.tables {
			for _, ix := range t.indexes {
				// A partition's index goes with its parent's.
				if ix.parent == 0 && slices.ContainsFunc(ix.keyOpts, func(o indexKeyOpts) bool { return o.opclassOID == oc.oid }) {
					found = append(found, ix)
				}
			}
		}
		slices.SortFunc(found, func(a, b *indexDesc) int { return cmp.Compare(a.oid, b.oid) })
		for _, ix := range found {
			t := d.cat.tables[ix.table]
			if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
				return nil, err
			}
			// An exclusion constraint's index is the constraint's, which
			// PostgreSQL names.
			what := "index " + ix.name
			if ix.constraint {
				what = fmt.Sprintf("constraint %s on table %s", ix.name, t.name)
			}
			out = append(out, memberUse{member: oc.oid, object: ix.oid,
				dep: routineDependent{what: what, drop: func(d *ddl) { d.dropExtensionIndex(ix) }},
				detail: fmt.Sprintf("%s depends on operator class %s for access method %s", what,
					d.s.qualifiedOpclass(oc.schema, oc.def.name), oc.def.method)})
		}
	}
	return out, nil
}

// usesOperator reports whether expression n may apply operator op: a
// binary operator of its name, qualified with its schema (as stored
// expressions are, qualifyCalls), whose operands are not plainly of a type
// the operator does not take (a number or a cast to a type other than a
// string type, for a name built-in operators share). appliesOperator
// decides.
func usesOperator(n *pg_query.Node, op *operatorDesc) bool {
	notString := func(e *pg_query.Node) bool {
		if c := e.GetAConst(); c != nil {
			return c.GetIval() != nil || c.GetFval() != nil
		}
		if tc := e.GetTypeCast(); tc != nil {
			switch lastName(tc.TypeName.Names) {
			case "text", "varchar", "bpchar", "char", "name", "unknown", "citext":
				return false
			}
			return true
		}
		return false
	}
	found := false
	walk(n, func(m *pg_query.Node) bool {
		ae := m.GetAExpr()
		if ae == nil || ae.Kind != pg_query.A_Expr_Kind_AEXPR_OP || (ae.Lexpr == nil) != op.prefix() {
			return !found
		}
		names := strs(ae.Name)
		path, stored := storedOperatorPath(names)
		if !stored && len(names) == 2 {
			path = names[:1]
		}
		if names[len(names)-1] != op.def.name || len(names) > 1 && !slices.Contains(path, op.schema) {
			return !found
		}
		found = op.user || ae.Lexpr == nil || !notString(ae.Lexpr) && !notString(ae.Rexpr)
		return !found
	})
	return found
}

// appliesOperator reports whether stored expression n (of table t, or a
// view's query) applies op once bound: an operator named like a built-in
// one (%, <->) may be the built-in one for its operands' types (int % int).
// An expression that no longer binds counts as applying it.
func (d *ddl) appliesOperator(n *pg_query.Node, t *tableDesc, isQuery bool, op *operatorDesc) bool {
	b := d.binder("")
	b.extOpsUsed = map[uint32]bool{}
	var err error
	if isQuery {
		_, err = b.selectNode(nil, n, nil)
	} else {
		_, err = b.expr(tableScope(t, t.name), n)
	}
	return err != nil || b.extOpsUsed[op.oid]
}

// exprDependents lists the stored expressions that use something uses
// finds (given the expression, its table, and whether it is a view's
// query): column defaults, CHECK constraints, generated columns (which
// CASCADE cannot drop in fickle) and views, by object OID.
func (d *ddl) exprDependents(uses func(n *pg_query.Node, t *tableDesc, isQuery bool) bool) []memberUse {
	var out []memberUse
	add := func(oid uint32, dep routineDependent) { out = append(out, memberUse{object: oid, dep: dep}) }
	for _, t := range sortedTables(d.cat) {
		for i, col := range t.cols {
			if col.generated != nil && uses(col.generated, t, false) {
				add(t.oid, routineDependent{what: fmt.Sprintf("column %s of table %s", col.name, t.name), byName: true})
			}
			if col.def != nil && uses(col.def, t, false) {
				add(t.oid, routineDependent{what: fmt.Sprintf("default value for column %s of table %s", col.name, t.name), byName: true,
					drop: func(d *ddl) {
						d.editTable(t.oid, func(nt *tableDesc) { c := *nt.cols[i]; c.def = nil; nt.cols[i] = &c })
					}})
			}
		}
		for _, ck := range t.checks {
			if uses(ck.expr, t, false) {
				add(t.oid, routineDependent{what: fmt.Sprintf("constraint %s on table %s", ck.name, t.name), byName: true,
					drop: func(d *ddl) {
						d.editTable(t.oid, func(nt *tableDesc) {
							nt.checks = slices.DeleteFunc(slices.Clone(nt.checks), func(c *checkDesc) bool { return c.name == ck.name })
						})
					}})
			}
		}
	}
	for _, v := range sortedViews(d.cat) {
		if uses(v.query, nil, true) {
			add(v.oid, routineDependent{what: "view " + v.name, byName: true, drop: func(d *ddl) {
				if cur := d.cat.schemas[v.schema].views[v.name]; cur != nil {
					_ = d.dropDependentViews("view", []uint32{v.oid}, true, func() { d.dropView(cur) })
				}
			}})
		}
	}
	slices.SortStableFunc(out, func(a, b memberUse) int { return cmp.Compare(a.object, b.object) })
	return out
}

// dropExtensionIndex drops index ix, which uses an operator class of an
// extension being dropped.
func (d *ddl) dropExtensionIndex(ix *indexDesc) {
	t := d.cat.tables[ix.table]
	if t == nil || !slices.Contains(t.indexes, ix) {
		return // gone with an earlier dependent
	}
	t = t.clone()
	_ = d.dropPartitionIndexes(t, ix.oid)
	_ = d.dropStoreIndex(ix.id)
	t.indexes = removeIndex(t.indexes, ix)
	delete(d.cat.schemas[t.schema].indexes, ix.name)
	d.cat.dropComments(ix.oid)
	d.cat.putTable(t)
}

// extensionOperatorRows are pg_operator's rows of the installed
// extensions' operators and of the users'.
func extensionOperatorRows(c *catalog) [][]any {
	const matchingsel, matchingjoinsel = 5040, 5041
	var out [][]any
	for _, op := range allOperators(c) {
		com, negate, rest, join := int64(op.com), int64(op.negate), int64(op.rest), int64(op.join)
		if !op.user {
			// An extension's script names the commutator and the
			// estimators its operators have.
			ops := operatorsOfExtension(c, op)
			for _, o := range ops {
				if o.def.name == op.def.commutator {
					com = int64(o.oid)
				}
			}
			if op.result.Oid == types.OidBool {
				rest, join = matchingsel, matchingjoinsel
			}
		}
		kind := "b"
		if op.prefix() {
			kind = "l"
		}
		out = append(out, []any{int64(op.oid), op.def.name, schemaOID(c, op.schema), int64(op.owner), kind, op.merges, op.hashes,
			int64(op.def.left.Oid), int64(op.def.right.Oid), int64(op.result.Oid), com, negate, int64(op.code), rest, join})
	}
	return out
}

// operatorsOfExtension are the operators of the extension op belongs to.
func operatorsOfExtension(c *catalog, op *operatorDesc) []*operatorDesc {
	for _, ext := range c.extensions {
		if slices.Contains(ext.operators, op) {
			return ext.operators
		}
	}
	return nil
}

// extensionOpclassRows are pg_opclass's rows of the installed extensions'
// operator classes.
func extensionOpclassRows(c *catalog) [][]any {
	var out [][]any
	for _, ext := range sortedExtensions(c) {
		for _, oc := range ext.opclasses {
			out = append(out, []any{int64(oc.oid), int64(c.accessMethodOID(oc.def.method)), oc.def.name, schemaOID(c, oc.schema),
				int64(ext.owner), int64(oc.family), int64(oc.def.input.Oid), oc.def.isDefault, int64(oc.def.keyType.Oid)})
		}
	}
	return out
}

// qualifiedOpclass is the name of operator class oc as pg_get_indexdef
// writes it: qualified when its schema is not on search_path.
func (s *Session) qualifiedOpclass(schema, name string) string {
	if schema == "" || s == nil || slices.Contains(s.searchPath(), schema) {
		return types.QuoteIdent(name)
	}
	return types.QuoteIdent(schema) + "." + types.QuoteIdent(name)
}

// extensionOpclassLookup finds the installed extensions' operator classes
// for CREATE INDEX.
func (d *ddl) extensionOpclassLookup() func(names []string, method string, typ types.Type) *opclassDesc {
	return func(names []string, method string, typ types.Type) *opclassDesc {
		if names == nil {
			return d.s.extensionDefaultOpclass(d.cat, method, typ)
		}
		if oc := d.s.userIndexOpclass(d.cat, names, method); oc != nil {
			return oc
		}
		return d.s.extensionOpclass(d.cat, names, method)
	}
}

// asBuiltinOper is op in the form the reg* types read and print.
func (op *operatorDesc) asBuiltinOper(c *catalog) *builtinOper {
	kind := byte('b')
	if op.prefix() {
		kind = 'l'
	}
	return &builtinOper{oid: op.oid, namespace: uint32(schemaOID(c, op.schema)), name: op.def.name, kind: kind,
		left: uint32(op.def.left.Oid), right: uint32(op.def.right.Oid), code: op.code, com: op.com}
}

// extensionOpers are the installed extensions' and the users' operators
// named name.
func extensionOpers(c *catalog, name string) []*builtinOper {
	var out []*builtinOper
	for _, op := range allOperators(c) {
		if op.def.name == name {
			out = append(out, op.asBuiltinOper(c))
		}
	}
	return out
}

// extensionOper is the installed extensions' or the users' operator of
// OID oid, nil for none.
func extensionOper(c *catalog, oid uint32) *builtinOper {
	if op := operatorByOID(c, oid); op != nil {
		return op.asBuiltinOper(c)
	}
	return nil
}

// The catalogs of operators and operator classes, for pg_depend.
const (
	oidPgOperatorClass   = 2617
	oidPgOpclassClass    = 2616
	oidPgOpfamilyClass   = 2753
	oidPgTsDictClass     = 3600
	oidPgTsTemplateClass = 3764
)

// extensionMemberRows are pg_depend's rows making the installed
// extensions' operators, operator classes and operator families their
// members ('e'): pg_dump leaves them to CREATE EXTENSION.
func extensionMemberRows(c *catalog) [][]any {
	var out [][]any
	member := func(class int64, oid uint32, ext *extensionDesc) {
		out = append(out, []any{class, int64(oid), int64(0), int64(oidPgExtensionClass), int64(ext.oid), int64(0), "e"})
	}
	for _, ext := range sortedExtensions(c) {
		for _, am := range ext.accessMethods {
			member(oidPgAmClass, am.oid, ext)
		}
		for _, op := range ext.operators {
			member(oidPgOperatorClass, op.oid, ext)
		}
		for _, oc := range ext.opclasses {
			member(oidPgOpfamilyClass, oc.family, ext)
			member(oidPgOpclassClass, oc.oid, ext)
		}
		for _, d := range ext.dictionaries {
			member(oidPgTsTemplateClass, d.templateOID, ext)
			member(oidPgTsDictClass, d.oid, ext)
		}
	}
	return out
}

// extensionOpfamilyRows are pg_opfamily's rows of the installed
// extensions' operator classes' families.
func extensionOpfamilyRows(c *catalog) [][]any {
	var out [][]any
	for _, ext := range sortedExtensions(c) {
		for _, oc := range ext.opclasses {
			out = append(out, []any{int64(oc.family), int64(c.accessMethodOID(oc.def.method)), oc.def.name, schemaOID(c, oc.schema), int64(ext.owner)})
		}
	}
	return out
}

// extensionOperator analyzes l op r (op r for a prefix operator) for the
// deparser when op resolves to an installed extension's or a user's
// operator (nil when it does not), written
// OPERATOR(schema.op) when its schema is not on search_path, as ruleutils
// prints an operator it would not find by its bare name.
func (d *deparser) extensionOperator(names []string, ln, rn *pg_query.Node) (*dnode, error) {
	if c := d.b.catalogNow(); len(c.extensions) == 0 && len(c.operators) == 0 {
		return nil, nil
	}
	var l *dnode
	var lt types.Type
	if ln != nil {
		var err error
		if l, err = d.analyze(ln); err != nil {
			return nil, err
		}
		lt = l.typ
	}
	r, err := d.analyze(rn)
	if err != nil {
		return nil, err
	}
	op, err := d.b.operatorOf(names, lt, r.typ)
	if op == nil || err != nil {
		return nil, nil
	}
	name := op.def.name
	if !slices.Contains(d.b.s.searchPath(), op.schema) {
		name = "OPERATOR(" + types.QuoteIdent(op.schema) + "." + name + ")"
	}
	args := []*dnode{d.coerce(r, op.def.right)}
	if l != nil {
		args = []*dnode{d.coerce(l, op.def.left), args[0]}
	}
	return &dnode{kind: dOp, typ: op.result, op: name, args: args}, nil
}

// storedOperatorSearchPath is the search path a stored expression keeps
// for an operator written without a schema (storedOperatorName), when an
// installed extension or a user has an operator of its name on the path:
// the schemas of the path holding candidates.
func (s *Session) storedOperatorSearchPath(c *catalog, ae *pg_query.A_Expr) ([]string, bool) {
	if ae.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(ae.Name) != 1 || len(c.extensions) == 0 && len(c.operators) == 0 {
		return nil, false
	}
	name, prefix := opName(ae.Name), ae.Lexpr == nil
	ops := allOperators(c)
	var path []string
	found := false
	for _, schema := range s.lookupSchemas([]string{name}) {
		if schema == "pg_catalog" {
			path = append(path, schema)
			continue
		}
		if slices.ContainsFunc(ops, func(op *operatorDesc) bool {
			return op.schema == schema && op.def.name == name && op.prefix() == prefix
		}) {
			path, found = append(path, schema), true
		}
	}
	return path, found
}

// describeExtensionObject is pg_describe_object for the installed
// extensions' operators, operator classes and families, text search
// dictionaries and templates, in getObjectDescription's words; false for
// another class.
func describeExtensionObject(s *Session, c *catalog, classid, objid uint32) (any, bool) {
	qualified := func(schema, name string) string {
		if slices.Contains(s.searchPath(), schema) {
			return types.QuoteIdent(name)
		}
		return types.QuoteIdent(schema) + "." + types.QuoteIdent(name)
	}
	switch classid {
	case oidPgOperatorClass, oidPgOpclassClass, oidPgOpfamilyClass, oidPgTsDictClass, oidPgTsTemplateClass:
	case oidPgAmClass:
		if name := c.accessMethodName(objid); name != "" && accessMethodByOID(objid) == "" {
			return "access method " + types.QuoteIdent(name), true
		}
		return nil, false
	default:
		return nil, false
	}
	if op := operatorByOID(c, objid); classid == oidPgOperatorClass && op != nil {
		name := op.def.name
		if !slices.Contains(s.searchPath(), op.schema) {
			name = types.QuoteIdent(op.schema) + "." + name
		}
		return "operator " + name + op.argList(), true
	}
	for _, ext := range c.extensions {
		for _, oc := range ext.opclasses {
			switch {
			case classid == oidPgOpclassClass && oc.oid == objid:
				return fmt.Sprintf("operator class %s for access method %s", qualified(oc.schema, oc.def.name), oc.def.method), true
			case classid == oidPgOpfamilyClass && oc.family == objid:
				return fmt.Sprintf("operator family %s for access method %s", qualified(oc.schema, oc.def.name), oc.def.method), true
			}
		}
		for _, d := range ext.dictionaries {
			switch {
			case classid == oidPgTsDictClass && d.oid == objid:
				return "text search dictionary " + qualified(d.schema, d.def.name), true
			case classid == oidPgTsTemplateClass && d.templateOID == objid:
				return "text search template " + qualified(d.schema, d.def.template), true
			}
		}
	}
	return nil, true
}

func init() {
	// pg_operator_is_visible for psql's \do: a built-in operator is in
	// pg_catalog, which every search path reads; an extension's or a user's
	// is visible when its schema is the first on the path with an operator
	// of its name and argument types.
	addSysFunc("pg_operator_is_visible", sysFunc{args: []types.Type{types.OidType}, result: types.Bool,
		eval: func(x *execCtx, a []any) (any, error) {
			oid := uint32(a[0].(int64))
			if builtinIndex().opers[oid] != nil {
				return true, nil
			}
			c, _ := x.s.catalog()
			op := extensionOper(c, oid)
			if op == nil {
				return nil, nil
			}
			for _, o := range (catalogNames{s: x.s, cat: c}).opersNamed(op.name) {
				if o.left == op.left && o.right == op.right {
					return o.oid == op.oid, nil
				}
			}
			return false, nil
		}})
}
