package sqlexec

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// objectName splits a DROP object (a list of names) into schema and name.
func objectName(n *pg_query.Node) (string, string) {
	if l := n.GetList(); l != nil {
		parts := strs(l.Items)
		if len(parts) >= 2 {
			return parts[len(parts)-2], parts[len(parts)-1]
		}
		return "", parts[0]
	}
	return "", n.GetString_().GetSval()
}

func (d *ddl) drop(ds *pg_query.DropStmt) error {
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	switch ds.RemoveType {
	case pg_query.ObjectType_OBJECT_FUNCTION, pg_query.ObjectType_OBJECT_PROCEDURE, pg_query.ObjectType_OBJECT_ROUTINE:
		return d.dropFunctions(ds)
	case pg_query.ObjectType_OBJECT_AGGREGATE:
		return d.dropAggregates(ds)
	case pg_query.ObjectType_OBJECT_OPERATOR:
		return d.dropOperators(ds)
	case pg_query.ObjectType_OBJECT_OPCLASS, pg_query.ObjectType_OBJECT_OPFAMILY:
		return d.dropOpclasses(ds)
	case pg_query.ObjectType_OBJECT_TRIGGER:
		return d.dropTrigger(ds)
	case pg_query.ObjectType_OBJECT_EXTENSION:
		return d.dropExtensions(ds)
	case pg_query.ObjectType_OBJECT_PUBLICATION:
		return d.dropPublications(ds)
	case pg_query.ObjectType_OBJECT_EVENT_TRIGGER:
		return d.dropEventTriggers(ds)
	case pg_query.ObjectType_OBJECT_FDW:
		return d.dropFDWs(ds)
	case pg_query.ObjectType_OBJECT_FOREIGN_SERVER:
		return d.dropServers(ds)
	case pg_query.ObjectType_OBJECT_RULE:
		return d.dropRule(ds)
	case pg_query.ObjectType_OBJECT_POLICY:
		return d.dropPolicy(ds)
	case pg_query.ObjectType_OBJECT_TYPE:
		return d.dropTypes(ds)
	case pg_query.ObjectType_OBJECT_DOMAIN:
		return d.dropDomains(ds)
	case pg_query.ObjectType_OBJECT_FOREIGN_TABLE:
		return d.dropForeignTables(ds)
	case pg_query.ObjectType_OBJECT_TABLE:
		var ts []*tableDesc
		for _, o := range ds.Objects {
			schema, name := objectName(o)
			t := d.s.lookupTable(d.cat, schema, name)
			if t != nil && t.matview != nil {
				return notMatviewError(name, "table")
			}
			if t != nil && t.foreign != nil {
				return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table", name).WithHint("Use DROP FOREIGN TABLE to remove a foreign table.")
			}
			if t == nil {
				if d.s.lookupView(d.cat, schema, name) != nil {
					return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table", name).WithHint("Use DROP VIEW to remove a view.")
				}
				if ds.MissingOk {
					d.notice(pgerror.SuccessfulCompletion, "table \"%s\" does not exist, skipping", name)
					continue
				}
				return pgerror.Newf(pgerror.UndefinedTable, "table \"%s\" does not exist", name)
			}
			if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "table", t.name); err != nil {
				return err
			}
			if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
				return err
			}
			ts = append(ts, t)
		}
		return d.dropTables(ts, cascade)
	case pg_query.ObjectType_OBJECT_INDEX:
		switch {
		case ds.Concurrent && len(ds.Objects) != 1:
			return pgerror.New(pgerror.FeatureNotSupported, "DROP INDEX CONCURRENTLY does not support dropping multiple objects")
		case ds.Concurrent && cascade:
			return pgerror.New(pgerror.FeatureNotSupported, "DROP INDEX CONCURRENTLY does not support CASCADE")
		}
		for _, o := range ds.Objects {
			schema, name := objectName(o)
			ix, sc := d.s.lookupIndex(d.cat, schema, name)
			if ix == nil {
				if ds.MissingOk {
					d.notice(pgerror.SuccessfulCompletion, "index \"%s\" does not exist, skipping", name)
					continue
				}
				return pgerror.Newf(pgerror.UndefinedObject, "index \"%s\" does not exist", name)
			}
			t := d.cat.tables[ix.table].clone()
			if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "index", ix.name); err != nil {
				return err
			}
			if err := d.partitionIndexDropError(ix, ds.Concurrent); err != nil {
				return err
			}
			if ix.constraint {
				return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop index %s because constraint %s on table %s requires it", ix.name, ix.name, t.name).
					WithHint("You can drop constraint %s on table %s instead.", ix.name, t.name)
			}
			if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
				return err
			}
			if err := d.dropPartitionIndexes(t, ix.oid); err != nil {
				return err
			}
			if err := d.dropStoreIndex(ix.id); err != nil {
				return err
			}
			t.indexes = removeIndex(t.indexes, ix)
			delete(sc.indexes, ix.name)
			d.cat.dropComments(ix.oid)
			d.cat.putTable(t)
		}
		return nil
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		for _, o := range ds.Objects {
			schema, name := objectName(o)
			q := d.s.lookupSequence(d.cat, schema, name)
			if q == nil {
				if ds.MissingOk {
					d.notice(pgerror.SuccessfulCompletion, "sequence \"%s\" does not exist, skipping", name)
					continue
				}
				return pgerror.Newf(pgerror.UndefinedTable, "sequence \"%s\" does not exist", name)
			}
			if err := d.s.requireOwner(relationOwner(d.cat, aclSequence, q.oid), "sequence", q.name); err != nil {
				return err
			}
			if err := d.lockSequence(q, isolation.TableLockAccessExclusive); err != nil {
				return err
			}
			if err := d.dropSequenceDependents(q, cascade); err != nil {
				return err
			}
			err := d.dropDependentViews("sequence", []uint32{q.oid}, cascade, func() {
				delete(d.cat.schemas[q.schema].seqs, q.name)
				d.cat.dropComments(q.oid)
				d.cat.dropRelationACL(q.oid)
			})
			if err != nil {
				return err
			}
		}
		return nil
	case pg_query.ObjectType_OBJECT_SCHEMA:
		for _, o := range ds.Objects {
			name := o.GetString_().GetSval()
			sc := d.cat.schemas[name]
			if sc == nil {
				if ds.MissingOk {
					d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", name)
					continue
				}
				return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			if err := d.s.requireOwner(schemaOwner(sc), "schema", name); err != nil {
				return err
			}
			if (len(sc.tables) > 0 || len(sc.seqs) > 0 || len(sc.views) > 0 || len(sc.funcs) > 0 || len(sc.types) > 0 ||
				len(d.cat.operatorsOfSchema(name)) > 0 || d.cat.hasOpclassesIn(name) || len(d.cat.tsObjectsOfSchema(name)) > 0 ||
				len(ownedStatsObjectsIn(d.cat, name)) > 0 || d.cat.hasCollationsIn(name) ||
				len(conversionsWhere(d.cat, func(c *conversionDesc) bool { return c.schema == name })) > 0) && !cascade {
				return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			names := make([]string, 0, len(sc.tables))
			for n := range sc.tables {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if err := d.lockTable(sc.tables[n], isolation.TableLockAccessExclusive); err != nil {
					return err
				}
			}
			for _, ext := range sortedExtensions(d.cat) {
				if ext.schema == name {
					if err := d.dropExtension(ext, true); err != nil {
						return err
					}
				}
			}
			for _, n := range names {
				t := sc.tables[n]
				for _, r := range d.cat.referencing(t.oid) {
					if r.child.schema != name {
						d.dropForeignKeysTo(r.child.oid, t.oid)
					}
				}
				d.dropTable(t)
			}
			for _, q := range sc.seqs {
				d.cat.dropComments(q.oid)
				d.cat.dropRelationACL(q.oid)
			}
			// The schema's views, and the views elsewhere that read its
			// relations, go with it.
			var oids []uint32
			for _, t := range sc.tables {
				oids = append(oids, t.oid)
			}
			for _, v := range sc.views {
				oids = append(oids, v.oid)
			}
			if err := d.dropDependentViews("table", oids, true, func() {
				for _, v := range sc.views {
					d.dropView(v)
				}
			}); err != nil {
				return err
			}
			if err := d.dropSchemaRoutinesAndTypes(sc); err != nil {
				return err
			}
			d.cat.dropComments(sc.oid)
			d.cat.dropSchemaACLs(sc.oid)
			delete(d.cat.schemas, name)
		}
		return nil
	case pg_query.ObjectType_OBJECT_VIEW:
		return d.dropViews(ds)
	case pg_query.ObjectType_OBJECT_MATVIEW:
		return d.dropMatviews(ds)
	}
	return pgerror.Unsupported("DROP " + strings.TrimPrefix(ds.RemoveType.String(), "OBJECT_"))
}

