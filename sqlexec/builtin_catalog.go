package sqlexec

import (
	"strconv"
	"strings"
	"sync"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// builtinType is a pg_type row of PostgreSQL 15's built-in types, as the
// name lookups of regtype, format_type and the type names of DDL need it.
type builtinType struct {
	oid, namespace, elem, array, relid uint32
	name                               string
	typtype                            byte
	// byval, align and storage are typbyval, typalign and typstorage,
	// which pg_attribute repeats for each column.
	byval          bool
	align, storage string
	// trueArray marks the arrays format_type prints as elem[]
	// (typsubscript is array_subscript_handler), not int2vector and its
	// kin.
	trueArray bool
}

// builtinProc is a pg_proc row of a built-in function.
type builtinProc struct {
	oid, namespace uint32
	name           string
	args           []uint32
	// argNames are the parameter names (proargnames), nDefaults the
	// number of trailing parameters with defaults (pronargdefaults).
	argNames  []string
	nDefaults int
	// arguments, identityArguments, result and definition are what
	// pg_get_function_arguments, pg_get_function_identity_arguments,
	// pg_get_function_result and pg_get_functiondef print for it ("" for
	// no arguments; definition "" for an aggregate).
	arguments, identityArguments, result, definition string
	kind                                             byte // prokind
	// strict is proisstrict, retset proretset, rettype prorettype.
	strict, retset bool
	rettype        uint32
}

// builtinOper is a pg_operator row of a built-in operator.
type builtinOper struct {
	oid, namespace uint32
	name           string
	kind           byte
	left, right    uint32
	// code is oprcode, the OID of the function that implements it; com
	// is oprcom, its commutator's OID.
	code, com uint32
}

// builtins indexes pgdata's rows by OID and by name.
type builtins struct {
	// defaultOpclass is the default operator class of each access method
	// (by pg_am OID) and input type.
	defaultOpclass map[[2]uint32]uint32
	// opclassNames are pg_opclass.opcname by OID, opclasses its
	// opcfamily and opcintype.
	opclassNames map[uint32]string
	opclasses    map[uint32][2]uint32
	// btreeEquals are the btree operator families' equality operators
	// (pg_amop's strategy 3) by family, left and right type.
	btreeEquals map[[3]uint32]uint32
	// supportProcs are the operator families' support functions present
	// (pg_amproc) by family, left and right type and number; orderedBy the
	// families and types with an ordering operator (amoppurpose 'o').
	supportProcs map[[4]uint32]bool
	orderedBy    map[[2]uint32]bool
	types        map[uint32]*builtinType
	typesByName  map[string][]*builtinType
	procs        map[uint32]*builtinProc
	procsByName  map[string][]*builtinProc
	opers        map[uint32]*builtinOper
	opersByName  map[string][]*builtinOper
}

// arraySubscriptHandler is the OID of array_subscript_handler, the
// typsubscript of true array types.
const arraySubscriptHandler = 6179

var builtinIndex = sync.OnceValue(func() *builtins {
	b := &builtins{types: map[uint32]*builtinType{}, typesByName: map[string][]*builtinType{},
		procs: map[uint32]*builtinProc{}, procsByName: map[string][]*builtinProc{},
		opers: map[uint32]*builtinOper{}, opersByName: map[string][]*builtinOper{}, defaultOpclass: map[[2]uint32]uint32{},
		opclassNames: map[uint32]string{}, opclasses: map[uint32][2]uint32{}, btreeEquals: map[[3]uint32]uint32{},
		supportProcs: map[[4]uint32]bool{}, orderedBy: map[[2]uint32]bool{}}
	eachRow(pgdata.Load(pgdata.PgType), func(get func(string) string) {
		t := &builtinType{oid: atou(get("oid")), namespace: atou(get("typnamespace")), elem: atou(get("typelem")),
			array: atou(get("typarray")), relid: atou(get("typrelid")), name: get("typname"), typtype: get("typtype")[0],
			byval: get("typbyval") == "t", align: get("typalign"), storage: get("typstorage")}
		t.trueArray = t.elem != 0 && atou(get("typsubscript")) == arraySubscriptHandler
		b.types[t.oid] = t
		b.typesByName[t.name] = append(b.typesByName[t.name], t)
	})
	eachRow(pgdata.Load(pgdata.PgProc), func(get func(string) string) {
		p := &builtinProc{oid: atou(get("oid")), namespace: atou(get("pronamespace")), name: get("proname")}
		for _, a := range strings.Fields(get("proargtypes")) {
			p.args = append(p.args, atou(a))
		}
		if names := get("proargnames"); names != "" {
			p.argNames = strings.Split(strings.Trim(names, "{}"), ",")
		}
		p.nDefaults = int(atou(get("pronargdefaults")))
		p.arguments, p.identityArguments, p.result = get("arguments"), get("identity_arguments"), get("result")
		p.definition, p.kind = get("definition"), get("prokind")[0]
		p.strict, p.retset, p.rettype = get("proisstrict") == "t", get("proretset") == "t", atou(get("prorettype"))
		b.procs[p.oid] = p
		b.procsByName[p.name] = append(b.procsByName[p.name], p)
	})
	eachRow(pgdata.Load(pgdata.PgOperator), func(get func(string) string) {
		o := &builtinOper{oid: atou(get("oid")), namespace: atou(get("oprnamespace")), name: get("oprname"),
			kind: get("oprkind")[0], left: atou(get("oprleft")), right: atou(get("oprright")), code: atou(get("oprcode")),
			com: atou(get("oprcom"))}
		b.opers[o.oid] = o
		b.opersByName[o.name] = append(b.opersByName[o.name], o)
	})
	eachRow(pgdata.Load(pgdata.PgOpclass), func(get func(string) string) {
		b.opclassNames[atou(get("oid"))] = get("opcname")
		b.opclasses[atou(get("oid"))] = [2]uint32{atou(get("opcfamily")), atou(get("opcintype"))}
		if get("opcdefault") == "t" {
			b.defaultOpclass[[2]uint32{atou(get("opcmethod")), atou(get("opcintype"))}] = atou(get("oid"))
		}
	})
	eachRow(pgdata.Load(pgdata.PgAmop), func(get func(string) string) {
		if atou(get("amopmethod")) == indexAccessMethods["btree"] && get("amopstrategy") == "3" {
			b.btreeEquals[[3]uint32{atou(get("amopfamily")), atou(get("amoplefttype")), atou(get("amoprighttype"))}] = atou(get("amopopr"))
		}
		if get("amoppurpose") == "o" && atou(get("amopsortfamily")) != 0 {
			b.orderedBy[[2]uint32{atou(get("amopfamily")), atou(get("amoplefttype"))}] = true
			b.orderedBy[[2]uint32{atou(get("amopfamily")), atou(get("amoprighttype"))}] = true
		}
	})
	eachRow(pgdata.Load(pgdata.PgAmproc), func(get func(string) string) {
		b.supportProcs[[4]uint32{atou(get("amprocfamily")), atou(get("amproclefttype")), atou(get("amprocrighttype")),
			atou(get("amprocnum"))}] = true
	})
	return b
})

// keyEqualityOperators are the equality operators a foreign key compares
// with, pg_constraint's conpfeqop, conppeqop and conffeqop for one column
// pair: the btree operator class opclass of the referenced key orders
// values of its input type, and the referencing column has type fk. As
// PostgreSQL's ATAddForeignKeyConstraint, pf is the family's operator
// between the two types when it has one, else the referencing value is
// coerced and all three are the key type's own equality; 0 when opclass is
// not a built-in one.
func keyEqualityOperators(opclass uint32, fk types.Type) (pf, pp, ff uint32) {
	idx := builtinIndex()
	oc, ok := idx.opclasses[opclass]
	if !ok {
		return 0, 0, 0
	}
	family, in := oc[0], oc[1]
	pp = idx.btreeEquals[[3]uint32{family, in, in}]
	pf, ff = idx.btreeEquals[[3]uint32{family, in, uint32(fk.Oid)}], idx.btreeEquals[[3]uint32{family, uint32(fk.Oid), uint32(fk.Oid)}]
	if pf == 0 || ff == 0 {
		pf, ff = pp, pp
	}
	return pf, pp, ff
}

// defaultOpclass is PostgreSQL's GetDefaultOpClass: the default operator
// class of access method method for a key of type typ, the type's own or
// else one of a type it is binary-coercible to; 0 when there is none.
func defaultOpclass(method string, typ types.Type) uint32 {
	idx, am := builtinIndex(), indexAccessMethods[method]
	for _, in := range opclassInputTypes(typ) {
		if oc, ok := idx.defaultOpclass[[2]uint32{am, in}]; ok {
			return oc
		}
	}
	return 0
}

// opclassInputTypes are the input types of the operator classes that can
// index a key of type typ: its own, then the one it is binary-coercible to
// (a polymorphic pseudo-type for arrays, enums and composites).
func opclassInputTypes(typ types.Type) []uint32 {
	in := []uint32{uint32(typ.Oid)}
	switch {
	case typ.Oid == types.OidVarchar:
		in = append(in, uint32(types.OidText))
	case typ.Oid == types.OidCidr:
		in = append(in, uint32(types.OidInet))
	case typ.Oid == types.OidBit:
		in = append(in, uint32(types.OidVarbit))
	case typ.Oid == types.OidVarbit:
		in = append(in, uint32(types.OidBit))
	case typ.IsArray():
		in = append(in, oidAnyArray)
	case typ.IsEnum():
		in = append(in, uint32(types.OidAnyEnum))
	case typ.IsComposite():
		in = append(in, uint32(types.OidRecord))
	case typ.IsRange():
		in = append(in, oidAnyRange)
	case typ.IsMultirange():
		in = append(in, uint32(types.OidAnyMultirange))
	}
	return in
}

// oidAnyArray and oidAnyRange are the OIDs of the pseudo-types anyarray
// and anyrange.
const oidAnyArray, oidAnyRange = 2277, 3831

// eachRow calls f with each row of t, through a getter of its columns'
// text (NULL reads as "").
func eachRow(t *pgdata.Table, f func(get func(string) string)) {
	for _, row := range t.Rows {
		f(func(col string) string {
			if v := row[t.Column(col)]; v != nil {
				return *v
			}
			return ""
		})
	}
}

func atou(s string) uint32 {
	n, _ := strconv.ParseUint(s, 10, 32)
	return uint32(n)
}

// builtinRows turns a pgdata catalog into virtual-table rows: each value
// read by the input function of its column's type, the object identifier
// types as the OIDs the files hold. It is computed once per table.
func builtinRows(name string, cols []vcol) func() [][]any {
	return sync.OnceValue(func() [][]any {
		t := pgdata.Load(name)
		pos := make([]int, len(cols))
		for i, c := range cols {
			pos[i] = t.Column(c.name)
		}
		out := make([][]any, 0, len(t.Rows))
		for _, row := range t.Rows {
			r := make([]any, len(cols))
			for i, c := range cols {
				if pos[i] < 0 || row[pos[i]] == nil {
					continue
				}
				typ := c.typ
				if types.IsRegType(typ.Oid) {
					typ = types.OidType
				}
				v, err := types.ParseText(typ, *row[pos[i]])
				if err != nil {
					panic("pgdata: " + name + "." + c.name + ": " + err.Error())
				}
				r[i] = v
			}
			out = append(out, r)
		}
		return out
	})
}

// systemRelation is a table or view of pg_catalog or information_schema,
// with the OID PostgreSQL 15 gives it: regclass names them, whether or not
// fickle emulates the relation.
type systemRelation struct {
	oid          uint32
	schema, name string
	kind         relationKind
	// row is its pg_class row as PostgreSQL 15's initdb leaves it.
	row relationRow
	// shared and replIdent are pg_class.relisshared and relreplident.
	shared    bool
	replIdent string
	// acl is its access control list.
	acl []aclItem
}

var systemRelations = sync.OnceValue(func() (out struct {
	byOID   map[uint32]*systemRelation
	byName  map[string]*systemRelation
	ordered []*systemRelation
}) {
	out.byOID, out.byName = map[uint32]*systemRelation{}, map[string]*systemRelation{}
	eachRow(pgdata.Load(pgdata.PgClass), func(get func(string) string) {
		r := &systemRelation{oid: atou(get("oid")), name: get("relname"), kind: relTable}
		r.schema = "pg_catalog"
		if atou(get("relnamespace")) == oidInfoSchema {
			r.schema = "information_schema"
		}
		if get("relkind") == "v" {
			r.kind = relView
		}
		natts, _ := strconv.Atoi(get("relnatts"))
		r.row = relationRow{oid: r.oid, name: r.name, namespace: int64(atou(get("relnamespace"))), kind: get("relkind"),
			rowType: int64(atou(get("reltype"))), am: int64(atou(get("relam"))), hasIndex: get("relhasindex") == "t", natts: natts,
			rules: r.kind == relView}
		r.shared, r.replIdent, r.acl = get("relisshared") == "t", get("relreplident"), systemACL(get("relacl"))
		out.byOID[r.oid] = r
		out.byName[r.schema+"."+r.name] = r
		out.ordered = append(out.ordered, r)
	})
	return out
})

// systemRelationNamed finds a system table or view by schema and name.
func systemRelationNamed(schema, name string) (*systemRelation, bool) {
	r, ok := systemRelations().byName[schema+"."+name]
	return r, ok
}

// builtinAggregateNamed reports whether PostgreSQL 15 has a built-in
// aggregate of that name, for the calls of one fickle lacks.
func builtinAggregateNamed(name string) bool {
	for _, p := range builtinIndex().procsByName[name] {
		if p.namespace == oidPgCatalog && p.kind == 'a' {
			return true
		}
	}
	return false
}

// oidAnyPseudoType is pg_type's "any", the pseudo-type of arguments that
// take a value of any type (pg_column_compression, pg_column_size).
const oidAnyPseudoType = 2276

// lackedBuiltin turns err, fickle's 42883 for a call name(args) of a
// built-in function, into 0A000 when PostgreSQL 15 has a built-in function
// or aggregate the call resolves to (lo_create, pg_ls_dir, var_pop, ...):
// fickle lacks it, and a user must not read that PostgreSQL would not have
// it either. A role that allowed says lacks EXECUTE on the function gets
// PostgreSQL's 42501 instead, which it would get before the function ran.
func lackedBuiltin(name string, args []types.Type, err error, allowed func(oid uint32) bool) error {
	if pgerror.GetCode(err) != pgerror.UndefinedFunction {
		return err
	}
	var overloads [][]types.Type
	var oids []uint32
	for _, p := range builtinIndex().procsByName[name] {
		if p.namespace != oidPgCatalog || p.kind != 'f' && p.kind != 'a' {
			continue
		}
		ts := make([]types.Type, 0, len(p.args))
		for i, a := range p.args {
			if i < len(args) && (a == oidAnyPseudoType || a == oidAnyRange && args[i].IsRange() ||
				a == uint32(types.OidAnyMultirange) && args[i].IsMultirange()) {
				ts = append(ts, args[i]) // "any" takes the argument as it is, anyrange a range
				continue
			}
			if t, ok := types.TypeByOid(types.Oid(a)); ok {
				ts = append(ts, t)
			}
		}
		if len(ts) < len(p.args) {
			continue // an argument of a type fickle does not have
		}
		for k := 0; k <= p.nDefaults; k++ {
			overloads = append(overloads, ts[:len(ts)-k])
			oids = append(oids, p.oid)
		}
	}
	if len(overloads) == 0 {
		return err
	}
	chosen, rerr := types.ChooseOverload(name, args, overloads)
	if rerr != nil {
		return err
	}
	if !allowed(oids[chosen]) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for function %s", name)
	}
	sig := make([]string, len(args))
	for i, a := range args {
		sig[i] = a.String()
	}
	return pgerror.Unsupported("function " + name + "(" + strings.Join(sig, ", ") + ")")
}
