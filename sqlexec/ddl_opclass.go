package sqlexec

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Operator classes and families: CREATE OPERATOR CLASS, CREATE / ALTER
// OPERATOR FAMILY (ADD, DROP), DROP, RENAME TO, OWNER TO, SET SCHEMA and
// COMMENT ON, as PostgreSQL 15's opclasscmds.c runs them. A user's family
// and class are rows of the transactional catalog beside pg_opfamily's and
// pg_opclass's built-in ones; their operators and support functions
// (amMember) are pg_amop's and pg_amproc's rows, also of built-in families
// that ALTER OPERATOR FAMILY extends. What uses a class (an index, a
// partition key) is in ddl_opclass_use.go.

// opfamilyDesc is an operator family (pg_opfamily's row).
type opfamilyDesc struct {
	oid          uint32
	method       string
	schema, name string
	owner        uint32
	builtin      bool
}

// userOpclass is a user's operator class (pg_opclass's row): input is
// opcintype, keytype opckeytype (0 for the input type).
type userOpclass struct {
	oid, family    uint32
	method         string
	schema, name   string
	owner          uint32
	input, keytype uint32
	isDefault      bool
}

// amMember is an operator (pg_amop) or support function (pg_amproc) a
// user added to a family: number is the strategy or support number,
// object the operator's or function's OID, sortFamily the btree family of
// an ordering operator (FOR ORDER BY). opclass is the class it belongs to,
// 0 for a member of the family alone; hard says it needs its operator or
// function and goes with its class (or family), else it goes with either
// (amadjustmembers' ref_is_hard).
type amMember struct {
	oid         uint32
	proc        bool
	family      uint32
	method      string
	number      int
	left, right uint32
	object      uint32
	sortFamily  uint32
	opclass     uint32
	hard        bool
}

// amSpec is what an index access method's handler tells opclasscmds.c:
// amstrategies (0: any int16), amsupport, amoptsprocnum, amcanorderbyop
// and amstorage.
type amSpec struct {
	strategies, support, optsProc int
	canOrderByOp, storage         bool
}

// indexAMSpecs are PostgreSQL 15's index access methods.
var indexAMSpecs = map[string]amSpec{
	"btree":  {strategies: 5, support: 5, optsProc: 5},
	"hash":   {strategies: 1, support: 3, optsProc: 3},
	"gist":   {support: 11, optsProc: 10, canOrderByOp: true, storage: true},
	"gin":    {support: 7, optsProc: 7, storage: true},
	"spgist": {support: 7, optsProc: 7, canOrderByOp: true, storage: true},
	"brin":   {support: 15, optsProc: 5, storage: true},
}

// maxStrategy is the largest operator number method takes.
func (a amSpec) maxStrategy() int {
	if a.strategies <= 0 {
		return math.MaxInt16
	}
	return a.strategies
}

// OIDs of pseudo-types support functions take or return.
const (
	oidVoidType = 2278
	oidAmBtree  = 403
	oidAmHash   = 405
)

// indexAM resolves an access method's name for these statements: 42704
// when there is none, 42809 for a table access method.
func indexAM(name string) (amSpec, error) {
	if name == "heap" {
		return amSpec{}, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "access method \"%s\" is not of type INDEX", name)
	}
	spec, ok := indexAMSpecs[name]
	if !ok {
		return amSpec{}, pgerror.Newf(pgerror.UndefinedObject, "access method \"%s\" does not exist", name)
	}
	return spec, nil
}

// builtinFamilyDescs are pg_opfamily's built-in rows.
var builtinFamilyDescs = sync.OnceValue(func() []*opfamilyDesc {
	methods := map[uint32]string{}
	for name, oid := range indexAccessMethods {
		methods[oid] = name
	}
	var out []*opfamilyDesc
	eachRow(pgdata.Load(pgdata.PgOpfamily), func(get func(string) string) {
		out = append(out, &opfamilyDesc{oid: atou(get("oid")), method: methods[atou(get("opfmethod"))], schema: "pg_catalog",
			name: get("opfname"), owner: oidBootstrapSuperuser, builtin: true})
	})
	return out
})

// builtinOpclassRow is a built-in operator class's name, method and
// family, for DROP and the lookups of names.
type builtinOpclassRow struct {
	oid, family, input uint32
	name, method       string
}

var builtinOpclassRows = sync.OnceValue(func() []builtinOpclassRow {
	methods := map[uint32]string{}
	for name, oid := range indexAccessMethods {
		methods[oid] = name
	}
	var out []builtinOpclassRow
	eachRow(pgdata.Load(pgdata.PgOpclass), func(get func(string) string) {
		out = append(out, builtinOpclassRow{oid: atou(get("oid")), family: atou(get("opcfamily")), input: atou(get("opcintype")),
			name: get("opcname"), method: methods[atou(get("opcmethod"))]})
	})
	return out
})

// builtinMembers are the operators (kind 0, pg_amop) and support
// functions (kind 1, pg_amproc) of the built-in families by kind, family,
// left and right type and number.
var builtinMembers = sync.OnceValue(func() map[[5]uint32]uint32 {
	out := map[[5]uint32]uint32{}
	eachRow(pgdata.Load(pgdata.PgAmop), func(get func(string) string) {
		out[[5]uint32{0, atou(get("amopfamily")), atou(get("amoplefttype")), atou(get("amoprighttype")), atou(get("amopstrategy"))}] = atou(get("amopopr"))
	})
	eachRow(pgdata.Load(pgdata.PgAmproc), func(get func(string) string) {
		out[[5]uint32{1, atou(get("amprocfamily")), atou(get("amproclefttype")), atou(get("amprocrighttype")), atou(get("amprocnum"))}] = atou(get("amproc"))
	})
	return out
})

// builtinAmop and builtinAmproc are a built-in family's operator and
// support function of the types and number, 0 for none.
func builtinAmop(family, left, right uint32, number int) uint32 {
	return builtinMembers()[[5]uint32{0, family, left, right, uint32(number)}]
}

func builtinAmproc(family, left, right uint32, number int) uint32 {
	return builtinMembers()[[5]uint32{1, family, left, right, uint32(number)}]
}

// opfamilyByOID is the built-in or user's family of the OID, nil for none.
func opfamilyByOID(c *catalog, oid uint32) *opfamilyDesc {
	if f := c.opfamilies[oid]; f != nil {
		return f
	}
	for _, f := range builtinFamilyDescs() {
		if f.oid == oid {
			return f
		}
	}
	return nil
}

// putOpfamily, putOpclass and putAmMember store a descriptor (new or
// replacing the one of its OID).
func (c *catalog) putOpfamily(f *opfamilyDesc) {
	putEntry(&c.opfamilies, f.oid, f)
}

func (c *catalog) putOpclass(oc *userOpclass) {
	putEntry(&c.opclasses, oc.oid, oc)
}

func (c *catalog) putAmMember(m *amMember) {
	putEntry(&c.amMembers, m.oid, m)
}

