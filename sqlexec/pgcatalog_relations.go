package sqlexec

import (
	"fmt"
	"slices"
	"sort"

	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// relationRow is a pg_class row: the fields fickle's relations differ in;
// the others are those of a permanent relation without rules, row
// security, tablespace, options, partitioning or TOAST table.
type relationRow struct {
	oid       uint32
	name      string
	namespace int64
	kind      string // relkind: r, p, i, I, S, v, m
	table     uint32 // an index's table
	// owner is relowner where no catalog look-up gives it (a composite
	// type's, a TOAST table's and its index's); 0 for the bootstrap
	// superuser or a relation whose owner the rows of pg_class look up.
	owner     uint32
	rowType   int64
	am        int64
	pages     int64
	tuples    float64
	hasIndex  bool
	natts     int
	checks    int
	triggers  bool
	rules     bool
	temp      bool // in a session's temporary schema
	unlogged  bool // an UNLOGGED table or one of its indexes
	subclass  bool // has inheritance children
	partition bool // a partition of a partitioned table
	// bound is relpartbound: a partition's bound as pg_get_expr prints it
	// (PostgreSQL stores a node tree there, which only pg_get_expr reads).
	bound any
	toast uint32 // reltoastrelid (toast.go)
	// rowSecurity and forceRowSecurity are relrowsecurity and
	// relforcerowsecurity (rls.go).
	rowSecurity, forceRowSecurity bool
	options                       []string // reloptions, name=value
	// unpopulated is NOT relispopulated: a materialized view made or
	// refreshed WITH NO DATA.
	unpopulated bool
	// replIdent is relreplident when REPLICA IDENTITY set it, "" for the
	// kind's default.
	replIdent string
}

func (r relationRow) values() []any {
	ident, persistence := "n", "p"
	if r.kind == "r" || r.kind == "p" || r.kind == "m" {
		ident = "d"
	}
	if r.replIdent != "" {
		ident = r.replIdent
	}
	filenode := int64(r.oid)
	switch r.kind {
	case "p", "I", "v", "c", "f":
		filenode = 0 // partitioned tables and their indexes, views, composite types and foreign tables have no storage
	}
	switch {
	case r.temp:
		persistence = "t"
	case r.unlogged:
		persistence = "u"
	}
	owner := int64(oidBootstrapSuperuser)
	if r.owner != 0 {
		owner = int64(r.owner)
	}
	return []any{int64(r.oid), r.name, r.namespace, r.rowType, int64(0), owner, r.am, filenode, int64(0),
		r.pages, r.tuples, int64(0), int64(r.toast), r.hasIndex, false, persistence, r.kind, int64(r.natts), int64(r.checks), r.rules, r.triggers,
		r.subclass, r.rowSecurity, r.forceRowSecurity, !r.unpopulated, ident, r.partition, int64(0), nil, r.reloptions(), r.bound,
		noTransactionID, noTransactionID}
}

// noTransactionID is relfrozenxid and relminmxid of every relation:
// fickle's rows carry no transaction IDs to freeze, as a PostgreSQL
// relation without storage has none (0, InvalidTransactionId).
var noTransactionID = types.XID(0)

// reloptions is the row's pg_class.reloptions: NULL when it has none.
func (r relationRow) reloptions() any {
	if len(r.options) == 0 {
		return nil
	}
	out := make([]any, len(r.options))
	for i, o := range r.options {
		out[i] = o
	}
	return out
}

// relationRows lists every relation of the catalog as pg_class shows it:
// tables with their indexes, views, then sequences.
func relationRows(c *catalog) []relationRow {
	var out []relationRow
	referenced := referencedTables(c)
	parents := map[uint32]bool{}
	for _, t := range c.tables {
		for _, p := range t.parents {
			parents[p] = true
		}
		// A partitioned index with partitions' indexes attached has
		// subclasses too.
		if t.pk != nil && t.pkParent != 0 {
			parents[t.pkParent] = true
		}
		for _, ix := range t.indexes {
			if ix.parent != 0 {
				parents[ix.parent] = true
			}
		}
	}
	index := func(t *tableDesc, oid uint32, name string, keys int, am uint32) relationRow {
		kind := "i"
		if t.part != nil {
			kind = "I"
		}
		return relationRow{oid: oid, name: name, namespace: schemaOID(c, t.schema), kind: kind, table: t.oid, am: int64(am), pages: 1, natts: keys,
			temp: isTempSchema(t.schema), unlogged: t.unlogged, partition: indexParent(t, oid) != 0, subclass: parents[oid]}
	}
	for _, t := range sortedTables(c) {
		kind, am := "r", int64(2)
		if t.part != nil {
			kind, am = "p", 0
		}
		if t.matview != nil {
			kind = "m"
		}
		if t.foreign != nil {
			kind, am = "f", 0
		}
		out = append(out, relationRow{oid: t.oid, name: t.name, namespace: schemaOID(c, t.schema), kind: kind, rowType: int64(t.rowType),
			am: am, tuples: -1, hasIndex: len(t.indexes) > 0 || t.pk != nil, natts: len(t.cols) + len(t.droppedCols), checks: len(t.checks),
			triggers: len(t.fks) > 0 || referenced[t.oid] || len(t.triggers) > 0, rules: len(t.rules) > 0 || t.matview != nil, temp: isTempSchema(t.schema), unlogged: t.unlogged,
			subclass: parents[t.oid], partition: t.bound != nil, bound: partBoundText(t), rowSecurity: t.rowSecurity, forceRowSecurity: t.forceRowSecurity,
			options: t.options, unpopulated: t.matview != nil && !t.matview.populated, replIdent: t.replicaIdentityText()})
		if t.foreign != nil {
			out[len(out)-1].replIdent = "n" // a foreign table has no replica identity
		}
		if toast := toastRelationRows(t); toast != nil {
			out[len(out)-1].toast = toast[0].oid
			for i := range toast {
				// A TOAST table and its index belong to the table's owner.
				toast[i].owner = relationOwner(c, aclTable, t.oid)
			}
			out = append(out, toast...)
		}
		if t.pk != nil && t.pkIndex == nil {
			r := index(t, primaryKeyIndexOID(t), t.pkName, len(t.pk), indexAccessMethods["btree"])
			r.options = t.pkOptions
			out = append(out, r)
		}
		for _, ix := range t.indexes {
			r := index(t, ix.oid, ix.name, len(ix.cols)+len(ix.include), c.accessMethodOID(ix.accessMethod()))
			r.options = ix.options
			out = append(out, r)
		}
	}
	for _, v := range sortedViews(c) {
		out = append(out, relationRow{oid: v.oid, name: v.name, namespace: schemaOID(c, v.schema), kind: "v", rowType: int64(viewRowTypeOID(v.oid)), temp: isTempSchema(v.schema),
			tuples: -1, natts: len(v.cols), rules: true, triggers: len(v.triggers) > 0})
	}
	for _, sc := range sortedSchemas(c) {
		names := make([]string, 0, len(sc.seqs))
		for n := range sc.seqs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			q := sc.seqs[n]
			out = append(out, relationRow{oid: q.oid, name: q.name, namespace: int64(sc.oid), kind: "S", pages: 1, tuples: 1, natts: 3,
				temp: isTempSchema(sc.name), unlogged: q.unlogged})
		}
	}
	return append(out, compositeRelationRows(c)...)
}

