package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// CLUSTER writes a table anew in the order of one of its indexes and marks
// the index as the one to cluster on. fickle's rows have no physical
// order, but their ctids do (isolation/tid.go): the store lays the rows
// out in a fresh heap in the index's order (Txn.Relayout), as PostgreSQL's
// rewrite gives them their places.

// cluster runs CLUSTER: of one table, by the index named or the one it is
// clustered on, or (no table) of every table the current role owns that
// has an index to cluster on.
func (d *ddl) cluster(cs *pg_query.ClusterStmt) error {
	for _, p := range cs.Params {
		if de := p.GetDefElem(); de != nil {
			if de.Defname != "verbose" {
				return pgerror.Newf(pgerror.SyntaxError, "unrecognized CLUSTER option \"%s\"", de.Defname)
			}
			return pgerror.Unsupported("CLUSTER VERBOSE")
		}
	}
	if cs.Relation == nil {
		var tables []*tableDesc
		for _, t := range d.cat.tables {
			if t.clusteredOn != 0 && t.part == nil && d.ownsTable(t) && (!isTempSchema(t.schema) || t.schema == d.s.tempSchemaIfAny()) {
				tables = append(tables, t)
			}
		}
		slices.SortFunc(tables, func(a, b *tableDesc) int { return int(a.oid) - int(b.oid) })
		for _, t := range tables {
			if err := d.clusterTable(t, ""); err != nil {
				return err
			}
		}
		return nil
	}
	rv := cs.Relation
	t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
	if t == nil {
		if sys := d.s.systemRelationOf(d.cat, rv); sys != nil {
			return pgerror.Unsupported("CLUSTER of a system catalog")
		}
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	if t.foreign != nil {
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table or materialized view", rv.Relname)
	}
	if !d.ownsTable(t) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of table %s", t.name)
	}
	if cs.Indexname == "" && t.clusteredOn == 0 {
		return pgerror.Newf(pgerror.UndefinedObject, "there is no previously clustered index for table \"%s\"", rv.Relname)
	}
	if t.part != nil {
		return pgerror.Unsupported("CLUSTER of a partitioned table")
	}
	return d.clusterTable(t, cs.Indexname)
}

// ownsTable reports whether the current role owns t (or is a superuser).
func (d *ddl) ownsTable(t *tableDesc) bool {
	role := d.s.currentRole()
	return d.s.isSuperuser(role) || d.s.memberOf(role)[relationOwner(d.cat, aclTable, t.oid)]
}

// clusterTable clusters t on the index named (its clustered index when
// name is ""): it marks the index and has the store lay t's rows out in
// its order.
func (d *ddl) clusterTable(t *tableDesc, name string) error {
	if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	t = d.cat.tables[t.oid]
	if name == "" {
		name = d.clusteredIndexName(t)
	}
	nt := t.clone()
	if err := d.clusterOn(nt, name); err != nil {
		return err
	}
	order := isolation.LayoutOrder{Index: isolation.NoIndex}
	if nt.pk != nil && !nt.hidden && nt.pkName == name {
		order.ByKey = true
	} else {
		ix := d.cat.schemas[t.schema].indexes[name]
		switch ix.method {
		case "", "btree":
		case "gist":
			return pgerror.Unsupported("CLUSTER on a GiST index")
		default:
			return pgerror.Newf(pgerror.FeatureNotSupported, "cannot cluster on index \"%s\" because access method does not support clustering", name)
		}
		if ix.invalid {
			return pgerror.Newf(pgerror.FeatureNotSupported, "cannot cluster on invalid index \"%s\"", name)
		}
		order.Index = ix.id
	}
	nt.missing = nil // the rewrite writes every column
	d.cat.putTable(nt)
	return d.x.txn.Relayout(t.id, order)
}

// clusteredIndexName is the name of the index t is clustered on.
func (d *ddl) clusteredIndexName(t *tableDesc) string {
	if t.pk != nil && !t.hidden && primaryKeyIndexOID(t) == t.clusteredOn {
		return t.pkName
	}
	for _, ix := range d.cat.schemas[t.schema].indexes {
		if ix.oid == t.clusteredOn {
			return ix.name
		}
	}
	return ""
}
