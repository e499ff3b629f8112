package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// User-defined range types: CREATE TYPE name AS RANGE (subtype = ...), with
// the multirange type PostgreSQL creates beside it. Both are typeDescs of
// their schema; package types learns them from types.RegisterRange and
// gives them the built-in ranges' functions and operators. A canonical
// function, an operator class other than the subtype's default btree one
// and a collation other than C are refused: fickle would order or
// normalize the values differently.

// rangeDesc is what a range or multirange type's typeDesc adds.
type rangeDesc struct {
	sub types.Type
	// multi marks the multirange type's typeDesc; pair is the other
	// type's OID (the range's multirange type, the multirange's range
	// type).
	multi bool
	pair  uint32
	// collation is pg_range.rngcollation, subOpclass rngsubopc and
	// subdiff rngsubdiff (0 for none).
	collation, subOpclass, subdiff uint32
}

// createRangeType runs CREATE TYPE name AS RANGE (...).
func (d *ddl) createRangeType(cs *pg_query.CreateRangeStmt) error {
	names := strs(cs.TypeName)
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	name := names[len(names)-1]
	if d.relationExists(schema, name) {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists", name)
	}
	b := d.binder("")
	var (
		sub                 types.Type
		haveSub             bool
		collation           uint32
		collationSet        bool
		subdiff             *pg_query.Node
		opclass             []string
		multiNames          []string
		multiSchema, mrName string
	)
	seen := map[string]bool{}
	for _, n := range cs.Params {
		de := n.GetDefElem()
		if de == nil {
			return pgerror.Unsupported("this form of CREATE TYPE ... AS RANGE")
		}
		opt := strings.ToLower(de.Defname)
		if seen[opt] {
			return pgerror.New(pgerror.SyntaxError, "conflicting or redundant options")
		}
		seen[opt] = true
		switch opt {
		case "subtype":
			tn := de.Arg.GetTypeName()
			if tn == nil {
				return pgerror.Newf(pgerror.SyntaxError, "%s requires a parameter", opt)
			}
			if b.domainNamed(tn) != nil {
				return pgerror.Unsupported("a range type over a domain")
			}
			if sub, err = b.typeName(tn); err != nil {
				return err
			}
			haveSub = true
		case "subtype_opclass":
			tn := de.Arg.GetTypeName()
			if tn == nil {
				return pgerror.Newf(pgerror.SyntaxError, "%s requires a parameter", opt)
			}
			opclass = strs(tn.Names)
		case "collation":
			coll := strings.ToLower(defElemText(de))
			switch strings.TrimPrefix(coll, "pg_catalog.") {
			case "c":
				collation = oidCCollation
			case "posix":
				collation = oidPOSIXCollation
			case "default":
				collation = oidDefaultCollation
			default:
				return pgerror.Unsupported("a range type with collation " + defElemText(de))
			}
			collationSet = true
		case "canonical":
			// It must be a function of the range type, which only a
			// shell type (which fickle lacks) lets exist before it.
			return pgerror.New(pgerror.InvalidObjectDefinition, "cannot specify a canonical function without a pre-created shell type").
				WithHint("Create the type as a shell type, then create its canonicalization function, then do a full CREATE TYPE.")
		case "subtype_diff":
			subdiff = de.Arg
		case "multirange_type_name":
			tn := de.Arg.GetTypeName()
			if tn == nil {
				return pgerror.Newf(pgerror.SyntaxError, "%s requires a parameter", opt)
			}
			multiNames = strs(tn.Names)
		default:
			return pgerror.Newf(pgerror.SyntaxError, "type attribute \"%s\" not recognized", de.Defname)
		}
	}
	if !haveSub {
		return pgerror.New(pgerror.SyntaxError, "type attribute \"subtype\" is required")
	}
	if sub.Oid == types.OidUnknown || sub.Oid == types.OidRecord || sub.IsPolymorphic() {
		return pgerror.Newf(pgerror.DatatypeMismatch, "range subtype cannot be %s", sub)
	}
	sub.Typmod = -1
	subOpclass := defaultOpclass("btree", sub)
	if subOpclass == 0 {
		return pgerror.Newf(pgerror.UndefinedObject, "data type %s has no default operator class for access method \"%s\"", sub, "btree").
			WithHint("You must specify an operator class for the range type or define a default operator class for the subtype.")
	}
	if opclass != nil {
		name := opclass[len(opclass)-1]
		if len(opclass) > 1 && opclass[len(opclass)-2] != "pg_catalog" || builtinIndex().opclassNames[subOpclass] != name {
			// Another operator class orders the subtype otherwise.
			return pgerror.Unsupported("a range type with subtype_opclass " + strings.Join(opclass, ".") + ", not the subtype's default")
		}
	}
	if sub.Category() == types.CategoryString || sub.Oid == types.OidName {
		if !collationSet {
			collation = oidDefaultCollation
		}
	} else if collationSet {
		return pgerror.New(pgerror.WrongObjectType, "range collation specified but subtype does not support collation")
	}
	var subdiffOID uint32
	if subdiff != nil {
		if subdiffOID, err = rangeSubdiff(subdiff, sub); err != nil {
			return err
		}
	}
	multiSchema, mrName = schema, multirangeTypeName(name)
	if multiNames != nil {
		if len(multiNames) > 1 && multiNames[len(multiNames)-2] == "pg_catalog" {
			// The grammar's own type names (int, real, ...) come so.
			if t, err := types.TypeByName(multiNames, nil); err == nil {
				return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists", t.Name())
			}
			return pgerror.Unsupported("a multirange type in pg_catalog")
		}
		if multiSchema, err = d.nameCreationSchema(multiNames); err != nil {
			return err
		}
		mrName = multiNames[len(multiNames)-1]
	}
	if d.relationExists(multiSchema, mrName) || multiSchema == schema && mrName == name {
		e := pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists", mrName)
		if multiNames == nil {
			e = e.WithDetail("Failed while creating a multirange type for type \"%s\".", name).
				WithHint("You can manually specify a multirange type name using the \"multirange_type_name\" attribute.")
		}
		return e
	}
	owner := d.s.currentRole()
	rt := &typeDesc{oid: newCompositeOID(), array: newCompositeOID(), schema: schema, name: name, owner: owner}
	mt := &typeDesc{oid: newCompositeOID(), array: newCompositeOID(), schema: multiSchema, name: mrName, owner: owner}
	rt.rng = &rangeDesc{sub: sub, pair: mt.oid, collation: collation, subOpclass: subOpclass, subdiff: subdiffOID}
	mt.rng = &rangeDesc{sub: sub, multi: true, pair: rt.oid, collation: collation, subOpclass: subOpclass, subdiff: subdiffOID}
	registerRange(rt, mt)
	oid := types.Oid(rt.oid)
	d.undo = append(d.undo, func() { types.UnregisterRangeNames(oid) })
	d.cat.schemas[schema].types[rt.name] = rt
	d.cat.schemas[multiSchema].types[mt.name] = mt
	d.applyTypeDefaultACL(rt)
	d.applyTypeDefaultACL(mt)
	return nil
}

