package sqlexec

import (
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Users' encoding conversions (CREATE, ALTER, DROP and COMMENT ON
// CONVERSION) as PostgreSQL 15's conversioncmds.c keeps them in
// pg_conversion. Only a default conversion changes what convert_to,
// convert_from and client encodings do, so CREATE DEFAULT CONVERSION is
// refused (0A000); a conversion that is not the default is only a catalog
// object. Its function must be one of PostgreSQL's built-in conversion
// functions, for a pair of encodings a built-in conversion uses it for
// (PostgreSQL calls the function to check the pair; fickle cannot run C).

// oidPgConversion is pg_conversion's OID, the class of the conversions'
// comments and descriptions.
const oidPgConversion = 2607

// conversionDesc is a user's conversion: its encodings by number and its
// built-in function's OID and name.
type conversionDesc struct {
	oid, owner   uint32
	schema, name string
	from, to     int
	proc         uint32
	procName     string
}

// builtinConversionPairs are the encoding pairs each built-in conversion
// function converts in pg_conversion, by the function's OID; names are the
// built-in conversions' names.
var builtinConversionPairs = sync.OnceValue(func() (c struct {
	pairs map[uint32][][2]int
	names map[string]bool
}) {
	c.pairs, c.names = map[uint32][][2]int{}, map[string]bool{}
	eachRow(pgdata.Load(pgdata.PgConversion), func(get func(string) string) {
		proc := atou(get("conproc"))
		c.pairs[proc] = append(c.pairs[proc], [2]int{int(atou(get("conforencoding"))), int(atou(get("contoencoding")))})
		c.names[get("conname")] = true
	})
	return c
})

// conversionDDL runs the statements on conversions: done false for a
// statement of another kind.
func (d *ddl) conversionDDL(n *pg_query.Node) (bool, error) {
	conv := pg_query.ObjectType_OBJECT_CONVERSION
	switch v := n.Node.(type) {
	case *pg_query.Node_CreateConversionStmt:
		return true, d.createConversion(v.CreateConversionStmt)
	case *pg_query.Node_DropStmt:
		if v.DropStmt.RemoveType == conv {
			return true, d.dropConversions(v.DropStmt)
		}
	case *pg_query.Node_RenameStmt:
		if rs := v.RenameStmt; rs.RenameType == conv {
			return true, d.alterConversion(strs(rs.Object.GetList().GetItems()), func(c *conversionDesc) error {
				if err := d.requireSchemaCreate(c.schema); err != nil {
					return err
				}
				return d.moveConversion(c, c.schema, rs.Newname)
			})
		}
	case *pg_query.Node_AlterObjectSchemaStmt:
		if as := v.AlterObjectSchemaStmt; as.ObjectType == conv {
			return true, d.alterConversion(strs(as.Object.GetList().GetItems()), func(c *conversionDesc) error {
				return d.setConversionSchema(c, as.Newschema)
			})
		}
	case *pg_query.Node_AlterOwnerStmt:
		if ao := v.AlterOwnerStmt; ao.ObjectType == conv {
			return true, d.alterConversionOwner(ao)
		}
	case *pg_query.Node_CommentStmt:
		if cs := v.CommentStmt; cs.Objtype == conv {
			return true, d.alterConversion(strs(cs.Object.GetList().GetItems()), func(c *conversionDesc) error {
				d.cat.setComment(commentKey{classOID: oidPgConversion, objOID: c.oid}, cs.Comment)
				return nil
			})
		}
	}
	return false, nil
}

// encodingNumber is pg_char_to_encoding for PostgreSQL's own encoding
// names (any case, punctuation ignored); ok false for another name,
// which may be one of PostgreSQL's aliases.
func encodingNumber(name string) (int, bool) {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' {
				return r + 'a' - 'A'
			}
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, s)
	}
	for i, n := range encodingNames {
		if clean(n) == clean(name) {
			return i, true
		}
	}
	return 0, false
}

