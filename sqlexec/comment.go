package sqlexec

import (
	"slices"
	"sort"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// commentKey names what a comment describes as pg_description does: the
// catalog the object lives in (pg_class for relations, pg_namespace for
// schemas), the object's OID, and for a column its attnum (0 otherwise).
type commentKey struct {
	classOID uint32
	objOID   uint32
	subID    int32
	// conName names a constraint of table objOID (comment_constraint.go).
	conName string
}

// setComment records text as the comment of key; empty text removes it,
// as COMMENT ... IS NULL and IS with an empty string do in PostgreSQL.
func (c *catalog) setComment(key commentKey, text string) {
	if text == "" {
		delete(c.comments, key)
		return
	}
	c.comments[key] = text
}

// dropComments removes the comments of the object with the OID, its
// columns' included: the object is being dropped.
func (c *catalog) dropComments(objOID uint32) {
	for k := range c.comments {
		if k.objOID == objOID {
			delete(c.comments, k)
		}
	}
}

// moveComments gives the comments of the object with OID from to the one
// with OID to: an index rebuilt under a new OID keeps its comment.
func (c *catalog) moveComments(from, to uint32) {
	for k, v := range c.comments {
		if k.objOID == from {
			delete(c.comments, k)
			c.comments[commentKey{classOID: k.classOID, objOID: to, subID: k.subID}] = v
		}
	}
}

// dropColumnComment removes the comment of column attnum of table oid.
func (c *catalog) dropColumnComment(table uint32, attnum int16) {
	delete(c.comments, commentKey{classOID: oidPgClass, objOID: table, subID: int32(attnum)})
}

// sortedComments returns the comments as pg_description rows, ordered by
// object, catalog and column.
func (c *catalog) sortedComments() []commentKey {
	keys := make([]commentKey, 0, len(c.comments))
	for k := range c.comments {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.objOID != b.objOID {
			return a.objOID < b.objOID
		}
		if a.classOID != b.classOID {
			return a.classOID < b.classOID
		}
		return a.subID < b.subID
	})
	return keys
}