// typeTraits are typ's typbyval, typalign and typstorage, as its
// columns' pg_attribute rows give them.
func typeTraits(typ types.Type) (byval bool, align, storage string) {
	byval, align, storage = false, "i", "x"
	switch bt := builtinIndex().types[uint32(typ.Oid)]; {
	case bt != nil:
		byval, align, storage = bt.byval, bt.align, bt.storage
	case typ.IsEnum(): // as pg_type's enum rows (pgcatalog_types.go)
		byval, storage = true, "p"
	case typ.IsComposite():
		align = "d"
	}
	return byval, align, storage
}

// attributeRow is a pg_attribute row of a column of type typ.
func attributeRow(rel uint32, name string, typ types.Type, num int, notNull, hasDef bool, identity byte) []any {
	byval, align, storage := typeTraits(typ)
	ident, ndims := "", int64(0)
	if identity != 0 {
		ident = string(identity)
	}
	if typ.IsArray() {
		ndims = 1
	}
	return []any{int64(rel), name, int64(typ.Oid), int64(-1), int64(typ.Size()), int64(num), ndims, int64(-1), int64(typ.Typmod),
		byval, align, storage, "", notNull, hasDef, false, ident, "", false, true, int64(0), typeCollation(typ.Oid), nil, nil, nil, nil}
}