// sortedOpfamilies, sortedOpclasses and sortedAmMembers are the users'
// objects by OID.
func sortedOpfamilies(c *catalog) []*opfamilyDesc {
	out := make([]*opfamilyDesc, 0, len(c.opfamilies))
	for _, f := range c.opfamilies {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *opfamilyDesc) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

func sortedOpclasses(c *catalog) []*userOpclass {
	out := make([]*userOpclass, 0, len(c.opclasses))
	for _, oc := range c.opclasses {
		out = append(out, oc)
	}
	slices.SortFunc(out, func(a, b *userOpclass) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

func sortedAmMembers(c *catalog) []*amMember {
	out := make([]*amMember, 0, len(c.amMembers))
	for _, m := range c.amMembers {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *amMember) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

// opfamilyDescription and opclassDescription are getObjectDescription's
// words for a family and a class.
func (s *Session) opfamilyDescription(f *opfamilyDesc) string {
	return fmt.Sprintf("operator family %s for access method %s", s.visibleName(f.schema, f.name), f.method)
}

func (s *Session) opclassDescription(oc *userOpclass) string {
	return fmt.Sprintf("operator class %s for access method %s", s.visibleName(oc.schema, oc.name), oc.method)
}

// memberDescription is getObjectDescription's words for a pg_amop or
// pg_amproc row: "operator 1 (integer, integer) of operator family f for
// access method btree: <(integer,integer)".
func (s *Session) memberDescription(c *catalog, m *amMember) string {
	kind, object := "operator", ""
	if m.proc {
		kind, object = "function", s.functionSignature(c, m.object)
	} else {
		object = s.operatorSignatureByOID(c, m.object)
	}
	fam := ""
	if f := opfamilyByOID(c, m.family); f != nil {
		fam = s.opfamilyDescription(f)
	}
	return fmt.Sprintf("%s %d (%s, %s) of %s: %s", kind, m.number, typeNameIn(c, m.left), typeNameIn(c, m.right), fam, object)
}

// functionSignature is format_procedure of a function's OID:
// "name(integer,bigint)", qualified when not visible.
func (s *Session) functionSignature(c *catalog, oid uint32) string {
	if f := c.funcByOID(oid); f != nil {
		in := f.inputTypes()
		names := make([]string, len(in))
		for i, t := range in {
			names[i] = types.FormatTypeBe(t)
		}
		return s.visibleName(f.schema, f.name) + "(" + strings.Join(names, ",") + ")"
	}
	if p := builtinIndex().procs[oid]; p != nil {
		names := make([]string, len(p.args))
		for i, a := range p.args {
			names[i] = typeNameIn(c, a)
		}
		return p.name + "(" + strings.Join(names, ",") + ")"
	}
	return fmt.Sprint(oid)
}

// operatorSignatureByOID is format_operator of an operator's OID.
func (s *Session) operatorSignatureByOID(c *catalog, oid uint32) string {
	if op := operatorByOID(c, oid); op != nil {
		return s.visibleName(op.schema, op.def.name) + op.argList()
	}
	if o := builtinIndex().opers[oid]; o != nil {
		left := "NONE"
		if o.left != 0 {
			left = typeNameIn(c, o.left)
		}
		return o.name + "(" + left + "," + typeNameIn(c, o.right) + ")"
	}
	return fmt.Sprint(oid)
}

// explicitSchema checks the schema a qualified name names
// (LookupExplicitNamespace): 3F000 when it does not exist (ok false, no
// error, when missingOk), 42501 without USAGE on it.
func (d *ddl) explicitSchema(names []string, missingOk bool) (bool, error) {
	if len(names) < 2 || names[len(names)-2] == "pg_catalog" {
		return true, nil
	}
	if sc := d.cat.schemas[d.s.schemaAlias(names[len(names)-2])]; sc != nil {
		if !isTempSchema(sc.name) && !d.s.hasPrivilege(d.s.currentRole(), aclSchema, sc.oid, []byte("U")) {
			return false, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", sc.name)
		}
		return true, nil
	}
	if missingOk {
		return false, nil
	}
	return false, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[len(names)-2])
}

// findOpfamily is get_opfamily_oid: the family of method the (possibly
// qualified) name resolves to; nil without error when missingOk.
func (d *ddl) findOpfamily(method string, names []string, missingOk bool) (*opfamilyDesc, error) {
	if ok, err := d.explicitSchema(names, missingOk); !ok {
		return nil, err
	}
	if f := lookupOpfamily(d.s, d.cat, method, names); f != nil {
		return f, nil
	}
	if missingOk {
		return nil, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedObject, "operator family \"%s\" does not exist for access method \"%s\"", strings.Join(names, "."), method)
}

// lookupOpfamily is the family of method the name resolves to, first on
// the search path; nil for none.
func lookupOpfamily(s *Session, c *catalog, method string, names []string) *opfamilyDesc {
	name := names[len(names)-1]
	for _, schema := range s.lookupSchemas(names) {
		if schema == "pg_catalog" {
			for _, f := range builtinFamilyDescs() {
				if f.method == method && f.name == name {
					return f
				}
			}
			continue
		}
		for _, f := range sortedOpfamilies(c) {
			if f.schema == schema && f.method == method && f.name == name {
				return f
			}
		}
	}
	return nil
}

// lookupUserOpclass is the user's operator class of method the name
// resolves to, first on the search path; builtin says a built-in class
// comes first (nil then).
func lookupUserOpclass(s *Session, c *catalog, method string, names []string) (oc *userOpclass, builtin bool) {
	name := names[len(names)-1]
	for _, schema := range s.lookupSchemas(names) {
		if schema == "pg_catalog" {
			if slices.ContainsFunc(builtinOpclassRows(), func(r builtinOpclassRow) bool { return r.method == method && r.name == name }) {
				return nil, true
			}
			continue
		}
		for _, oc := range sortedOpclasses(c) {
			if oc.schema == schema && oc.method == method && oc.name == name {
				return oc, false
			}
		}
	}
	return nil, false
}

// opclassFunc is a support function: its OID, argument and result type
// OIDs, and the user's routine (nil for a built-in function).
type opclassFunc struct {
	oid    uint32
	args   []uint32
	result uint32
	fn     *funcDesc
}

// findOpclassFunc is LookupFuncWithArgs for a FUNCTION item: a built-in
// function or a user's, in search path order.
func (d *ddl) findOpclassFunc(owa *pg_query.ObjectWithArgs) (*opclassFunc, error) {
	names := strs(owa.Objname)
	b := d.binder("")
	var args []uint32
	var argNames []string
	for _, a := range owa.Objargs {
		oid, err := d.argTypeOID(b, a.GetTypeName())
		if err != nil {
			return nil, err
		}
		args, argNames = append(args, oid), append(argNames, typeNameIn(d.cat, oid))
	}
	if ok, err := d.explicitSchema(names, false); !ok {
		return nil, err
	}
	name := names[len(names)-1]
	var found []*opclassFunc
	for _, schema := range d.s.lookupSchemas(names) {
		if schema == "pg_catalog" {
			for _, p := range builtinIndex().procsByName[name] {
				if (p.kind == 'f' || p.kind == 'w') && (owa.ArgsUnspecified || slices.Equal(p.args, args)) {
					found = append(found, &opclassFunc{oid: p.oid, args: p.args, result: p.rettype})
				}
			}
		} else if sc := d.cat.schemas[schema]; sc != nil {
			for _, f := range withCurrentRowTypes(d.cat, sc.funcs[name]) {
				in := f.inputTypes()
				oids := make([]uint32, len(in))
				for i, t := range in {
					oids[i] = uint32(t.Oid)
				}
				if f.kind == 'f' && (owa.ArgsUnspecified || slices.Equal(oids, args)) {
					found = append(found, &opclassFunc{oid: f.oid, args: oids, result: uint32(f.result.Oid), fn: f})
				}
			}
		}
		if len(found) > 0 {
			break
		}
	}
	switch {
	case len(found) > 1:
		return nil, pgerror.Newf(pgerror.AmbiguousFunction, "function name \"%s\" is not unique", strings.Join(names, ".")).
			WithHint("Specify the argument list to select the function unambiguously.")
	case len(found) == 0 && owa.ArgsUnspecified:
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "could not find a function named \"%s\"", strings.Join(names, "."))
	case len(found) == 0:
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", strings.Join(names, "."), strings.Join(argNames, ", "))
	}
	return found[0], nil
}

// operatorShape is what assignOperTypes reads of an operator: whether it
// is binary, its argument and result types.
func operatorShape(c *catalog, oid uint32) (binary bool, left, right, result uint32) {
	if op := operatorByOID(c, oid); op != nil {
		return !op.prefix(), uint32(op.def.left.Oid), uint32(op.def.right.Oid), uint32(op.result.Oid)
	}
	o := builtinIndex().opers[oid]
	if o == nil {
		return false, 0, 0, 0
	}
	if p := builtinIndex().procs[o.code]; p != nil {
		result = p.rettype
	}
	return o.kind == 'b', o.left, o.right, result
}

// typeOID resolves a type name of an item to its OID.
func (d *ddl) typeOID(tn *pg_query.TypeName) (uint32, error) {
	return d.argTypeOID(d.binder(""), tn)
}

// argTypeOID resolves a type name to its OID, the pseudo-types support
// functions take and return (internal, void) included. A domain is
// refused (0A000): fickle's types name its base type.
func (d *ddl) argTypeOID(b *binder, tn *pg_query.TypeName) (uint32, error) {
	names := strs(tn.Names)
	if len(tn.ArrayBounds) == 0 && !tn.PctType && (len(names) == 1 || len(names) == 2 && names[0] == "pg_catalog") {
		for _, bt := range builtinIndex().typesByName[names[len(names)-1]] {
			if bt.typtype == 'p' {
				if _, ok := types.PolymorphicByName(names); !ok {
					return bt.oid, nil
				}
			}
		}
	}
	t, err := b.routineTypeName(tn)
	if err != nil {
		return 0, err
	}
	if b.domainNamed(tn) != nil {
		return 0, pgerror.Unsupported("an operator class, family or support function over domain " + typeNameToString(tn))
	}
	return uint32(t.Oid), nil
}

// typesSpec is processTypesSpec: the one or two types an item names.
func (d *ddl) typesSpec(args []*pg_query.Node) (left, right uint32, err error) {
	if left, err = d.typeOID(args[0].GetTypeName()); err != nil {
		return 0, 0, err
	}
	right = left
	if len(args) > 1 {
		if right, err = d.typeOID(args[1].GetTypeName()); err != nil {
			return 0, 0, err
		}
	}
	if len(args) > 2 {
		return 0, 0, pgerror.New(pgerror.SyntaxError, "one or two argument types must be specified")
	}
	return left, right, nil
}

// opclassItems reads the items of CREATE OPERATOR CLASS (input the class's
// input type) or ALTER OPERATOR FAMILY ... ADD (input 0) into members,
// with opclasscmds.c's checks in its order; storage is the STORAGE type.
func (d *ddl) opclassItems(method string, spec amSpec, input uint32, items []*pg_query.Node) (ops, procs []*amMember, storage uint32, err error) {
	for _, n := range items {
		item := n.GetCreateOpClassItem()
		switch item.Itemtype {
		case 1: // OPCLASS_ITEM_OPERATOR
			if item.Number <= 0 || int(item.Number) > spec.maxStrategy() {
				return nil, nil, 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "invalid operator number %d, must be between 1 and %d", item.Number, spec.maxStrategy())
			}
			var oid uint32
			names := strs(item.Name.Objname)
			if len(item.Name.Objargs) > 0 {
				left, right, err := d.operatorArgs(item.Name)
				if err != nil {
					return nil, nil, 0, err
				}
				if oid = d.lookupOperator(names, left, right); oid == 0 {
					return nil, nil, 0, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", operatorSignature(strings.Join(names, "."), left, right))
				}
			} else {
				if input == 0 {
					return nil, nil, 0, pgerror.New(pgerror.SyntaxError, "operator argument types must be specified in ALTER OPERATOR FAMILY")
				}
				t, _ := catalogType(d.cat, input)
				if oid = d.lookupOperator(names, t, t); oid == 0 {
					return nil, nil, 0, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", typeNameIn(d.cat, input), strings.Join(names, "."), typeNameIn(d.cat, input))
				}
			}
			m := &amMember{object: oid, number: int(item.Number), method: method}
			if len(item.OrderFamily) > 0 {
				f, err := d.findOpfamily("btree", strs(item.OrderFamily), false)
				if err != nil {
					return nil, nil, 0, err
				}
				m.sortFamily = f.oid
			}
			binary, left, right, result := operatorShape(d.cat, oid)
			if !binary {
				return nil, nil, 0, pgerror.New(pgerror.InvalidObjectDefinition, "index operators must be binary")
			}
			if m.sortFamily != 0 && !spec.canOrderByOp {
				return nil, nil, 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "access method \"%s\" does not support ordering operators", method)
			}
			if m.sortFamily == 0 && result != uint32(types.OidBool) {
				return nil, nil, 0, pgerror.New(pgerror.InvalidObjectDefinition, "index search operators must return boolean")
			}
			m.left, m.right = left, right
			if err := addFamilyMember(d.cat, &ops, m); err != nil {
				return nil, nil, 0, err
			}
		case 2: // OPCLASS_ITEM_FUNCTION
			if item.Number <= 0 || int(item.Number) > spec.support {
				return nil, nil, 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "invalid function number %d, must be between 1 and %d", item.Number, spec.support)
			}
			f, err := d.findOpclassFunc(item.Name)
			if err != nil {
				return nil, nil, 0, err
			}
			m := &amMember{proc: true, object: f.oid, number: int(item.Number), method: method}
			if len(item.ClassArgs) > 0 {
				if m.left, m.right, err = d.typesSpec(item.ClassArgs); err != nil {
					return nil, nil, 0, err
				}
			}
			if err := assignProcTypes(m, method, spec, input, f); err != nil {
				return nil, nil, 0, err
			}
			if err := addFamilyMember(d.cat, &procs, m); err != nil {
				return nil, nil, 0, err
			}
		case 3: // OPCLASS_ITEM_STORAGETYPE
			if input == 0 {
				return nil, nil, 0, pgerror.New(pgerror.SyntaxError, "STORAGE cannot be specified in ALTER OPERATOR FAMILY")
			}
			if storage != 0 {
				return nil, nil, 0, pgerror.New(pgerror.InvalidObjectDefinition, "storage type specified more than once")
			}
			if storage, err = d.typeOID(item.Storedtype); err != nil {
				return nil, nil, 0, err
			}
		}
	}
	return ops, procs, storage, nil
}

