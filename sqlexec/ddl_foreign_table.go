package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// firstUnpinnedOID is PostgreSQL's FirstUnpinnedObjectId: a relation with
// a smaller OID is a system catalog, which even a superuser may not alter.
const firstUnpinnedOID = 12000

// foreignTableRelation finds the relation an ALTER or DROP FOREIGN TABLE
// names. fickle has no foreign tables (CREATE FOREIGN TABLE is refused), so
// the relation it finds is never one: the callers answer what PostgreSQL
// answers for a relation of another kind or for none. A schema named but
// missing fails with 3F000 unless missingOk, when found is false.
func (d *ddl) foreignTableRelation(schema, name string, missingOk bool) (oid int64, kind relationKind, found bool, err error) {
	path := d.s.searchPath()
	if schema != "" {
		schema = d.s.schemaAlias(schema)
		if d.cat.schemas[schema] == nil {
			if _, sys := systemRelationNamed(schema, name); !sys {
				if missingOk {
					return 0, 0, false, nil
				}
				return 0, 0, false, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", schema)
			}
		}
		path = []string{schema}
	}
	oid, kind, found = relationLookup(d.cat, path, name)
	return oid, kind, found, nil
}

// relationOwnerAndNoun is the role owning relation oid of kind and the noun
// PostgreSQL's "must be owner of" error calls it by: an index belongs to
// its table's owner.
func (d *ddl) relationOwnerAndNoun(oid uint32, kind relationKind) (uint32, string) {
	switch kind {
	case relSequence:
		return relationOwner(d.cat, aclSequence, oid), "sequence"
	case relView:
		return relationOwner(d.cat, aclTable, oid), "view"
	case relIndex:
		for _, sc := range d.cat.schemas {
			for _, ix := range sc.indexes {
				if ix.oid == oid {
					return relationOwner(d.cat, aclTable, ix.table), "index"
				}
			}
		}
		return oidBootstrapSuperuser, "index"
	}
	return relationOwner(d.cat, aclTable, oid), "table"
}

// alterForeignTable answers ALTER FOREIGN TABLE rv ... (any subcommand,
// RENAME TO, SET SCHEMA) as PostgreSQL's lookup does before it looks at
// the subcommands: a missing relation is 42P01 (a notice with IF EXISTS);
// an existing one, which is never a foreign table in fickle, needs its
// owner, may not be a system catalog, and then fails with 42809.
func (d *ddl) alterForeignTable(rv *pg_query.RangeVar, missingOk bool) error {
	oid, kind, found, err := d.foreignTableRelation(rv.Schemaname, rv.Relname, missingOk)
	if err != nil {
		return err
	}
	if !found {
		if missingOk {
			d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname)
			return nil
		}
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	owner, noun := d.relationOwnerAndNoun(uint32(oid), kind)
	if err := d.s.requireOwner(owner, noun, rv.Relname); err != nil {
		return err
	}
	if oid < firstUnpinnedOID {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", rv.Relname)
	}
	return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a foreign table", rv.Relname)
}

// dropForeignTables answers DROP FOREIGN TABLE: each name in turn is
// missing (42P01, or a notice with IF EXISTS) or a relation of another kind
// (42809 with PostgreSQL's hint naming the DROP for it), so nothing is
// ever dropped.
func (d *ddl) dropForeignTables(ds *pg_query.DropStmt) error {
	hints := map[relationKind]string{relTable: "Use DROP TABLE to remove a table.", relView: "Use DROP VIEW to remove a view.",
		relSequence: "Use DROP SEQUENCE to remove a sequence.", relIndex: "Use DROP INDEX to remove an index."}
	for _, o := range ds.Objects {
		schema, name := objectName(o)
		_, kind, found, err := d.foreignTableRelation(schema, name, ds.MissingOk)
		if err != nil {
			return err
		}
		if found {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a foreign table", name).WithHint("%s", hints[kind])
		}
		if schema != "" && d.cat.schemas[d.s.schemaAlias(schema)] == nil {
			d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", schema)
			continue
		}
		if !ds.MissingOk {
			return pgerror.Newf(pgerror.UndefinedObject, "foreign table \"%s\" does not exist", name)
		}
		d.notice(pgerror.SuccessfulCompletion, "foreign table \"%s\" does not exist, skipping", name)
	}
	return nil
}