// comment runs COMMENT ON for the objects fickle has: tables, columns,
// indexes, sequences, schemas, routines and extensions. It fails as
// PostgreSQL does when the object is missing or of another kind.
func (d *ddl) comment(cs *pg_query.CommentStmt) error {
	switch cs.Objtype {
	case pg_query.ObjectType_OBJECT_LARGEOBJECT:
		return d.commentOnLargeObject(cs)
	case pg_query.ObjectType_OBJECT_EVENT_TRIGGER:
		return d.commentOnEventTrigger(cs)
	case pg_query.ObjectType_OBJECT_SCHEMA:
		name := cs.Object.GetString_().GetSval()
		sc := d.cat.schemas[name]
		if sc == nil {
			return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		if err := d.s.requireOwner(schemaOwner(sc), "schema", name); err != nil {
			return err
		}
		d.cat.setComment(commentKey{classOID: oidPgNamespace, objOID: sc.oid}, cs.Comment)
		return nil
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_INDEX, pg_query.ObjectType_OBJECT_SEQUENCE, pg_query.ObjectType_OBJECT_VIEW,
		pg_query.ObjectType_OBJECT_MATVIEW, pg_query.ObjectType_OBJECT_FOREIGN_TABLE:
		parts := strs(cs.Object.GetList().GetItems())
		oid, kind, err := d.commentRelation(parts)
		if err != nil {
			return err
		}
		if t := d.cat.tables[oid]; kind == relTable && t != nil && (t.foreign != nil) != (cs.Objtype == pg_query.ObjectType_OBJECT_FOREIGN_TABLE) {
			what := map[bool]string{true: "a foreign table", false: "a table"}[cs.Objtype == pg_query.ObjectType_OBJECT_FOREIGN_TABLE]
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not %s", parts[len(parts)-1], what)
		}
		if kind != relTable && cs.Objtype == pg_query.ObjectType_OBJECT_FOREIGN_TABLE {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a foreign table", parts[len(parts)-1])
		}
		if cs.Objtype == pg_query.ObjectType_OBJECT_FOREIGN_TABLE {
			if err := d.s.requireOwner(relationOwner(d.cat, aclTable, oid), "foreign table", parts[len(parts)-1]); err != nil {
				return err
			}
			d.cat.setComment(commentKey{classOID: oidPgClass, objOID: oid}, cs.Comment)
			return nil
		}
		want := map[pg_query.ObjectType]relationKind{pg_query.ObjectType_OBJECT_TABLE: relTable, pg_query.ObjectType_OBJECT_INDEX: relIndex,
			pg_query.ObjectType_OBJECT_SEQUENCE: relSequence, pg_query.ObjectType_OBJECT_VIEW: relView, pg_query.ObjectType_OBJECT_MATVIEW: relTable}[cs.Objtype]
		if t := d.cat.tables[uint32(oid)]; kind == relTable && t != nil && (t.matview != nil) != (cs.Objtype == pg_query.ObjectType_OBJECT_MATVIEW) {
			what := map[bool]string{true: "a materialized view", false: "a table"}[cs.Objtype == pg_query.ObjectType_OBJECT_MATVIEW]
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not %s", parts[len(parts)-1], what)
		}
		if kind != want && cs.Objtype == pg_query.ObjectType_OBJECT_MATVIEW {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a materialized view", parts[len(parts)-1])
		}
		if kind != want {
			article := map[relationKind]string{relTable: "a table", relIndex: "an index", relSequence: "a sequence", relView: "a view"}[want]
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not %s", parts[len(parts)-1], article)
		}
		owner, noun := d.relationOwnerAndNoun(oid, kind)
		if err := d.s.requireOwner(owner, noun, parts[len(parts)-1]); err != nil {
			return err
		}
		d.cat.setComment(commentKey{classOID: oidPgClass, objOID: oid}, cs.Comment)
		return nil
	case pg_query.ObjectType_OBJECT_EXTENSION:
		return d.commentExtension(cs.Object.GetString_().GetSval(), cs.Comment)
	case pg_query.ObjectType_OBJECT_PUBLICATION:
		return d.commentPublication(cs.Object.GetString_().GetSval(), cs.Comment)
	case pg_query.ObjectType_OBJECT_FDW, pg_query.ObjectType_OBJECT_FOREIGN_SERVER:
		return d.commentForeign(cs)
	case pg_query.ObjectType_OBJECT_FUNCTION, pg_query.ObjectType_OBJECT_PROCEDURE, pg_query.ObjectType_OBJECT_ROUTINE,
		pg_query.ObjectType_OBJECT_AGGREGATE:
		f, err := d.findRoutine(cs.Object.GetObjectWithArgs(), cs.Objtype, false, false)
		if err != nil {
			return err
		}
		if err := d.requireRoutineOwner(f); err != nil {
			return err
		}
		d.cat.setComment(commentKey{classOID: oidPgProc, objOID: f.oid}, cs.Comment)
		return nil
	case pg_query.ObjectType_OBJECT_COLUMN:
		parts := strs(cs.Object.GetList().GetItems())
		if len(parts) < 2 {
			return pgerror.New(pgerror.SyntaxError, "column name must be qualified")
		}
		rel, col := parts[:len(parts)-1], parts[len(parts)-1]
		oid, kind, err := d.commentRelation(rel)
		if err != nil {
			return err
		}
		relName := rel[len(rel)-1]
		var attnum int16
		switch kind {
		case relTable:
			t := d.cat.tables[oid]
			if i := t.colIndex(col); i >= 0 {
				attnum = t.cols[i].attnum
			}
		case relView:
			// A view's columns are numbered by their place.
			if i := slices.Index(viewByOid(d.cat, oid).colNames(), col); i >= 0 {
				attnum = int16(i + 1)
			}
		default:
			what := map[relationKind]string{relIndex: "indexes", relSequence: "sequences"}[kind]
			return pgerror.Newf(pgerror.WrongObjectType, "cannot set comment on relation \"%s\"", relName).
				WithDetail("This operation is not supported for %s.", what)
		}
		if attnum == 0 {
			return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, relName)
		}
		if err := d.s.requireOwner(relationOwner(d.cat, aclTable, oid), "relation", relName); err != nil {
			return err
		}
		d.cat.setComment(commentKey{classOID: oidPgClass, objOID: oid, subID: int32(attnum)}, cs.Comment)
		return nil
	}
	if cs.Objtype == pg_query.ObjectType_OBJECT_TYPE || cs.Objtype == pg_query.ObjectType_OBJECT_DOMAIN {
		return d.commentOnType(cs)
	}
	if cs.Objtype == pg_query.ObjectType_OBJECT_TABCONSTRAINT {
		return d.commentOnConstraint(cs)
	}
	if cs.Objtype == pg_query.ObjectType_OBJECT_DOMCONSTRAINT {
		return d.commentOnDomainConstraint(cs)
	}
	if cs.Objtype == pg_query.ObjectType_OBJECT_TRIGGER {
		return d.commentOnTrigger(cs)
	}
	if cs.Objtype == pg_query.ObjectType_OBJECT_OPERATOR {
		return d.commentOnOperator(cs)
	}
	if opclassKindWords(cs.Objtype) != "" {
		return d.commentOnOpclass(cs)
	}
	kind := strings.ReplaceAll(strings.TrimPrefix(cs.Objtype.String(), "OBJECT_"), "_", " ")
	return pgerror.Unsupported("COMMENT ON " + kind)
}

// commentRelation resolves the relation a COMMENT names, along the search
// path unless qualified, to its OID and kind.
func (d *ddl) commentRelation(parts []string) (uint32, relationKind, error) {
	name := parts[len(parts)-1]
	path := d.s.searchPath()
	switch len(parts) {
	case 1:
	case 2:
		if parts[0] != "pg_catalog" && d.cat.schemas[parts[0]] == nil {
			return 0, 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", parts[0])
		}
		path = parts[:1]
	default:
		return 0, 0, pgerror.Unsupported("COMMENT ON a name with a database part")
	}
	oid, kind, ok := relationLookup(d.cat, path, name)
	if !ok {
		return 0, 0, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", strings.Join(parts, "."))
	}
	if oid < firstUserOID {
		return 0, 0, pgerror.Unsupported("comments on system catalogs")
	}
	return uint32(oid), kind, nil
}

