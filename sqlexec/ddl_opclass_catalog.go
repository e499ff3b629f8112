package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalog rows of the users' operator classes and families, beside
// the built-in ones of pg_opclass, pg_opfamily, pg_amop and pg_amproc, and
// their pg_depend rows as opclasscmds.c records them.

// The catalogs of pg_amop's and pg_amproc's rows, and pg_am, for pg_depend.
const (
	oidPgAmopClass   = 2602
	oidPgAmprocClass = 2603
)

// userOpclassRows are pg_opclass's rows of the users' classes.
func userOpclassRows(c *catalog) [][]any {
	var out [][]any
	for _, oc := range sortedOpclasses(c) {
		out = append(out, []any{int64(oc.oid), int64(indexAccessMethods[oc.method]), oc.name, schemaOID(c, oc.schema),
			int64(oc.owner), int64(oc.family), int64(oc.input), oc.isDefault, int64(oc.keytype)})
	}
	return out
}

// userOpfamilyRows are pg_opfamily's rows of the users' families.
func userOpfamilyRows(c *catalog) [][]any {
	var out [][]any
	for _, f := range sortedOpfamilies(c) {
		out = append(out, []any{int64(f.oid), int64(indexAccessMethods[f.method]), f.name, schemaOID(c, f.schema), int64(f.owner)})
	}
	return out
}

// userAmopRows are pg_amop's rows the users added: a search operator
// ('s') or, with a sort family, an ordering one ('o').
func userAmopRows(c *catalog) [][]any {
	var out [][]any
	for _, m := range sortedAmMembers(c) {
		if m.proc {
			continue
		}
		purpose := "s"
		if m.sortFamily != 0 {
			purpose = "o"
		}
		out = append(out, []any{int64(m.oid), int64(m.family), int64(m.left), int64(m.right), int64(m.number), purpose,
			int64(m.object), int64(indexAccessMethods[m.method]), int64(m.sortFamily)})
	}
	return out
}

// userAmprocRows are pg_amproc's rows the users added.
func userAmprocRows(c *catalog) [][]any {
	var out [][]any
	for _, m := range sortedAmMembers(c) {
		if m.proc {
			out = append(out, []any{int64(m.oid), int64(m.family), int64(m.left), int64(m.right), int64(m.number), int64(m.object)})
		}
	}
	return out
}

// opclassDependencyRows are pg_depend's rows of the users' families,
// classes and members: a family on its schema; a class on its schema and
// types ('n') and its family ('a'); a member on its operator or function
// and on its class or family: 'n' and 'i' when it is tied hard, 'a' and
// 'a' when not; an ordering operator on its sort family ('n' or 'a' alike).
// Built-in (pinned) objects are not listed.
func opclassDependencyRows(c *catalog) [][]any {
	var out [][]any
	dep := func(class, oid, refClass, ref uint32, kind string) {
		if ref >= firstUserOID || refClass == oidPgNamespace && ref == oidPublic {
			out = append(out, []any{int64(class), int64(oid), int64(0), int64(refClass), int64(ref), int64(0), kind})
		}
	}
	for _, f := range sortedOpfamilies(c) {
		dep(oidPgOpfamilyClass, f.oid, oidPgNamespace, uint32(schemaOID(c, f.schema)), "n")
	}
	for _, oc := range sortedOpclasses(c) {
		dep(oidPgOpclassClass, oc.oid, oidPgNamespace, uint32(schemaOID(c, oc.schema)), "n")
		dep(oidPgOpclassClass, oc.oid, oidPgOpfamilyClass, oc.family, "a")
		dep(oidPgOpclassClass, oc.oid, oidPgType, oc.input, "n")
		if oc.keytype != 0 {
			dep(oidPgOpclassClass, oc.oid, oidPgType, oc.keytype, "n")
		}
	}
	for _, m := range sortedAmMembers(c) {
		class, refClass := uint32(oidPgAmopClass), uint32(oidPgOperatorClass)
		if m.proc {
			class, refClass = oidPgAmprocClass, oidPgProc
		}
		objKind, refKind := "a", "a"
		if m.hard {
			objKind, refKind = "n", "i"
		}
		dep(class, m.oid, refClass, m.object, objKind)
		if m.opclass != 0 {
			dep(class, m.oid, oidPgOpclassClass, m.opclass, refKind)
		} else {
			dep(class, m.oid, oidPgOpfamilyClass, m.family, refKind)
		}
		if m.sortFamily != 0 {
			dep(class, m.oid, oidPgOpfamilyClass, m.sortFamily, objKind)
		}
	}
	return out
}

