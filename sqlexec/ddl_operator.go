package sqlexec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// User-defined operators: CREATE OPERATOR, DROP OPERATOR, ALTER OPERATOR
// (SET, OWNER TO, SET SCHEMA) and COMMENT ON OPERATOR, as PostgreSQL 15's
// operatorcmds.c and pg_operator.c run them. An operator is an
// operatorDesc in the catalog's operators, beside the extensions'
// operators, and calls its function (oprcode) by OID: a user routine or a
// built-in function. A COMMUTATOR or NEGATOR that does not exist yet is
// made a shell (no function), which a later CREATE OPERATOR of its name
// and argument types fills in. Operator resolution (operator_resolve.go)
// chooses among these and the built-in operators.

// oidInternal is the pseudo-type internal, which selectivity estimators
// take.
const oidInternal = 2281

// prefix reports whether op is a prefix operator (oprkind 'l': no left
// operand).
func (op *operatorDesc) prefix() bool { return op.def.left.Oid == 0 }

// shell reports whether op is a shell: named by another operator's
// COMMUTATOR or NEGATOR, with no function yet.
func (op *operatorDesc) shell() bool { return op.code == 0 }

// signature is the operator as op_signature_string writes it in errors:
// "integer <<< integer", or "<<< integer" for a prefix operator.
func (op *operatorDesc) signature() string {
	return operatorSignature(op.def.name, op.def.left, op.def.right)
}

func operatorSignature(name string, left, right types.Type) string {
	if left.Oid == 0 {
		return name + " " + types.FormatTypeBe(right)
	}
	return types.FormatTypeBe(left) + " " + name + " " + types.FormatTypeBe(right)
}

// argList is the operator's argument types as format_operator writes them
// after its name: "(integer,integer)", NONE for a prefix operator's left.
func (op *operatorDesc) argList() string {
	left := "NONE"
	if !op.prefix() {
		left = types.FormatTypeBe(op.def.left)
	}
	return "(" + left + "," + types.FormatTypeBe(op.def.right) + ")"
}