// dropSchemaRoutinesAndTypes drops the routines and types of schema sc,
// which DROP SCHEMA ... CASCADE is dropping after its relations, with what
// depends on them elsewhere: triggers and expressions calling the routines,
// columns of the types (as DROP FUNCTION and DROP TYPE ... CASCADE do).
func (d *ddl) dropSchemaRoutinesAndTypes(sc *schemaDesc) error {
	if err := d.dropSchemaOpclasses(sc.name); err != nil {
		return err
	}
	d.dropSchemaTSObjects(sc.name)
	for _, o := range ownedStatsObjectsIn(d.cat, sc.name) {
		d.dropStatsObject(o.oid)
	}
	for _, o := range collationsWhere(d.cat, func(c *collationDesc) bool { return c.schema == sc.name }) {
		d.dropCollation(o.oid)
	}
	for _, o := range conversionsWhere(d.cat, func(c *conversionDesc) bool { return c.schema == sc.name }) {
		d.dropConversion(o.oid)
	}
	for _, op := range d.cat.operatorsOfSchema(sc.name) {
		if err := d.dropOperator(op, true); err != nil {
			return err
		}
	}
	dropping := map[*funcDesc]bool{}
	var fs []*funcDesc
	for _, name := range slices.Sorted(maps.Keys(sc.funcs)) {
		for _, f := range sc.funcs[name] {
			dropping[f] = true
			fs = append(fs, f)
		}
	}
	for _, f := range fs {
		if err := d.checkRoutineDependents(f, dropping, true); err != nil {
			return err
		}
		d.removeRoutine(f)
	}
	types := make([]*typeDesc, 0, len(sc.types))
	for _, name := range slices.Sorted(maps.Keys(sc.types)) {
		types = append(types, sc.types[name])
	}
	return d.dropUserTypes(types, true)
}

// sequenceUser is a column whose DEFAULT calls nextval of a sequence.
type sequenceUser struct {
	table *tableDesc
	col   int
}

