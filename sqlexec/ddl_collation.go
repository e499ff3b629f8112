package sqlexec

import (
	"regexp"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Users' collations (CREATE, ALTER, DROP and COMMENT ON COLLATION) as
// PostgreSQL 15's collationcmds.c keeps them in pg_collation. fickle
// compares text bytewise, which is what the libc locales C and POSIX do,
// so only collations of those locales are made (from "C", "POSIX",
// ucs_basic or another such user collation, or with LOCALE, LC_COLLATE and
// LC_CTYPE C or POSIX); other locales and ICU are refused. A user's
// collation is a catalog object only: naming it in COLLATE stays refused.

// oidPgCollation is pg_collation's OID, the class of the collations'
// comments and descriptions.
const oidPgCollation = 3456

// encodingUTF8 is pg_collation.collencoding of a collation made for the
// database's encoding (fickle's databases are UTF8).
const encodingUTF8 = 6

// collationDesc is a user's collation: a libc one of the C or POSIX
// locale, for any encoding (-1, copied from "C" or "POSIX") or UTF8's.
type collationDesc struct {
	oid, owner     uint32
	schema, name   string
	encoding       int32
	collate, ctype string
	version        string
	hasVersion     bool
}

// builtinCollation is a collation of pg_catalog a user's may be made from.
type builtinCollation struct {
	oid            uint32
	encoding       int32
	collate, ctype string
	provider       byte
}

// builtinCollations are pg_catalog's collations of fickle's pg_collation
// and ucs_basic, by name.
var builtinCollations = map[string]builtinCollation{
	"default":   {oid: oidDefaultCollation, encoding: -1, provider: 'd'},
	"C":         {oid: oidCCollation, encoding: -1, collate: "C", ctype: "C", provider: 'c'},
	"POSIX":     {oid: oidPOSIXCollation, encoding: -1, collate: "POSIX", ctype: "POSIX", provider: 'c'},
	"ucs_basic": {oid: 12340, encoding: encodingUTF8, collate: "C", ctype: "C", provider: 'c'},
}

// collationDDL runs the statements on collations: done false for a
// statement of another kind.
func (d *ddl) collationDDL(n *pg_query.Node) (bool, error) {
	coll := pg_query.ObjectType_OBJECT_COLLATION
	switch v := n.Node.(type) {
	case *pg_query.Node_DefineStmt:
		if v.DefineStmt.Kind == coll {
			return true, d.createCollation(v.DefineStmt)
		}
	case *pg_query.Node_AlterCollationStmt:
		return true, d.refreshCollationVersion(strs(v.AlterCollationStmt.Collname))
	case *pg_query.Node_DropStmt:
		if v.DropStmt.RemoveType == coll {
			return true, d.dropCollations(v.DropStmt)
		}
	case *pg_query.Node_RenameStmt:
		if rs := v.RenameStmt; rs.RenameType == coll {
			return true, d.alterCollationObject(strs(rs.Object.GetList().GetItems()), func(c *collationDesc) error {
				if err := d.requireSchemaCreate(c.schema); err != nil {
					return err
				}
				return d.moveCollation(c, c.schema, rs.Newname)
			})
		}
	case *pg_query.Node_AlterObjectSchemaStmt:
		if as := v.AlterObjectSchemaStmt; as.ObjectType == coll {
			return true, d.alterCollationObject(strs(as.Object.GetList().GetItems()), func(c *collationDesc) error {
				return d.setCollationSchema(c, as.Newschema)
			})
		}
	case *pg_query.Node_AlterOwnerStmt:
		if ao := v.AlterOwnerStmt; ao.ObjectType == coll {
			return true, d.alterCollationOwner(ao)
		}
	case *pg_query.Node_CommentStmt:
		if cs := v.CommentStmt; cs.Objtype == coll {
			return true, d.alterCollationObject(strs(cs.Object.GetList().GetItems()), func(c *collationDesc) error {
				d.cat.setComment(commentKey{classOID: oidPgCollation, objOID: c.oid}, cs.Comment)
				return nil
			})
		}
	}
	return false, nil
}

// createCollation runs CREATE COLLATION as DefineCollation and
// CollationCreate do, for the locales fickle compares as PostgreSQL does.
func (d *ddl) createCollation(ds *pg_query.DefineStmt) error {
	names := strs(ds.Defnames)
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	opts := map[string]*pg_query.DefElem{}
	for _, n := range ds.Definition {
		de := n.GetDefElem()
		switch de.Defname {
		case "from", "locale", "lc_collate", "lc_ctype", "provider", "deterministic", "version":
		default:
			return pgerror.Newf(pgerror.SyntaxError, "collation attribute \"%s\" not recognized", de.Defname).WithPosition(int(de.Location) + 1)
		}
		if opts[de.Defname] != nil {
			return d.conflictingOption(de)
		}
		opts[de.Defname] = de
	}
	if opts["locale"] != nil && (opts["lc_collate"] != nil || opts["lc_ctype"] != nil) {
		return pgerror.New(pgerror.SyntaxError, "conflicting or redundant options").WithDetail("LOCALE cannot be specified together with LC_COLLATE or LC_CTYPE.")
	}
	c := &collationDesc{schema: schema, name: names[len(names)-1], owner: d.s.currentRole(), encoding: encodingUTF8}
	if from := opts["from"]; from != nil {
		if len(ds.Definition) != 1 {
			return pgerror.New(pgerror.SyntaxError, "conflicting or redundant options").WithDetail("FROM cannot be specified together with any other options.")
		}
		src, err := d.findCollation(defQualifiedName(from.Arg), false)
		if err != nil {
			return err
		}
		switch {
		case src.builtin.provider == 'd':
			return pgerror.New(pgerror.InvalidObjectDefinition, "collation \"default\" cannot be copied")
		case src.user != nil:
			c.encoding, c.collate, c.ctype = src.user.encoding, src.user.collate, src.user.ctype
		default:
			c.encoding, c.collate, c.ctype = src.builtin.encoding, src.builtin.collate, src.builtin.ctype
		}
	} else {
		provider := "libc"
		if p := opts["provider"]; p != nil {
			provider = strings.ToLower(defElemString(p))
		}
		switch provider {
		case "libc":
		case "icu":
			return pgerror.Unsupported("ICU collations")
		default:
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "unrecognized collation provider: %s", defElemString(opts["provider"]))
		}
		if l := opts["locale"]; l != nil {
			c.collate, c.ctype = defElemString(l), defElemString(l)
		}
		if l := opts["lc_collate"]; l != nil {
			c.collate = defElemString(l)
		}
		if l := opts["lc_ctype"]; l != nil {
			c.ctype = defElemString(l)
		}
		switch {
		case opts["locale"] == nil && opts["lc_collate"] == nil:
			return pgerror.New(pgerror.InvalidObjectDefinition, "parameter \"lc_collate\" must be specified")
		case opts["locale"] == nil && opts["lc_ctype"] == nil:
			return pgerror.New(pgerror.InvalidObjectDefinition, "parameter \"lc_ctype\" must be specified")
		}
		if de := opts["deterministic"]; de != nil {
			on, err := defBoolean(de)
			if err != nil {
				return err
			}
			if !on {
				return pgerror.New(pgerror.FeatureNotSupported, "nondeterministic collations not supported with this provider")
			}
		}
		for _, l := range []string{c.collate, c.ctype} {
			if l != "C" && l != "POSIX" {
				return pgerror.Unsupported("collations of locale \"" + l + "\"")
			}
		}
	}
	if v := opts["version"]; v != nil {
		c.version, c.hasVersion = defElemString(v), true
	}
	if err := d.collationNameFree(c, ds.IfNotExists); err != nil || d.collationIn(c.schema, c.name) != nil {
		return err
	}
	c.oid = d.cat.newOID()
	putEntry(&d.cat.collations, c.oid, c)
	return nil
}