// allOperators are the extensions' and the users' operators, by OID.
func allOperators(c *catalog) []*operatorDesc {
	var out []*operatorDesc
	for _, ext := range sortedExtensions(c) {
		out = append(out, ext.operators...)
	}
	for _, op := range c.operators {
		out = append(out, op)
	}
	slices.SortFunc(out, func(a, b *operatorDesc) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

// operatorByOID is the extension's or user's operator with the OID, nil
// for none.
func operatorByOID(c *catalog, oid uint32) *operatorDesc {
	if op := c.operators[oid]; op != nil {
		return op
	}
	for _, ext := range c.extensions {
		for _, op := range ext.operators {
			if op.oid == oid {
				return op
			}
		}
	}
	return nil
}

// putEntry stores v under k in *m, making the map on first use (a
// catalog's maps of user objects are nil until one is made).
func putEntry[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// putOperator stores op (new or replacing the descriptor of its OID).
func (c *catalog) putOperator(op *operatorDesc) {
	putEntry(&c.operators, op.oid, op)
}

// validOperatorName is pg_operator.c's validOperatorName.
func validOperatorName(name string) bool {
	if name == "" || len(name) >= 64 || strings.Trim(name, "~!@#^&|`?+-*/%<>=") != "" {
		return false
	}
	if strings.Contains(name, "/*") || strings.Contains(name, "--") {
		return false
	}
	if n := len(name); n > 1 && (name[n-1] == '+' || name[n-1] == '-') && !strings.ContainsAny(name[:n-1], "~!@#^&|`?%") {
		return false
	}
	return name != "!="
}

// defQualifiedName is defGetQualifiedName: the name a definition option
// gives, nil for none.
func defQualifiedName(n *pg_query.Node) []string {
	switch {
	case n == nil:
		return nil
	case n.GetTypeName() != nil:
		return strs(n.GetTypeName().Names)
	case n.GetList() != nil:
		return strs(n.GetList().Items)
	case n.GetString_() != nil:
		return []string{n.GetString_().Sval}
	}
	s, _ := defText(n)
	return []string{s}
}

// operatorFunc is the function an operator calls: a user routine or a
// built-in function, with its OID and result type.
type operatorFunc struct {
	oid    uint32
	fn     *funcDesc
	result types.Type
}

// lookupOperatorFunc is LookupFuncName: the function of the (possibly
// qualified) name with exactly the argument types, a user routine or a
// built-in one, in search path order; nil without error when missingOk.
func (d *ddl) lookupOperatorFunc(names []string, args []uint32, missingOk bool) (*operatorFunc, error) {
	name := names[len(names)-1]
	schemas := d.s.lookupSchemas(names)
	if len(names) > 1 && names[len(names)-2] != "pg_catalog" && d.cat.schemas[d.s.schemaAlias(names[len(names)-2])] == nil {
		if missingOk {
			return nil, nil
		}
		return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[len(names)-2])
	}
	for _, schema := range schemas {
		if schema == "pg_catalog" {
			for _, p := range builtinIndex().procsByName[name] {
				if slices.Equal(p.args, args) {
					t, _ := types.TypeByOid(types.Oid(p.rettype))
					return &operatorFunc{oid: p.oid, result: t}, nil
				}
			}
			continue
		}
		sc := d.cat.schemas[schema]
		if sc == nil {
			continue
		}
		for _, f := range withCurrentRowTypes(d.cat, sc.funcs[name]) {
			in := f.inputTypes()
			if len(in) == len(args) && slices.EqualFunc(in, args, func(t types.Type, o uint32) bool { return uint32(t.Oid) == o }) {
				return &operatorFunc{oid: f.oid, fn: f, result: f.result}, nil
			}
		}
	}
	if missingOk {
		return nil, nil
	}
	typeNames := make([]string, len(args))
	for i, a := range args {
		typeNames[i] = oidTypeName(a)
	}
	return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", strings.Join(names, "."), strings.Join(typeNames, ", "))
}

// oidTypeName is format_type_be of a type OID, pseudo-types included.
func oidTypeName(oid uint32) string {
	if t, ok := types.TypeByOid(types.Oid(oid)); ok {
		return types.FormatTypeBe(t)
	}
	if bt := builtinIndex().types[oid]; bt != nil {
		return bt.name
	}
	return fmt.Sprint(oid)
}

// requireExecuteOn is pg_proc_aclcheck for EXECUTE on an operator's
// function or estimator (built-in functions grant it to PUBLIC).
func (d *ddl) requireExecuteOn(f *operatorFunc, names []string) error {
	if f.fn != nil && !d.s.hasPrivilege(d.s.currentRole(), aclFunction, f.oid, []byte{'X'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for function %s", strings.Join(names, "."))
	}
	return nil
}

// requireTypeUsage is pg_type_aclcheck for USAGE on an operator's argument
// or result type.
func (d *ddl) requireTypeUsage(t types.Type) error {
	if td := d.cat.typeByOid(uint32(t.Oid)); td != nil && !d.s.hasPrivilege(d.s.currentRole(), aclType, td.oid, []byte{'U'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for type %s", td.name)
	}
	return nil
}

// estimators resolves an operator's RESTRICT and JOIN functions (nil
// names for none, 0 then).
func (d *ddl) estimators(restName, joinName []string) (rest, join uint32, err error) {
	if restName != nil {
		if rest, err = d.restrictionEstimator(restName); err != nil {
			return 0, 0, err
		}
	}
	if joinName != nil {
		if join, err = d.joinEstimator(joinName); err != nil {
			return 0, 0, err
		}
	}
	return rest, join, nil
}

// restrictionEstimator is ValidateRestrictionEstimator: the function
// (internal, oid, internal, integer) returning double precision.
func (d *ddl) restrictionEstimator(names []string) (uint32, error) {
	f, err := d.lookupOperatorFunc(names, []uint32{oidInternal, uint32(types.OidOid), oidInternal, uint32(types.OidInt4)}, false)
	if err != nil {
		return 0, err
	}
	if f.result.Oid != types.OidFloat8 {
		return 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "restriction estimator function %s must return type double precision", strings.Join(names, "."))
	}
	return f.oid, d.requireExecuteOn(f, names)
}

// joinEstimator is ValidateJoinEstimator: the function (internal, oid,
// internal, smallint, internal), or the older form without the last
// argument, returning double precision.
func (d *ddl) joinEstimator(names []string) (uint32, error) {
	args := []uint32{oidInternal, uint32(types.OidOid), oidInternal, uint32(types.OidInt2), oidInternal}
	f5, err := d.lookupOperatorFunc(names, args, true)
	if err != nil {
		return 0, err
	}
	f4, err := d.lookupOperatorFunc(names, args[:4], true)
	if err != nil {
		return 0, err
	}
	f := cmp.Or(f5, f4)
	switch {
	case f5 != nil && f4 != nil:
		return 0, pgerror.Newf(pgerror.AmbiguousFunction, "join estimator function %s has multiple matches", strings.Join(names, "."))
	case f == nil:
		if _, err := d.lookupOperatorFunc(names, args, false); err != nil {
			return 0, err
		}
	}
	if f.result.Oid != types.OidFloat8 {
		return 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "join estimator function %s must return type double precision", strings.Join(names, "."))
	}
	return f.oid, d.requireExecuteOn(f, names)
}

// operatorTypeArg is an operator's LEFTARG or RIGHTARG (defGetTypeName):
// SETOF is refused.
func operatorTypeArg(name string, n *pg_query.Node) (*pg_query.TypeName, error) {
	var tn *pg_query.TypeName
	switch {
	case n == nil:
		return nil, pgerror.Newf(pgerror.SyntaxError, "%s requires a parameter", name)
	case n.GetTypeName() != nil:
		tn = n.GetTypeName()
	default:
		tn = &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode(defQualifiedName(n)[0])}, Typemod: -1}
	}
	if tn.Setof {
		return nil, pgerror.New(pgerror.InvalidFunctionDefinition, "SETOF type not allowed for operator argument")
	}
	return tn, nil
}

