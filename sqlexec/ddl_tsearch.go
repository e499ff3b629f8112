package sqlexec

import (
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/tsearch"
)

// Text search DDL, as PostgreSQL 15's tsearchcmds.c runs it: CREATE,
// ALTER (mappings, dictionary options), DROP, RENAME, OWNER TO, SET
// SCHEMA and COMMENT ON of text search configurations and dictionaries.
// A user's configuration (tsConfigDesc) maps each token type of the
// default parser to dictionaries by OID: built-in ones, an extension's
// (unaccent) or a user's (tsUserDict), whose templates package tsearch
// runs (simple, synonym, snowball, thesaurus, unaccent; ispell is
// refused). Both live in the transactional catalog; a dictionary a
// configuration maps, and a configuration a stored expression names, need
// CASCADE to drop (ddl_tsearch_deps.go). The built-in objects are pgdata's and cannot be changed
// here: dropping or altering them is refused. CREATE TEXT SEARCH PARSER
// and TEMPLATE need C functions, which fickle does not run.

// TextSearchDataDirEnv names the environment variable that says where
// the files of text search dictionaries are (PostgreSQL's
// $SHAREDIR/tsearch_data).
const TextSearchDataDirEnv = tsearch.DataDirEnv

// SetTextSearchDataDir makes dir the directory CREATE TEXT SEARCH
// DICTIONARY reads stop-word, synonym and rules files from (fickle serve
// --tsearch-data); "" restores the default: $FICKLE_TSEARCH_DATA, else
// the tsearch_data of PostgreSQL's share directory.
func SetTextSearchDataDir(dir string) { tsearch.SetDataDir(dir) }

// tsConfigDesc is a user's text search configuration (pg_ts_config) and
// its mapping (pg_ts_config_map): per token type, the dictionaries' OIDs
// in mapseqno order.
type tsConfigDesc struct {
	oid, owner, parser uint32
	schema, name       string
	maps               [tsearch.LastTokenType + 1][]uint32
}

// tsUserDict is a user's text search dictionary (pg_ts_dict): its
// template's OID and name, its options and the dictionary they made.
type tsUserDict struct {
	oid, owner, template uint32
	schema, name         string
	templateName         string
	options              []tsearch.Option
	dict                 *tsearch.Dictionary
}

// The catalogs of text search objects, for pg_description and pg_depend.
const (
	oidPgTsConfigClass = 3602
	oidPgTsParserClass = 3601
)

// tsNames of a DefineStmt option, a DROP's object or an ALTER's name.
func tsNodeNames(n *pg_query.Node) []string {
	if l := n.GetList(); l != nil {
		return strs(l.Items)
	}
	if s := n.GetString_(); s != nil {
		return []string{s.Sval}
	}
	return defQualifiedName(n)
}

// textSearchDDL runs the text search statements: done false for a
// statement of another kind.
func (d *ddl) textSearchDDL(n *pg_query.Node) (bool, error) {
	switch v := n.Node.(type) {
	case *pg_query.Node_DefineStmt:
		switch v.DefineStmt.Kind {
		case pg_query.ObjectType_OBJECT_TSCONFIGURATION:
			return true, d.createTSConfig(v.DefineStmt)
		case pg_query.ObjectType_OBJECT_TSDICTIONARY:
			return true, d.createTSDict(v.DefineStmt)
		case pg_query.ObjectType_OBJECT_TSPARSER, pg_query.ObjectType_OBJECT_TSTEMPLATE:
			return true, pgerror.Unsupported(ddlTag(n) + " (its functions are C functions)")
		}
	case *pg_query.Node_AlterTsconfigurationStmt:
		return true, d.alterTSConfig(v.AlterTsconfigurationStmt)
	case *pg_query.Node_AlterTsdictionaryStmt:
		return true, d.alterTSDict(v.AlterTsdictionaryStmt)
	case *pg_query.Node_DropStmt:
		if kind, ok := tsObjectKind(v.DropStmt.RemoveType); ok {
			return true, d.dropTSObjects(v.DropStmt, kind)
		}
	case *pg_query.Node_RenameStmt:
		if kind, ok := tsObjectKind(v.RenameStmt.RenameType); ok {
			return true, d.alterTSObject(kind, v.RenameStmt.Object, false, func(o *tsObject) error {
				return d.moveTSObject(o, o.schema, v.RenameStmt.Newname)
			})
		}
	case *pg_query.Node_AlterObjectSchemaStmt:
		if kind, ok := tsObjectKind(v.AlterObjectSchemaStmt.ObjectType); ok {
			st := v.AlterObjectSchemaStmt
			return true, d.alterTSObject(kind, st.Object, st.MissingOk, func(o *tsObject) error {
				return d.setTSObjectSchema(o, st.Newschema)
			})
		}
	case *pg_query.Node_AlterOwnerStmt:
		if kind, ok := tsObjectKind(v.AlterOwnerStmt.ObjectType); ok {
			return true, d.alterTSObjectOwner(kind, v.AlterOwnerStmt)
		}
	case *pg_query.Node_CommentStmt:
		if kind, ok := tsObjectKind(v.CommentStmt.Objtype); ok {
			cs := v.CommentStmt
			return true, d.alterTSObject(kind, cs.Object, false, func(o *tsObject) error {
				class := uint32(oidPgTsDictClass)
				if o.cfg != nil {
					class = oidPgTsConfigClass
				}
				d.cat.setComment(commentKey{classOID: class, objOID: o.oid}, cs.Comment)
				return nil
			})
		}
	}
	return false, nil
}

