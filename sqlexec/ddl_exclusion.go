package sqlexec

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// EXCLUDE constraints. An exclusion constraint is an index whose elements
// (columns or expressions) each name an operator: two rows conflict when
// every element's operator holds between their values, as PostgreSQL's
// check_exclusion_or_unique_constraint decides. The operators are resolved
// as ComputeIndexAttrs does: the element type's default operator class of
// the access method (btree_gist's for scalar types under gist), an
// operator taking the element type on both sides, which must be its own
// commutator (42809) and a search operator of the class's family (42809).
// The store enforces the constraint (isolation.IndexSpec.Excludes), with
// the elements compared by their type's btree equality as the index key
// so that only rows equal on them are compared; this file builds the
// predicate and the key, checks the rows an ALTER TABLE finds, and prints
// the constraint back.

// exclusionElem is one element of an EXCLUDE constraint: its operator's
// name and OID, the operator itself, whether it is the element type's
// btree equality (keyed), which the store's index key holds, and whether
// its operator class is btree_gist's.
type exclusionElem struct {
	op               string
	oid              uint32
	holds            func(a, b any) bool
	keyed, btreeGist bool
}

// exclusionMethods are the access methods whose indexes can back an
// exclusion constraint (amgettuple): PostgreSQL's built-in ones.
var exclusionMethods = map[string]bool{"btree": true, "hash": true, "gist": true, "spgist": true}

// addExclusion adds the EXCLUDE constraint c to t.
func (d *ddl) addExclusion(t *tableDesc, c *pg_query.Constraint) error {
	if t.part != nil {
		return pgerror.New(pgerror.FeatureNotSupported, "exclusion constraints are not supported on partitioned tables")
	}
	method := cmp.Or(c.AccessMethod, "btree")
	if !exclusionMethods[method] {
		if d.cat.accessMethodOID(method) != 0 {
			return pgerror.Newf(pgerror.FeatureNotSupported, "access method \"%s\" does not support exclusion constraints", method)
		}
		return pgerror.Newf(pgerror.UndefinedObject, "access method \"%s\" does not exist", method)
	}
	var keys indexKeyElems
	var elems []exclusionElem
	hasExpr := false
	for _, n := range c.Exclusions {
		pair := n.GetList().GetItems()
		if len(pair) != 2 || pair[0].GetIndexElem() == nil {
			return pgerror.Unsupported("this form of EXCLUDE constraint")
		}
		ie := pair[0].GetIndexElem()
		if len(ie.Collation) > 0 || ie.Expr.GetCollateClause() != nil {
			return pgerror.Unsupported("collations in EXCLUDE constraints")
		}
		if ie.Ordering != pg_query.SortByDir_SORTBY_DEFAULT || ie.NullsOrdering != pg_query.SortByNulls_SORTBY_NULLS_DEFAULT {
			if method != "btree" {
				return pgerror.Newf(pgerror.FeatureNotSupported, "access method \"%s\" does not support ASC/DESC options", method)
			}
			return pgerror.Unsupported("ordering options in EXCLUDE constraints")
		}
		if ie.Expr == nil && t.colIndex(ie.Name) < 0 {
			return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" named in key does not exist", ie.Name)
		}
		typ, err := d.exclusionElemType(t, ie)
		if err != nil {
			return err
		}
		if len(ie.Opclass) > 0 {
			if ie, err = d.exclusionDefaultOpclass(ie, method, typ); err != nil {
				return err
			}
		}
		keysMethod := method
		if d.btreeGistClass(method, typ) {
			keysMethod = "btree" // the extension's class orders the type as btree's
		}
		k, err := d.indexKeys(t, []*pg_query.Node{{Node: &pg_query.Node_IndexElem{IndexElem: ie}}}, keysMethod)
		if err != nil {
			return err
		}
		if keysMethod != method {
			k.opts[0] = d.btreeGistKeyOpts(typ)
		}
		if err := checkIndexOpclasses(d.cat, k.opts, method, false, true); err != nil {
			return err
		}
		el, err := exclusionOperator(method, typ, strs(pair[1].GetList().GetItems()), d.btreeGistClass(method, typ))
		if err != nil {
			return err
		}
		expr := (*pg_query.Node)(nil)
		if k.exprs != nil {
			expr, hasExpr = k.exprs[0], true
		}
		keys.cols, keys.exprs, keys.names = append(keys.cols, k.cols[0]), append(keys.exprs, expr), append(keys.names, k.names[0])
		keys.opts = append(keys.opts, k.opts[0])
		elems = append(elems, el)
	}
	if !hasExpr {
		keys.exprs = nil
	}
	var include []int
	for _, n := range c.Including {
		name := n.GetString_().GetSval()
		col := t.colIndex(name)
		if col < 0 {
			return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" named in key does not exist", name)
		}
		include = append(include, col)
	}
	name := c.Conname
	if name == "" {
		named := indexColumnNames(append(slices.Clip(keys.names), colNameList(t, include)...))
		name = d.uniqueRelName(t.schema, t.name, indexNameAddition(named), "excl")
	} else if d.relationExists(t.schema, name) {
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", name)
	}
	ix := &indexDesc{name: name, table: t.oid, cols: keys.cols, exprs: keys.exprs, exprNames: keys.exprNames(), pred: c.WhereClause,
		include: include, constraint: true, exclusion: true, deferrable: c.Deferrable, initiallyDeferred: c.Initdeferred, excl: elems}
	ix = ix.unqualified(t)
	if method != "btree" {
		ix.method = method
	}
	if slices.ContainsFunc(keys.opts, func(o indexKeyOpts) bool { return o != indexKeyOpts{} }) {
		ix.keyOpts = keys.opts
	}
	if err := d.requireSchemaCreate(t.schema); err != nil {
		return err
	}
	return d.registerIndex(t, ix)
}