// createOperator runs CREATE OPERATOR: DefineOperator's checks, then
// OperatorCreate's, which fill in a shell of the name and argument types
// and make shells of a COMMUTATOR and NEGATOR that do not exist.
func (d *ddl) createOperator(ds *pg_query.DefineStmt) error {
	names := strs(ds.Defnames)
	name := names[len(names)-1]
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	var leftName, rightName *pg_query.TypeName
	var funcName, comName, negName, restName, joinName []string
	var hashes, merges bool
	for _, n := range ds.Definition {
		de := n.GetDefElem()
		switch de.Defname {
		case "leftarg", "rightarg":
			tn, err := operatorTypeArg(de.Defname, de.Arg)
			if err != nil {
				return err
			}
			if de.Defname == "leftarg" {
				leftName = tn
			} else {
				rightName = tn
			}
		case "function", "procedure":
			funcName = defQualifiedName(de.Arg)
		case "commutator":
			comName = defQualifiedName(de.Arg)
		case "negator":
			negName = defQualifiedName(de.Arg)
		case "restrict":
			restName = defQualifiedName(de.Arg)
		case "join":
			joinName = defQualifiedName(de.Arg)
		case "hashes", "merges":
			v, err := defBoolean(de)
			if err != nil {
				return err
			}
			if de.Defname == "hashes" {
				hashes = v
			} else {
				merges = v
			}
		case "sort1", "sort2", "ltcmp", "gtcmp":
			merges = true // obsolete options that mean MERGES
		default:
			d.warning(pgerror.SyntaxError, "operator attribute \"%s\" not recognized", de.Defname)
		}
	}
	if funcName == nil {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "operator function must be specified")
	}
	b := d.binder("")
	var left, right types.Type
	if leftName != nil {
		if left, err = b.typeName(leftName); err != nil {
			return err
		}
	}
	if rightName != nil {
		if right, err = b.typeName(rightName); err != nil {
			return err
		}
	}
	if leftName == nil && rightName == nil {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "operator argument types must be specified")
	}
	if rightName == nil {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "operator right argument type must be specified").
			WithDetail("Postfix operators are not supported.")
	}
	for _, tn := range []*pg_query.TypeName{leftName, rightName} {
		if tn == nil {
			continue
		}
		if dom := b.domainNamed(tn); dom != nil {
			if !d.s.hasPrivilege(d.s.currentRole(), aclType, dom.oid, []byte{'U'}) {
				return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for type %s", dom.name)
			}
			return pgerror.Unsupported("an operator over a domain")
		}
	}
	if leftName != nil {
		if err := d.requireTypeUsage(left); err != nil {
			return err
		}
	}
	if err := d.requireTypeUsage(right); err != nil {
		return err
	}
	args := []uint32{uint32(right.Oid)}
	if leftName != nil {
		args = []uint32{uint32(left.Oid), uint32(right.Oid)}
	}
	f, err := d.lookupOperatorFunc(funcName, args, false)
	if err != nil {
		return err
	}
	if err := d.requireExecuteOn(f, funcName); err != nil {
		return err
	}
	if err := d.requireTypeUsage(f.result); err != nil {
		return err
	}
	rest, join, err := d.estimators(restName, joinName)
	if err != nil {
		return err
	}
	// OperatorCreate.
	if !validOperatorName(name) {
		return pgerror.Newf(pgerror.InvalidName, "\"%s\" is not a valid operator name", name)
	}
	if leftName == nil {
		switch {
		case comName != nil:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only binary operators can have commutators")
		case join != 0:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only binary operators can have join selectivity")
		case merges:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only binary operators can merge join")
		case hashes:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only binary operators can hash")
		}
	}
	if f.result.Oid != types.OidBool {
		switch {
		case negName != nil:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only boolean operators can have negators")
		case rest != 0:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only boolean operators can have restriction selectivity")
		case join != 0:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only boolean operators can have join selectivity")
		case merges:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only boolean operators can merge join")
		case hashes:
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only boolean operators can hash")
		}
	}
	if slices.ContainsFunc(d.cat.extensionsIn(schema), func(op *operatorDesc) bool {
		return op.def.name == name && op.def.left.Oid == left.Oid && op.def.right.Oid == right.Oid
	}) {
		return pgerror.Newf(pgerror.DuplicateFunction, "operator %s already exists", name)
	}
	existing := d.userOperatorIn(schema, name, left, right)
	if existing != nil && !existing.shell() {
		return pgerror.Newf(pgerror.DuplicateFunction, "operator %s already exists", name)
	}
	if existing != nil && !d.s.actsAsOwner(existing.owner) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of operator %s", name)
	}
	var com, neg uint32
	self := false
	if comName != nil {
		if com, self, err = d.otherOperator(comName, right, left, schema, name, left, right, true); err != nil {
			return err
		}
	}
	if negName != nil {
		if neg, _, err = d.otherOperator(negName, left, right, schema, name, left, right, false); err != nil {
			return err
		}
	}
	op := &operatorDesc{schema: schema, def: extensionOperator{name: name, left: left, right: right}, owner: d.s.currentRole(),
		result: f.result, code: f.oid, com: com, negate: neg, rest: rest, join: join, hashes: hashes, merges: merges, user: true}
	if existing != nil {
		op.oid, op.owner = existing.oid, existing.owner
	} else {
		op.oid = d.cat.newOID()
	}
	if self {
		op.com = op.oid
	}
	d.cat.putOperator(op)
	d.linkOperator(op.oid, op.com, op.negate, false)
	return nil
}