// collationNameFree is CollationCreate's check that no collation of c's
// schema has its name: with ifNotExists a notice (and nil) instead of the
// error; the caller then makes nothing.
func (d *ddl) collationNameFree(c *collationDesc, ifNotExists bool) error {
	other := d.collationIn(c.schema, c.name)
	if other == nil {
		return nil
	}
	msg := "collation \"" + c.name + "\" already exists"
	if other.encoding == c.encoding && c.encoding != -1 {
		msg = "collation \"" + c.name + "\" for encoding \"UTF8\" already exists"
	}
	if ifNotExists {
		d.notice(pgerror.DuplicateObject, "%s, skipping", msg)
		return nil
	}
	return pgerror.New(pgerror.DuplicateObject, msg)
}

// collationIn is the user's collation of the schema with the name, nil for
// none.
func (d *ddl) collationIn(schema, name string) *collationDesc { return d.cat.collationIn(schema, name) }

// collationIn is the user's collation of the schema with the name, nil for
// none.
func (cat *catalog) collationIn(schema, name string) *collationDesc {
	for _, c := range cat.collations {
		if c.schema == schema && c.name == name {
			return c
		}
	}
	return nil
}

// foundCollation is a collation a name found: a user's or a built-in one.
type foundCollation struct {
	user    *collationDesc
	builtin builtinCollation
	name    string
}