// sequenceUsers returns the columns whose DEFAULT calls nextval of q, in
// table and column order: PostgreSQL's dependencies of a sequence that
// DROP SEQUENCE refuses to break without CASCADE. A column that only owns
// the sequence (OWNED BY) is not among them.
func (d *ddl) sequenceUsers(q *sequence) []sequenceUser {
	var out []sequenceUser
	for _, t := range sortedTables(d.cat) {
		for i, col := range t.cols {
			if d.defaultUses(col.def, q) {
				out = append(out, sequenceUser{table: t, col: i})
			}
		}
	}
	return out
}

// defaultUses reports whether a DEFAULT expression calls nextval of q with
// a constant name (defaultSequences).
func (d *ddl) defaultUses(def *pg_query.Node, q *sequence) bool {
	return slices.Contains(d.defaultSequences(def), q)
}

// defaultSequences lists the sequences a DEFAULT expression calls nextval
// of with a constant name (nextval('s'), nextval('s'::regclass)), the calls
// whose sequence PostgreSQL records as a dependency; nextval('s'::text)
// finds its sequence when it runs, and is not one.
func (d *ddl) defaultSequences(def *pg_query.Node) []*sequence {
	var out []*sequence
	walk(def, func(n *pg_query.Node) bool {
		fc := n.GetFuncCall()
		if fc == nil || len(fc.Args) != 1 || len(fc.Funcname) == 0 || fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval() != "nextval" {
			return true
		}
		arg := fc.Args[0]
		if tc := arg.GetTypeCast(); tc != nil {
			if strings.ToLower(lastName(tc.TypeName.GetNames())) != "regclass" {
				return true
			}
			arg = tc.Arg
		}
		if c := arg.GetAConst(); c != nil && c.GetSval() != nil {
			if found, err := d.s.findSequence(d.cat, c.GetSval().Sval); err == nil && !slices.Contains(out, found) {
				out = append(out, found)
			}
		}
		return true
	})
	return out
}

// dropSequenceDependents checks what depends on q before DROP SEQUENCE as
// PostgreSQL does: an identity column's sequence cannot be dropped at all
// (the column requires it); columns whose DEFAULT calls nextval(q) block
// the drop unless cascade, which drops those defaults with a NOTICE.
func (d *ddl) dropSequenceDependents(q *sequence, cascade bool) error {
	if owner, attnum := q.owner(); owner != 0 && d.cat.tables[owner] != nil {
		t := d.cat.tables[owner]
		for _, col := range t.cols {
			if col.attnum == attnum && col.identity != 0 {
				return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop sequence %s because column %s of table %s requires it", q.name, col.name, t.name).
					WithHint("You can drop column %s of table %s instead.", col.name, t.name)
			}
		}
	}
	users := d.sequenceUsers(q)
	if len(users) == 0 {
		return nil
	}
	lines := make([]string, len(users))
	for i, u := range users {
		lines[i] = fmt.Sprintf("default value for column %s of table %s", u.table.cols[u.col].name, u.table.name)
	}
	if !cascade {
		for i := range lines {
			lines[i] += " depends on sequence " + q.name
		}
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", q.name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, u := range users {
		t := d.cat.tables[u.table.oid].clone()
		col := *t.cols[u.col]
		col.def = nil
		t.cols[u.col] = &col
		d.cat.putTable(t)
	}
	d.cascadeNotice(lines)
	return nil
}

// cascadeNotice is PostgreSQL's notice of the objects a DROP ... CASCADE
// dropped with the one named: lines names each.
func (d *ddl) cascadeNotice(lines []string) {
	switch len(lines) {
	case 0:
	case 1:
		d.notice(pgerror.SuccessfulCompletion, "drop cascades to %s", lines[0])
	default:
		detail := make([]string, len(lines))
		for i, l := range lines {
			detail[i] = "drop cascades to " + l
		}
		d.notice(pgerror.SuccessfulCompletion, "drop cascades to %d other objects", len(lines))
		d.notices[len(d.notices)-1].Detail = strings.Join(detail, "\n")
	}
}

func removeIndex(ixs []*indexDesc, ix *indexDesc) []*indexDesc {
	var out []*indexDesc
	for _, i := range ixs {
		if i != ix {
			out = append(out, i)
		}
	}
	return out
}