// tsObjectKind is the kind of a configuration or dictionary statement's
// object; ok false for other objects (parsers and templates, which no
// statement fickle runs creates, included).
func tsObjectKind(t pg_query.ObjectType) (tsKind, bool) {
	switch t {
	case pg_query.ObjectType_OBJECT_TSCONFIGURATION:
		return tsConfigKind, true
	case pg_query.ObjectType_OBJECT_TSDICTIONARY:
		return tsDictKind, true
	}
	return tsKind{}, false
}

// tsOption reads a dictionary option (a DefElem) as its template's init
// function sees it.
func tsOption(de *pg_query.DefElem) tsearch.Option {
	o := tsearch.Option{Name: de.Defname}
	a := de.Arg
	switch {
	case a == nil:
		o.NoValue = true
	case a.GetInteger() != nil:
		o.Value, o.Kind = strconv.Itoa(int(a.GetInteger().Ival)), tsearch.OptionInteger
	case a.GetFloat() != nil:
		o.Value, o.Kind = a.GetFloat().Fval, tsearch.OptionFloat
	case a.GetBoolean() != nil:
		o.Value = strconv.FormatBool(a.GetBoolean().Boolval)
	case a.GetString_() != nil:
		o.Value = a.GetString_().Sval
	default:
		o.Value = strings.Join(defQualifiedName(a), ".")
	}
	return o
}