// createConversion runs CREATE CONVERSION as CreateConversionCommand and
// ConversionCreate do.
func (d *ddl) createConversion(cs *pg_query.CreateConversionStmt) error {
	if cs.Def {
		return pgerror.Unsupported("CREATE DEFAULT CONVERSION")
	}
	names := strs(cs.ConversionName)
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	if err := d.requireSchemaCreate(schema); err != nil {
		return err
	}
	from, ok := encodingNumber(cs.ForEncodingName)
	if !ok {
		return pgerror.Unsupported("encoding name " + cs.ForEncodingName)
	}
	to, ok := encodingNumber(cs.ToEncodingName)
	if !ok {
		return pgerror.Unsupported("encoding name " + cs.ToEncodingName)
	}
	if from == 0 || to == 0 {
		return pgerror.New(pgerror.InvalidObjectDefinition, "encoding conversion to or from \"SQL_ASCII\" is not supported")
	}
	fn := strs(cs.FuncName)
	fname := fn[len(fn)-1]
	if len(fn) > 2 || len(fn) == 2 && fn[0] != "pg_catalog" || d.s.userRoutineNamed(d.cat, fname) {
		return pgerror.Unsupported("a conversion function other than a built-in one")
	}
	var proc uint32
	for _, p := range builtinIndex().procsByName[fname] {
		if p.namespace == oidPgCatalog && p.kind == 'f' && slices.Equal(p.args, []uint32{23, 23, 2275, 2281, 23, 16}) {
			proc = p.oid
			if p.rettype != 23 {
				return pgerror.Newf(pgerror.InvalidObjectDefinition, "encoding conversion function %s must return type integer", strings.Join(fn, "."))
			}
		}
	}
	if proc == 0 {
		return pgerror.Newf(pgerror.UndefinedFunction, "function %s(integer, integer, cstring, internal, integer, boolean) does not exist", strings.Join(fn, "."))
	}
	if !slices.Contains(builtinConversionPairs().pairs[proc], [2]int{from, to}) {
		return pgerror.Unsupported("a conversion function for encodings its built-in conversions do not convert")
	}
	name := names[len(names)-1]
	if d.conversionIn(schema, name) != nil || schema == "pg_catalog" && builtinConversionPairs().names[name] {
		return pgerror.Newf(pgerror.DuplicateObject, "conversion \"%s\" already exists", name)
	}
	c := &conversionDesc{oid: d.cat.newOID(), owner: d.s.currentRole(), schema: schema, name: name, from: from, to: to, proc: proc, procName: fname}
	putEntry(&d.cat.conversions, c.oid, c)
	return nil
}

// userRoutineNamed reports whether a user's function has the name in
// some schema.
func (s *Session) userRoutineNamed(c *catalog, name string) bool {
	for _, sc := range c.schemas {
		if len(sc.funcs[name]) > 0 {
			return true
		}
	}
	return false
}

// conversionIn is the user's conversion of the schema with the name, nil
// for none.
func (d *ddl) conversionIn(schema, name string) *conversionDesc {
	for _, c := range d.cat.conversions {
		if c.schema == schema && c.name == name {
			return c
		}
	}
	return nil
}

// findConversion is get_conversion_oid: the conversion a possibly
// qualified name names, on the search path without the temporary schema;
// builtin true for one of pg_catalog's. With missingOK a missing one is
// nil and no error.
func (d *ddl) findConversion(names []string, missingOK bool) (c *conversionDesc, builtin bool, err error) {
	switch len(names) {
	case 1, 2:
	case 3:
		return nil, false, pgerror.Newf(pgerror.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(names, "."))
	default:
		return nil, false, pgerror.Newf(pgerror.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, "."))
	}
	name := names[len(names)-1]
	if len(names) == 2 {
		if schema := d.s.schemaAlias(names[0]); d.cat.schemas[schema] == nil && schema != "pg_catalog" && schema != "information_schema" {
			if missingOK {
				return nil, false, nil
			}
			return nil, false, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[0])
		}
	}
	for _, schema := range d.s.lookupSchemas(names) {
		if schema == "pg_catalog" && builtinConversionPairs().names[name] {
			return nil, true, nil
		}
		if c := d.conversionIn(schema, name); c != nil {
			return c, false, nil
		}
	}
	if missingOK {
		return nil, false, nil
	}
	return nil, false, pgerror.Newf(pgerror.UndefinedObject, "conversion \"%s\" does not exist", strings.Join(names, "."))
}

// alterConversion runs fn on the user's conversion names names, after the
// owner check; a built-in conversion is not changed.
func (d *ddl) alterConversion(names []string, fn func(c *conversionDesc) error) error {
	c, builtin, err := d.findConversion(names, false)
	if err != nil {
		return err
	}
	if builtin {
		return pgerror.Unsupported(d.tag + " of a built-in conversion")
	}
	if err := d.s.requireOwner(c.owner, "conversion", strings.Join(names, ".")); err != nil {
		return err
	}
	return fn(c)
}

// moveConversion gives c a name in a schema (RENAME, SET SCHEMA).
func (d *ddl) moveConversion(c *conversionDesc, schema, name string) error {
	if other := d.conversionIn(schema, name); other != nil && other.oid != c.oid {
		return pgerror.Newf(pgerror.DuplicateObject, "conversion \"%s\" already exists in schema \"%s\"", name, schema)
	}
	next := *c
	next.schema, next.name = schema, name
	putEntry(&d.cat.conversions, next.oid, &next)
	return nil
}