// describeOpclassObject is pg_describe_object for the users' classes,
// families and their members; false for another object.
func describeOpclassObject(s *Session, c *catalog, classid, objid uint32) (any, bool) {
	switch classid {
	case oidPgOpclassClass:
		if oc := c.opclasses[objid]; oc != nil {
			return s.opclassDescription(oc), true
		}
	case oidPgOpfamilyClass:
		if f := c.opfamilies[objid]; f != nil {
			return s.opfamilyDescription(f), true
		}
	case oidPgAmopClass, oidPgAmprocClass:
		if m := c.amMembers[objid]; m != nil && m.proc == (classid == oidPgAmprocClass) {
			return s.memberDescription(c, m), true
		}
		return nil, true
	}
	return nil, false
}

// opclassesClash reports whether two of the classes or families have one
// name, method and schema: two transactions each created one, which the
// catalogs' unique indexes refuse to the second to commit.
func opclassesClash(c *catalog) error {
	seen := map[[4]string]bool{}
	for _, oc := range c.opclasses {
		key := [4]string{"c", oc.method, oc.schema, oc.name}
		if seen[key] {
			return pgerror.New(pgerror.UniqueViolation, "duplicate key value violates unique constraint \"pg_opclass_am_name_nsp_index\"")
		}
		seen[key] = true
	}
	for _, f := range c.opfamilies {
		key := [4]string{"f", f.method, f.schema, f.name}
		if seen[key] {
			return pgerror.New(pgerror.UniqueViolation, "duplicate key value violates unique constraint \"pg_opfamily_am_name_nsp_index\"")
		}
		seen[key] = true
	}
	return nil
}

// opclassVisible is OpclassIsVisible (family false) and
// OpfamilyIsVisible (family true): the class or family of the OID is the
// first of its name and method on the search path; NULL for no such OID.
func opclassVisible(s *Session, c *catalog, oid uint32, family bool) any {
	var method, schema, name string
	switch {
	case family && c.opfamilies[oid] != nil:
		f := c.opfamilies[oid]
		method, schema, name = f.method, f.schema, f.name
	case !family && c.opclasses[oid] != nil:
		oc := c.opclasses[oid]
		method, schema, name = oc.method, oc.schema, oc.name
	case extensionOpclassOf(c, oid, family) != nil:
		oc := extensionOpclassOf(c, oid, family)
		method, schema, name = oc.def.method, oc.schema, oc.def.name
	case family:
		f := opfamilyByOID(c, oid)
		if f == nil {
			return nil
		}
		method, schema, name = f.method, f.schema, f.name
	default:
		i := slices.IndexFunc(builtinOpclassRows(), func(r builtinOpclassRow) bool { return r.oid == oid })
		if i < 0 {
			return nil
		}
		r := builtinOpclassRows()[i]
		method, schema, name = r.method, "pg_catalog", r.name
	}
	for _, sc := range s.lookupSchemas([]string{name}) {
		if oc := s.extensionOpclass(c, []string{sc, name}, method); oc != nil {
			return oc.oid == oid || family && oc.family == oid
		}
		if family {
			if f := lookupOpfamily(s, c, method, []string{sc, name}); f != nil {
				return f.oid == oid
			}
			continue
		}
		if sc == "pg_catalog" {
			if slices.ContainsFunc(builtinOpclassRows(), func(r builtinOpclassRow) bool { return r.method == method && r.name == name }) {
				return schema == "pg_catalog"
			}
			continue
		}
		if oc, _ := lookupUserOpclass(s, c, method, []string{sc, name}); oc != nil {
			return oc.oid == oid
		}
	}
	return false
}

// extensionOpclassOf is the installed extensions' operator class of the
// OID, or (family) whose family has the OID; nil for none.
func extensionOpclassOf(c *catalog, oid uint32, family bool) *opclassDesc {
	for _, ext := range c.extensions {
		for _, oc := range ext.opclasses {
			if !family && oc.oid == oid || family && oc.family == oid {
				return oc
			}
		}
	}
	return nil
}

func init() {
	for _, fn := range []struct {
		name   string
		family bool
	}{{"pg_opclass_is_visible", false}, {"pg_opfamily_is_visible", true}} {
		addSysFunc(fn.name, sysFunc{args: []types.Type{types.OidType}, result: types.Bool,
			eval: func(x *execCtx, a []any) (any, error) {
				c, _ := x.s.catalog()
				return opclassVisible(x.s, c, uint32(a[0].(int64)), fn.family), nil
			}})
	}
}