// assignProcTypes is opclasscmds.c's assignProcTypes: the signature checks
// of the options function and of btree's and hash's support functions, and
// the types the member is filed under.
func assignProcTypes(m *amMember, method string, spec amSpec, input uint32, f *opclassFunc) error {
	bad := func(msg string) *pgerror.Error { return pgerror.New(pgerror.InvalidObjectDefinition, msg) }
	switch {
	case m.number == spec.optsProc:
		if input != 0 {
			if m.left != 0 && m.left != input || m.right != 0 && m.right != input {
				return bad("associated data types for operator class options parsing functions must match opclass input type")
			}
		} else if m.left != m.right {
			return bad("left and right associated data types for operator class options parsing functions must match")
		}
		if f.result != oidVoidType || len(f.args) != 1 || f.args[0] != oidInternal {
			return bad("invalid operator class options parsing function").
				WithHint("Valid signature of operator class options parsing function is %s.", "(internal) RETURNS void")
		}
	case method == "btree":
		switch m.number {
		case 1:
			if len(f.args) != 2 {
				return bad("btree comparison functions must have two arguments")
			}
			if f.result != uint32(types.OidInt4) {
				return bad("btree comparison functions must return integer")
			}
			m.left, m.right = cmp.Or(m.left, f.args[0]), cmp.Or(m.right, f.args[1])
		case 2:
			if len(f.args) != 1 || f.args[0] != oidInternal {
				return bad("btree sort support functions must accept type \"internal\"")
			}
			if f.result != oidVoidType {
				return bad("btree sort support functions must return void")
			}
		case 3:
			if len(f.args) != 5 {
				return bad("btree in_range functions must have five arguments")
			}
			if f.result != uint32(types.OidBool) {
				return bad("btree in_range functions must return boolean")
			}
			m.left, m.right = cmp.Or(m.left, f.args[0]), cmp.Or(m.right, f.args[2])
		case 4:
			if len(f.args) != 1 {
				return bad("btree equal image functions must have one argument")
			}
			if f.result != uint32(types.OidBool) {
				return bad("btree equal image functions must return boolean")
			}
			if m.left != m.right {
				return bad("btree equal image functions must not be cross-type")
			}
		}
	case method == "hash":
		switch m.number {
		case 1:
			if len(f.args) != 1 {
				return bad("hash function 1 must have one argument")
			}
			if f.result != uint32(types.OidInt4) {
				return bad("hash function 1 must return integer")
			}
		case 2:
			if len(f.args) != 2 {
				return bad("hash function 2 must have two arguments")
			}
			if f.result != uint32(types.OidInt8) {
				return bad("hash function 2 must return bigint")
			}
		}
		if len(f.args) > 0 {
			m.left, m.right = cmp.Or(m.left, f.args[0]), cmp.Or(m.right, f.args[0])
		}
	}
	m.left, m.right = cmp.Or(m.left, input), cmp.Or(m.right, input)
	if m.left == 0 || m.right == 0 {
		return bad("associated data types must be specified for index support function")
	}
	return nil
}