// registerRange tells package types of range type rt and its multirange
// type mt.
func registerRange(rt, mt *typeDesc) {
	types.RegisterRange(types.Oid(rt.oid), types.Oid(rt.array), rt.name, rt.rng.sub, types.Oid(mt.oid), types.Oid(mt.array), mt.name)
}

// multirangeTypeName is makeMultirangeTypeName: the range type's name with
// its first "range" made "multirange", or "_multirange" appended.
func multirangeTypeName(name string) string {
	if i := strings.Index(name, "range"); i >= 0 {
		return name[:i] + "multirange" + name[i+len("range"):]
	}
	return name + "_multirange"
}

// rangeSubdiff finds the subtype_diff function: a built-in function of two
// subtype arguments returning double precision (a user function is
// refused).
func rangeSubdiff(arg *pg_query.Node, sub types.Type) (uint32, error) {
	var names []string
	switch a := arg.GetNode().(type) {
	case *pg_query.Node_TypeName:
		names = strs(a.TypeName.Names)
	case *pg_query.Node_String_:
		names = []string{a.String_.Sval}
	case *pg_query.Node_List:
		names = strs(a.List.Items)
	default:
		return 0, pgerror.New(pgerror.SyntaxError, "subtype_diff requires a parameter")
	}
	name := names[len(names)-1]
	if len(names) > 1 && names[len(names)-2] != "pg_catalog" {
		return 0, pgerror.Unsupported("a subtype_diff function outside pg_catalog")
	}
	for _, p := range builtinIndex().procsByName[name] {
		if p.namespace == oidPgCatalog && p.kind == 'f' && len(p.args) == 2 && p.args[0] == uint32(sub.Oid) && p.args[1] == uint32(sub.Oid) {
			if p.rettype != uint32(types.OidFloat8) {
				return 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "range subtype diff function %s must return type %s", name, "double precision")
			}
			return p.oid, nil
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s, %s) does not exist", name, sub, sub)
}

// userRangeRows are the pg_range rows of the user's range types.
func userRangeRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range sortedUserTypes(c) {
		if t.rng == nil || t.rng.multi {
			continue
		}
		r := t.rng
		out = append(out, []any{int64(t.oid), int64(r.sub.Oid), int64(r.pair), int64(r.collation), int64(r.subOpclass),
			int64(0), int64(r.subdiff)})
	}
	return out
}

// withRangePairs adds to the types a DROP TYPE names the multirange type
// of each range type, which goes with it; a multirange type named without
// its range type cannot go (2BP01).
func (d *ddl) withRangePairs(drop []*typeDesc) ([]*typeDesc, error) {
	named := map[uint32]bool{}
	for _, t := range drop {
		named[t.oid] = true
	}
	out := drop
	for _, t := range drop {
		if t.rng == nil || named[t.rng.pair] {
			continue
		}
		pair := d.cat.typeByOid(t.rng.pair)
		if t.rng.multi {
			return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop type %s because type %s requires it", t.name, pair.name).
				WithHint("You can drop type %s instead.", pair.name)
		}
		out = append(out, pair)
		named[pair.oid] = true
	}
	return out, nil
}

// rangeConstructorVisible reports whether a call of the function names
// (possibly schema-qualified) may call a constructor of range type rt: the
// type exists in the binder's catalog, and its constructors (its own and
// its multirange type's) live in its schema, which names gives or the
// search path holds.
func (b *binder) rangeConstructorVisible(names []string, rt types.Oid) bool {
	cat := b.catalogNow()
	t := cat.typeByOid(uint32(rt))
	if t == nil || t.rng == nil {
		return false
	}
	name := names[len(names)-1]
	if mt := cat.typeByOid(t.rng.pair); t.name != name && (mt == nil || mt.name != name) {
		return false
	}
	if len(names) == 2 {
		return b.s.schemaAlias(names[0]) == t.schema
	}
	return slices.Contains(b.s.searchPath(), t.schema)
}