// systemAttributes are the system columns PostgreSQL gives every relation
// with storage (or whose members have it, a partitioned table), in the
// order heap_create_with_catalog writes their pg_attribute rows: attnum
// -1 down to -6.
var systemAttributes = []struct {
	name  string
	typ   types.Oid
	len   int64
	byval bool
	align string
}{
	{"ctid", types.OidTID, 6, false, "s"}, {"xmin", types.OidXID, 4, true, "i"}, {"cmin", oidCID, 4, true, "i"},
	{"xmax", types.OidXID, 4, true, "i"}, {"cmax", oidCID, 4, true, "i"}, {"tableoid", types.OidType.Oid, 4, true, "i"},
}

// oidCID is the OID of type cid, the type of cmin and cmax.
const oidCID = 29

// systemAttributeRows are the pg_attribute rows of relation rel's system
// columns.
func systemAttributeRows(rel uint32) [][]any {
	out := make([][]any, len(systemAttributes))
	for i, a := range systemAttributes {
		out[i] = []any{int64(rel), a.name, int64(a.typ), int64(0), a.len, int64(-1 - i), int64(0), int64(-1), int64(-1),
			a.byval, a.align, "p", "", true, false, false, "", "", false, true, int64(0), int64(0), nil, nil, nil, nil}
	}
	return out
}

// droppedAttributeRows are the pg_attribute rows of t's dropped columns as
// PostgreSQL's RemoveAttributeById leaves them: renamed, with no type,
// statistics target, NOT NULL or default, the type's storage kept.
func droppedAttributeRows(t *tableDesc) [][]any {
	var out [][]any
	for _, col := range t.droppedCols {
		name := fmt.Sprintf("........pg.dropped.%d........", col.attnum)
		row := attributeRow(t.oid, name, col.typ, int(col.attnum), false, false, col.identity)
		row[2], row[3], row[18] = int64(0), int64(0), true
		row[11], row[19], row[20], row[21] = columnStorage(col), !col.notLocal, int64(col.inhCount), col.collationOID()
		out = append(out, row)
	}
	return out
}

