package sqlexec

import (
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// CREATE INDEX's access method, per-column options (COLLATE, operator
// class, ASC / DESC, NULLS FIRST / LAST) and INCLUDE columns. The store
// indexes every key alike (its order never reaches a result: ORDER BY
// sorts), so these only decide what the catalogs show: pg_get_indexdef
// (and so psql's \d and schema dumps), pg_index and pg_class.relam.

// indexKeyOpts is one key column's options.
type indexKeyOpts struct {
	// collation is the COLLATE named, "" for the column's own.
	collation string
	// opclass is the operator class named and opclassOID its OID, "" and
	// 0 for the type's default; opclassDefault says the named one is the
	// default anyway (pg_get_indexdef leaves it out).
	opclass        string
	opclassOID     uint32
	opclassDefault bool
	desc           bool
	nullsFirst     bool // the effective NULLS order
	// opclassOpts are the operator class's options as pg_get_indexdef
	// prints them (siglen='100'), "" for none.
	opclassOpts string
	// opclassSchema is the schema of an extension's operator class, ""
	// for a built-in one.
	opclassSchema string
}

// opclassRelOpts are the options of the operator classes that take some,
// by access method and operator class: GiST's tsvector_ops takes its
// signature length (gtsvector_options). fickle keeps no signatures, so a
// valid option changes nothing.
var opclassRelOpts = map[[2]string]map[string]relOpt{
	{"gist", "tsvector_ops"}: {"siglen": {kind: relOptInt, min: 1, max: 2024}},
}

// opclassOptions validates the options given to operator class opclass of
// method, which takes options known, as parseRelOptions does, in order,
// and returns them as
// pg_get_indexdef prints them.
func opclassOptions(opts []*pg_query.Node, method, opclass string, known map[string]relOpt) (string, error) {
	switch {
	case known == nil && method == "brin":
		// BRIN's minmax-multi and bloom classes take options fickle
		// does not check.
		return "", pgerror.Unsupported("operator class options of BRIN")
	case known == nil:
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "operator class %s has no options", opclass)
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range opts {
		de := n.GetDefElem()
		if de == nil {
			continue
		}
		opt, ok := known[de.Defname]
		if !ok || de.Defnamespace != "" {
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized parameter \"%s\"", de.Defname)
		}
		if seen[de.Defname] {
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "parameter \"%s\" specified more than once", de.Defname)
		}
		seen[de.Defname] = true
		if err := opt.check(de); err != nil {
			return "", err
		}
		out = append(out, de.Defname+"="+relOptText(de))
	}
	return flattenRelOptions(out), nil
}

// indexAccessMethods are the access methods CREATE INDEX takes, by name,
// with their pg_am OIDs. The store keeps an index of any method as an
// ordered index of its keys, which gives the same results: only B-tree
// indexes can be unique, and a method's limits (indexAmCapabilities) are
// checked as PostgreSQL does.
var indexAccessMethods = map[string]uint32{"btree": 403, "hash": 405, "gist": 783, "gin": 2742, "brin": 3580, "spgist": 4000}

// indexAmCapability is what an access method can do beyond indexing one
// key column in no particular order (PostgreSQL's IndexAmRoutine flags):
// unique (amcanunique), order (amcanorder), orderByOperator
// (amcanorderbyop), backward (amcanbackward), multicolumn
// (amcanmulticol), include (amcaninclude), searchArray and searchNulls
// (amsearcharray, amsearchnulls), clusterable (amclusterable), tupleScan
// (an amgettuple) and canReturn (an amcanreturn).
type indexAmCapability struct {
	unique, order, orderByOperator, backward, multicolumn, include bool
	searchArray, searchNulls, clusterable, tupleScan, canReturn    bool
}

var indexAmCapabilities = map[string]indexAmCapability{
	"btree": {unique: true, order: true, backward: true, multicolumn: true, include: true, searchArray: true, searchNulls: true,
		clusterable: true, tupleScan: true, canReturn: true},
	"hash": {backward: true, tupleScan: true},
	"gist": {orderByOperator: true, multicolumn: true, include: true, searchNulls: true, clusterable: true, tupleScan: true,
		canReturn: true},
	"gin":    {multicolumn: true},
	"brin":   {multicolumn: true, searchNulls: true},
	"spgist": {orderByOperator: true, include: true, searchNulls: true, tupleScan: true, canReturn: true},
}