// exclusionDefaultOpclass checks the operator class EXCLUDE element ie
// (of type typ) names under method, as CREATE INDEX resolves it, and
// returns the element without it: the class must be the type's default
// one (a built-in class, or btree_gist's while installed), which the
// element takes anyway; another class is refused (0A000).
func (d *ddl) exclusionDefaultOpclass(ie *pg_query.IndexElem, method string, typ types.Type) (*pg_query.IndexElem, error) {
	named := &pg_query.IndexElem{Opclass: ie.Opclass, Opclassopts: ie.Opclassopts, Ordering: pg_query.SortByDir_SORTBY_DEFAULT,
		NullsOrdering: pg_query.SortByNulls_SORTBY_NULLS_DEFAULT}
	o, err := indexOptions(named, method, typ, d.extensionOpclassLookup())
	if err != nil {
		return nil, err
	}
	if !o.opclassDefault || o.opclassOpts != "" || userOpclassByOID(d.cat, o.opclassOID) != nil {
		return nil, pgerror.Unsupported("operator class " + o.opclass + " in an EXCLUDE constraint, which is not the type's default")
	}
	plain := proto.Clone(ie).(*pg_query.IndexElem)
	plain.Opclass, plain.Opclassopts = nil, nil
	return plain, nil
}

// exclusionElemType is the type of EXCLUDE element ie of table t: its
// column's or its expression's.
func (d *ddl) exclusionElemType(t *tableDesc, ie *pg_query.IndexElem) (types.Type, error) {
	if ie.Expr == nil {
		return t.cols[t.colIndex(ie.Name)].typ, nil
	}
	e, err := d.binder("").indexExpr(t, ie.Expr, "index expression")
	if err != nil {
		return types.Type{}, err
	}
	return e.typ, nil
}

// btreeGistTypes are the types btree_gist 1.7 gives a default gist
// operator class (btreeGistClasses; varchar takes text's), whose family
// has the type's btree comparisons and <>, by the name in the family's.
var btreeGistTypes = func() map[types.Oid]string {
	m := map[types.Oid]string{types.OidVarchar: "text"}
	for _, c := range btreeGistClasses {
		if c.oid != types.OidAnyEnum {
			m[c.oid] = c.name
		}
	}
	return m
}()

