package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// REPLICA IDENTITY says what logical decoding writes to identify an
// updated or deleted row. fickle writes no WAL, so the choice only shows
// (pg_class.relreplident, pg_index.indisreplident, psql's \d); the index
// form is checked as PostgreSQL's ATExecReplicaIdentity checks it, so that
// a migration PostgreSQL refuses fails here too.

// setReplicaIdentity runs ALTER TABLE t REPLICA IDENTITY {DEFAULT | FULL |
// NOTHING | USING INDEX name}.
func (d *ddl) setReplicaIdentity(t *tableDesc, ri *pg_query.ReplicaIdentityStmt) error {
	if identity := ri.IdentityType[0]; identity != 'i' {
		t.replicaIdentity, t.replicaIndex = identity, 0
		if identity == 'd' {
			t.replicaIdentity = 0
		}
		return nil
	}
	name := ri.Name
	oid, kind, found := relationLookup(d.cat, []string{t.schema}, name)
	if !found {
		return pgerror.Newf(pgerror.UndefinedObject, "index \"%s\" for table \"%s\" does not exist", name, t.name)
	}
	if t.pk != nil && t.pkIndex == nil && uint32(oid) == primaryKeyIndexOID(t) {
		t.replicaIdentity, t.replicaIndex = 'i', uint32(oid)
		return nil
	}
	ix := d.cat.schemas[t.schema].indexes[name]
	switch {
	case kind != relIndex || ix == nil || ix.table != t.oid:
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not an index for table \"%s\"", name, t.name)
	case !ix.unique || ix.exclusion || ix.method != "" && ix.method != "btree":
		return pgerror.Newf(pgerror.WrongObjectType, "cannot use non-unique index \"%s\" as replica identity", name)
	case ix.deferrable:
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot use non-immediate index \"%s\" as replica identity", name)
	case slices.Contains(ix.cols, -1):
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot use expression index \"%s\" as replica identity", name)
	case ix.pred != nil:
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot use partial index \"%s\" as replica identity", name)
	}
	for _, c := range ix.cols {
		if !t.cols[c].notNull {
			return pgerror.Newf(pgerror.WrongObjectType, "index \"%s\" cannot be used as replica identity because column \"%s\" is nullable", name, t.cols[c].name)
		}
	}
	t.replicaIdentity, t.replicaIndex = 'i', ix.oid
	return nil
}

// replicaIdentityText is pg_class.relreplident of a table: 'd' unless
// REPLICA IDENTITY chose otherwise.
func (t *tableDesc) replicaIdentityText() string {
	if t.replicaIdentity == 0 {
		return "d"
	}
	return string(t.replicaIdentity)
}

// indexByOID is t's index of OID oid (not its primary key's), nil if none.
func (t *tableDesc) indexByOID(oid uint32) *indexDesc {
	for _, ix := range t.indexes {
		if ix.oid == oid {
			return ix
		}
	}
	return nil
}