// dropTables drops tables ts with their inheritance children and
// partitions, the foreign keys that reference them and (under cascade) the
// views that read them, as DROP TABLE does.
func (d *ddl) dropTables(ts []*tableDesc, cascade bool) error {
	ts, err := d.withInheritors(ts, cascade)
	if err != nil {
		return err
	}
	dropping := map[uint32]bool{}
	for _, t := range ts {
		dropping[t.oid] = true
	}
	var dropped []string
	for _, t := range ts {
		for _, r := range d.cat.referencing(t.oid) {
			if dropping[r.child.oid] {
				continue
			}
			if !cascade {
				return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", t.name).
					WithDetail("constraint %s on table %s depends on table %s", foreignKeyRoot(r.child, r.fk).name, r.child.name, t.name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			if err := d.lockTable(r.child, isolation.TableLockAccessExclusive); err != nil {
				return err
			}
			dropped = append(dropped, fmt.Sprintf("constraint %s on table %s", foreignKeyRoot(r.child, r.fk).name, r.child.name))
			d.dropForeignKeysTo(r.child.oid, t.oid)
		}
	}
	policies, err := d.dropDependentPolicies(dropping, cascade)
	if err != nil {
		return err
	}
	dropped = append(dropped, policies...)
	d.cascadeNotice(dropped)
	if err := d.dropRowTypeUsers(ts, dropping, cascade); err != nil {
		return err
	}
	oids := make([]uint32, len(ts))
	for i, t := range ts {
		oids[i] = t.oid
		for _, q := range d.cat.ownedSequences(t) { // a nextval elsewhere waits, as in PostgreSQL
			if err := d.lockSequence(q, isolation.TableLockAccessExclusive); err != nil {
				return err
			}
		}
	}
	kind := "table"
	if len(ts) > 0 && ts[0].matview != nil {
		kind = "materialized view"
	} else if len(ts) > 0 {
		kind = relNoun(ts[0])
	}
	return d.dropDependentViews(kind, oids, cascade, func() {
		for _, t := range ts {
			d.dropTable(t)
		}
	})
}

// dropTable removes a table, its indexes and its owned sequences.
func (d *ddl) dropTable(t *tableDesc) {
	d.dropStoreTable(t)
	sc := d.cat.schemas[t.schema]
	delete(sc.tables, t.name)
	delete(d.cat.tables, t.oid)
	d.cat.dropComments(t.oid)
	d.cat.dropRelationACL(t.oid)
	d.dropTableStats(t)
	for _, ix := range t.indexes {
		delete(sc.indexes, ix.name)
		d.cat.dropComments(ix.oid)
	}
	for _, q := range d.cat.ownedSequences(t) {
		delete(sc.seqs, q.name)
		d.cat.dropComments(q.oid)
		d.cat.dropRelationACL(q.oid)
	}
}

func (d *ddl) createIndex(is *pg_query.IndexStmt) error {
	method := is.AccessMethod
	if method == "" {
		method = "btree"
	}
	if err := d.cat.checkIndexAccessMethod(method); err != nil {
		return err
	}
	if err := checkAccessMethod(method, is.Unique, len(is.IndexParams), len(is.IndexIncludingParams)); err != nil {
		return err
	}
	options, err := indexStorageOptions(is.Options, method)
	if err != nil {
		return err
	}
	t := d.s.lookupTable(d.cat, is.Relation.Schemaname, is.Relation.Relname)
	if t == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(is.Relation))
	}
	if t.foreign != nil {
		return pgerror.Newf(pgerror.WrongObjectType, "cannot create index on relation \"%s\"", t.name).
			WithDetail("This operation is not supported for foreign tables.")
	}
	if t.part != nil && is.Relation.Inh && is.Unique {
		if err := foreignPartitionsIndexError(is.Relation.Relname, d.cat.descendants(t)); err != nil {
			return err
		}
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "table", t.name); err != nil {
		return err
	}
	if err := d.requireSchemaCreate(t.schema); err != nil {
		return err
	}
	// SHARE ROW EXCLUSIVE rather than PostgreSQL's SHARE: two transactions
	// adding indexes to one table would otherwise both change its
	// descriptor, which the commit cannot merge.
	if err := d.lockTable(t, isolation.TableLockShareRowExclusive); err != nil {
		return err
	}
	if indexReadsSystemColumn(is) {
		return pgerror.New(pgerror.FeatureNotSupported, "index creation on system columns is not supported")
	}
	keys, err := d.indexKeys(t, is.IndexParams, method)
	if err != nil {
		return err
	}
	if err := checkIndexOpclasses(d.cat, keys.opts, method, is.Unique, false); err != nil {
		return err
	}
	var include []int
	for _, p := range is.IndexIncludingParams {
		ie := p.GetIndexElem()
		if ie.Expr != nil {
			return pgerror.New(pgerror.FeatureNotSupported, "expressions are not supported in included columns")
		}
		c := t.colIndex(ie.Name)
		if c < 0 {
			return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", ie.Name)
		}
		include = append(include, c)
	}
	if t.part != nil {
		if err := checkPartitionedIndex(t, is.Concurrent, is.Unique, keys.cols); err != nil {
			return err
		}
	}
	name := is.Idxname
	if name == "" {
		named := indexColumnNames(append(slices.Clip(keys.names), colNameList(t, include)...))
		name = d.uniqueRelName(t.schema, t.name, indexNameAddition(named), "idx")
	} else if d.relationExists(t.schema, name) {
		if is.IfNotExists {
			d.notice(pgerror.DuplicateTable, "relation \"%s\" already exists, skipping", name)
			return nil
		}
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", name)
	}
	if err := d.checkTablespace(is.TableSpace, isTempSchema(t.schema), t.part != nil); err != nil {
		return err
	}
	nt := t.clone()
	ix := &indexDesc{name: name, table: nt.oid, cols: keys.cols, unique: is.Unique, include: include, pred: is.WhereClause, exprs: keys.exprs,
		exprNames: keys.exprNames(), nullsNotDistinct: is.NullsNotDistinct}
	ix = ix.unqualified(t)
	if method != "btree" {
		ix.method = method
	}
	ix.options = options
	if slices.ContainsFunc(keys.opts, func(o indexKeyOpts) bool { return o != indexKeyOpts{} }) {
		ix.keyOpts = keys.opts
	}
	if err := d.registerIndex(nt, ix); err != nil {
		return err
	}
	d.cat.putTable(nt)
	if nt.part == nil {
		return nil
	}
	if !is.Relation.Inh {
		ix.invalid = len(d.cat.children(nt.oid)) > 0
		return nil
	}
	if err := d.keyToPartitions(d.binder(""), nt, partitionKeyRef{names: ix.keyColumnNames(nt), oid: ix.oid, plain: true, unique: is.Unique, shape: ix, shapeTable: nt}); err != nil {
		return err
	}
	d.inheritInvalidity(nt, ix)
	return nil
}