func init() {
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_description",
		cols: []vcol{{"objoid", types.OidType}, {"classoid", types.OidType}, {"objsubid", types.Int4}, {"description", types.Text}},
		rows: func(s *Session, c *catalog) [][]any {
			builtin := builtinDescriptions()
			out := make([][]any, 0, len(builtin.keys)+len(c.comments))
			for _, k := range builtin.keys {
				out = append(out, []any{int64(k.objOID), int64(k.classOID), int64(k.subID), builtin.text[k]})
			}
			for _, k := range c.sortedComments() {
				if obj, ok := describedObject(c, k); ok {
					out = append(out, []any{int64(obj), int64(k.classOID), int64(k.subID), c.comments[k]})
				}
			}
			return out
		}})
}

// commentOf answers obj_description and col_description: the comment on
// the object with the OID in the catalog named class (pg_class,
// pg_namespace, pg_extension, ...; "" for any catalog, as the
// one-argument obj_description looks), column subID, or nil.
func commentOf(c *catalog, objOID int64, class string, subID int64) any {
	if objOID < 0 || objOID > 1<<32-1 {
		return nil
	}
	var classOID uint32
	if class != "" {
		r, ok := systemRelationNamed("pg_catalog", class)
		if !ok {
			return nil
		}
		classOID = r.oid
	}
	if (classOID == 0 || classOID == oidPgConstraint) && subID == 0 {
		if text := constraintComment(c, uint32(objOID)); text != nil {
			return text
		}
	}
	matches := func(k commentKey) bool {
		return k.conName == "" && k.objOID == uint32(objOID) && k.subID == int32(subID) && (classOID == 0 || k.classOID == classOID)
	}
	for k, v := range c.comments {
		if matches(k) {
			return v
		}
	}
	builtin := builtinDescriptions()
	for _, k := range builtin.keys {
		if matches(k) {
			return builtin.text[k]
		}
	}
	return nil
}

// builtinDescriptions are the descriptions initdb gives built-in objects
// (sqlexec/pgdata), in PostgreSQL's order: the schemas' (which COMMENT ON
// SCHEMA may change, so every catalog starts with them among its own
// comments) and the others' (functions, types, operators, access
// methods, ..., which no statement fickle runs changes).
var builtinDescriptions = sync.OnceValue(func() (out struct {
	schemas map[commentKey]string
	keys    []commentKey
	text    map[commentKey]string
}) {
	out.schemas, out.text = map[commentKey]string{}, map[commentKey]string{}
	eachRow(pgdata.Load(pgdata.PgDescription), func(get func(string) string) {
		k := commentKey{classOID: atou(get("classoid")), objOID: atou(get("objoid")), subID: int32(atou(get("objsubid")))}
		if k.classOID == oidPgNamespace {
			out.schemas[k] = get("description")
			return
		}
		out.keys = append(out.keys, k)
		out.text[k] = get("description")
	})
	return out
})

// commentOnType runs COMMENT ON TYPE and COMMENT ON DOMAIN for the types
// CREATE TYPE and CREATE DOMAIN make and their arrays. A built-in type's
// description is initdb's, and a table's row type is refused (0A000).
func (d *ddl) commentOnType(cs *pg_query.CommentStmt) error {
	tn := cs.Object.GetTypeName()
	b := d.binder("")
	desc := b.domainNamed(tn)
	oid := uint32(0)
	if desc != nil {
		oid = desc.oid
		if len(tn.ArrayBounds) > 0 {
			oid = desc.array
		}
	} else {
		t, err := b.typeName(tn)
		if err != nil {
			return err
		}
		oid = uint32(t.Oid)
		desc, _ = d.cat.typeByOidOrArray(oid)
	}
	name := strs(tn.Names)[len(tn.Names)-1]
	isDomain := desc != nil && desc.domain != nil && oid == desc.oid
	if cs.Objtype == pg_query.ObjectType_OBJECT_DOMAIN && !isDomain {
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a domain", name)
	}
	if desc == nil || oid == 0 {
		return pgerror.Unsupported("COMMENT ON TYPE of a built-in type or a table's row type")
	}
	if err := d.s.requireOwner(desc.ownerRole(), "type", desc.name); err != nil {
		return err
	}
	d.cat.setComment(commentKey{classOID: oidPgType, objOID: oid}, cs.Comment)
	return nil
}

// commentExtension runs COMMENT ON EXTENSION, which pg_dump writes after
// each CREATE EXTENSION. plpgsql's comment is initdb's, which fickle
// keeps: restating it changes nothing, another is refused.
func (d *ddl) commentExtension(name, comment string) error {
	if name == "plpgsql" {
		if comment != plpgsqlComment {
			return pgerror.Unsupported("changing the comment of extension plpgsql")
		}
		return nil
	}
	ext := d.cat.extensions[name]
	if ext == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "extension \"%s\" does not exist", name)
	}
	d.cat.setComment(commentKey{classOID: oidPgExtensionClass, objOID: ext.oid}, comment)
	return nil
}