// btreeGistKeyOpts are the options of a key of type typ that takes
// btree_gist's default class (btreeGistClass): the class, which pg_index
// shows and which DROP EXTENSION finds the constraint by.
func (d *ddl) btreeGistKeyOpts(typ types.Type) indexKeyOpts {
	oc := d.s.extensionDefaultOpclass(d.cat, "gist", typ)
	if oc == nil {
		return indexKeyOpts{}
	}
	return indexKeyOpts{opclass: oc.def.name, opclassOID: oc.oid, opclassSchema: oc.schema, opclassDefault: true}
}

// btreeGistClass reports whether a gist key of type typ takes btree_gist's
// operator class: the extension is installed and the type has no built-in
// default gist class.
func (d *ddl) btreeGistClass(method string, typ types.Type) bool {
	if method != "gist" || d.cat.extensions["btree_gist"] == nil || defaultOpclass("gist", typ) != 0 {
		return false
	}
	_, ok := btreeGistTypes[typ.Oid]
	return ok || typ.IsEnum()
}

// searchOperators are pg_amop's search operators (purpose 's') by family
// and operator OID.
var searchOperators = sync.OnceValue(func() map[[2]uint32]bool {
	m := map[[2]uint32]bool{}
	eachRow(pgdata.Load(pgdata.PgAmop), func(get func(string) string) {
		if get("amoppurpose") == "s" {
			m[[2]uint32{atou(get("amopfamily")), atou(get("amopopr"))}] = true
		}
	})
	return m
})

// opfamilyNames are pg_opfamily's names by OID.
var opfamilyNames = sync.OnceValue(func() map[uint32]string {
	m := map[uint32]string{}
	eachRow(pgdata.Load(pgdata.PgOpfamily), func(get func(string) string) { m[atou(get("oid"))] = get("opfname") })
	return m
})

// exclusionOperator resolves the operator names of an EXCLUDE element of
// type typ under access method method (btreeGist: through btree_gist's
// operator class) as ComputeIndexAttrs does.
func exclusionOperator(method string, typ types.Type, names []string, btreeGist bool) (exclusionElem, error) {
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	if len(names) != 1 {
		return exclusionElem{}, pgerror.Unsupported("EXCLUDE constraints with operator " + strings.Join(names, "."))
	}
	name := names[0]
	o, err := types.ResolveBinaryOp(name, typ, typ)
	if err != nil {
		return exclusionElem{}, err
	}
	idx := builtinIndex()
	inputs := opclassInputTypes(typ)
	var oper *builtinOper
	for _, cand := range idx.opersByName[name] {
		if cand.kind != 'b' {
			continue
		}
		if cand.left == uint32(o.Left.Oid) && cand.right == uint32(o.Right.Oid) {
			oper = cand
			break
		}
		if oper == nil && slices.Contains(inputs, cand.left) && slices.Contains(inputs, cand.right) {
			oper = cand
		}
	}
	if oper == nil || o.Result.Oid != types.OidBool {
		return exclusionElem{}, pgerror.Unsupported("EXCLUDE constraints with operator " + name + " on type " + types.FormatTypeBe(typ))
	}
	text := name + "(" + types.FormatTypeBe(types.Type{Oid: types.Oid(oper.left), Typmod: -1}) + "," +
		types.FormatTypeBe(types.Type{Oid: types.Oid(oper.right), Typmod: -1}) + ")"
	if oper.com != oper.oid {
		return exclusionElem{}, pgerror.Newf(pgerror.WrongObjectType, "operator %s is not commutative", text).
			WithDetail("Only commutative operators can be used in exclusion constraints.")
	}
	member := false
	family := ""
	if btreeGist {
		// btree_gist's families hold the type's btree comparisons and
		// <>, of which = and <> are commutative.
		member = name == "=" || name == "<>"
		family = "gist_" + cmp.Or(btreeGistTypes[typ.Oid], "enum") + "_ops"
	} else {
		fam := idx.opclasses[defaultOpclass(method, typ)][0]
		member, family = searchOperators()[[2]uint32{fam, oper.oid}], opfamilyNames()[fam]
	}
	if !member {
		return exclusionElem{}, pgerror.Newf(pgerror.WrongObjectType, "operator %s is not a member of operator family \"%s\"", text, family).
			WithDetail("The exclusion operator must be related to the index operator class for the constraint.")
	}
	_, eq, _ := keyEqualityOperators(defaultOpclass("btree", typ), typ)
	eval := o.Eval
	return exclusionElem{op: name, oid: oper.oid, keyed: eq != 0 && eq == oper.oid, btreeGist: btreeGist, holds: func(a, b any) bool {
		v, err := eval(a, b)
		return err == nil && v == true
	}}, nil
}