// indexReadsSystemColumn reports whether an index's key or included
// columns, expressions or predicate name a system column (ctid, xmin, ...), which
// PostgreSQL refuses to index (0A000) where fickle, lacking most of them,
// would report an unknown column.
func indexReadsSystemColumn(is *pg_query.IndexStmt) bool {
	found := false
	visit := func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil {
			last := cr.Fields[len(cr.Fields)-1].GetString_()
			found = found || last != nil && slices.Contains(systemColumnNames, last.Sval)
		}
		return !found
	}
	for _, p := range append(slices.Clip(is.IndexParams), is.IndexIncludingParams...) {
		ie := p.GetIndexElem()
		if ie.Expr == nil {
			found = found || slices.Contains(systemColumnNames, ie.Name)
			continue
		}
		walk(ie.Expr, visit)
	}
	if is.WhereClause != nil {
		walk(is.WhereClause, visit)
	}
	return found
}

func (d *ddl) createSequence(cs *pg_query.CreateSeqStmt) error {
	rv := cs.Sequence
	schema, err := d.relationSchema(rv.Schemaname, rv.Relname, rv.Relpersistence == "t" || rv.Schemaname == "pg_temp")
	if err != nil {
		return err
	}
	if d.relationExists(schema, rv.Relname) {
		if cs.IfNotExists {
			d.notice(pgerror.DuplicateTable, "relation \"%s\" already exists, skipping", rv.Relname)
			return nil
		}
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", rv.Relname)
	}
	if err := d.checkTablespace("", rv.Relpersistence == "t" || isTempSchema(schema), false); err != nil {
		return err
	}
	q, err := newSequence(schema, rv.Relname, types.OidInt8, cs.Options, d.sequenceTypeOf)
	if err != nil {
		return err
	}
	for _, o := range cs.Options {
		if de := o.GetDefElem(); de != nil && de.Defname == "owned_by" {
			table, attnum, err := d.sequenceOwner(q, de)
			if err != nil {
				return err
			}
			q.setOwner(table, attnum)
		}
	}
	q.oid, q.role, q.unlogged = d.cat.newOID(), d.s.currentRole(), rv.Relpersistence == "u"
	d.cat.schemas[schema].seqs[q.name] = q
	d.applyDefaultACL(aclSequence, q.oid, q.role, d.cat.schemas[schema].oid)
	return nil
}

// alteredSequence finds ALTER SEQUENCE's sequence: nil with no error when
// IF EXISTS skips it (with PostgreSQL's NOTICE), 42809 for a relation
// that is not a sequence, 42P01 for none.
func (d *ddl) alteredSequence(rv *pg_query.RangeVar, missingOk bool) (*sequence, error) {
	if q := d.s.lookupSequence(d.cat, rv.Schemaname, rv.Relname); q != nil {
		return q, nil
	}
	if d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname) != nil {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a sequence", rv.Relname)
	}
	if missingOk {
		d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname)
		return nil, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
}

func (d *ddl) createSchema(cs *pg_query.CreateSchemaStmt, full string) error {
	current := d.s.currentRole()
	owner, ownerName := current, d.s.user()
	if spec := cs.Authrole; spec != nil {
		r := d.s.roleNamed(d.s.roleSpecName(spec.Roletype.String(), spec.Rolename))
		if r == nil {
			return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", spec.Rolename)
		}
		owner, ownerName = r.oid, r.name
	}
	name := cs.Schemaname
	if name == "" {
		name = ownerName
	}
	// PostgreSQL's checks, before the name's: the role running the
	// statement holds CREATE on the database and belongs to the schema's
	// owner.
	if err := d.requireDatabaseCreate(); err != nil {
		return err
	}
	if !d.s.isSuperuser(current) && !d.s.belongsTo(current, owner) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", ownerName)
	}
	if strings.HasPrefix(name, "pg_") {
		return pgerror.Newf(pgerror.ReservedName, "unacceptable schema name \"%s\"", name).WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	if _, ok := d.cat.schemas[name]; ok || name == "information_schema" {
		if cs.IfNotExists {
			d.notice(pgerror.DuplicateSchema, "schema \"%s\" already exists, skipping", name)
			return nil
		}
		return pgerror.Newf(pgerror.DuplicateSchema, "schema \"%s\" already exists", name)
	}
	sc := newSchema(name, d.cat.newOID())
	sc.owner = owner
	d.cat.schemas[name] = sc
	d.applyDefaultACL(aclSchema, sc.oid, owner, 0)
	return d.createSchemaElements(name, cs.SchemaElts, full)
}

// schemaElement returns the relation a CREATE SCHEMA element creates or
// acts on (nil for GRANT) and its place in PostgreSQL's order; -1 for a
// statement that may not be an element.
func schemaElement(n *pg_query.Node) (*pg_query.RangeVar, int) {
	switch v := n.Node.(type) {
	case *pg_query.Node_CreateSeqStmt:
		return v.CreateSeqStmt.Sequence, 0
	case *pg_query.Node_CreateStmt:
		return v.CreateStmt.Relation, 1
	case *pg_query.Node_ViewStmt:
		return v.ViewStmt.View, 2
	case *pg_query.Node_IndexStmt:
		return v.IndexStmt.Relation, 3
	case *pg_query.Node_CreateTrigStmt:
		return v.CreateTrigStmt.Relation, 4
	case *pg_query.Node_GrantStmt:
		return nil, 5
	}
	return nil, -1
}

