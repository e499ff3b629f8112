package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// ALTER TABLE, VIEW and SEQUENCE ... SET SCHEMA. A table moves with its
// indexes and the sequences its columns own; the column defaults naming a
// moved sequence, and the views and materialized views reading a moved
// relation, name it in its new schema, since fickle's stored queries and
// defaults name relations where PostgreSQL's hold OIDs. Moves into or out
// of a temporary schema fail as in PostgreSQL; into a system schema they
// are refused (0A000).

// setRelationSchema runs as, an ALTER TABLE, VIEW or SEQUENCE ... SET
// SCHEMA; ok is false for another kind of object.
func (d *ddl) setRelationSchema(as *pg_query.AlterObjectSchemaStmt) (ok bool, err error) {
	rv := as.Relation
	switch as.ObjectType {
	case pg_query.ObjectType_OBJECT_TABLE:
		if v := d.s.lookupView(d.cat, rv.Schemaname, rv.Relname); v != nil {
			return true, d.setViewSchema(v, as.Newschema)
		}
		if q := d.s.lookupSequence(d.cat, rv.Schemaname, rv.Relname); q != nil {
			return true, d.setSequenceSchema(q, as.Newschema)
		}
		t, err := d.alteredTable(rv, as.MissingOk)
		if err != nil || t == nil {
			return true, err
		}
		if t.matview != nil {
			return true, d.setMatviewSchema(t, as.Newschema)
		}
		return true, d.setTableSchema(t, as.Newschema)
	case pg_query.ObjectType_OBJECT_VIEW:
		if v := d.s.lookupView(d.cat, rv.Schemaname, rv.Relname); v != nil {
			return true, d.setViewSchema(v, as.Newschema)
		}
		if d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname) != nil {
			return true, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a view", rv.Relname)
		}
		_, err := d.alteredTable(rv, as.MissingOk)
		return true, err
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		if q := d.s.lookupSequence(d.cat, rv.Schemaname, rv.Relname); q != nil {
			return true, d.setSequenceSchema(q, as.Newschema)
		}
		if d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname) != nil {
			return true, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a sequence", rv.Relname)
		}
		_, err := d.alteredTable(rv, as.MissingOk)
		return true, err
	}
	return false, nil
}

// targetSchema checks that a relation in schema from, named names (its
// own name first, then those moving with it), may move to schema to: to
// exists, the current role may create objects there, it has none of the
// names, and neither is a temporary or system
// schema. same reports a move to the schema it is in, which does nothing.
func (d *ddl) targetSchema(from, to string, names []string) (same bool, err error) {
	if d.cat.schemas[to] == nil {
		return false, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", to)
	}
	if err := d.requireSchemaCreate(to); err != nil {
		return false, err
	}
	if to == from {
		return true, nil
	}
	if isTempSchema(to) || isTempSchema(from) {
		return false, pgerror.New(pgerror.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if to == "pg_catalog" || to == "information_schema" {
		return false, pgerror.Unsupported("moving a relation into a system schema")
	}
	for _, name := range names {
		if _, _, taken := relationLookup(d.cat, []string{to}, name); taken {
			return false, pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists in schema \"%s\"", name, to)
		}
	}
	return false, nil
}

// setTableSchema moves table t, its indexes and the sequences it owns to
// schema.
func (d *ddl) setTableSchema(t *tableDesc, schema string) error {
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "table", t.name); err != nil {
		return err
	}
	owned := d.cat.ownedSequences(t)
	names := append([]string{t.name}, indexNames(t)...)
	if t.pk != nil && t.pkIndex == nil {
		names = append(names, t.pkName)
	}
	for _, q := range owned {
		names = append(names, q.name)
	}
	if same, err := d.targetSchema(t.schema, schema, names); same || err != nil {
		return err
	}
	if err := d.moveTable(t, schema); err != nil {
		return err
	}
	for _, q := range owned {
		if err := d.moveSequence(q, schema); err != nil {
			return err
		}
	}
	return nil
}

// moveTable moves table (or materialized view) t and its indexes to
// schema, which targetSchema allowed; the views reading it follow. Its row
// type goes with it, and may not meet another type's name there.
func (d *ddl) moveTable(t *tableDesc, schema string) error {
	from, to := d.cat.schemas[t.schema], d.cat.schemas[schema]
	if to.types[t.name] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists in schema \"%s\"", t.name, schema)
	}
	if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	delete(from.tables, t.name)
	for _, ix := range t.indexes {
		delete(from.indexes, ix.name)
		to.indexes[ix.name] = ix
	}
	nt := t.clone()
	nt.schema = schema
	d.cat.putTable(nt)
	return d.requalifyReaders(t.oid, relationName{t.schema, t.name}, relationName{schema, t.name})
}

// setViewSchema moves view v to schema.
func (d *ddl) setViewSchema(v *viewDesc, schema string) error {
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, v.oid), "view", v.name); err != nil {
		return err
	}
	if same, err := d.targetSchema(v.schema, schema, []string{v.name}); same || err != nil {
		return err
	}
	delete(d.cat.schemas[v.schema].views, v.name)
	nv := *v
	nv.schema = schema
	d.cat.schemas[schema].views[v.name] = &nv
	return d.requalifyReaders(v.oid, relationName{v.schema, v.name}, relationName{schema, v.name})
}

// setSequenceSchema moves sequence q, which no column may own, to schema.
func (d *ddl) setSequenceSchema(q *sequence, schema string) error {
	if err := d.s.requireOwner(relationOwner(d.cat, aclSequence, q.oid), "sequence", q.name); err != nil {
		return err
	}
	if table, _ := q.owner(); table != 0 {
		if t := d.cat.tables[table]; t != nil {
			return pgerror.New(pgerror.FeatureNotSupported, "cannot move an owned sequence into another schema").
				WithDetail("Sequence \"%s\" is linked to table \"%s\".", q.name, t.name)
		}
	}
	if same, err := d.targetSchema(q.schema, schema, []string{q.name}); same || err != nil {
		return err
	}
	return d.moveSequence(q, schema)
}

// moveSequence moves sequence q to schema: the column defaults calling
// nextval of it, and the views reading it, name it there.
func (d *ddl) moveSequence(q *sequence, schema string) error {
	if err := d.lockSequence(q, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	nq := *q
	nq.schema = schema
	d.followSequence(q, &nq)
	delete(d.cat.schemas[q.schema].seqs, q.name)
	d.cat.schemas[schema].seqs[q.name] = &nq
	return d.requalifyReaders(q.oid, relationName{q.schema, q.name}, relationName{schema, q.name})
}
