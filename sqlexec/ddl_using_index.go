package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// usingIndexDetail is PostgreSQL's detail on an index that cannot back a
// PRIMARY KEY or UNIQUE constraint.
const usingIndexDetail = "Cannot create a primary key or unique constraint using such an index."

// addConstraintUsingIndex runs ALTER TABLE ... ADD [CONSTRAINT name]
// {PRIMARY KEY | UNIQUE} USING INDEX index: the existing unique index of t
// becomes the constraint's index (renamed to the constraint's name when one
// is given), as PostgreSQL's transformIndexConstraint checks and does.
func (d *ddl) addConstraintUsingIndex(t *tableDesc, c *pg_query.Constraint) error {
	if t.part != nil {
		return pgerror.New(pgerror.FeatureNotSupported, "ALTER TABLE / ADD CONSTRAINT USING INDEX is not supported on partitioned tables")
	}
	ix, err := d.usableConstraintIndex(t, c.Indexname)
	if err != nil {
		return err
	}
	primary := c.Contype == pg_query.ConstrType_CONSTR_PRIMARY
	if primary && t.pk != nil {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", t.name)
	}
	if c.Deferrable {
		return pgerror.Unsupported("DEFERRABLE constraints made USING INDEX")
	}
	name := c.Indexname
	if c.Conname != "" && c.Conname != name {
		if err := d.indexConstraintName(t, c.Conname); err != nil {
			return err
		}
		d.notice(pgerror.SuccessfulCompletion, "ALTER TABLE / ADD CONSTRAINT USING INDEX will rename index \"%s\" to \"%s\"", name, c.Conname)
		name = c.Conname
	} else if conNameUsed(t, name) {
		return duplicateConstraint(t, name)
	}
	if primary {
		for _, col := range ix.cols {
			if err := d.checkNoNulls(t, col); err != nil {
				return err
			}
		}
	}
	nix := *ix
	nix.name = name
	nix.constraint = true
	for i, have := range t.indexes {
		if have == ix {
			t.indexes[i] = &nix
		}
	}
	indexes := d.cat.schemas[t.schema].indexes
	delete(indexes, ix.name)
	indexes[nix.name] = &nix
	if primary {
		t.pk, t.pkName, t.pkIndex = nix.cols, name, &nix
		for _, col := range nix.cols {
			nc := *t.cols[col]
			nc.notNull = true
			t.cols[col] = &nc
		}
	}
	return nil
}

// usableConstraintIndex finds the index named name in t's schema and checks
// that it can back a PRIMARY KEY or UNIQUE constraint of t: a valid unique
// B-tree index of t on plain columns in their default order, not already a
// constraint's.
func (d *ddl) usableConstraintIndex(t *tableDesc, name string) (*indexDesc, error) {
	ix := d.cat.schemas[t.schema].indexes[name]
	if ix == nil {
		for _, other := range d.cat.schemas[t.schema].tables {
			if other.pk != nil && !other.hidden && other.pkIndex == nil && other.pkName == name {
				return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "index \"%s\" is already associated with a constraint", name)
			}
		}
		return nil, pgerror.Newf(pgerror.UndefinedObject, "index \"%s\" does not exist", name)
	}
	switch {
	case ix.constraint || ix == t.pkIndex:
		return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "index \"%s\" is already associated with a constraint", name)
	case ix.table != t.oid:
		return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "index \"%s\" does not belong to table \"%s\"", name, t.name)
	case ix.invalid:
		return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "index \"%s\" is not valid", name)
	case !ix.unique:
		return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a unique index", name).WithDetail(usingIndexDetail)
	case slices.ContainsFunc(ix.exprs, func(e *pg_query.Node) bool { return e != nil }):
		return nil, pgerror.Newf(pgerror.WrongObjectType, "index \"%s\" contains expressions", name).WithDetail(usingIndexDetail)
	case ix.pred != nil:
		return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a partial index", name).WithDetail(usingIndexDetail)
	case ix.method != "" && ix.method != "btree":
		return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "index \"%s\" is not a btree", name)
	}
	for i, o := range ix.keyOpts {
		if ix.keyCollation(t, i) != ix.ownCollation(t, i) || o.nonDefaultOpclass() != 0 || o.desc || o.nullsFirst {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "index \"%s\" column number %d does not have default sorting behavior", name, i+1).WithDetail(usingIndexDetail)
		}
	}
	return ix, nil
}
