package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// alterIndex runs ALTER INDEX ... SET (...), RESET (...) and SET
// TABLESPACE: an index's storage parameters, checked for its access method
// as CREATE INDEX checks them and shown in pg_class.reloptions, and the
// tablespace every index is already in.
func (d *ddl) alterIndex(at *pg_query.AlterTableStmt) error {
	rv := at.Relation
	path := d.s.searchPath()
	if rv.Schemaname != "" {
		path = []string{d.s.schemaAlias(rv.Schemaname)}
	}
	oid, kind, found := relationLookup(d.cat, path, rv.Relname)
	switch {
	case !found && at.MissingOk:
		d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname)
		return nil
	case !found:
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	case kind != relIndex:
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not an index", rv.Relname)
	}
	t, ix := indexOfOID(d.cat, uint32(oid))
	if t == nil {
		return pgerror.Unsupported("ALTER INDEX of a system catalog's index")
	}
	name := t.pkName
	if ix != nil {
		name = ix.name
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "index", name); err != nil {
		return err
	}
	if err := d.lockTable(t, isolation.TableLockShareUpdateExclusive); err != nil {
		return err
	}
	options := t.pkOptions
	if ix != nil {
		options = ix.options
	}
	for _, n := range at.Cmds {
		cmd := n.GetAlterTableCmd()
		switch cmd.Subtype {
		case pg_query.AlterTableType_AT_SetRelOptions, pg_query.AlterTableType_AT_ResetRelOptions:
			if t.part != nil {
				action := map[bool]string{true: "SET", false: "RESET"}[cmd.Subtype == pg_query.AlterTableType_AT_SetRelOptions]
				return pgerror.Newf(pgerror.WrongObjectType, "ALTER action %s cannot be performed on relation \"%s\"", action, name).
					WithDetail("This operation is not supported for partitioned indexes.")
			}
			var err error
			if options, err = alteredIndexOptions(options, ix, cmd); err != nil {
				return err
			}
		case pg_query.AlterTableType_AT_SetTableSpace:
			if err := setTablespace(cmd.Name); err != nil {
				return err
			}
		case pg_query.AlterTableType_AT_SetStatistics:
			nix, err := d.setIndexStatistics(t, ix, name, cmd)
			if err != nil {
				return err
			}
			ix = nix
		default:
			return pgerror.Unsupported("ALTER INDEX " + strings.TrimPrefix(cmd.Subtype.String(), "AT_"))
		}
	}
	nt := t.clone()
	if ix == nil {
		nt.pkOptions = options
	}
	for i, x := range nt.indexes {
		if ix != nil && x.oid == ix.oid {
			nix := *ix
			nix.options = options
			nt.indexes[i] = &nix
			d.cat.schemas[nt.schema].indexes[nix.name] = &nix
		}
	}
	d.cat.putTable(nt)
	return nil
}

// alteredIndexOptions applies SET (...) or RESET (...) to an index's
// storage parameters (ix nil for a primary key's that has no indexDesc, a
// btree): set ones are checked for its access method, reset ones may name
// parameters never set, as in PostgreSQL.
func alteredIndexOptions(options []string, ix *indexDesc, cmd *pg_query.AlterTableCmd) ([]string, error) {
	items := cmd.Def.GetList().GetItems()
	if cmd.Subtype == pg_query.AlterTableType_AT_ResetRelOptions {
		var names []string
		for _, o := range items {
			if err := checkResetHasNoValue(o); err != nil {
				return nil, err
			}
			if de := o.GetDefElem(); de != nil {
				names = append(names, de.Defname)
			}
		}
		return resetRelOptions(options, names), nil
	}
	method := "btree"
	if ix != nil {
		method = ix.accessMethod()
	}
	set, err := indexStorageOptions(items, method)
	if err != nil {
		return nil, err
	}
	for _, o := range set {
		name, value, _ := strings.Cut(o, "=")
		options = setRelOption(options, name, value)
	}
	return options, nil
}

// indexOfOID finds the user index with the OID and its table: ix is nil
// for the primary key of a table created with one (no indexDesc), t nil
// for no user index.
func indexOfOID(c *catalog, oid uint32) (t *tableDesc, ix *indexDesc) {
	for _, t := range c.tables {
		if t.pk != nil && !t.hidden && t.pkIndex == nil && primaryKeyIndexOID(t) == oid {
			return t, nil
		}
		for _, ix := range t.indexes {
			if ix.oid == oid {
				return t, ix
			}
		}
	}
	return nil, nil
}