// extensionsIn are the installed extensions' operators in the schema.
func (c *catalog) extensionsIn(schema string) []*operatorDesc {
	var out []*operatorDesc
	for _, ext := range c.extensions {
		for _, op := range ext.operators {
			if op.schema == schema {
				out = append(out, op)
			}
		}
	}
	return out
}

// userOperatorIn is the user's operator of the name and argument types
// in the schema, nil for none.
func (d *ddl) userOperatorIn(schema, name string, left, right types.Type) *operatorDesc {
	for _, op := range d.cat.operators {
		if op.schema == schema && op.def.name == name && op.def.left.Oid == left.Oid && op.def.right.Oid == right.Oid {
			return op
		}
	}
	return nil
}

// otherOperator is get_other_operator: the operator a COMMUTATOR (with
// the argument types swapped) or NEGATOR names, made a shell when it does
// not exist; self reports a commutator naming the operator being created.
func (d *ddl) otherOperator(names []string, left, right types.Type, schema, name string, opLeft, opRight types.Type, commutator bool) (uint32, bool, error) {
	if other := d.lookupOperator(names, left, right); other != 0 {
		if op := operatorByOID(d.cat, other); op == nil || !d.s.actsAsOwner(op.owner) {
			return 0, false, pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of operator %s", strings.Join(names, "."))
		}
		return other, false, nil
	}
	otherSchema, err := d.nameCreationSchema(names)
	if err != nil {
		return 0, false, err
	}
	otherName := names[len(names)-1]
	if otherName == name && otherSchema == schema && left.Oid == opLeft.Oid && right.Oid == opRight.Oid {
		if !commutator {
			return 0, false, pgerror.New(pgerror.InvalidFunctionDefinition, "operator cannot be its own negator or sort operator")
		}
		return 0, true, nil
	}
	if !validOperatorName(otherName) {
		return 0, false, pgerror.Newf(pgerror.InvalidName, "\"%s\" is not a valid operator name", otherName)
	}
	shell := &operatorDesc{oid: d.cat.newOID(), schema: otherSchema, def: extensionOperator{name: otherName, left: left, right: right},
		owner: d.s.currentRole(), user: true}
	d.cat.putOperator(shell)
	return shell.oid, false, nil
}