// indexOptions reads the options of key column ie (of type typ) of an
// index using method, with PostgreSQL's errors in its order
// (ComputeIndexAttrs): collation, operator class, ordering. extOpclass,
// when set, finds the installed extensions' operator classes: the one
// names resolves to, or with names nil typ's default one.
func indexOptions(ie *pg_query.IndexElem, method string, typ types.Type, extOpclass func(names []string, method string, typ types.Type) *opclassDesc) (indexKeyOpts, error) {
	var o indexKeyOpts
	if len(ie.Collation) > 0 {
		if typeCollation(typ.Oid) == 0 {
			return o, pgerror.Newf(pgerror.DatatypeMismatch, "collations are not supported by type %s", typ)
		}
		switch name := strs(ie.Collation)[len(ie.Collation)-1]; name {
		case "default", "C", "POSIX", "ucs_basic":
			o.collation = name
		default:
			return o, pgerror.Unsupported("collation " + name + " in an index")
		}
	}
	var extClass, extDefault *opclassDesc
	if extOpclass != nil {
		if len(ie.Opclass) > 0 {
			extClass = extOpclass(strs(ie.Opclass), method, typ)
		}
		if defaultOpclass(method, typ) == 0 {
			extDefault = extOpclass(nil, method, typ)
		}
	}
	if extClass == nil && len(ie.Opclass) == 0 && extDefault != nil {
		// An extension's default class (btree_gin's, bloom's), which
		// pg_get_indexdef leaves out as it leaves out a built-in one.
		extClass = extDefault
	}
	if extClass != nil {
		if !extensionOpclassAccepts(extClass.def.input, typ) {
			return o, pgerror.Newf(pgerror.DatatypeMismatch, "operator class \"%s\" does not accept data type %s", extClass.def.name, types.FormatTypeBe(typ))
		}
		o.opclass, o.opclassOID, o.opclassSchema = extClass.def.name, extClass.oid, extClass.schema
		o.opclassDefault = extDefault != nil && extDefault.oid == extClass.oid
	} else if len(ie.Opclass) > 0 && typ.IsHstore() {
		name, err := hstoreOpclass(strs(ie.Opclass), method, typ)
		if err != nil {
			return o, err
		}
		o.opclass, o.opclassDefault = name, true
	} else if len(ie.Opclass) > 0 {
		names := strs(ie.Opclass)
		name := names[len(names)-1]
		oid, isDefault, err := indexOpclass(strings.Join(names, "."), name, method, typ)
		if err != nil {
			return o, err
		}
		o.opclass, o.opclassOID, o.opclassDefault = name, oid, isDefault
	} else if defaultOpclass(method, typ) == 0 && !(typ.IsCitext() && (method == "btree" || method == "hash")) && !(typ.IsHstore() && hstoreOpclasses[method] != "") {
		// citext's citext_ops are the extension's, which fickle's
		// catalog does not list: its keys are citext's (types.AppendKey).
		return o, pgerror.Newf(pgerror.UndefinedObject, "data type %s has no default operator class for access method \"%s\"", types.FormatTypeBe(typ), method).
			WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
	}
	if !indexAmCapabilities[method].order {
		if ie.Ordering != pg_query.SortByDir_SORTBY_DEFAULT {
			return o, pgerror.Newf(pgerror.FeatureNotSupported, "access method \"%s\" does not support ASC/DESC options", method)
		}
		if ie.NullsOrdering != pg_query.SortByNulls_SORTBY_NULLS_DEFAULT {
			return o, pgerror.Newf(pgerror.FeatureNotSupported, "access method \"%s\" does not support NULLS FIRST/LAST options", method)
		}
	}
	if len(ie.Opclassopts) > 0 {
		known := opclassRelOpts[[2]string{method, o.opclass}]
		if extClass != nil {
			known = extClass.def.options
		}
		opts, err := opclassOptions(ie.Opclassopts, method, o.opclass, known)
		if err != nil {
			return o, err
		}
		o.opclassOpts = opts
	}
	o.desc = ie.Ordering == pg_query.SortByDir_SORTBY_DESC
	switch ie.NullsOrdering {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		o.nullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_DEFAULT:
		o.nullsFirst = o.desc
	}
	return o, nil
}

