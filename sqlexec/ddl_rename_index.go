package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// indexOwner finds the index named by rv and its table: a secondary index,
// or the primary key index of a table created with one (which has no
// indexDesc, only its table's pkName). ix is nil for the latter.
func (d *ddl) indexOwner(rv *pg_query.RangeVar) (t *tableDesc, ix *indexDesc) {
	if ix, _ := d.s.lookupIndex(d.cat, rv.Schemaname, rv.Relname); ix != nil {
		return d.cat.tables[ix.table], ix
	}
	for _, schema := range d.s.searchPath() {
		if rv.Schemaname != "" && d.s.schemaAlias(rv.Schemaname) != schema {
			continue
		}
		if sc := d.cat.schemas[schema]; sc != nil {
			for _, t := range sc.tables {
				if t.pk != nil && !t.hidden && t.pkIndex == nil && t.pkName == rv.Relname {
					return t, nil
				}
			}
		}
	}
	return nil, nil
}

// renameIndex runs ALTER INDEX ... RENAME TO (or ALTER TABLE ... RENAME TO
// naming an index): the index of a UNIQUE or PRIMARY KEY constraint
// renames its constraint too, as they share the name. ok is false when no
// index has the name.
func (d *ddl) renameIndex(rs *pg_query.RenameStmt) (ok bool, err error) {
	t, ix := d.indexOwner(rs.Relation)
	if t == nil {
		return false, nil
	}
	// PostgreSQL locks the index, not its table: SHARE UPDATE EXCLUSIVE
	// for ALTER INDEX, ACCESS EXCLUSIVE for ALTER TABLE naming an index.
	mode, oid := isolation.TableLockAccessExclusive, primaryKeyIndexOID(t)
	if rs.RenameType == pg_query.ObjectType_OBJECT_INDEX {
		mode = isolation.TableLockShareUpdateExclusive
	}
	if ix != nil {
		oid = ix.oid
	}
	if err := d.lockRelation(oid, mode); err != nil {
		return true, err
	}
	if role := d.s.currentRole(); !d.s.isSuperuser(role) && !d.s.memberOf(role)[relationOwner(d.cat, aclTable, t.oid)] {
		return true, pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of index %s", rs.Relation.Relname)
	}
	if err := d.requireSchemaCreate(t.schema); err != nil {
		return true, err
	}
	if d.relationExists(t.schema, rs.Newname) {
		return true, pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", rs.Newname)
	}
	nt := t.clone()
	if ix == nil || ix == t.pkIndex {
		nt.pkName = rs.Newname
	}
	if ix != nil {
		nix := *ix
		nix.name = rs.Newname
		for i, have := range nt.indexes {
			if have == ix {
				nt.indexes[i] = &nix
			}
		}
		if nt.pkIndex == ix {
			nt.pkIndex = &nix
		}
		indexes := d.cat.schemas[t.schema].indexes
		delete(indexes, ix.name)
		indexes[nix.name] = &nix
	}
	d.cat.putTable(nt)
	return true, nil
}