// linkOperator is OperatorUpd: the commutator's oprcom and the negator's
// oprnegate point at base when unset (creating), or are unset when they
// point at it (dropping).
func (d *ddl) linkOperator(base, com, neg uint32, dropping bool) {
	update := func(oid uint32, field func(*operatorDesc) *uint32) {
		op := d.cat.operators[oid]
		if op == nil {
			return
		}
		next := *op
		switch p := field(&next); {
		case dropping && *p == base:
			*p = 0
		case !dropping && *p == 0:
			*p = base
		default:
			return
		}
		d.cat.putOperator(&next)
	}
	if com != 0 {
		update(com, func(op *operatorDesc) *uint32 { return &op.com })
	}
	if neg != 0 {
		update(neg, func(op *operatorDesc) *uint32 { return &op.negate })
	}
}

// lookupOperator is LookupOperName with missing_ok: the OID of the
// operator of the (possibly qualified) name and exact argument types
// (left of OID 0 for a prefix operator), first on the search path; 0 for
// none.
func (d *ddl) lookupOperator(names []string, left, right types.Type) uint32 {
	name := names[len(names)-1]
	for _, schema := range d.s.lookupSchemas(names) {
		if schema == "pg_catalog" {
			for _, o := range builtinIndex().opersByName[name] {
				if o.left == uint32(left.Oid) && o.right == uint32(right.Oid) {
					return o.oid
				}
			}
			continue
		}
		for _, op := range allOperators(d.cat) {
			if op.schema == schema && op.def.name == name && op.def.left.Oid == left.Oid && op.def.right.Oid == right.Oid {
				return op.oid
			}
		}
	}
	return 0
}

// operatorArgs reads the argument types an ObjectWithArgs gives an
// operator (NONE for a prefix operator's left): a postfix one is refused.
func (d *ddl) operatorArgs(owa *pg_query.ObjectWithArgs) (left, right types.Type, err error) {
	if len(owa.Objargs) != 2 {
		return left, right, pgerror.New(pgerror.SyntaxError, "missing argument").
			WithHint("Use NONE to denote the missing argument of a unary operator.")
	}
	if owa.Objargs[1].GetTypeName() == nil {
		return left, right, pgerror.New(pgerror.SyntaxError, "postfix operators are not supported")
	}
	b := d.binder("")
	if tn := owa.Objargs[0].GetTypeName(); tn != nil {
		if left, err = b.typeName(tn); err != nil {
			return left, right, err
		}
	}
	right, err = b.typeName(owa.Objargs[1].GetTypeName())
	return left, right, err
}