// findCollation is get_collation_oid: the collation a possibly qualified
// name names, on the search path without the temporary schema. A
// collation of pg_catalog fickle does not list is refused (0A000): it
// may exist in PostgreSQL. With missingOK a missing one is nil.
func (d *ddl) findCollation(names []string, missingOK bool) (*foundCollation, error) {
	switch len(names) {
	case 1, 2:
	case 3:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(names, "."))
	default:
		return nil, pgerror.Newf(pgerror.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, "."))
	}
	name := names[len(names)-1]
	if len(names) == 2 {
		if schema := d.s.schemaAlias(names[0]); d.cat.schemas[schema] == nil && schema != "pg_catalog" && schema != "information_schema" {
			if missingOK {
				return nil, nil
			}
			return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[0])
		}
	}
	for _, schema := range d.s.lookupSchemas(names) {
		if schema == "pg_catalog" {
			if b, ok := builtinCollations[name]; ok {
				return &foundCollation{builtin: b, name: name}, nil
			}
			continue
		}
		if c := d.collationIn(schema, name); c != nil {
			return &foundCollation{user: c, name: name}, nil
		}
	}
	if (len(names) == 1 || names[0] == "pg_catalog") && systemLocaleName.MatchString(name) {
		// initdb imports the operating system's locales into pg_catalog:
		// which exist depends on the system, so fickle cannot say.
		return nil, pgerror.Unsupported("collation " + name)
	}
	if missingOK {
		return nil, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedObject, "collation \"%s\" for encoding \"UTF8\" does not exist", strings.Join(names, "."))
}

// systemLocaleName matches the names initdb gives the collations it
// imports: libc locales (en_US, en_US.utf8, de_DE@euro, C.utf8) and ICU's
// (und-x-icu, de-AT-x-icu).
var systemLocaleName = regexp.MustCompile(`^[a-z]{2,3}_[A-Z]{2}(\.[A-Za-z0-9-]+)?(@[a-z]+)?$|^C\.[A-Za-z0-9-]+$|-x-icu$`)

// alterCollationObject runs fn on the user's collation names names, after
// the owner check. A built-in collation, the bootstrap superuser's, is
// not changed.
func (d *ddl) alterCollationObject(names []string, fn func(c *collationDesc) error) error {
	found, err := d.findCollation(names, false)
	if err != nil {
		return err
	}
	owner := uint32(oidBootstrapSuperuser)
	if found.user != nil {
		owner = found.user.owner
	}
	if err := d.s.requireOwner(owner, "collation", strings.Join(names, ".")); err != nil {
		return err
	}
	if found.user == nil {
		return pgerror.Unsupported(d.tag + " of a built-in collation")
	}
	return fn(found.user)
}

// refreshCollationVersion runs ALTER COLLATION ... REFRESH VERSION: the C
// and POSIX locales have no version, which never changes.
func (d *ddl) refreshCollationVersion(names []string) error {
	found, err := d.findCollation(names, false)
	if err != nil {
		return err
	}
	owner := uint32(oidBootstrapSuperuser)
	if found.user != nil {
		owner = found.user.owner
		if found.user.hasVersion {
			return pgerror.Unsupported("ALTER COLLATION ... REFRESH VERSION of a collation given a VERSION")
		}
	}
	if err := d.s.requireOwner(owner, "collation", strings.Join(names, ".")); err != nil {
		return err
	}
	if found.builtin.provider == 'd' {
		return pgerror.Unsupported("ALTER COLLATION ... REFRESH VERSION of the default collation")
	}
	d.notice(pgerror.SuccessfulCompletion, "version has not changed")
	return nil
}

// moveCollation gives c a name in a schema (RENAME, SET SCHEMA), refusing
// one a collation there has (IsThereCollationInNamespace).
func (d *ddl) moveCollation(c *collationDesc, schema, name string) error {
	if other := d.collationIn(schema, name); other != nil && other.oid != c.oid {
		if other.encoding == encodingUTF8 {
			return pgerror.Newf(pgerror.DuplicateObject, "collation \"%s\" for encoding \"UTF8\" already exists in schema \"%s\"", name, schema)
		}
		return pgerror.Newf(pgerror.DuplicateObject, "collation \"%s\" already exists in schema \"%s\"", name, schema)
	}
	next := *c
	next.schema, next.name = schema, name
	putEntry(&d.cat.collations, next.oid, &next)
	return nil
}

// setCollationSchema runs ALTER COLLATION ... SET SCHEMA with
// AlterObjectNamespace's checks.
func (d *ddl) setCollationSchema(c *collationDesc, schema string) error {
	if same, err := d.objectSchemaMove(c.schema, schema); same || err != nil {
		return err
	}
	return d.moveCollation(c, schema, c.name)
}