// setConversionSchema runs ALTER CONVERSION ... SET SCHEMA with
// AlterObjectNamespace's checks.
func (d *ddl) setConversionSchema(c *conversionDesc, schema string) error {
	if same, err := d.objectSchemaMove(c.schema, schema); same || err != nil {
		return err
	}
	return d.moveConversion(c, schema, c.name)
}

// alterConversionOwner runs ALTER CONVERSION ... OWNER TO with
// AlterObjectOwner's checks.
func (d *ddl) alterConversionOwner(ao *pg_query.AlterOwnerStmt) error {
	names := strs(ao.Object.GetList().GetItems())
	c, builtin, err := d.findConversion(names, false)
	if err != nil {
		return err
	}
	if builtin {
		return pgerror.Unsupported("ALTER CONVERSION ... OWNER TO of a built-in conversion")
	}
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	if r.oid == c.owner {
		return nil
	}
	err = d.mayGiveInSchema(r, func() error {
		return d.s.requireOwner(c.owner, "conversion", strings.Join(names, "."))
	}, c.schema)
	if err != nil {
		return err
	}
	d.giveConversion(c.oid, r.oid)
	return nil
}

// giveConversion makes role the owner of the user's conversion with the
// OID.
func (d *ddl) giveConversion(oid, role uint32) {
	if c := d.cat.conversions[oid]; c != nil {
		next := *c
		next.owner = role
		putEntry(&d.cat.conversions, oid, &next)
	}
}

// dropConversions runs DROP CONVERSION: nothing depends on a conversion.
func (d *ddl) dropConversions(ds *pg_query.DropStmt) error {
	var drop []uint32
	for _, o := range ds.Objects {
		names := strs(o.GetList().GetItems())
		c, builtin, err := d.findConversion(names, ds.MissingOk)
		if err != nil {
			return err
		}
		if builtin {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop conversion %s because it is required by the database system", names[len(names)-1])
		}
		if c == nil {
			if len(names) == 2 && d.cat.schemas[d.s.schemaAlias(names[0])] == nil {
				d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", names[0])
			} else {
				d.notice(pgerror.SuccessfulCompletion, "conversion \"%s\" does not exist, skipping", strings.Join(names, "."))
			}
			continue
		}
		if err := d.s.requireOwner(c.owner, "conversion", strings.Join(names, ".")); err != nil {
			return err
		}
		drop = append(drop, c.oid)
	}
	for _, oid := range drop {
		d.dropConversion(oid)
	}
	return nil
}

// dropConversion removes the user's conversion with the OID and its
// comment.
func (d *ddl) dropConversion(oid uint32) {
	delete(d.cat.conversions, oid)
	d.cat.dropComments(oid)
}

// conversionsWhere lists the users' conversions keep picks, as objects DROP
// OWNED, REASSIGN OWNED, DROP ROLE and DROP SCHEMA act on.
func conversionsWhere(c *catalog, keep func(*conversionDesc) bool) []ownedObject {
	var out []ownedObject
	for _, conv := range c.conversions {
		if keep(conv) {
			out = append(out, ownedObject{oid: conv.oid, kind: pg_query.ObjectType_OBJECT_CONVERSION, schema: conv.schema, name: conv.name})
		}
	}
	return out
}

// userConversionRows are pg_conversion's rows of the users' conversions.
func userConversionRows(c *catalog) [][]any {
	var out [][]any
	for _, conv := range c.conversions {
		out = append(out, []any{int64(conv.oid), conv.name, schemaOID(c, conv.schema), int64(conv.owner), int64(conv.from), int64(conv.to),
			int64(conv.proc), false})
	}
	return out
}

// describeConversion is pg_describe_object of a user's conversion: its
// name, qualified unless it is the first of its name on the search path.
func (s *Session) describeConversion(c *catalog, oid uint32) (string, bool) {
	conv := c.conversions[oid]
	if conv == nil {
		return "", false
	}
	d := &ddl{s: s, cat: c}
	visible := false
	for _, schema := range s.lookupSchemas([]string{conv.name}) {
		if schema == "pg_catalog" && builtinConversionPairs().names[conv.name] {
			break
		}
		if o := d.conversionIn(schema, conv.name); o != nil {
			visible = o.oid == oid
			break
		}
	}
	name := types.QuoteIdent(conv.name)
	if !visible {
		name = types.QuoteIdent(conv.schema) + "." + name
	}
	return "conversion " + name, true
}