// findOperator is LookupOperWithArgs: the user's or extension's operator
// an ObjectWithArgs names, nil with missing (a notice under IF EXISTS)
// when there is none; a built-in operator is refused (0A000) for what,
// the statement.
func (d *ddl) findOperator(owa *pg_query.ObjectWithArgs, missingOk bool, what string) (*operatorDesc, error) {
	names := strs(owa.Objname)
	left, right, err := d.operatorArgs(owa)
	if err != nil {
		return nil, err
	}
	if len(names) > 1 && names[len(names)-2] != "pg_catalog" && d.cat.schemas[d.s.schemaAlias(names[len(names)-2])] == nil {
		if missingOk {
			d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", names[len(names)-2])
			return nil, nil
		}
		return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[len(names)-2])
	}
	oid := d.lookupOperator(names, left, right)
	if oid == 0 {
		if missingOk {
			d.notice(pgerror.SuccessfulCompletion, "operator %s does not exist, skipping", strings.Join(names, "."))
			return nil, nil
		}
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", operatorSignature(strings.Join(names, "."), left, right))
	}
	op := operatorByOID(d.cat, oid)
	if op == nil && what == "DROP OPERATOR" {
		builtin := &operatorDesc{def: extensionOperator{name: names[len(names)-1], left: left, right: right}}
		return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop operator %s%s because it is required by the database system",
			builtin.def.name, builtin.argList())
	}
	if op == nil {
		return nil, pgerror.Unsupported(what + " of a built-in operator")
	}
	return op, nil
}

// requireOperatorOwner is pg_oper_ownercheck's 42501.
func (d *ddl) requireOperatorOwner(op *operatorDesc) error {
	return d.s.requireOwner(op.owner, "operator", op.def.name)
}

// dropOperators runs DROP OPERATOR: objects that use an operator need
// CASCADE, and the operators that named it as their commutator or negator
// lose the link.
func (d *ddl) dropOperators(ds *pg_query.DropStmt) error {
	var ops []*operatorDesc
	for _, o := range ds.Objects {
		op, err := d.findOperator(o.GetObjectWithArgs(), ds.MissingOk, "DROP OPERATOR")
		if err != nil {
			return err
		}
		if op == nil || slices.Contains(ops, op) {
			continue
		}
		if !op.user {
			ext := d.cat.extensionOfOperator(op)
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s because extension %s requires it", d.s.operatorDescription(op), ext).
				WithHint("You can drop extension %s instead.", ext)
		}
		if err := d.requireOperatorOwner(op); err != nil {
			return err
		}
		ops = append(ops, op)
	}
	for _, op := range ops {
		if err := d.dropOperator(op, ds.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
			return err
		}
	}
	return nil
}

// operatorDescription is op as getObjectDescription names it: "operator
// <<<(integer,integer)", qualified when its schema is not on the path.
func (s *Session) operatorDescription(op *operatorDesc) string {
	return "operator " + s.visibleName(op.schema, op.def.name) + op.argList()
}

// extensionOfOperator is the name of the extension op belongs to.
func (c *catalog) extensionOfOperator(op *operatorDesc) string {
	for _, ext := range c.extensions {
		if slices.Contains(ext.operators, op) {
			return ext.name
		}
	}
	return ""
}

// dropOperator drops op, refusing (or under cascade dropping) the stored
// expressions that use it.
func (d *ddl) dropOperator(op *operatorDesc, cascade bool) error {
	what := d.s.operatorDescription(op)
	var deps []routineDependent
	uses := func(n *pg_query.Node, t *tableDesc, isQuery bool) bool {
		return usesOperator(n, op) && d.appliesOperator(n, t, isQuery, op)
	}
	for _, u := range d.exprDependents(uses) {
		deps = append(deps, u.dep)
	}
	deps = append(deps, d.memberOwnerDependents(false, op.oid)...)
	if err := d.dropDependents(what, deps, cascade); err != nil {
		return err
	}
	cur := d.cat.operators[op.oid]
	if cur == nil {
		return nil
	}
	d.dropSoftMembers(false, op.oid)
	d.linkOperator(op.oid, cur.com, cur.negate, true)
	delete(d.cat.operators, op.oid)
	d.cat.dropComments(op.oid)
	return nil
}