// requiredSupport are the support functions each method needs, which its
// amadjustmembers ties hard to their class.
var requiredSupport = map[string][]int{
	"btree": {1}, "hash": {1}, "gist": {1, 2, 5, 6, 7}, "gin": {2, 3}, "spgist": {1, 2, 3, 4, 5}, "brin": {1, 2, 3, 4},
}

// adjustMembers is the access method's amadjustmembers: which members are
// tied hard, and to the class oc (nil under ALTER OPERATOR FAMILY) or to
// the family. btree's and hash's operators and required functions go with
// the family's class of their type when they are not cross-type; the
// other methods' operators and every optional function go with the family.
func (d *ddl) adjustMembers(method string, family uint32, oc *userOpclass, ops, procs []*amMember) {
	soft := func(m *amMember) { m.hard, m.opclass = false, 0 }
	for _, m := range append(slices.Clip(ops), procs...) {
		required := !m.proc || slices.Contains(requiredSupport[method], m.number)
		switch {
		case method != "btree" && method != "hash":
			if !required || !m.proc {
				soft(m)
			} else if oc == nil {
				m.hard = true
			}
		case !required, m.left != m.right:
			soft(m)
		case oc != nil && oc.input == m.left:
			m.hard, m.opclass = true, oc.oid
		default:
			soft(m)
			for _, c := range sortedOpclasses(d.cat) {
				if c.family == family && c.input == m.left {
					m.hard, m.opclass = true, c.oid
				}
			}
		}
	}
}

// addFamilyMember appends m, refusing a second member of its number and
// types.
func addFamilyMember(c *catalog, list *[]*amMember, m *amMember) error {
	for _, old := range *list {
		if old.number == m.number && old.left == m.left && old.right == m.right {
			kind := "operator"
			if m.proc {
				kind = "function"
			}
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "%s number %d for (%s,%s) appears more than once", kind, m.number, typeNameIn(c, m.left), typeNameIn(c, m.right))
		}
	}
	*list = append(*list, m)
	return nil
}

// familyHasMember reports whether family has a member of the kind, number
// and types (AMOPSTRATEGY, AMPROCNUM), nil when not; a built-in one is
// reported with builtin.
func familyHasMember(c *catalog, proc bool, family, left, right uint32, number int) (m *amMember, builtin bool) {
	kind := uint32(0)
	if proc {
		kind = 1
	}
	if builtinMembers()[[5]uint32{kind, family, left, right, uint32(number)}] != 0 {
		return nil, true
	}
	for _, x := range sortedAmMembers(c) {
		if x.proc == proc && x.family == family && x.left == left && x.right == right && x.number == number {
			return x, false
		}
	}
	return nil, false
}

// storeMembers is storeOperators and storeProcedures: the members join
// family; adding says ALTER OPERATOR FAMILY ... ADD, which refuses a
// member the family has.
func (d *ddl) storeMembers(familyName []string, family uint32, members []*amMember, adding bool) error {
	for _, m := range members {
		if adding {
			if x, builtin := familyHasMember(d.cat, m.proc, family, m.left, m.right, m.number); x != nil || builtin {
				kind := "operator"
				if m.proc {
					kind = "function"
				}
				return pgerror.Newf(pgerror.DuplicateObject, "%s %d(%s,%s) already exists in operator family \"%s\"", kind, m.number,
					typeNameIn(d.cat, m.left), typeNameIn(d.cat, m.right), strings.Join(familyName, "."))
			}
		}
		if !m.proc {
			if err := d.uniqueAmop(m, family); err != nil {
				return err
			}
		}
		m.oid, m.family = d.cat.newOID(), family
		d.cat.putAmMember(m)
	}
	return nil
}