func init() {
	name, text, oid, i2, i4, b, ch := types.Name, types.Text, types.OidType, types.Int2, types.Int4, types.Bool, types.Char
	textArray, _ := types.ArrayOf(types.Text)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_class",
		cols: []vcol{{"oid", oid}, {"relname", name}, {"relnamespace", oid}, {"reltype", oid}, {"reloftype", oid}, {"relowner", oid},
			{"relam", oid}, {"relfilenode", oid}, {"reltablespace", oid}, {"relpages", i4}, {"reltuples", types.Float4},
			{"relallvisible", i4}, {"reltoastrelid", oid}, {"relhasindex", b}, {"relisshared", b}, {"relpersistence", ch},
			{"relkind", ch}, {"relnatts", i2}, {"relchecks", i2}, {"relhasrules", b}, {"relhastriggers", b}, {"relhassubclass", b},
			{"relrowsecurity", b}, {"relforcerowsecurity", b}, {"relispopulated", b}, {"relreplident", ch}, {"relispartition", b},
			{"relrewrite", oid}, {"relacl", textArray}, {"reloptions", textArray}, {"relpartbound", text},
			{"relfrozenxid", types.Type{Oid: types.OidXID, Typmod: -1}}, {"relminmxid", types.Type{Oid: types.OidXID, Typmod: -1}}},
		rows: func(s *Session, c *catalog) [][]any {
			rels := relationRows(c)
			out := make([][]any, len(rels))
			for i, r := range rels {
				out[i] = r.values()
				switch r.kind {
				case "i", "I":
					// An index belongs to its table's owner.
					if r.owner == 0 {
						out[i][5] = int64(relationOwner(c, aclTable, r.table))
					}
				case "r", "p", "v", "m", "f":
					out[i][5] = int64(relationOwner(c, aclTable, r.oid))
					out[i][28] = aclText(s, c, aclTable, r.oid)
					if v := viewByOid(c, r.oid); v != nil && len(v.options) > 0 {
						opts := make([]any, len(v.options))
						for i, o := range v.options {
							opts[i] = o
						}
						out[i][29] = opts
					}
				case "S":
					out[i][5] = int64(relationOwner(c, aclSequence, r.oid))
					out[i][28] = aclText(s, c, aclSequence, r.oid)
				}
			}
			return append(systemRelationRows(s, c), out...)
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_attribute",
		cols: []vcol{{"attrelid", oid}, {"attname", name}, {"atttypid", oid}, {"attstattarget", i4}, {"attlen", i2}, {"attnum", i2},
			{"attndims", i4}, {"attcacheoff", i4}, {"atttypmod", i4}, {"attbyval", b}, {"attalign", ch}, {"attstorage", ch},
			{"attcompression", ch}, {"attnotnull", b}, {"atthasdef", b}, {"atthasmissing", b}, {"attidentity", ch},
			{"attgenerated", ch}, {"attisdropped", b}, {"attislocal", b}, {"attinhcount", i4}, {"attcollation", oid},
			{"attacl", textArray}, {"attoptions", textArray}, {"attfdwoptions", textArray}, {"attmissingval", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, col := range t.cols {
					_, hasDef := storedDefault(col)
					row := attributeRow(t.oid, col.name, col.typ, int(col.attnum), col.notNull, hasDef, col.identity)
					row[3], row[11], row[19], row[20], row[21] = col.stats.attstattarget(), columnStorage(col), !col.notLocal, int64(col.inhCount), col.collationOID()
					row[12] = compressionCodes[col.compression]
					if col.generated != nil {
						row[17] = "s"
					}
					if col.domain != 0 {
						row[2] = int64(col.domain) // a domain's column names the domain, its values are the base type's
					}
					row[22] = columnACLText(s, c, t.oid, col.attnum)
					if v := missingAttributeValue(s, t, col); v != nil {
						row[15], row[25] = true, v
					}
					row[24] = optionsAny(col.fdwOptions)
					out = append(out, row)
				}
				out = append(out, droppedAttributeRows(t)...)
				out = append(out, systemAttributeRows(t.oid)...)
				// An index's attributes are the columns it keys on, numbered
				// from 1 in key order, none with a default.
				// Each takes its key's collation (pg_index.indcollation).
				indexAttrs := func(ix uint32, keys []int, colls []any) {
					for i, k := range keys {
						col := t.cols[k]
						row := attributeRow(ix, col.name, col.typ, i+1, false, false, 0)
						row[11], row[12], row[21] = columnStorage(col), compressionCodes[col.compression], col.collationOID()
						if i < len(colls) {
							row[21] = colls[i]
						}
						out = append(out, row)
					}
				}
				if t.pk != nil && t.pkIndex == nil {
					indexAttrs(primaryKeyIndexOID(t), t.pk, nil)
				}
				for _, ix := range t.indexes {
					if ix.exprs == nil {
						colls, _, _ := ix.catalogColumns(t)
						indexAttrs(ix.oid, append(slices.Clip(ix.cols), ix.include...), colls)
						continue
					}
					names := indexColumnNames(append(ix.keyColumnNames(t), colNameList(t, ix.include)...))
					for i, name := range names {
						var typ types.Type
						if i < len(ix.cols) {
							typ = ix.keyType(t, i)
						} else {
							typ = t.cols[ix.include[i-len(ix.cols)]].typ
						}
						row := attributeRow(ix.oid, name, typ, i+1, false, false, 0)
						row[3] = ix.exprStatsAt(i).attstattarget()
						out = append(out, row)
					}
				}
			}
			for _, v := range sortedViews(c) {
				for i, col := range v.cols {
					row := attributeRow(v.oid, col.name, col.typ, i+1, false, false, 0)
					row[21] = columnCollationOid(col.typ, col.coll)
					if col.domain != 0 {
						row[2] = int64(col.domain)
					}
					row[22] = columnACLText(s, c, v.oid, int16(i+1))
					out = append(out, row)
				}
			}
			// A sequence's relation has the columns SELECT * FROM it shows.
			for _, q := range sortedSequences(c) {
				for i, col := range sequenceColumns {
					row := attributeRow(q.oid, col.name, col.typ, i+1, true, false, 0)
					row[11] = "p"
					out = append(out, row)
				}
				out = append(out, systemAttributeRows(q.oid)...)
			}
			return append(out, compositeAttributeRows(c)...)
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_index",
		cols: []vcol{{"indexrelid", oid}, {"indrelid", oid}, {"indnatts", i2}, {"indnkeyatts", i2}, {"indisunique", b},
			{"indnullsnotdistinct", b}, {"indisprimary", b}, {"indisexclusion", b}, {"indimmediate", b}, {"indisclustered", b},
			{"indisvalid", b}, {"indcheckxmin", b}, {"indisready", b}, {"indislive", b}, {"indisreplident", b},
			{"indkey", types.Int2Vector}, {"indcollation", types.OidVector}, {"indclass", types.OidVector},
			{"indoption", types.Int2Vector}, {"indexprs", text}, {"indpred", text}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				for _, e := range indexEntries(t) {
					out = append(out, e.row)
				}
			}
			return out
		}})
	amCols := []vcol{{"oid", oid}, {"amname", name}, {"amhandler", types.Regproc}, {"amtype", ch}}
	builtinAms := builtinRows(pgdata.PgAm, amCols)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_am", cols: amCols,
		rows: func(s *Session, c *catalog) [][]any { return slices.Concat(builtinAms(), extensionAccessMethodRows(c)) }})
	opclassCols := []vcol{{"oid", oid}, {"opcmethod", oid}, {"opcname", name}, {"opcnamespace", oid}, {"opcowner", oid},
		{"opcfamily", oid}, {"opcintype", oid}, {"opcdefault", b}, {"opckeytype", oid}}
	builtinOpclasses := builtinRows(pgdata.PgOpclass, opclassCols)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_opclass", cols: opclassCols,
		rows: func(s *Session, c *catalog) [][]any {
			return slices.Concat(builtinOpclasses(), extensionOpclassRows(c), userOpclassRows(c))
		}})
}