// exclusionValues are row's values of ix's elements; in is false for a
// row its predicate leaves out (or whose expressions fail, which the
// write reports itself: checkIndexRows).
func (ix *indexDesc) exclusionValues(row []any) (vals []any, in bool) {
	if ix.rows != nil && (ix.pred != nil || ix.exprs != nil) {
		vals, in, err := ix.rows.values(row)
		return vals, in && err == nil
	}
	vals = make([]any, len(ix.cols))
	for i, c := range ix.cols {
		vals[i] = row[c]
	}
	return vals, true
}

// exclusionText is row's values of ix's elements (table t) as a 23P01's
// DETAIL prints them, in session s's TimeZone and DateStyle.
func (ix *indexDesc) exclusionText(s *Session, t *tableDesc, row []any) string {
	vals, _ := ix.exclusionValues(row)
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = "null"
		if v != nil {
			out[i] = types.FormatTextEnv(s.textEnv(), ix.keyType(t, i), v)
		}
	}
	return strings.Join(out, ", ")
}

// exclusionSpec is the store's description of exclusion constraint ix of
// table t: the keyed elements' values as the index key, a NULL element or
// a row outside the predicate never conflicting, and the elements'
// operators as the conflict.
func exclusionSpec(t *tableDesc, ix *indexDesc) isolation.IndexSpec {
	typs := make([]types.Type, len(ix.cols))
	for i := range ix.cols {
		typs[i] = ix.keyType(t, i)
	}
	elems := ix.excl
	if ix.pred == nil && ix.exprs == nil {
		// Columns alone: the rows' own values, without a copy (a write
		// compares its row with every row under its key).
		cols := ix.cols
		return isolation.IndexSpec{
			Name:     ix.name,
			Deferred: ix.deferrable,
			Key: func(buf []byte, row []any) ([]byte, bool) {
				for i, c := range cols {
					if row[c] == nil {
						return buf, true
					}
					if elems[i].keyed {
						buf = types.AppendKey(buf, typs[i], row[c])
					}
				}
				return buf, false
			},
			Excludes: func(a, b []any) bool {
				for i, c := range cols {
					if !elems[i].holds(a[c], b[c]) {
						return false
					}
				}
				return true
			},
		}
	}
	return isolation.IndexSpec{
		Name:     ix.name,
		Deferred: ix.deferrable,
		Key: func(buf []byte, row []any) ([]byte, bool) {
			vals, in := ix.exclusionValues(row)
			if !in {
				return buf, true
			}
			for i, v := range vals {
				if v == nil {
					return buf, true
				}
				if elems[i].keyed {
					buf = types.AppendKey(buf, typs[i], v)
				}
			}
			return buf, false
		},
		Excludes: func(a, b []any) bool {
			va, ina := ix.exclusionValues(a)
			vb, inb := ix.exclusionValues(b)
			if !ina || !inb {
				return false
			}
			for i, el := range elems {
				if !el.holds(va[i], vb[i]) {
					return false
				}
			}
			return true
		},
	}
}