// uniqueAmop is pg_amop_opr_fam_index: an operator is in a family once
// for each purpose.
func (d *ddl) uniqueAmop(m *amMember, family uint32) error {
	purpose := func(sortFamily uint32) string {
		if sortFamily != 0 {
			return "o"
		}
		return "s"
	}
	dup := slices.ContainsFunc(sortedAmMembers(d.cat), func(x *amMember) bool {
		return !x.proc && x.family == family && x.object == m.object && purpose(x.sortFamily) == purpose(m.sortFamily)
	}) || builtinAmopOperators()[[3]uint32{m.object, family, uint32(purpose(m.sortFamily)[0])}]
	if !dup {
		return nil
	}
	return pgerror.New(pgerror.UniqueViolation, "duplicate key value violates unique constraint \"pg_amop_opr_fam_index\"").
		WithDetail("Key (amopopr, amoppurpose, amopfamily)=(%d, %s, %d) already exists.", m.object, purpose(m.sortFamily), family)
}

// builtinAmopOperators are the built-in pg_amop rows' operator, family
// and purpose.
var builtinAmopOperators = sync.OnceValue(func() map[[3]uint32]bool {
	out := map[[3]uint32]bool{}
	eachRow(pgdata.Load(pgdata.PgAmop), func(get func(string) string) {
		out[[3]uint32{atou(get("amopopr")), atou(get("amopfamily")), uint32(get("amoppurpose")[0])}] = true
	})
	return out
})

// requireSuperuserFor is the superuser check of CREATE OPERATOR CLASS and
// FAMILY and of ALTER OPERATOR FAMILY ... ADD / DROP.
func (d *ddl) requireSuperuserFor(what string) error {
	if d.s.isSuperuser(d.s.currentRole()) {
		return nil
	}
	return pgerror.Newf(pgerror.InsufficientPrivilege, "must be superuser to %s", what)
}

// createOpfamilyRow is CreateOpFamily: the family's row, unless the
// schema has one of its name and method.
func (d *ddl) createOpfamilyRow(method, schema, name string) (*opfamilyDesc, error) {
	if d.opfamilyIn(method, schema, name) != nil {
		return nil, pgerror.Newf(pgerror.DuplicateObject, "operator family \"%s\" for access method \"%s\" already exists", name, method)
	}
	f := &opfamilyDesc{oid: d.cat.newOID(), method: method, schema: schema, name: name, owner: d.s.currentRole()}
	d.cat.putOpfamily(f)
	return f, nil
}

// opfamilyIn and opclassIn are the schema's family and class of the
// name and method, nil for none.
func (d *ddl) opfamilyIn(method, schema, name string) *opfamilyDesc {
	if schema == "pg_catalog" {
		return lookupOpfamily(d.s, d.cat, method, []string{"pg_catalog", name})
	}
	for _, f := range d.cat.opfamilies {
		if f.method == method && f.schema == schema && f.name == name {
			return f
		}
	}
	return nil
}

func (d *ddl) opclassIn(method, schema, name string) *userOpclass {
	for _, oc := range d.cat.opclasses {
		if oc.method == method && oc.schema == schema && oc.name == name {
			return oc
		}
	}
	return nil
}

// createOpfamily runs CREATE OPERATOR FAMILY.
func (d *ddl) createOpfamily(st *pg_query.CreateOpFamilyStmt) error {
	names := strs(st.Opfamilyname)
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	if _, err := indexAM(st.Amname); err != nil {
		return err
	}
	if err := d.requireSuperuserFor("create an operator family"); err != nil {
		return err
	}
	if isTempSchema(schema) {
		return pgerror.Unsupported("an operator family in a temporary schema")
	}
	_, err = d.createOpfamilyRow(st.Amname, schema, names[len(names)-1])
	return err
}

// createOpclass runs CREATE OPERATOR CLASS (DefineOpClass).
func (d *ddl) createOpclass(st *pg_query.CreateOpClassStmt) error {
	names := strs(st.Opclassname)
	name := names[len(names)-1]
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	spec, err := indexAM(st.Amname)
	if err != nil {
		return err
	}
	if err := d.requireSuperuserFor("create an operator class"); err != nil {
		return err
	}
	if isTempSchema(schema) {
		return pgerror.Unsupported("an operator class in a temporary schema")
	}
	input, err := d.typeOID(st.Datatype)
	if err != nil {
		return err
	}
	var family *opfamilyDesc
	if len(st.Opfamilyname) > 0 {
		if family, err = d.findOpfamily(st.Amname, strs(st.Opfamilyname), false); err != nil {
			return err
		}
	} else if family = d.opfamilyIn(st.Amname, schema, name); family == nil {
		if family, err = d.createOpfamilyRow(st.Amname, schema, name); err != nil {
			return err
		}
	}
	ops, procs, storage, err := d.opclassItems(st.Amname, spec, input, st.Items)
	if err != nil {
		return err
	}
	for _, m := range append(slices.Clip(ops), procs...) {
		m.hard = true
	}
	if storage == input {
		storage = 0
	} else if storage != 0 && !spec.storage {
		return pgerror.Newf(pgerror.InvalidObjectDefinition, "storage type cannot be different from data type for access method \"%s\"", st.Amname)
	}
	if d.opclassIn(st.Amname, schema, name) != nil || schema == "pg_catalog" && slices.ContainsFunc(builtinOpclassRows(), func(r builtinOpclassRow) bool {
		return r.method == st.Amname && r.name == name
	}) {
		return pgerror.Newf(pgerror.DuplicateObject, "operator class \"%s\" for access method \"%s\" already exists", name, st.Amname)
	}
	if st.IsDefault {
		if other := defaultOpclassName(d.cat, st.Amname, input); other != "" {
			return pgerror.Newf(pgerror.DuplicateObject, "could not make operator class \"%s\" be default for type %s", name, typeNameToString(st.Datatype)).
				WithDetail("Operator class \"%s\" already is the default.", other)
		}
	}
	oc := &userOpclass{oid: d.cat.newOID(), family: family.oid, method: st.Amname, schema: schema, name: name,
		owner: d.s.currentRole(), input: input, keytype: storage, isDefault: st.IsDefault}
	d.cat.putOpclass(oc)
	for _, m := range append(slices.Clip(ops), procs...) {
		m.opclass = oc.oid
	}
	d.adjustMembers(st.Amname, family.oid, oc, ops, procs)
	familyName := strs(st.Opfamilyname)
	if err := d.storeMembers(familyName, family.oid, ops, false); err != nil {
		return err
	}
	return d.storeMembers(familyName, family.oid, procs, false)
}