// indexEntry is one of a table's indexes as the catalog shows it: its
// access method and its pg_index row.
type indexEntry struct {
	method string
	row    []any
}

// indexEntries are t's indexes in pg_index's terms: its primary key's, its
// TOAST table's and the others.
func indexEntries(t *tableDesc) []indexEntry {
	var out []indexEntry
	row := func(ix *indexDesc, unique, primary, exclusion, immediate bool) []any {
		colls, classes, opts := ix.catalogColumns(t)
		all := append(slices.Clip(ix.cols), ix.include...)
		replIdent := t.replicaIdentity == 'i' && t.replicaIndex == ix.oid
		return []any{int64(ix.oid), int64(t.oid), int64(len(all)), int64(len(ix.cols)), unique, ix.nullsNotDistinct, primary, exclusion, immediate, t.clusteredOn == ix.oid,
			true, false, true, true, replIdent, attnums(t, all), colls, classes, opts, ix.exprsText(), ix.predicateText()}
	}
	if t.pk != nil {
		// A primary key added to a table created without one is an index
		// of its own (with its INCLUDE columns); a table created with one
		// is keyed by it.
		pk := t.pkIndex
		if pk == nil {
			pk = &indexDesc{oid: primaryKeyIndexOID(t), cols: t.pk}
		}
		out = append(out, indexEntry{"btree", row(pk, true, true, false, true)})
	}
	if toast := toastIndexRow(t); toast != nil {
		out = append(out, indexEntry{"btree", toast})
	}
	for _, ix := range t.indexes {
		if ix != t.pkIndex {
			r := row(ix, ix.unique && !ix.exclusion, false, ix.exclusion, !ix.deferrable)
			r[10] = !ix.invalid
			out = append(out, indexEntry{ix.accessMethod(), r})
		}
	}
	return out
}

// partBoundText is a table's relpartbound: its bound's text, NULL for a
// table that is not a partition.
func partBoundText(t *tableDesc) any {
	if t.bound == nil {
		return nil
	}
	return t.bound.text
}