// createSchemaElements runs the statements of CREATE SCHEMA in PostgreSQL's
// order (sequences, tables, views, indexes, triggers, grants), each in the
// new schema, with the new schema first on the search path, so that they
// may name each other unqualified.
func (d *ddl) createSchemaElements(schema string, elements []*pg_query.Node, full string) error {
	if len(elements) == 0 {
		return nil
	}
	buckets := make([][]*pg_query.Node, 6)
	for _, e := range elements {
		rv, k := schemaElement(e)
		if k < 0 {
			return pgerror.Newf(pgerror.FeatureNotSupported, "schema element %s is not supported by fickle", strings.TrimPrefix(fmt.Sprintf("%T", e.Node), "*pg_query.Node_"))
		}
		if rv != nil {
			if rv.Schemaname != "" && rv.Schemaname != schema {
				return pgerror.Newf(pgerror.InvalidSchemaDefinition, "CREATE specifies a schema (%s) different from the one being created (%s)", rv.Schemaname, schema)
			}
			rv.Schemaname = schema
		}
		buckets[k] = append(buckets[k], e)
	}
	prev := d.s.schemaBeingCreated
	d.s.schemaBeingCreated = schema
	defer func() { d.s.schemaBeingCreated = prev }()
	for _, list := range buckets {
		for _, e := range list {
			if err := d.run(e, full); err != nil {
				return err
			}
		}
	}
	return nil
}

// truncatePlan deletes every row of the tables through the transaction
// (so TRUNCATE is transactional here, unlike the catalog changes) and
// with RESTART IDENTITY restarts their sequences.
func (b *binder) truncatePlan(ts *pg_query.TruncateStmt) (*stmtPlan, error) {
	var tables []*tableDesc
	in := map[uint32]bool{}
	for _, r := range ts.Relations {
		if rv := r.GetRangeVar(); rv != nil {
			if mv := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname); mv != nil && mv.matview != nil {
				return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table", mv.name)
			}
		}
		t, err := b.targetTable(r.GetRangeVar())
		if err != nil {
			return nil, err
		}
		b.requirePrivilege(t.oid, t.name, "table", 'D')
		if !r.GetRangeVar().Inh && t.part != nil {
			return nil, pgerror.New(pgerror.WrongObjectType, "cannot truncate only a partitioned table").
				WithHint("Do not specify the ONLY keyword, or use TRUNCATE ONLY on the partitions directly.")
		}
		tables = append(tables, t)
		in[t.oid] = true
		if r.GetRangeVar().Inh {
			for _, ch := range b.cat.descendants(t) {
				if !in[ch.oid] {
					b.useTable(ch, isolation.TableLockRowExclusive)
					if err := b.cat.foreignReadError(ch); err != nil {
						b.perms = append(b.perms, permCheck{planErr: err})
					}
					tables = append(tables, ch)
					in[ch.oid] = true
				}
			}
		}
	}
	cascaded, err := b.truncateCascade(tables, in, ts.Behavior == pg_query.DropBehavior_DROP_CASCADE)
	if err != nil {
		return nil, err
	}
	tables = append(tables, cascaded...)
	restart := ts.RestartSeqs
	triggers, err := b.truncateTriggers(tables)
	if err != nil {
		return nil, err
	}
	return &stmtPlan{writes: "TRUNCATE TABLE", exec: func(x *execCtx) (*Result, error) {
		for _, t := range cascaded {
			n := pgerror.Newf(pgerror.SuccessfulCompletion, "truncate cascades to table \"%s\"", t.name)
			n.Severity = "NOTICE"
			x.s.notices = append(x.s.notices, n)
		}
		if err := fireTruncate(x, triggers, func() error { return truncateTables(x, tables, restart) }); err != nil {
			return nil, err
		}
		return &Result{Tag: "TRUNCATE TABLE"}, nil
	}}, nil
}

// truncateCascade returns the tables TRUNCATE ... CASCADE adds to tables
// (in holds their oids), as PostgreSQL adds them: round by round, the
// tables with a foreign key to one already truncated, in oid order, each
// partitioned one with its partitions, which carry its foreign keys (an
// inheritance child does not inherit them).
// Without cascade, a table referencing one of tables is 0A000.
func (b *binder) truncateCascade(tables []*tableDesc, in map[uint32]bool, cascade bool) ([]*tableDesc, error) {
	var out []*tableDesc
	for {
		var round []*tableDesc
		for _, t := range append(slices.Clip(tables), out...) {
			for _, r := range b.cat.referencing(t.oid) {
				if in[r.child.oid] {
					continue
				}
				if !cascade {
					return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
						WithDetail("Table \"%s\" references \"%s\".", r.child.name, t.name).
						WithHint("Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.", r.child.name)
				}
				adds := []*tableDesc{r.child}
				if r.child.part != nil {
					adds = append(adds, b.cat.descendants(r.child)...)
				}
				for _, ch := range adds {
					if !in[ch.oid] {
						in[ch.oid] = true
						b.useTable(ch, isolation.TableLockRowExclusive)
						b.requirePrivilege(ch.oid, ch.name, "table", 'D')
						round = append(round, ch)
					}
				}
			}
		}
		if len(round) == 0 {
			return out, nil
		}
		slices.SortFunc(round, func(x, y *tableDesc) int { return cmp.Compare(x.oid, y.oid) })
		out = append(out, round...)
	}
}