// extensionOpclassAccepts reports whether an extension's operator class of
// input type input can index a key of type typ, as PostgreSQL's
// IsBinaryCoercible decides: the type itself, the one it is
// binary-coercible to (opclassInputTypes), or text for citext.
func extensionOpclassAccepts(input, typ types.Type) bool {
	return input.Oid == typ.Oid || slices.Contains(opclassInputTypes(typ), uint32(input.Oid)) ||
		typ.IsCitext() && input.Oid == types.OidText
}

// indexOpclass resolves operator class name (written as the statement
// wrote it, qualified or not) of access method method for a column of
// type typ: its OID and whether it is the type's default.
func indexOpclass(written, name, method string, typ types.Type) (uint32, bool, error) {
	am := strconv.FormatUint(uint64(indexAccessMethods[method]), 10)
	var oid, intype uint32
	found := false
	eachRow(pgdata.Load(pgdata.PgOpclass), func(get func(string) string) {
		if !found && get("opcmethod") == am && get("opcname") == name {
			oid, intype, found = atou(get("oid")), atou(get("opcintype")), true
		}
	})
	switch {
	case !found:
		return 0, false, pgerror.Newf(pgerror.UndefinedObject, "operator class \"%s\" does not exist for access method \"%s\"", written, method)
	case !slices.Contains(opclassInputTypes(typ), intype):
		return 0, false, pgerror.Newf(pgerror.DatatypeMismatch, "operator class \"%s\" does not accept data type %s", name, types.FormatTypeBe(typ))
	}
	return oid, defaultOpclass(method, typ) == oid, nil
}

// checkAccessMethod refuses what access method method cannot index, with
// PostgreSQL's errors in its order (DefineIndex).
func checkAccessMethod(method string, unique bool, keys, include int) error {
	can := indexAmCapabilities[method]
	switch {
	case unique && !can.unique:
		return pgerror.Newf(pgerror.FeatureNotSupported, "access method \"%s\" does not support unique indexes", method)
	case include > 0 && !can.include:
		return pgerror.Newf(pgerror.FeatureNotSupported, "access method \"%s\" does not support included columns", method)
	case keys > 1 && !can.multicolumn:
		return pgerror.Newf(pgerror.FeatureNotSupported, "access method \"%s\" does not support multicolumn indexes", method)
	}
	return nil
}

// indexColumnNames is PostgreSQL's ChooseIndexColumnNames: the names of an
// index's columns for its default name, a repeated one numbered from 1.
func indexColumnNames(names []string) []string {
	seen := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		cand := n
		for k := 1; seen[cand]; k++ {
			cand = n + strconv.Itoa(k)
		}
		seen[cand] = true
		out[i] = cand
	}
	return out
}

// accessMethod is ix's access method by name.
func (ix *indexDesc) accessMethod() string {
	if ix.method == "" {
		return "btree"
	}
	return ix.method
}

// nonDefaultOpclass is the operator class named, 0 when it is the type's
// default or none was named.
func (o indexKeyOpts) nonDefaultOpclass() uint32 {
	if o.opclassDefault {
		return 0
	}
	return o.opclassOID
}

// keyOption returns the options of ix's key column i.
func (ix *indexDesc) keyOption(i int) indexKeyOpts {
	if ix.keyOpts == nil {
		return indexKeyOpts{}
	}
	return ix.keyOpts[i]
}

// sameOptions reports whether ix and o match as PostgreSQL's
// CompareIndexInfo matches a partition's index with a partitioned one: the
// same access method, INCLUDE columns (by name: t is ix's table, ot o's),
// NULLS NOT DISTINCT, collations and operator classes; ASC / DESC and NULLS
// FIRST / LAST do not count.
func (ix *indexDesc) sameOptions(t *tableDesc, o *indexDesc, ot *tableDesc) bool {
	if ix.accessMethod() != o.accessMethod() || len(ix.cols) != len(o.cols) || ix.nullsNotDistinct != o.nullsNotDistinct ||
		strings.Join(colNameList(t, ix.include), ",") != strings.Join(colNameList(ot, o.include), ",") {
		return false
	}
	for i := range ix.cols {
		a, b := ix.keyOption(i), o.keyOption(i)
		if ix.keyCollation(t, i) != o.keyCollation(ot, i) || a.nonDefaultOpclass() != b.nonDefaultOpclass() {
			return false
		}
	}
	return true
}

