package sqlexec

import (
	"cmp"
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// What uses a user's operator class. An index names one: fickle keeps
// every index as an ordered index of its keys, so a btree or hash class
// changes nothing but a unique index's equality, which is fickle's only
// when the class's equality operator is the type's built-in one; a class
// of another method, or another equality, is refused (0A000). A hash
// partition key names one: rows are routed by its support function 2
// (the extended hash, called with PostgreSQL's partitioning seed), a
// user's routine or the type's built-in extended hash. A range or list
// key takes a btree class whose comparison function is the type's
// built-in one (fickle orders keys by it), and refuses the others, as it
// refuses a class without the support function the key calls, which
// PostgreSQL takes at CREATE TABLE and fails at each use.

// userOpclassByOID is the user's class of the OID, nil for none.
func userOpclassByOID(c *catalog, oid uint32) *userOpclass { return c.opclasses[oid] }

// familyMember is the OID of family's operator (proc false) or support
// function of the number and types, a user's or a built-in one; 0 for
// none.
func familyMember(c *catalog, proc bool, family, left, right uint32, number int) uint32 {
	for _, m := range sortedAmMembers(c) {
		if m.proc == proc && m.family == family && m.left == left && m.right == right && m.number == number {
			return m.object
		}
	}
	if proc {
		return builtinAmproc(family, left, right, number)
	}
	return builtinAmop(family, left, right, number)
}

// defaultFamily is the family of method's built-in default class for the
// type, 0 for none.
func defaultFamily(method string, typ uint32) uint32 {
	oid := builtinIndex().defaultOpclass[[2]uint32{indexAccessMethods[method], typ}]
	return builtinIndex().opclasses[oid][0]
}

// sameKeyOrder reports whether class oc compares its input type as the
// type's built-in class of its method does: btree's comparison function
// (support 1) or hash's hash function (support 1) and equality operator
// are the built-in ones, which fickle's keys follow.
func sameKeyOrder(c *catalog, oc *userOpclass) bool {
	family := defaultFamily(oc.method, oc.input)
	proc := familyMember(c, true, oc.family, oc.input, oc.input, 1)
	if proc == 0 || proc != builtinAmproc(family, oc.input, oc.input, 1) {
		return false
	}
	if oc.method != "hash" {
		return true
	}
	op := familyMember(c, false, oc.family, oc.input, oc.input, 1)
	return op != 0 && op == builtinAmop(family, oc.input, oc.input, 1)
}

// userIndexOpclass is the user's class of method an index element names,
// as the extensions' classes are found (opclassDesc), nil when the name
// resolves to none or to a built-in class.
func (s *Session) userIndexOpclass(c *catalog, names []string, method string) *opclassDesc {
	oc, _ := lookupUserOpclass(s, c, method, names)
	if oc == nil {
		return nil
	}
	input, _ := catalogType(c, oc.input)
	return &opclassDesc{oid: oc.oid, family: oc.family, schema: oc.schema, def: extensionOpclass{name: oc.name, method: method, input: input}}
}

// checkIndexOpclasses refuses (0A000) the users' classes an index's keys
// name where fickle's index would not behave as the class says: a method
// other than btree and hash, an exclusion constraint, a class without the
// support function 1 PostgreSQL's index calls for every entry, and a
// unique index whose class does not compare as the type's.
func checkIndexOpclasses(c *catalog, opts []indexKeyOpts, method string, unique, exclusion bool) error {
	for _, o := range opts {
		oc := userOpclassByOID(c, o.opclassOID)
		switch {
		case oc == nil:
		case method != "btree" && method != "hash":
			return pgerror.Unsupported(fmt.Sprintf("an index using operator class %s of access method %s", oc.name, method))
		case exclusion:
			return pgerror.Unsupported("an exclusion constraint using operator class " + oc.name)
		case familyMember(c, true, oc.family, oc.input, oc.input, 1) == 0:
			return pgerror.Unsupported("an index using operator class " + oc.name + ", which lacks support function 1")
		case unique && !sameKeyOrder(c, oc):
			return pgerror.Unsupported("a unique index using operator class " + oc.name + ", which does not compare as the type's")
		}
	}
	return nil
}

// addKeyOpclass checks the class a PARTITION BY element names when it is
// a user's (then also noting it); the built-in classes are
// partition_opclass.go's.
func (d *ddl) addKeyOpclass(k *partKey, pe *pg_query.PartitionElem, typ types.Type) error {
	method := "btree"
	if k.strategy == 'h' {
		method = "hash"
	}
	var oc *userOpclass
	if len(pe.Opclass) > 0 {
		oc, _ = lookupUserOpclass(d.s, d.cat, method, strs(pe.Opclass))
	}
	if oc == nil {
		if err := k.addOpclass(pe, typ); err != nil {
			return err
		}
		if k.opclasses != nil {
			k.opclasses = append(k.opclasses, 0)
		}
		return nil
	}
	if err := keyCollation(pe.Collation, typ); err != nil {
		return err
	}
	if oc.input != uint32(typ.Oid) && !(oc.input == uint32(types.OidText) && typ.Oid == types.OidVarchar) {
		return pgerror.Newf(pgerror.DatatypeMismatch, "operator class \"%s\" does not accept data type %s", oc.name, types.FormatTypeBe(typ))
	}
	if method == "hash" {
		if _, _, err := hashSupport(d.cat, oc); err != nil {
			return err
		}
	} else if fn := familyMember(d.cat, true, oc.family, oc.input, oc.input, 1); fn == 0 {
		// PostgreSQL creates the table and fails each later use of its key.
		return pgerror.Unsupported(fmt.Sprintf("a partition key using operator class %s, which lacks support function 1", oc.name))
	} else if fn != builtinAmproc(defaultFamily("btree", oc.input), oc.input, oc.input, 1) {
		return pgerror.Unsupported(fmt.Sprintf("a partition key using operator class %s, whose comparison function is not the type's", oc.name))
	}
	if k.opclasses == nil {
		k.opclasses = make([]uint32, len(k.cols), len(k.cols)+1)
	}
	k.opclasses = append(k.opclasses, oc.oid)
	if k.asOid != nil {
		k.asOid = append(k.asOid, false)
	}
	return nil
}

// hashSupport is the extended hash function (support 2) of hash class oc
// for its input type: the user's routine, or nil with builtin when it is
// the type's own, which fickle computes itself. A class without one is
// refused (PostgreSQL takes it at CREATE TABLE and fails each use), as is
// another built-in function.
func hashSupport(c *catalog, oc *userOpclass) (fn *funcDesc, builtin bool, err error) {
	oid := familyMember(c, true, oc.family, oc.input, oc.input, 2)
	switch {
	case oid == 0:
		return nil, false, pgerror.Unsupported(fmt.Sprintf("a partition key using operator class %s, which lacks support function 2", oc.name))
	case oid == builtinAmproc(defaultFamily("hash", oc.input), oc.input, oc.input, 2):
		return nil, true, nil
	case c.funcByOID(oid) == nil:
		return nil, false, pgerror.Unsupported(fmt.Sprintf("a partition key using operator class %s, whose hash function is built-in function %d", oc.name, oid))
	}
	return c.funcByOID(oid), false, nil
}

// keyHash is the extended hash of key column i's non-NULL value v under
// PostgreSQL's partitioning seed: the support function 2 of the column's
// user class as the catalog has it now, called as PostgreSQL's
// partitioning calls it (FunctionCall2, which fails on a NULL result),
// else the type's hash.
func (k *partKey) keyHash(x *execCtx, i int, v any) (uint64, error) {
	if k.opclasses == nil || k.opclasses[i] == 0 {
		return types.HashExtended(k.typs[i], v, hashPartitionSeed), nil
	}
	c, _ := x.s.catalog()
	oc := c.opclasses[k.opclasses[i]]
	if oc == nil {
		return 0, pgerror.Newf(pgerror.InternalError, "cache lookup failed for opclass %d", k.opclasses[i])
	}
	if familyMember(c, true, oc.family, oc.input, oc.input, 2) == 0 {
		return 0, pgerror.Newf(pgerror.InvalidObjectDefinition, "operator class \"%s\" of access method hash is missing support function 2 for type %s",
			oc.name, types.FormatTypeBe(k.typs[i]))
	}
	fn, builtin, err := hashSupport(c, oc)
	if err != nil || builtin {
		return types.HashExtended(k.typs[i], v, hashPartitionSeed), err
	}
	seed := int64(uint64(hashPartitionSeed))
	rows, err := x.s.invoke(x, fn, []any{v, seed})
	if err != nil {
		return 0, err
	}
	var h any
	if len(rows) > 0 {
		h = fn.rowValue(rows[0])
	}
	n, ok := h.(int64)
	if !ok {
		return 0, pgerror.Newf(pgerror.InternalError, "function %d returned NULL", fn.oid)
	}
	return uint64(n), nil
}

// opclassUsers are the objects that use class oc: the partitioned tables
// whose key names it and the indexes (a partition's go with its parent's),
// by OID.
func (d *ddl) opclassUsers(oc *userOpclass) []memberUse {
	var out []memberUse
	for _, t := range sortedTables(d.cat) {
		if t.part != nil && slices.Contains(t.part.opclasses, oc.oid) {
			out = append(out, memberUse{object: t.oid, dep: routineDependent{what: "table " + t.name, drop: func(d *ddl) {
				if cur := d.cat.tables[t.oid]; cur != nil {
					_ = d.dropTables([]*tableDesc{cur}, true)
				}
			}}})
		}
		for _, ix := range t.indexes {
			if ix.parent == 0 && slices.ContainsFunc(ix.keyOpts, func(o indexKeyOpts) bool { return o.opclassOID == oc.oid }) {
				out = append(out, memberUse{object: ix.oid, dep: routineDependent{what: "index " + ix.name, drop: func(d *ddl) { d.dropExtensionIndex(ix) }}})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b memberUse) int { return cmp.Compare(a.object, b.object) })
	return out
}

// opclassUseDependencyRows are pg_depend's rows of the tables and indexes
// on the users' classes they name ('n').
func opclassUseDependencyRows(c *catalog) [][]any {
	var out [][]any
	row := func(oid, class uint32) []any {
		return []any{int64(oidPgClass), int64(oid), int64(0), int64(oidPgOpclassClass), int64(class), int64(0), "n"}
	}
	for _, t := range sortedTables(c) {
		if t.part != nil {
			for _, oc := range t.part.opclasses {
				if oc != 0 {
					out = append(out, row(t.oid, oc))
				}
			}
		}
		for _, ix := range t.indexes {
			for _, o := range ix.keyOpts {
				if c.opclasses[o.opclassOID] != nil {
					out = append(out, row(ix.oid, o.opclassOID))
				}
			}
		}
	}
	return out
}

// partKeyOpclassName is the name pg_get_partkeydef prints after key
// column i: the user's class, qualified when not visible, unless it is the
// type's default; "" for none.
func partKeyOpclassName(s *Session, c *catalog, k *partKey, i int) string {
	if k.opclasses == nil || k.opclasses[i] == 0 {
		return ""
	}
	oc := c.opclasses[k.opclasses[i]]
	if oc == nil || oc.isDefault && oc.input == uint32(k.typs[i].Oid) {
		return ""
	}
	return s.qualifiedOpclass(oc.schema, oc.name)
}

// orderingMember reports whether operator op is a btree family's "<" or
// ">" (strategy 1 or 5, of one type) by a user's ALTER OPERATOR FAMILY or
// CREATE OPERATOR CLASS, the family having that type's equality
// (strategy 3): PostgreSQL then sorts by it, which fickle does not.
func orderingMember(c *catalog, op uint32) bool {
	for _, m := range c.amMembers {
		if !m.proc && m.object == op && m.method == "btree" && (m.number == 1 || m.number == 5) && m.sortFamily == 0 &&
			m.left == m.right && familyMember(c, false, m.family, m.left, m.left, 3) != 0 {
			return true
		}
	}
	return false
}

// classFamily is the family and input type of the operator class of the
// OID, a user's or a built-in one (opclassFamily).
func classFamily(c *catalog, oid uint32) (family, intype uint32) {
	if oc := c.opclasses[oid]; oc != nil {
		return oc.family, oc.input
	}
	return opclassFamily(oid)
}