// truncateTables deletes every row of the tables and with restart
// restarts the sequences they own.
func truncateTables(x *execCtx, tables []*tableDesc, restart bool) error {
	for _, t := range tables {
		x.s.txn.markFresh(t.id)
		var keys [][]byte
		err := x.txn.Scan(x.ctx, t.id, isolation.Span{}, isolation.ReadOptions{Latest: true}, func(key []byte, _ []any) (bool, error) {
			keys = append(keys, append([]byte(nil), key...))
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := x.txn.Delete(x.ctx, t.id, k); err != nil {
				return err
			}
		}
		// PostgreSQL gives the table a new file: its rows start at (0,1).
		if err := x.txn.NewHeap(t.id); err != nil {
			return err
		}
	}
	if restart {
		return restartOwnedSequences(x, tables)
	}
	return nil
}

// restartOwnedSequences restarts the sequences the tables own (TRUNCATE
// ... RESTART IDENTITY) as PostgreSQL does: under ACCESS EXCLUSIVE locks
// on them, in the transaction's own copies, so that a rollback leaves them
// where they were.
func restartOwnedSequences(x *execCtx, tables []*tableDesc) error {
	_, err := x.s.runDDL(x, func(d *ddl) error {
		for _, t := range tables {
			for _, q := range d.cat.ownedSequences(t) {
				if err := d.lockSequence(q, isolation.TableLockAccessExclusive); err != nil {
					return err
				}
				d.replaceSequence(q).reset()
			}
		}
		return nil
	})
	return err
}

// selectIntoTable returns the CREATE TABLE ... AS that SELECT ... INTO
// means, as PostgreSQL's analysis rewrites it; nil when st has no INTO. The
// INTO of a set operation is on its first SELECT.
func selectIntoTable(st *pg_query.SelectStmt) *pg_query.CreateTableAsStmt {
	first := func(s *pg_query.SelectStmt) *pg_query.SelectStmt {
		for s.Larg != nil {
			s = s.Larg
		}
		return s
	}
	into := first(st).IntoClause
	if into == nil {
		return nil
	}
	q := proto.Clone(st).(*pg_query.SelectStmt)
	first(q).IntoClause = nil
	return &pg_query.CreateTableAsStmt{Query: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: q}}, Into: into,
		Objtype: pg_query.ObjectType_OBJECT_TABLE}
}

// createTableAsPlan compiles CREATE TABLE ... AS SELECT, SELECT INTO and
// CREATE MATERIALIZED VIEW: the table is created with the query's column
// names and types, then filled through the transaction.
func (b *binder) createTableAsPlan(cs *pg_query.CreateTableAsStmt, full string) (*stmtPlan, error) {
	matview := cs.Objtype == pg_query.ObjectType_OBJECT_MATVIEW
	if cs.Objtype != pg_query.ObjectType_OBJECT_TABLE && !matview {
		return nil, pgerror.Unsupported("CREATE " + strings.TrimPrefix(cs.Objtype.String(), "OBJECT_") + " AS")
	}
	into := cs.Into
	if matview && into.Rel.Relpersistence == "u" {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "materialized views cannot be unlogged")
	}
	tag := "CREATE TABLE AS"
	if matview {
		tag = "CREATE MATERIALIZED VIEW"
	}
	temp := into.Rel.Relpersistence == "t" || into.Rel.Schemaname == "pg_temp"
	if matview && temp {
		return nil, pgerror.Unsupported("materialized views in a temporary schema")
	}
	oc, err := onCommitAction(into.OnCommit, temp)
	if err != nil {
		return nil, err
	}
	ct := createTableAs{cs: cs, tag: tag, temp: temp, onCommit: oc}
	if ex := cs.Query.GetExecuteStmt(); ex != nil {
		if err := checkTableAccessMethod(into.AccessMethod, false); err != nil {
			return nil, err
		}
		return &stmtPlan{writes: tag, exec: func(x *execCtx) (*Result, error) { return ct.executeRun(x, ex, full) }}, nil
	}
	mark := len(b.perms)
	q, err := b.selectNode(nil, cs.Query, nil)
	if err != nil {
		return nil, err
	}
	ct.keyDeps = b.groupedKeys
	if err := checkTableAccessMethod(into.AccessMethod, false); err != nil {
		return nil, err
	}
	if into.SkipData {
		b.perms = withoutPlanErrors(withoutUnpopulatedChecks(b.perms, mark), mark)
	}
	if err := ct.checkNames(q.cols); err != nil {
		return nil, err
	}
	return &stmtPlan{writes: tag, node: q.node, exec: func(x *execCtx) (*Result, error) { return ct.run(x, q.cols, q.run) }}, nil
}

// createTableAs is a CREATE TABLE AS, SELECT INTO or CREATE MATERIALIZED
// VIEW being run: tag is its command tag, temp whether the table is
// temporary, onCommit the temporary table's ON COMMIT action.
type createTableAs struct {
	cs       *pg_query.CreateTableAsStmt
	tag      string
	temp     bool
	onCommit onCommit
	// keyDeps are the tables whose primary key the query's GROUP BY
	// relies on, which a materialized view records.
	keyDeps []uint32
}

// checkNames refuses more column names than the query has columns.
func (ct createTableAs) checkNames(cols []outCol) error {
	if len(ct.cs.Into.ColNames) > len(cols) {
		return pgerror.New(pgerror.SyntaxError, "too many column names were specified")
	}
	return nil
}