// withOptionsOf gives ix (of table t) the access method, key options,
// INCLUDE columns (mapped by name) and NULLS NOT DISTINCT of o (of table ot).
func (ix *indexDesc) withOptionsOf(t *tableDesc, o *indexDesc, ot *tableDesc) {
	ix.method, ix.keyOpts, ix.options, ix.include, ix.nullsNotDistinct = o.method, o.keyOpts, o.options, nil, o.nullsNotDistinct
	for _, n := range colNameList(ot, o.include) {
		ix.include = append(ix.include, t.colIndex(n))
	}
}

// keyDefinition is key column i of ix (table t) as pg_get_indexdef writes
// it: the name or expression, then the options that differ from the
// defaults.
func (ix *indexDesc) keyDefinition(sess *Session, c *catalog, t *tableDesc, i int, pretty bool) string {
	s := ix.keyElemText(sess, c, t, i, pretty)
	if o := ix.keyOption(i); o.collation != "" && ix.keyCollation(t, i) != ix.ownCollation(t, i) {
		s += " COLLATE " + types.QuoteIdent(o.collation)
	}
	o := ix.keyOption(i)
	if o.opclass != "" && (!o.opclassDefault || o.opclassOpts != "") {
		s += " " + sess.qualifiedOpclass(o.opclassSchema, o.opclass)
	}
	if o.opclassOpts != "" {
		s += " (" + o.opclassOpts + ")"
	}
	if o.desc {
		s += " DESC"
		if !o.nullsFirst {
			s += " NULLS LAST"
		}
	} else if o.nullsFirst {
		s += " NULLS FIRST"
	}
	return s
}

// collationOIDs are the OIDs of the collations an index may name.
var collationOIDs = map[string]int64{"default": oidDefaultCollation, "C": oidCCollation, "POSIX": oidPOSIXCollation, "ucs_basic": 12340}

// collationName is the name of the collation of OID oid among
// collationOIDs, "" for another.
func collationName(oid int64) string {
	for name, o := range collationOIDs {
		if o == oid {
			return name
		}
	}
	return ""
}

// collationOID is the column's pg_attribute.attcollation: its COLLATE's
// collation, else its type's (0 for a type without collations).
func (col *columnDesc) collationOID() int64 { return columnCollationOid(col.typ, col.collation) }

// keyCollation is the collation OID of key column i of ix (table t),
// pg_index.indcollation's: the one its COLLATE names, else the key's own.
func (ix *indexDesc) keyCollation(t *tableDesc, i int) int64 {
	if c, ok := collationOIDs[ix.keyOption(i).collation]; ok {
		return c
	}
	return ix.ownCollation(t, i)
}

// ownCollation is the collation OID key column i of ix (table t) has
// without a COLLATE: its column's, or its type's for an expression.
func (ix *indexDesc) ownCollation(t *tableDesc, i int) int64 {
	if ix.isExprKey(i) {
		return typeCollation(ix.keyType(t, i).Oid)
	}
	return t.cols[ix.cols[i]].collationOID()
}

// catalogColumns returns pg_index's indcollation, indclass and indoption of
// ix's key columns (t is its table).
func (ix *indexDesc) catalogColumns(t *tableDesc) (colls, classes, opts []any) {
	colls, classes, opts = make([]any, len(ix.cols)), make([]any, len(ix.cols)), make([]any, len(ix.cols))
	for i := range ix.cols {
		typ, o := ix.keyType(t, i), ix.keyOption(i)
		colls[i], classes[i] = ix.keyCollation(t, i), int64(defaultOpclass(ix.accessMethod(), typ))
		if o.opclassOID != 0 {
			classes[i] = int64(o.opclassOID)
		}
		var bits int64
		if o.desc {
			bits |= 1
		}
		if o.nullsFirst {
			bits |= 2
		}
		opts[i] = bits
	}
	return colls, classes, opts
}

// checkTableAccessMethod checks a CREATE TABLE's (or CREATE TABLE AS's or
// CREATE MATERIALIZED VIEW's) USING clause, method ("" without one), as
// PostgreSQL's DefineRelation does: heap is the only table access method
// there is.
func checkTableAccessMethod(method string, partitioned bool) error {
	switch {
	case method == "":
		return nil
	case partitioned:
		return pgerror.New(pgerror.FeatureNotSupported, "specifying a table access method is not supported on a partitioned table")
	case method == "heap":
		return nil
	}
	if _, ok := indexAccessMethods[method]; ok {
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "access method \"%s\" is not of type %s", method, "TABLE")
	}
	return pgerror.Newf(pgerror.UndefinedObject, "access method \"%s\" does not exist", method)
}