// typeNameToString is TypeNameToString: the type's name as written,
// qualified as written, with its array bounds.
func typeNameToString(tn *pg_query.TypeName) string {
	s := strings.Join(strs(tn.Names), ".")
	if len(tn.Names) == 2 && strs(tn.Names)[0] == "pg_catalog" {
		s = strs(tn.Names)[1]
	}
	for range tn.ArrayBounds {
		s += "[]"
	}
	return s
}

// defaultOpclassName is the name of method's default class for the input
// type, built-in or a user's; "" for none.
func defaultOpclassName(c *catalog, method string, input uint32) string {
	if oid := builtinIndex().defaultOpclass[[2]uint32{indexAccessMethods[method], input}]; oid != 0 {
		return builtinIndex().opclassNames[oid]
	}
	for _, oc := range sortedOpclasses(c) {
		if oc.isDefault && oc.method == method && oc.input == input {
			return oc.name
		}
	}
	return ""
}

// alterOpfamily runs ALTER OPERATOR FAMILY ... ADD / DROP.
func (d *ddl) alterOpfamily(st *pg_query.AlterOpFamilyStmt) error {
	spec, err := indexAM(st.Amname)
	if err != nil {
		return err
	}
	names := strs(st.Opfamilyname)
	family, err := d.findOpfamily(st.Amname, names, false)
	if err != nil {
		return err
	}
	if err := d.requireSuperuserFor("alter an operator family"); err != nil {
		return err
	}
	if !st.IsDrop {
		ops, procs, _, err := d.opclassItems(st.Amname, spec, 0, st.Items)
		if err != nil {
			return err
		}
		d.adjustMembers(st.Amname, family.oid, nil, ops, procs)
		if err := d.storeMembers(names, family.oid, ops, true); err != nil {
			return err
		}
		return d.storeMembers(names, family.oid, procs, true)
	}
	type target struct {
		proc        bool
		number      int
		left, right uint32
	}
	var targets []target
	var ops, procs []*amMember
	for _, n := range st.Items {
		item := n.GetCreateOpClassItem()
		proc := item.Itemtype == 2
		limit, kind := spec.maxStrategy(), "operator"
		if proc {
			limit, kind = spec.support, "function"
		}
		if item.Number <= 0 || int(item.Number) > limit {
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "invalid %s number %d, must be between 1 and %d", kind, item.Number, limit)
		}
		left, right, err := d.typesSpec(item.ClassArgs)
		if err != nil {
			return err
		}
		m := &amMember{proc: proc, number: int(item.Number), left: left, right: right}
		list := &ops
		if proc {
			list = &procs
		}
		if err := addFamilyMember(d.cat, list, m); err != nil {
			return err
		}
	}
	for _, m := range append(ops, procs...) {
		targets = append(targets, target{m.proc, m.number, m.left, m.right})
	}
	for _, t := range targets {
		x, builtin := familyHasMember(d.cat, t.proc, family.oid, t.left, t.right, t.number)
		kind := "operator"
		if t.proc {
			kind = "function"
		}
		if x == nil && !builtin {
			return pgerror.Newf(pgerror.UndefinedObject, "%s %d(%s,%s) does not exist in operator family \"%s\"", kind, t.number,
				typeNameIn(d.cat, t.left), typeNameIn(d.cat, t.right), strings.Join(names, "."))
		}
		if builtin {
			return pgerror.Unsupported("ALTER OPERATOR FAMILY ... DROP of a built-in family's " + kind)
		}
		if x.hard {
			owner := d.s.opfamilyDescription(family)
			if oc := d.cat.opclasses[x.opclass]; oc != nil {
				owner = d.s.opclassDescription(oc)
			}
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s because %s requires it", d.s.memberDescription(d.cat, x), owner).
				WithHint("You can drop %s instead.", owner)
		}
		delete(d.cat.amMembers, x.oid)
	}
	return nil
}

// opclassObjectName splits the object list of DROP, RENAME, OWNER TO, SET
// SCHEMA and COMMENT ON of a class or family: the access method, then the
// (possibly qualified) name.
func opclassObjectName(n *pg_query.Node) (method string, names []string) {
	items := strs(n.GetList().Items)
	return items[0], items[1:]
}

// findOpclassObject resolves a class (isClass) or family an object list
// names: the user's class or the family; a built-in class comes back as
// builtin. Missing objects fail, or under missingOk give a notice.
func (d *ddl) findOpclassObject(n *pg_query.Node, isClass, missingOk bool) (oc *userOpclass, f *opfamilyDesc, builtin string, err error) {
	method, names := opclassObjectName(n)
	if _, err := indexAM(method); err != nil {
		return nil, nil, "", err
	}
	kind := "operator family"
	if isClass {
		kind = "operator class"
	}
	ok, err := d.explicitSchema(names, missingOk)
	if err != nil {
		return nil, nil, "", err
	}
	if !ok {
		d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", names[len(names)-2])
		return nil, nil, "", nil
	}
	if isClass {
		var isBuiltin bool
		if oc, isBuiltin = lookupUserOpclass(d.s, d.cat, method, names); isBuiltin {
			return nil, nil, names[len(names)-1], nil
		}
	} else if f = lookupOpfamily(d.s, d.cat, method, names); f != nil && f.builtin {
		return nil, nil, f.name, nil
	}
	if oc != nil || f != nil {
		return oc, f, "", nil
	}
	if missingOk {
		d.notice(pgerror.SuccessfulCompletion, "%s \"%s\" does not exist for access method \"%s\", skipping", kind, strings.Join(names, "."), method)
		return nil, nil, "", nil
	}
	return nil, nil, "", pgerror.Newf(pgerror.UndefinedObject, "%s \"%s\" does not exist for access method \"%s\"", kind, strings.Join(names, "."), method)
}