// alterCollationOwner runs ALTER COLLATION ... OWNER TO with
// AlterObjectOwner's checks.
func (d *ddl) alterCollationOwner(ao *pg_query.AlterOwnerStmt) error {
	names := strs(ao.Object.GetList().GetItems())
	found, err := d.findCollation(names, false)
	if err != nil {
		return err
	}
	if found.user == nil {
		return pgerror.Unsupported("ALTER COLLATION ... OWNER TO of a built-in collation")
	}
	c := found.user
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	if r.oid == c.owner {
		return nil
	}
	err = d.mayGiveInSchema(r, func() error {
		return d.s.requireOwner(c.owner, "collation", strings.Join(names, "."))
	}, c.schema)
	if err != nil {
		return err
	}
	next := *c
	next.owner = r.oid
	putEntry(&d.cat.collations, next.oid, &next)
	return nil
}

// dropCollations runs DROP COLLATION: no column or expression can use a
// user's collation in fickle, so nothing depends on one.
func (d *ddl) dropCollations(ds *pg_query.DropStmt) error {
	var drop []*collationDesc
	for _, o := range ds.Objects {
		names := strs(o.GetList().GetItems())
		found, err := d.findCollation(names, ds.MissingOk)
		if err != nil {
			return err
		}
		if found == nil {
			if len(names) == 2 && d.cat.schemas[d.s.schemaAlias(names[0])] == nil {
				d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", names[0])
			} else {
				d.notice(pgerror.SuccessfulCompletion, "collation \"%s\" does not exist, skipping", strings.Join(names, "."))
			}
			continue
		}
		if found.user == nil {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop collation %s because it is required by the database system", types.QuoteIdent(found.name))
		}
		if err := d.s.requireOwner(found.user.owner, "collation", strings.Join(names, ".")); err != nil {
			return err
		}
		drop = append(drop, found.user)
	}
	for _, c := range drop {
		d.dropCollation(c.oid)
	}
	return nil
}

// dropCollation removes the user's collation with the OID and its comment.
func (d *ddl) dropCollation(oid uint32) {
	delete(d.cat.collations, oid)
	d.cat.dropComments(oid)
}

// collationsWhere lists the users' collations keep picks, as objects DROP
// OWNED, REASSIGN OWNED, DROP ROLE and DROP SCHEMA act on.
func collationsWhere(c *catalog, keep func(*collationDesc) bool) []ownedObject {
	var out []ownedObject
	for _, coll := range c.collations {
		if keep(coll) {
			out = append(out, ownedObject{oid: coll.oid, kind: pg_query.ObjectType_OBJECT_COLLATION, schema: coll.schema, name: coll.name})
		}
	}
	return out
}

// giveCollation makes role the owner of the user's collation with the OID
// (REASSIGN OWNED).
func (d *ddl) giveCollation(oid, role uint32) {
	if c := d.cat.collations[oid]; c != nil {
		next := *c
		next.owner = role
		putEntry(&d.cat.collations, oid, &next)
	}
}

// userCollationRows are pg_collation's rows of the users' collations.
func userCollationRows(c *catalog) [][]any {
	var out [][]any
	for _, coll := range c.collations {
		var version any
		if coll.hasVersion {
			version = coll.version
		}
		out = append(out, []any{int64(coll.oid), coll.name, schemaOID(c, coll.schema), int64(coll.owner), "c", true, int64(coll.encoding),
			coll.collate, coll.ctype, nil, version})
	}
	return out
}

// describeCollation is pg_describe_object of a user's collation: its name,
// qualified unless it is the first of its name on the search path.
func (s *Session) describeCollation(c *catalog, oid uint32) (string, bool) {
	coll := c.collations[oid]
	if coll == nil {
		return "", false
	}
	visible := false
	for _, schema := range s.lookupSchemas([]string{coll.name}) {
		if _, ok := builtinCollations[coll.name]; ok && schema == "pg_catalog" {
			break
		}
		if o := c.collationIn(schema, coll.name); o != nil {
			visible = o.oid == oid
			break
		}
	}
	name := types.QuoteIdent(coll.name)
	if !visible {
		name = types.QuoteIdent(coll.schema) + "." + name
	}
	return "collation " + name, true
}

// hasCollationsIn reports whether a user's collation is in the schema.
func (cat *catalog) hasCollationsIn(schema string) bool {
	return len(collationsWhere(cat, func(c *collationDesc) bool { return c.schema == schema })) > 0
}