// duplicateTSName is the unique index's error of a second object of one
// name in a schema.
func duplicateTSName(table, index, col, name string, schemaOID int64) error {
	return pgerror.Newf(pgerror.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", index).
		WithDetail("Key (%s, %snamespace)=(%s, %d) already exists.", col, strings.TrimSuffix(col, "name"), name, schemaOID).
		WithConstraint(table, index)
}

// createTSConfig runs CREATE TEXT SEARCH CONFIGURATION (PARSER = ... |
// COPY = ...): DefineTSConfiguration.
func (d *ddl) createTSConfig(ds *pg_query.DefineStmt) error {
	names := strs(ds.Defnames)
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	var parser, source uint32
	for _, n := range ds.Definition {
		de := n.GetDefElem()
		switch de.Defname {
		case "parser":
			if parser, err = d.s.lookupTS(d.cat, tsParserKind, tsNodeNames(de.Arg), false); err != nil {
				return err
			}
		case "copy":
			if source, err = d.s.lookupTS(d.cat, tsConfigKind, tsNodeNames(de.Arg), false); err != nil {
				return err
			}
		default:
			return pgerror.Newf(pgerror.SyntaxError, "text search configuration parameter \"%s\" not recognized", de.Defname)
		}
	}
	if parser != 0 && source != 0 {
		return pgerror.New(pgerror.SyntaxError, "cannot specify both PARSER and COPY options")
	}
	cfg := &tsConfigDesc{schema: schema, name: names[len(names)-1], owner: d.s.currentRole(), parser: parser}
	if source != 0 {
		cfg.parser = tsearch.ParserOID
		if src := d.cat.tsConfigs[source]; src != nil {
			cfg.parser, cfg.maps = src.parser, src.maps
		} else if m := builtinTSConfigMaps()[source]; m != nil {
			cfg.maps = *m
		}
		for t := range cfg.maps {
			cfg.maps[t] = slices.Clone(cfg.maps[t])
		}
	}
	if cfg.parser == 0 {
		return pgerror.New(pgerror.InvalidObjectDefinition, "text search parser is required")
	}
	if tsConfigKind.other(d.cat, schema, cfg.name) != 0 {
		return duplicateTSName("pg_ts_config", "pg_ts_config_cfgname_index", "cfgname", cfg.name, schemaOID(d.cat, schema))
	}
	cfg.oid = d.cat.newOID()
	d.cat.putTSConfig(cfg)
	return nil
}

// createTSDict runs CREATE TEXT SEARCH DICTIONARY: DefineTSDictionary,
// its template's init function checking the options (and reading the
// files they name) before the dictionary is made.
func (d *ddl) createTSDict(ds *pg_query.DefineStmt) error {
	names := strs(ds.Defnames)
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	var template uint32
	var opts []tsearch.Option
	for _, n := range ds.Definition {
		de := n.GetDefElem()
		if de.Defname != "template" {
			opts = append(opts, tsOption(de))
			continue
		}
		if de.Arg == nil {
			return pgerror.New(pgerror.SyntaxError, "template requires a parameter")
		}
		if template, err = d.s.lookupTS(d.cat, tsTemplateKind, tsNodeNames(de.Arg), false); err != nil {
			return err
		}
	}
	if template == 0 {
		return pgerror.New(pgerror.InvalidObjectDefinition, "text search template is required")
	}
	ud := &tsUserDict{schema: schema, name: names[len(names)-1], owner: d.s.currentRole(), template: template,
		templateName: tsTemplateName(d.cat, template), options: opts}
	if err := d.initTSDict(ud); err != nil {
		return err
	}
	if tsDictKind.other(d.cat, schema, ud.name) != 0 {
		return duplicateTSName("pg_ts_dict", "pg_ts_dict_dictname_index", "dictname", ud.name, schemaOID(d.cat, schema))
	}
	ud.oid = d.cat.newOID()
	ud.dict.OID = ud.oid
	d.cat.putTSDict(ud)
	return nil
}

// initTSDict runs ud's template's init function on its options and
// keeps the dictionary it makes, with pg_ts_dict.dictinitoption.
func (d *ddl) initTSDict(ud *tsUserDict) error {
	dict, err := tsearch.NewDictionary(ud.templateName, ud.name, ud.oid, ud.options, func(name string) (*tsearch.Dictionary, error) {
		parts, err := (catalogNames{s: d.s, cat: d.cat}).qualifiedName(name, "qualified")
		if err != nil {
			return nil, err
		}
		oid, err := d.s.lookupTS(d.cat, tsDictKind, parts, false)
		if err != nil {
			return nil, err
		}
		return tsDictionaryIn(d.cat, int64(oid))
	})
	if err != nil {
		return err
	}
	if dict.InitOption, err = tsearch.SerializeOptions(ud.options); err != nil {
		return err
	}
	ud.dict = dict
	return nil
}

// tsObject is a user's configuration or dictionary a statement names.
type tsObject struct {
	oid          uint32
	schema, name string
	owner        uint32
	cfg          *tsConfigDesc
	dict         *tsUserDict
	written      string // the name as the statement wrote it
}

func (o *tsObject) noun() string {
	if o.cfg != nil {
		return tsConfigKind.noun
	}
	return tsDictKind.noun
}

// findTSObject resolves names to a user's object of kind: nil without
// error under missingOK when there is none (after a notice); a built-in
// object or an extension's is refused, as action (DROP: as PostgreSQL
// refuses dropping a pinned one or an extension's member).
func (d *ddl) findTSObject(kind tsKind, names []string, missingOK bool, action string) (*tsObject, error) {
	oid, err := d.s.lookupTS(d.cat, kind, names, missingOK)
	if err != nil {
		return nil, err
	}
	written := strings.Join(names, ".")
	if oid == 0 {
		if len(names) == 2 && d.cat.schemas[d.s.schemaAlias(names[0])] == nil && names[0] != "pg_catalog" {
			d.notice(pgerror.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", names[0])
		} else {
			d.notice(pgerror.SuccessfulCompletion, "%s \"%s\" does not exist, skipping", kind.noun, written)
		}
		return nil, nil
	}
	if cfg := d.cat.tsConfigs[oid]; cfg != nil && kind.noun == tsConfigKind.noun {
		return &tsObject{oid: oid, schema: cfg.schema, name: cfg.name, owner: cfg.owner, cfg: cfg, written: written}, nil
	}
	if ud := d.cat.tsDicts[oid]; ud != nil && kind.noun == tsDictKind.noun {
		return &tsObject{oid: oid, schema: ud.schema, name: ud.name, owner: ud.owner, dict: ud, written: written}, nil
	}
	if ext := extensionDictionaryByOID(d.cat, int64(oid)); ext != nil && action == "DROP" {
		owner := d.cat.extensionOfDictionary(oid)
		return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s %s because extension %s requires it", kind.noun, ext.def.name, owner).
			WithHint("You can drop extension %s instead.", owner)
	}
	if oid < firstUnpinnedOID && action == "DROP" {
		return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s %s because it is required by the database system", kind.noun, names[len(names)-1])
	}
	return nil, pgerror.Unsupported(action + " of a built-in or an extension's " + kind.noun)
}

// extensionOfDictionary is the name of the extension whose dictionary
// has the OID.
func (c *catalog) extensionOfDictionary(oid uint32) string {
	for _, ext := range c.extensions {
		for _, d := range ext.dictionaries {
			if d.oid == oid {
				return ext.name
			}
		}
	}
	return ""
}

// requireTSOwner is pg_ts_config_ownercheck and pg_ts_dict_ownercheck's
// 42501, naming the object as the statement wrote it.
func (d *ddl) requireTSOwner(o *tsObject) error {
	return d.s.requireOwner(o.owner, o.noun(), o.written)
}

// tokenTypes is getTokenTypes: the default parser's token types the
// names give, each once (PostgreSQL 15.2 and later ignore repeats).
func tokenTypes(names []*pg_query.Node) ([]tsearch.TokenType, []string, error) {
	var out []tsearch.TokenType
	var written []string
	for _, n := range names {
		name := n.GetString_().GetSval()
		t := tsearch.TokenType(0)
		for i := tsearch.TokenType(1); i <= tsearch.LastTokenType; i++ {
			if i.Alias() == name {
				t = i
			}
		}
		if t == 0 {
			return nil, nil, pgerror.Newf(pgerror.InvalidParameterValue, "token type \"%s\" does not exist", name)
		}
		if !slices.Contains(out, t) {
			out, written = append(out, t), append(written, name)
		}
	}
	return out, written, nil
}

// alterTSConfig runs ALTER TEXT SEARCH CONFIGURATION ... ADD, ALTER and
// DROP MAPPING: MakeConfigurationMapping and DropConfigurationMapping.
func (d *ddl) alterTSConfig(st *pg_query.AlterTSConfigurationStmt) error {
	names := strs(st.Cfgname)
	oid, err := d.s.lookupTS(d.cat, tsConfigKind, names, true)
	if err != nil {
		return err
	}
	if oid == 0 {
		return pgerror.Newf(pgerror.UndefinedObject, "text search configuration \"%s\" does not exist", strings.Join(names, "."))
	}
	o, err := d.findTSObject(tsConfigKind, names, false, "ALTER TEXT SEARCH CONFIGURATION")
	if err != nil {
		return err
	}
	if err := d.requireTSOwner(o); err != nil {
		return err
	}
	toks, written, err := tokenTypes(st.Tokentype)
	if err != nil {
		return err
	}
	next := *o.cfg
	for t := range next.maps {
		next.maps[t] = slices.Clone(next.maps[t])
	}
	if st.Kind == pg_query.AlterTSConfigType_ALTER_TSCONFIG_DROP_MAPPING {
		for i, t := range toks {
			if len(next.maps[t]) == 0 {
				if !st.MissingOk {
					return pgerror.Newf(pgerror.UndefinedObject, "mapping for token type \"%s\" does not exist", written[i])
				}
				d.notice(pgerror.SuccessfulCompletion, "mapping for token type \"%s\" does not exist, skipping", written[i])
			}
			next.maps[t] = nil
		}
		d.cat.putTSConfig(&next)
		return nil
	}
	if st.Override {
		for _, t := range toks {
			next.maps[t] = nil
		}
	}
	dicts := make([]uint32, len(st.Dicts))
	for i, n := range st.Dicts {
		if dicts[i], err = d.s.lookupTS(d.cat, tsDictKind, tsNodeNames(n), false); err != nil {
			return err
		}
	}
	if st.Replace {
		for t := range next.maps {
			if toks != nil && !slices.Contains(toks, tsearch.TokenType(t)) {
				continue
			}
			for i, dict := range next.maps[t] {
				if dict == dicts[0] {
					next.maps[t][i] = dicts[1]
				}
			}
		}
		d.cat.putTSConfig(&next)
		return nil
	}
	for _, t := range toks {
		if len(next.maps[t]) > 0 {
			return pgerror.New(pgerror.UniqueViolation, "duplicate key value violates unique constraint \"pg_ts_config_map_index\"").
				WithDetail("Key (mapcfg, maptokentype, mapseqno)=(%d, %d, 1) already exists.", next.oid, t).
				WithConstraint("pg_ts_config_map", "pg_ts_config_map_index")
		}
		next.maps[t] = slices.Clone(dicts)
	}
	d.cat.putTSConfig(&next)
	return nil
}

// alterTSDict runs ALTER TEXT SEARCH DICTIONARY name (option = value,
// ...): AlterTSDictionary, an option without a value removing it, the
// template's init function checking the result.
func (d *ddl) alterTSDict(st *pg_query.AlterTSDictionaryStmt) error {
	o, err := d.findTSObject(tsDictKind, strs(st.Dictname), false, "ALTER TEXT SEARCH DICTIONARY")
	if err != nil {
		return err
	}
	if err := d.requireTSOwner(o); err != nil {
		return err
	}
	next := *o.dict
	next.options = slices.Clone(next.options)
	for _, n := range st.Options {
		de := n.GetDefElem()
		next.options = slices.DeleteFunc(next.options, func(opt tsearch.Option) bool { return opt.Name == de.Defname })
		if de.Arg != nil {
			next.options = append(next.options, tsOption(de))
		}
	}
	if err := d.initTSDict(&next); err != nil {
		return err
	}
	next.dict.OID = next.oid
	d.cat.putTSDict(&next)
	return nil
}

// dropTSObjects runs DROP TEXT SEARCH CONFIGURATION and DICTIONARY: a
// dictionary a configuration maps, and a configuration a stored
// expression names, need CASCADE, which drops them (a generated column
// excepted: fickle cannot drop one so, and refuses).
func (d *ddl) dropTSObjects(ds *pg_query.DropStmt, kind tsKind) error {
	var objs []*tsObject
	dropping := map[uint32]bool{}
	for _, n := range ds.Objects {
		o, err := d.findTSObject(kind, tsNodeNames(n), ds.MissingOk, "DROP")
		if err != nil {
			return err
		}
		if o == nil || dropping[o.oid] {
			continue
		}
		if err := d.requireTSOwner(o); err != nil {
			return err
		}
		objs = append(objs, o)
		dropping[o.oid] = true
	}
	// found lists what depends on the objects, each with the object it
	// depends on, as reportDependentObjects lists them.
	type dependent struct {
		dep routineDependent
		on  string
	}
	var found []dependent
	seen := map[string]bool{}
	add := func(dep routineDependent, on string) {
		if !seen[dep.what] {
			seen[dep.what] = true
			found = append(found, dependent{dep, on})
		}
	}
	for _, o := range objs {
		what := o.noun() + " " + d.s.visibleName(o.schema, o.name)
		if o.cfg != nil {
			for _, dep := range d.configExprDependents(o.oid) {
				add(dep, what)
			}
			continue
		}
		for _, cfg := range d.dictDependents(o.oid, dropping) {
			oid := cfg.oid
			dropping[oid] = true
			add(routineDependent{what: cfg.what, drop: func(d *ddl) { d.dropTSObject(oid) }}, what)
			for _, dep := range d.configExprDependents(oid) {
				add(dep, cfg.what)
			}
		}
	}
	if len(found) > 0 && ds.Behavior != pg_query.DropBehavior_DROP_CASCADE {
		lines := make([]string, len(found))
		for i, f := range found {
			lines[i] = f.dep.what + " depends on " + f.on
		}
		err := pgerror.New(pgerror.DependentObjectsStillExist, "cannot drop desired object(s) because other objects depend on them")
		if len(objs) == 1 {
			err = pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s because other objects depend on it",
				objs[0].noun()+" "+d.s.visibleName(objs[0].schema, objs[0].name))
		}
		return err.WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	lines := make([]string, len(found))
	for i, f := range found {
		if f.dep.drop == nil {
			return pgerror.Unsupported("DROP ... CASCADE of a text search configuration that a generated column's expression uses (" + f.dep.what + ")")
		}
		lines[i] = f.dep.what
	}
	d.cascadeNotice(lines)
	for _, f := range found {
		f.dep.drop(d)
	}
	for _, o := range objs {
		d.dropTSObject(o.oid)
	}
	return nil
}

// dropTSObject removes a user's configuration or dictionary, and its
// comments.
func (d *ddl) dropTSObject(oid uint32) {
	delete(d.cat.tsConfigs, oid)
	delete(d.cat.tsDicts, oid)
	d.cat.dropComments(oid)
}

// alterTSObject runs fn on the user's object of kind names names, after
// PostgreSQL's owner check.
func (d *ddl) alterTSObject(kind tsKind, n *pg_query.Node, missingOK bool, fn func(o *tsObject) error) error {
	o, err := d.findTSObject(kind, tsNodeNames(n), missingOK, "ALTER "+strings.ToUpper(kind.noun))
	if err != nil || o == nil {
		return err
	}
	if err := d.requireTSOwner(o); err != nil {
		return err
	}
	return fn(o)
}

// moveTSObject gives o a name in a schema (RENAME, SET SCHEMA), refusing
// one that another object of its kind has there.
func (d *ddl) moveTSObject(o *tsObject, schema, name string) error {
	kind := tsDictKind
	if o.cfg != nil {
		kind = tsConfigKind
	}
	if other := kind.other(d.cat, schema, name); other != 0 && other != o.oid {
		return pgerror.Newf(pgerror.DuplicateObject, "%s \"%s\" already exists in schema \"%s\"", kind.noun, name, schema)
	}
	if o.cfg != nil {
		// fickle's stored expressions keep a configuration's name, not
		// its OID as PostgreSQL's do: they would lose it.
		if deps := d.configExprDependents(o.oid); len(deps) > 0 {
			return pgerror.Unsupported("renaming or moving a text search configuration that stored expressions name (" + deps[0].what + ")")
		}
		next := *o.cfg
		next.schema, next.name = schema, name
		d.cat.putTSConfig(&next)
		return nil
	}
	next := *o.dict
	next.schema, next.name = schema, name
	d.cat.putTSDict(&next)
	return nil
}

// setTSObjectSchema runs ALTER ... SET SCHEMA: AlterObjectNamespace's
// checks, then the move.
func (d *ddl) setTSObjectSchema(o *tsObject, schema string) error {
	if same, err := d.objectSchemaMove(o.schema, schema); same || err != nil {
		return err
	}
	return d.moveTSObject(o, schema, o.name)
}

// alterTSObjectOwner runs ALTER ... OWNER TO with AlterObjectOwner's
// checks.
func (d *ddl) alterTSObjectOwner(kind tsKind, ao *pg_query.AlterOwnerStmt) error {
	o, err := d.findTSObject(kind, tsNodeNames(ao.Object), false, "ALTER "+strings.ToUpper(kind.noun))
	if err != nil {
		return err
	}
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	if r.oid == o.owner {
		return nil
	}
	err = d.mayGiveInSchema(r, func() error { return d.requireTSOwner(o) }, o.schema)
	if err != nil {
		return err
	}
	if o.cfg != nil {
		next := *o.cfg
		next.owner = r.oid
		d.cat.putTSConfig(&next)
		return nil
	}
	next := *o.dict
	next.owner = r.oid
	d.cat.putTSDict(&next)
	return nil
}