// executeRun runs CREATE TABLE AS EXECUTE, which came in the query string
// full, as PostgreSQL's ExecuteQuery with an INTO: an existing table of IF
// NOT EXISTS is skipped before the prepared statement is looked at; the
// statement is bound (its plan counted), must be a SELECT (42809), and
// fills the table its result describes.
func (ct createTableAs) executeRun(x *execCtx, ex *pg_query.ExecuteStmt, full string) (*Result, error) {
	if skip := createAsSkipped(x, ct.cs); skip != nil {
		skip.Tag = ct.tag
		return skip, nil
	}
	be, err := x.bindExecute(ex, full)
	if err != nil {
		return nil, err
	}
	if be.p == nil || be.p.Statement.node.GetSelectStmt() == nil || selectIntoTable(be.p.Statement.node.GetSelectStmt()) != nil {
		return nil, pgerror.New(pgerror.WrongObjectType, "prepared statement is not a SELECT")
	}
	if dataModifyingWith(be.p.Statement.node) != nil {
		return nil, pgerror.Unsupported("CREATE TABLE AS EXECUTE of a statement with data-modifying WITH")
	}
	if err := ct.checkNames(be.p.plan.cols); err != nil {
		return nil, err
	}
	if err := be.open(x, !ct.cs.Into.SkipData); err != nil {
		return nil, err
	}
	res, err := ct.run(x, be.p.plan.cols, func(qx *execCtx) ([][]any, error) {
		res, err := be.run(qx, nil)
		if err != nil {
			return nil, err
		}
		return res.Rows, nil
	})
	if err == nil && ct.cs.Into.SkipData {
		// The portal ran for no rows: the tag is a SELECT's.
		res.Tag = "SELECT 0"
	}
	return res, err
}

// run creates the table with the columns cols and, unless WITH NO DATA,
// fills it with the rows fill makes.
func (ct createTableAs) run(x *execCtx, cols []outCol, fill func(x *execCtx) ([][]any, error)) (*Result, error) {
	cs, tag, temp, oc := ct.cs, ct.tag, ct.temp, ct.onCommit
	into := cs.Into
	matview := cs.Objtype == pg_query.ObjectType_OBJECT_MATVIEW
	names := strs(into.ColNames)
	before, _ := x.s.catalog()
	var t *tableDesc
	d, err := x.s.runDDL(x, func(d *ddl) error {
		t = nil
		if _, err := d.relationPersistence(into.Rel); err != nil {
			return err
		}
		options, toastOptions, err := tableStorageOptions(into.Options, false)
		if err != nil {
			return err
		}
		schema, err := d.relationSchema(into.Rel.Schemaname, into.Rel.Relname, temp)
		if err != nil {
			return err
		}
		if d.relationExists(schema, into.Rel.Relname) {
			if cs.IfNotExists {
				d.notice(pgerror.DuplicateTable, "relation \"%s\" already exists, skipping", into.Rel.Relname)
				return nil
			}
			return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", into.Rel.Relname)
		}
		if err := d.checkTablespace(into.TableSpaceName, temp, false); err != nil {
			return err
		}
		nt := &tableDesc{oid: d.cat.newOID(), schema: schema, name: into.Rel.Relname, hidden: true, onCommit: oc,
			unlogged: into.Rel.Relpersistence == "u", owner: d.s.currentRole(), options: options, toastOptions: toastOptions}
		newRowTypeOIDs(nt)
		d.applyDefaultACL(aclTable, nt.oid, nt.owner, uint32(schemaOID(d.cat, schema)))
		for i, c := range cols {
			name := c.Name
			if i < len(names) {
				name = names[i]
			}
			typ := c.typ
			if typ.Oid == types.OidUnknown {
				typ = types.Text
			}
			if nt.colIndex(name) >= 0 {
				return pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" specified more than once", name)
			}
			if typ.Oid == types.OidRecord {
				return pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" has pseudo-type %s", name, typ)
			}
			coll, err := columnCollationOf(name, typ, c.coll)
			if err != nil {
				return err
			}
			nt.cols = append(nt.cols, &columnDesc{name: name, typ: typ, attnum: int16(i + 1), collation: coll, domain: c.domain})
		}
		if err := d.requireColumnsTypeUsage(nt); err != nil {
			return err
		}
		if matview {
			if nt.matview, err = d.newMatviewDef(cs.Query, !into.SkipData, ct.keyDeps); err != nil {
				return err
			}
		}
		if err := d.createStoreTable(nt); err != nil {
			return err
		}
		d.cat.putTable(nt)
		t = nt
		return nil
	})
	if err != nil {
		return nil, err
	}
	if t == nil {
		return &Result{Tag: tag, Notices: d.notices}, nil
	}
	if into.SkipData {
		return &Result{Tag: tag}, nil
	}
	qx := *x
	qx.systemCatalog = before
	rows, err := fill(&qx)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if _, err := x.txn.Insert(x.ctx, t.id, nil, append([]any(nil), r...)); err != nil {
			return nil, err
		}
	}
	return &Result{Tag: fmt.Sprintf("SELECT %d", len(rows))}, nil
}

// dropForeignKeysTo drops the foreign keys of table child that reference
// table parent (a DROP ... CASCADE of parent), whole: a key referencing a
// partition goes with the key it was cloned from and all its clones.
func (d *ddl) dropForeignKeysTo(child, parent uint32) {
	c := d.cat.tables[child].clone()
	roots := map[string]bool{}
	var kept []*fkDesc
	for _, fk := range c.fks {
		if fk.refTable == parent {
			roots[foreignKeyRoot(c, fk).name] = true
		}
	}
	for _, fk := range c.fks {
		if !roots[fk.name] {
			kept = append(kept, fk)
		}
	}
	c.fks = kept
	dropReferencedClones(c, roots)
	d.cat.putTable(c)
	for name := range roots {
		d.dropForeignKeyClones(c, name)
	}
}