// operatorDependents are the user's operators that call f or use it as
// an estimator: dropping f needs CASCADE, which drops them.
func (d *ddl) operatorDependents(f *funcDesc) []routineDependent {
	var out []routineDependent
	for _, op := range allOperators(d.cat) {
		if !op.user || (op.code != f.oid && op.rest != f.oid && op.join != f.oid) {
			continue
		}
		out = append(out, routineDependent{what: d.s.operatorDescription(op), drop: func(d *ddl) {
			if cur := d.cat.operators[op.oid]; cur != nil {
				_ = d.dropOperator(cur, true)
			}
		}})
	}
	return out
}

// alterOperator runs ALTER OPERATOR ... SET (RESTRICT = ..., JOIN = ...),
// the options PostgreSQL 15 lets change (NONE removes the estimator).
func (d *ddl) alterOperator(st *pg_query.AlterOperatorStmt) error {
	names := strs(st.Opername.Objname)
	left, right, err := d.operatorArgs(st.Opername)
	if err != nil {
		return err
	}
	oid := d.lookupOperator(names, left, right)
	if oid == 0 {
		return pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", operatorSignature(strings.Join(names, "."), left, right))
	}
	var restName, joinName []string
	var setRest, setJoin bool
	for _, n := range st.Options {
		de := n.GetDefElem()
		switch de.Defname {
		case "restrict":
			restName, setRest = defQualifiedName(de.Arg), true
		case "join":
			joinName, setJoin = defQualifiedName(de.Arg), true
		case "leftarg", "rightarg", "function", "procedure", "commutator", "negator", "hashes", "merges":
			return pgerror.Newf(pgerror.SyntaxError, "operator attribute \"%s\" cannot be changed", de.Defname)
		default:
			return pgerror.Newf(pgerror.SyntaxError, "operator attribute \"%s\" not recognized", de.Defname)
		}
	}
	op := operatorByOID(d.cat, oid)
	if op == nil {
		return pgerror.Unsupported("ALTER OPERATOR of a built-in operator")
	}
	if err := d.requireOperatorOwner(op); err != nil {
		return err
	}
	rest, join, err := d.estimators(restName, joinName)
	if err != nil {
		return err
	}
	if op.prefix() && join != 0 {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "only binary operators can have join selectivity")
	}
	if op.result.Oid != types.OidBool {
		if rest != 0 {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only boolean operators can have restriction selectivity")
		}
		if join != 0 {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "only boolean operators can have join selectivity")
		}
	}
	if !op.user {
		return pgerror.Unsupported("ALTER OPERATOR of an extension's operator")
	}
	next := *op
	if setRest {
		next.rest = rest
	}
	if setJoin {
		next.join = join
	}
	d.cat.putOperator(&next)
	return nil
}

// alterOperatorOwner runs ALTER OPERATOR ... OWNER TO, with
// AlterObjectOwner's checks.
func (d *ddl) alterOperatorOwner(ao *pg_query.AlterOwnerStmt) error {
	op, err := d.findOperator(ao.Object.GetObjectWithArgs(), false, "ALTER OPERATOR")
	if err != nil {
		return err
	}
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	if r.oid == op.owner {
		return nil
	}
	err = d.mayGiveInSchema(r, func() error { return d.requireOperatorOwner(op) }, op.schema)
	if err != nil {
		return err
	}
	if !op.user {
		return pgerror.Unsupported("ALTER OPERATOR ... OWNER TO of an extension's operator")
	}
	next := *op
	next.owner = r.oid
	d.cat.putOperator(&next)
	return nil
}

