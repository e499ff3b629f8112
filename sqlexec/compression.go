package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// A column's COMPRESSION: fickle compresses nothing, but keeps the method
// a column was declared with (pg_attribute.attcompression, psql's \d+)
// and checks it as PostgreSQL's GetAttributeCompression does.

// compressionCodes are the compression methods PostgreSQL 15 has, by
// name, with their attcompression code.
var compressionCodes = map[string]string{"pglz": "p", "lz4": "l"}

// columnCompression checks the COMPRESSION method name of a column of
// type typ (declared as typeName, a domain's name or "" for typ's) and
// returns the method to keep, "" for none (no clause, or "default"): a
// type PostgreSQL stores plain cannot have one (0A000), and a name that is
// no method fails with 22023.
func columnCompression(name string, typ types.Type, typeName string) (string, error) {
	if name == "" || name == "default" {
		return "", nil
	}
	if typeStorage(typ) == "p" {
		if typeName == "" {
			typeName = typ.String()
		}
		return "", pgerror.Newf(pgerror.FeatureNotSupported, "column data type %s does not support compression", typeName)
	}
	if _, ok := compressionCodes[name]; !ok {
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid compression method \"%s\"", name)
	}
	return name, nil
}

// typeStorage is typ's pg_type.typstorage.
func typeStorage(typ types.Type) string {
	if bt := builtinIndex().types[uint32(typ.Oid)]; bt != nil {
		return bt.storage
	}
	if typ.IsEnum() {
		return "p"
	}
	return "x"
}

// mergeCompression merges the compression method of a column definition
// (given) into that of the column it merges with (have), as PostgreSQL's
// MergeAttributes: either may be none; two different ones are 42804.
func mergeCompression(column, have, given string) (string, error) {
	switch {
	case have == "":
		return given, nil
	case given != "" && given != have:
		return "", pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" has a compression method conflict", column).
			WithDetail("%s versus %s", have, given)
	}
	return have, nil
}

// setCompression runs ALTER TABLE ... ALTER COLUMN ... SET COMPRESSION on
// t, a clone of the catalog's descriptor.
func (d *ddl) setCompression(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	m, err := columnCompression(cmd.Def.GetString_().GetSval(), t.cols[i].typ, d.domainName(t.cols[i]))
	if err != nil {
		return err
	}
	nc := *t.cols[i]
	nc.compression = m
	t.cols[i] = &nc
	return nil
}

// domainName is the name of the domain col was declared with, "" for
// none.
func (d *ddl) domainName(col *columnDesc) string {
	if col.domain == 0 {
		return ""
	}
	name, _ := catalogNames{s: d.s}.typeName(col.domain, typmodNone)
	return name
}