// dropOpclasses runs DROP OPERATOR CLASS and DROP OPERATOR FAMILY: a
// class goes with its members; a family with its classes and loose
// members; what uses a class (an index, a partition key) needs CASCADE.
func (d *ddl) dropOpclasses(ds *pg_query.DropStmt) error {
	isClass := ds.RemoveType == pg_query.ObjectType_OBJECT_OPCLASS
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	for _, n := range ds.Objects {
		oc, f, builtin, err := d.findOpclassObject(n, isClass, ds.MissingOk)
		if err != nil {
			return err
		}
		method, _ := opclassObjectName(n)
		if builtin != "" {
			kind := "operator family"
			if isClass {
				kind = "operator class"
			}
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s %s for access method %s because it is required by the database system", kind, builtin, method)
		}
		if oc != nil {
			if err := d.s.requireOwner(oc.owner, "operator class", oc.name); err != nil {
				return err
			}
			if err := d.dropOpclass(d.s.opclassDescription(oc), []*userOpclass{oc}, cascade); err != nil {
				return err
			}
		}
		if f != nil {
			if err := d.s.requireOwner(f.owner, "operator family", f.name); err != nil {
				return err
			}
			if err := d.dropOpfamily(f, cascade); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropOpclass drops the classes (one, or a family's), refusing (or under
// cascade dropping) what uses them; what names the object dropped.
func (d *ddl) dropOpclass(what string, classes []*userOpclass, cascade bool) error {
	var lines, notices []string
	var deps []routineDependent
	for _, oc := range classes {
		for _, u := range d.opclassUsers(oc) {
			lines = append(lines, u.dep.what+" depends on "+d.s.opclassDescription(oc))
			notices, deps = append(notices, u.dep.what), append(deps, u.dep)
		}
	}
	if len(deps) > 0 && !cascade {
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	d.cascadeNotice(notices)
	for _, dep := range deps {
		dep.drop(d)
	}
	for _, oc := range classes {
		for _, m := range sortedAmMembers(d.cat) {
			if m.opclass == oc.oid {
				delete(d.cat.amMembers, m.oid)
			}
		}
		delete(d.cat.opclasses, oc.oid)
		d.cat.dropComments(oc.oid)
	}
	return nil
}

// dropOpfamily drops family f with its classes and loose members, and the
// ordering operators of other families that sort by it (CASCADE for those
// tied hard to their class).
func (d *ddl) dropOpfamily(f *opfamilyDesc, cascade bool) error {
	var classes []*userOpclass
	for _, oc := range sortedOpclasses(d.cat) {
		if oc.family == f.oid {
			classes = append(classes, oc)
		}
	}
	// Another family's ordering operators that sort by this one: those
	// tied hard to their class need CASCADE, the others go silently.
	var sorting, hard []*amMember
	for _, m := range sortedAmMembers(d.cat) {
		if m.sortFamily == f.oid && m.family != f.oid {
			sorting = append(sorting, m)
			if m.hard {
				hard = append(hard, m)
			}
		}
	}
	if len(hard) > 0 && !cascade {
		what := d.s.opfamilyDescription(f)
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("%s depends on %s", d.s.memberDescription(d.cat, hard[0]), what).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if err := d.dropOpclass(d.s.opfamilyDescription(f), classes, cascade); err != nil {
		return err
	}
	for _, m := range sorting {
		if m.hard {
			d.notice(pgerror.SuccessfulCompletion, "drop cascades to %s", d.s.memberDescription(d.cat, m))
		}
		delete(d.cat.amMembers, m.oid)
	}
	for _, m := range sortedAmMembers(d.cat) {
		if m.family == f.oid {
			delete(d.cat.amMembers, m.oid)
		}
	}
	delete(d.cat.opfamilies, f.oid)
	d.cat.dropComments(f.oid)
	return nil
}

// findOpclassForAlter resolves the class or family an ALTER or COMMENT
// names, refusing a built-in one (0A000) for what.
func (d *ddl) findOpclassForAlter(n *pg_query.Node, isClass, missingOk bool, what string) (*userOpclass, *opfamilyDesc, error) {
	oc, f, builtin, err := d.findOpclassObject(n, isClass, missingOk)
	if err != nil {
		return nil, nil, err
	}
	if builtin != "" {
		return nil, nil, pgerror.Unsupported(what + " of a built-in operator class or family")
	}
	return oc, f, nil
}

// renameOpclass runs ALTER OPERATOR CLASS / FAMILY ... RENAME TO.
func (d *ddl) renameOpclass(rs *pg_query.RenameStmt) error {
	isClass := rs.RenameType == pg_query.ObjectType_OBJECT_OPCLASS
	oc, f, err := d.findOpclassForAlter(rs.Object, isClass, rs.MissingOk, "ALTER ... RENAME")
	if err != nil || oc == nil && f == nil {
		return err
	}
	if oc != nil {
		if err := d.s.requireOwner(oc.owner, "operator class", oc.name); err != nil {
			return err
		}
		if err := d.requireSchemaCreate(oc.schema); err != nil {
			return err
		}
		if d.opclassIn(oc.method, oc.schema, rs.Newname) != nil {
			return pgerror.Newf(pgerror.DuplicateObject, "operator class \"%s\" for access method \"%s\" already exists in schema \"%s\"", rs.Newname, oc.method, oc.schema)
		}
		next := *oc
		next.name = rs.Newname
		d.cat.putOpclass(&next)
		return nil
	}
	if err := d.s.requireOwner(f.owner, "operator family", f.name); err != nil {
		return err
	}
	if err := d.requireSchemaCreate(f.schema); err != nil {
		return err
	}
	if d.opfamilyIn(f.method, f.schema, rs.Newname) != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "operator family \"%s\" for access method \"%s\" already exists in schema \"%s\"", rs.Newname, f.method, f.schema)
	}
	next := *f
	next.name = rs.Newname
	d.cat.putOpfamily(&next)
	return nil
}

// alterOpclassOwner runs ALTER OPERATOR CLASS / FAMILY ... OWNER TO.
func (d *ddl) alterOpclassOwner(ao *pg_query.AlterOwnerStmt) error {
	isClass := ao.ObjectType == pg_query.ObjectType_OBJECT_OPCLASS
	oc, f, err := d.findOpclassForAlter(ao.Object, isClass, false, "ALTER ... OWNER TO")
	if err != nil {
		return err
	}
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	owner, schema, noun, name := uint32(0), "", "operator family", ""
	if oc != nil {
		owner, schema, noun, name = oc.owner, oc.schema, "operator class", oc.name
	} else {
		owner, schema, name = f.owner, f.schema, f.name
	}
	if r.oid == owner {
		return nil
	}
	err = d.mayGiveInSchema(r, func() error { return d.s.requireOwner(owner, noun, name) }, schema)
	if err != nil {
		return err
	}
	if oc != nil {
		next := *oc
		next.owner = r.oid
		d.cat.putOpclass(&next)
		return nil
	}
	next := *f
	next.owner = r.oid
	d.cat.putOpfamily(&next)
	return nil
}

// setOpclassSchema runs ALTER OPERATOR CLASS / FAMILY ... SET SCHEMA
// (AlterObjectNamespace_internal): nothing to do in the same schema, then
// the temporary schemas refused, ownership, CREATE on the new schema and
// a clash of names.
func (d *ddl) setOpclassSchema(st *pg_query.AlterObjectSchemaStmt) error {
	isClass := st.ObjectType == pg_query.ObjectType_OBJECT_OPCLASS
	oc, f, err := d.findOpclassForAlter(st.Object, isClass, st.MissingOk, "ALTER ... SET SCHEMA")
	if err != nil || oc == nil && f == nil {
		return err
	}
	sc := d.cat.schemas[st.Newschema]
	if sc == nil {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", st.Newschema)
	}
	owner, schema, noun, name, method := uint32(0), "", "operator family", "", ""
	if oc != nil {
		owner, schema, noun, name, method = oc.owner, oc.schema, "operator class", oc.name, oc.method
	} else {
		owner, schema, name, method = f.owner, f.schema, f.name, f.method
	}
	if schema == sc.name {
		return nil
	}
	if isTempSchema(schema) || isTempSchema(sc.name) {
		return pgerror.New(pgerror.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if err := d.s.requireOwner(owner, noun, name); err != nil {
		return err
	}
	if err := d.requireSchemaCreate(sc.name); err != nil {
		return err
	}
	if oc != nil {
		if d.opclassIn(method, sc.name, name) != nil {
			return pgerror.Newf(pgerror.DuplicateObject, "operator class \"%s\" for access method \"%s\" already exists in schema \"%s\"", name, method, sc.name)
		}
		next := *oc
		next.schema = sc.name
		d.cat.putOpclass(&next)
		return nil
	}
	if d.opfamilyIn(method, sc.name, name) != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "operator family \"%s\" for access method \"%s\" already exists in schema \"%s\"", name, method, sc.name)
	}
	next := *f
	next.schema = sc.name
	d.cat.putOpfamily(&next)
	return nil
}

// commentOnOpclass runs COMMENT ON OPERATOR CLASS / FAMILY.
func (d *ddl) commentOnOpclass(cs *pg_query.CommentStmt) error {
	isClass := cs.Objtype == pg_query.ObjectType_OBJECT_OPCLASS
	oc, f, err := d.findOpclassForAlter(cs.Object, isClass, false, "COMMENT ON")
	if err != nil {
		return err
	}
	if oc != nil {
		if err := d.s.requireOwner(oc.owner, "operator class", oc.name); err != nil {
			return err
		}
		d.cat.setComment(commentKey{classOID: oidPgOpclassClass, objOID: oc.oid}, cs.Comment)
		return nil
	}
	if err := d.s.requireOwner(f.owner, "operator family", f.name); err != nil {
		return err
	}
	d.cat.setComment(commentKey{classOID: oidPgOpfamilyClass, objOID: f.oid}, cs.Comment)
	return nil
}

// opclassKindWords is "OPERATOR CLASS" or "OPERATOR FAMILY" for those
// object types, as command tags name them; "" for another.
func opclassKindWords(t pg_query.ObjectType) string {
	switch t {
	case pg_query.ObjectType_OBJECT_OPCLASS:
		return "OPERATOR CLASS"
	case pg_query.ObjectType_OBJECT_OPFAMILY:
		return "OPERATOR FAMILY"
	}
	return ""
}

// memberOwnerDependents are the classes (or families) a function (proc)
// or operator is a hard member of: dropping it needs CASCADE, which drops
// them with what uses them.
func (d *ddl) memberOwnerDependents(proc bool, object uint32) []routineDependent {
	var out []routineDependent
	seen := map[uint32]bool{}
	for _, m := range sortedAmMembers(d.cat) {
		if m.proc != proc || m.object != object || !m.hard {
			continue
		}
		if oc := d.cat.opclasses[m.opclass]; oc != nil && !seen[oc.oid] {
			seen[oc.oid] = true
			out = append(out, routineDependent{what: d.s.opclassDescription(oc), drop: func(d *ddl) {
				if cur := d.cat.opclasses[oc.oid]; cur != nil {
					_ = d.dropOpclass(d.s.opclassDescription(cur), []*userOpclass{cur}, true)
				}
			}})
		} else if f := d.cat.opfamilies[m.family]; m.opclass == 0 && f != nil && !seen[f.oid] {
			seen[f.oid] = true
			out = append(out, routineDependent{what: d.s.opfamilyDescription(f), drop: func(d *ddl) {
				if cur := d.cat.opfamilies[f.oid]; cur != nil {
					_ = d.dropOpfamily(cur, true)
				}
			}})
		}
	}
	return out
}

// dropSoftMembers removes the members that name a dropped function (proc)
// or operator without needing it (their dependency is automatic).
func (d *ddl) dropSoftMembers(proc bool, object uint32) {
	for _, m := range sortedAmMembers(d.cat) {
		if m.proc == proc && m.object == object && !m.hard {
			delete(d.cat.amMembers, m.oid)
		}
	}
}

// hasOpclassesIn reports whether the schema holds a user's operator class
// or family, which DROP SCHEMA needs CASCADE to drop.
func (c *catalog) hasOpclassesIn(schema string) bool {
	for _, oc := range c.opclasses {
		if oc.schema == schema {
			return true
		}
	}
	for _, f := range c.opfamilies {
		if f.schema == schema {
			return true
		}
	}
	return false
}

// dropSchemaOpclasses drops the classes and families of a schema DROP
// SCHEMA ... CASCADE drops, with what uses them.
func (d *ddl) dropSchemaOpclasses(schema string) error {
	for _, oc := range sortedOpclasses(d.cat) {
		if cur := d.cat.opclasses[oc.oid]; cur != nil && cur.schema == schema {
			if err := d.dropOpclass(d.s.opclassDescription(cur), []*userOpclass{cur}, true); err != nil {
				return err
			}
		}
	}
	for _, f := range sortedOpfamilies(d.cat) {
		if cur := d.cat.opfamilies[f.oid]; cur != nil && cur.schema == schema {
			if err := d.dropOpfamily(cur, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// ownedOpclasses are the classes and families role owns, for DROP ROLE,
// DROP OWNED and REASSIGN OWNED.
func ownedOpclasses(c *catalog, role uint32) []ownedObject {
	var out []ownedObject
	for _, f := range sortedOpfamilies(c) {
		if f.owner == role {
			out = append(out, ownedObject{oid: f.oid, kind: pg_query.ObjectType_OBJECT_OPFAMILY, schema: f.schema, name: f.name, method: f.method})
		}
	}
	for _, oc := range sortedOpclasses(c) {
		if oc.owner == role {
			out = append(out, ownedObject{oid: oc.oid, kind: pg_query.ObjectType_OBJECT_OPCLASS, schema: oc.schema, name: oc.name, method: oc.method})
		}
	}
	return out
}

// giveOpclass makes role the owner of the class or family of the OID
// (REASSIGN OWNED).
func (d *ddl) giveOpclass(oid, role uint32) {
	if oc := d.cat.opclasses[oid]; oc != nil {
		next := *oc
		next.owner = role
		d.cat.putOpclass(&next)
	}
	if f := d.cat.opfamilies[oid]; f != nil {
		next := *f
		next.owner = role
		d.cat.putOpfamily(&next)
	}
}

// catalogType is the type of the OID, a built-in or a user's one.
func catalogType(c *catalog, oid uint32) (types.Type, bool) {
	if t, ok := types.TypeByOid(types.Oid(oid)); ok {
		return t, true
	}
	if td := c.typeByOid(oid); td != nil {
		return td.typ(), true
	}
	return types.Type{}, false
}

// typeNameIn is format_type_be of a type OID, a user's type or a
// pseudo-type included.
func typeNameIn(c *catalog, oid uint32) string {
	if t, ok := catalogType(c, oid); ok {
		return types.FormatTypeBe(t)
	}
	return oidTypeName(oid)
}

// opclassesOverType are the classes whose input or storage type is the
// type of the OID, which DROP TYPE needs CASCADE for (refused by fickle).
func opclassesOverType(c *catalog, typ uint32) []*userOpclass {
	var out []*userOpclass
	for _, oc := range sortedOpclasses(c) {
		if oc.input == typ || oc.keytype == typ {
			out = append(out, oc)
		}
	}
	return out
}
