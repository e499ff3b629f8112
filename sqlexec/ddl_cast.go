package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// DROP CAST. fickle has only PostgreSQL's built-in casts and its
// extensions' (CREATE CAST is 0A000: its coercions do not consult users'
// casts), so DROP CAST finds a built-in cast, which the database system
// requires, or none; an extension's type is refused.

// dropCast runs DROP CAST [IF EXISTS] (source AS target) as RemoveObjects
// does: a missing type or cast is 42704, or a notice with IF EXISTS.
func (d *ddl) dropCast(ds *pg_query.DropStmt) error {
	for _, o := range ds.Objects {
		items := o.GetList().GetItems()
		if len(items) != 2 {
			return pgerror.Unsupported("DROP CAST of this form")
		}
		var oids [2]types.Oid
		var names [2]string
		missing := false
		for i, n := range items {
			tn := n.GetTypeName()
			written := strs(tn.Names)
			if len(written) == 2 && d.cat.schemas[d.s.schemaAlias(written[0])] == nil && written[0] != "pg_catalog" && written[0] != "information_schema" {
				if !ds.MissingOk {
					return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", written[0])
				}
				d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", written[0])
				missing = true
				break
			}
			t, dom, err := d.binder("").declaredType(tn)
			if err != nil {
				if pe, ok := err.(*pgerror.Error); ok && pe.Code == pgerror.UndefinedObject && ds.MissingOk {
					d.notice(pgerror.SuccessfulCompletion, "type \"%s\" does not exist, skipping", typeNameToString(tn))
					missing = true
					break
				}
				return err
			}
			if td, _ := d.cat.typeByOidOrArray(uint32(t.Oid)); td != nil && td.extension != 0 {
				// An extension's casts are its members, which fickle's
				// pg_cast does not list.
				return pgerror.Unsupported("DROP CAST of an extension's type")
			}
			oids[i], names[i] = t.Oid, types.FormatTypeBe(types.Type{Oid: t.Oid, Typmod: -1})
			if dom != nil {
				oids[i], names[i] = types.Oid(dom.oid), dom.name
			}
		}
		if missing {
			continue
		}
		if _, ok := pgCasts().methods[[2]uint32{uint32(oids[0]), uint32(oids[1])}]; ok {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop cast from %s to %s because it is required by the database system", names[0], names[1])
		}
		if !ds.MissingOk {
			return pgerror.Newf(pgerror.UndefinedObject, "cast from type %s to type %s does not exist", names[0], names[1])
		}
		d.notice(pgerror.SuccessfulCompletion, "cast from type %s to type %s does not exist, skipping", names[0], names[1])
	}
	return nil
}
