package sqlexec

import "github.com/fickle-db/fickle/internal/pgerror"

// checkTablespace checks the tablespace a new relation would go to, as
// PostgreSQL's DefineRelation and DefineIndex choose it: the one named
// (empty: none), else default_tablespace, which temporary relations do not
// use. fickle has only initdb's tablespaces, so a name other than
// pg_default and pg_global does not exist; no user relation goes to
// pg_global, and a partitioned one may not name the database's own
// tablespace, pg_default. partitioned is whether the relation (or the
// table of the index) is partitioned.
func (d *ddl) checkTablespace(name string, temp, partitioned bool) error {
	explicit := name != ""
	if !explicit && !temp {
		name, _ = d.s.setting("default_tablespace")
	}
	switch name {
	case "":
		return nil
	case "pg_default":
		if partitioned {
			return pgerror.New(pgerror.FeatureNotSupported, "cannot specify default tablespace for partitioned relations")
		}
		return nil
	case "pg_global":
		return pgerror.New(pgerror.InvalidParameterValue, "only shared relations can be placed in pg_global tablespace")
	}
	if explicit {
		return pgerror.Newf(pgerror.UndefinedObject, "tablespace \"%s\" does not exist", name)
	}
	// A default_tablespace that names no tablespace is ignored, as there.
	return nil
}

// setTablespace runs ALTER TABLE ... SET TABLESPACE name: every table is
// in pg_default already, so moving it there changes nothing; pg_global
// takes no user relation and other names do not exist.
func setTablespace(name string) error {
	switch name {
	case "pg_default":
		return nil
	case "pg_global":
		return pgerror.New(pgerror.InvalidParameterValue, "only shared relations can be placed in pg_global tablespace")
	}
	return pgerror.Newf(pgerror.UndefinedObject, "tablespace \"%s\" does not exist", name)
}