// setOperatorSchema runs ALTER OPERATOR ... SET SCHEMA.
func (d *ddl) setOperatorSchema(st *pg_query.AlterObjectSchemaStmt) error {
	op, err := d.findOperator(st.Object.GetObjectWithArgs(), st.MissingOk, "ALTER OPERATOR")
	if err != nil || op == nil {
		return err
	}
	sc := d.cat.schemas[st.Newschema]
	if sc == nil {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", st.Newschema)
	}
	if err := d.requireOperatorOwner(op); err != nil {
		return err
	}
	if err := d.requireSchemaCreate(sc.name); err != nil {
		return err
	}
	if op.schema == sc.name {
		return nil
	}
	if d.userOperatorIn(sc.name, op.def.name, op.def.left, op.def.right) != nil ||
		slices.ContainsFunc(d.cat.extensionsIn(sc.name), func(o *operatorDesc) bool {
			return o.def.name == op.def.name && o.def.left.Oid == op.def.left.Oid && o.def.right.Oid == op.def.right.Oid
		}) {
		return pgerror.Newf(pgerror.DuplicateFunction, "operator %s%s already exists in schema \"%s\"", op.def.name, op.argList(), sc.name)
	}
	if !op.user {
		return pgerror.Unsupported("ALTER OPERATOR ... SET SCHEMA of an extension's operator")
	}
	next := *op
	next.schema = sc.name
	d.cat.putOperator(&next)
	return nil
}

// commentOnOperator runs COMMENT ON OPERATOR.
func (d *ddl) commentOnOperator(cs *pg_query.CommentStmt) error {
	op, err := d.findOperator(cs.Object.GetObjectWithArgs(), false, "COMMENT ON OPERATOR")
	if err != nil {
		return err
	}
	if err := d.requireOperatorOwner(op); err != nil {
		return err
	}
	d.cat.setComment(commentKey{classOID: oidPgOperatorClass, objOID: op.oid}, cs.Comment)
	return nil
}

// operatorDependencyRows are pg_depend's rows of the users' operators
// (makeOperatorDependencies): on their schema, their argument and result
// types, function and estimators ('n'), those that are not built-in
// (pinned) objects, each once.
func operatorDependencyRows(c *catalog) [][]any {
	var out [][]any
	for _, op := range allOperators(c) {
		if !op.user {
			continue
		}
		seen := map[[2]uint32]bool{}
		dep := func(class, oid uint32) {
			if seen[[2]uint32{class, oid}] {
				return
			}
			seen[[2]uint32{class, oid}] = true
			if oid >= firstUserOID || class == oidPgNamespace && oid == oidPublic {
				out = append(out, []any{int64(oidPgOperatorClass), int64(op.oid), int64(0), int64(class), int64(oid), int64(0), "n"})
			}
		}
		dep(oidPgNamespace, uint32(schemaOID(c, op.schema)))
		for _, t := range []types.Type{op.def.left, op.def.right, op.result} {
			dep(oidPgType, uint32(t.Oid))
		}
		for _, f := range []uint32{op.code, op.rest, op.join} {
			dep(oidPgProc, f)
		}
	}
	return out
}

// operatorsOfSchema are the user's operators in the schema, by OID, which
// DROP SCHEMA needs CASCADE to drop.
func (c *catalog) operatorsOfSchema(schema string) []*operatorDesc {
	var out []*operatorDesc
	for _, op := range allOperators(c) {
		if op.user && op.schema == schema {
			out = append(out, op)
		}
	}
	return out
}

// operatorsClash reports whether two of the operators have one name and
// argument types in one schema: two transactions each created one, which
// pg_operator's unique index refuses to the second to commit.
func operatorsClash(ops map[uint32]*operatorDesc) bool {
	seen := map[[4]string]bool{}
	for _, op := range ops {
		key := [4]string{op.schema, op.def.name, fmt.Sprint(op.def.left.Oid), fmt.Sprint(op.def.right.Oid)}
		if seen[key] {
			return true
		}
		seen[key] = true
	}
	return false
}

// tempOperatorNames are the session's temporary operators as DROP
// OPERATOR names them, for the end of the session.
func tempOperatorNames(c *catalog, schema string) []string {
	var out []string
	for _, op := range c.operatorsOfSchema(schema) {
		left := "NONE"
		if !op.prefix() {
			left = types.FormatTypeBe(op.def.left)
		}
		out = append(out, types.QuoteIdent(schema)+"."+op.def.name+" ("+left+", "+types.FormatTypeBe(op.def.right)+")")
	}
	return out
}