// checkExclusionRows checks the rows t holds against new exclusion
// constraint ix, as PostgreSQL's index build does: the first row, in
// storage order, that conflicts with another fails the constraint.
func (d *ddl) checkExclusionRows(t *tableDesc, ix *indexDesc) error {
	spec := exclusionSpec(t, ix)
	var rows [][]any
	var keys []string
	byKey := map[string][]int{}
	err := d.scanRows(t, func(row []any) error {
		k, null := spec.Key(nil, row)
		if !null {
			byKey[string(k)] = append(byKey[string(k)], len(rows))
		}
		rows, keys = append(rows, row), append(keys, string(k))
		return nil
	})
	if err != nil {
		return err
	}
	for i, row := range rows {
		for _, j := range byKey[keys[i]] {
			if j != i && spec.Excludes(row, rows[j]) {
				names := ix.keyNamesText(d.s, d.cat, t)
				return pgerror.Newf(pgerror.ExclusionViolation, "could not create exclusion constraint \"%s\"", ix.name).
					WithDetail("Key (%s)=(%s) conflicts with key (%s)=(%s).", names, ix.exclusionText(d.s, t, row), names, ix.exclusionText(d.s, t, rows[j])).
					WithConstraint(t.name, ix.name)
			}
		}
	}
	return nil
}

// exclusionError is the 23P01 of a write of row to t that conflicts with
// exclusion constraint ix, err the store's.
func exclusionError(s *Session, c *catalog, t *tableDesc, ix *indexDesc, err error, row []any, existing []any) error {
	names := ix.keyNamesText(s, c, t)
	return pgerror.Wrapf(err, pgerror.ExclusionViolation, "conflicting key value violates exclusion constraint \"%s\"", ix.name).
		WithDetail("Key (%s)=(%s) conflicts with existing key (%s)=(%s).", names, ix.exclusionText(s, t, row), names, ix.exclusionText(s, t, existing)).
		WithConstraint(t.name, ix.name)
}

// exclusionDef is pg_get_constraintdef of exclusion constraint ix of t.
func exclusionDef(s *Session, c *catalog, t *tableDesc, ix *indexDesc, pretty bool) string {
	parts := make([]string, len(ix.cols))
	for i := range ix.cols {
		parts[i] = ix.keyElemText(s, c, t, i, pretty) + " WITH " + ix.excl[i].op
	}
	def := "EXCLUDE USING " + ix.accessMethod() + " (" + strings.Join(parts, ", ") + ")"
	if len(ix.include) > 0 {
		def += " INCLUDE (" + columnList(t, ix.include) + ")"
	}
	if ix.pred != nil {
		def += " WHERE (" + decompile(s, c, deparseExpr(ix.pred), t.oid, pretty) + ")"
	}
	return def
}

// resolveExclusionOperators resolves the operators of exclusion constraint
// ix anew for its elements' types over t, as PostgreSQL does when it
// rebuilds the constraint's index (ALTER COLUMN TYPE): the same operator
// names, of the new types' operator classes.
func (d *ddl) resolveExclusionOperators(t *tableDesc, ix *indexDesc) error {
	method := ix.accessMethod()
	elems := make([]exclusionElem, len(ix.excl))
	opts := make([]indexKeyOpts, len(ix.cols))
	for i, el := range ix.excl {
		typ := ix.keyType(t, i)
		ne, err := exclusionOperator(method, typ, []string{el.op}, d.btreeGistClass(method, typ))
		if err != nil {
			return err
		}
		elems[i] = ne
		if opts[i] = ix.keyOption(i); ne.btreeGist {
			opts[i] = d.btreeGistKeyOpts(typ)
		} else if el.btreeGist {
			opts[i] = indexKeyOpts{}
		}
	}
	ix.excl = elems
	ix.keyOpts = nil
	if slices.ContainsFunc(opts, func(o indexKeyOpts) bool { return o != indexKeyOpts{} }) {
		ix.keyOpts = opts
	}
	return nil
}
