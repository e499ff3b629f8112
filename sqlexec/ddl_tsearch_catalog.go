package sqlexec

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/tsearch"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The text search objects as the catalog holds and finds them: the users'
// configurations and dictionaries beside the built-in ones (pgdata) and
// the extensions' dictionaries, name lookups along the search path,
// regconfig and regdictionary, the Config a user's configuration makes,
// and the rows of pg_ts_config, pg_ts_config_map and pg_ts_dict.

// builtinTSConfigMaps is pg_ts_config_map of the built-in configurations:
// per configuration OID and token type, the dictionaries in order.
var builtinTSConfigMaps = sync.OnceValue(func() map[uint32]*[tsearch.LastTokenType + 1][]uint32 {
	type row struct{ cfg, tok, seq, dict int }
	var rows []row
	eachRow(pgdata.Load(pgdata.PgTsConfigMap), func(get func(string) string) {
		n := func(c string) int { v, _ := strconv.Atoi(get(c)); return v }
		rows = append(rows, row{n("mapcfg"), n("maptokentype"), n("mapseqno"), n("mapdict")})
	})
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.cfg, b.cfg), cmp.Compare(a.tok, b.tok), cmp.Compare(a.seq, b.seq))
	})
	out := map[uint32]*[tsearch.LastTokenType + 1][]uint32{}
	for _, r := range rows {
		m := out[uint32(r.cfg)]
		if m == nil {
			m = &[tsearch.LastTokenType + 1][]uint32{}
			out[uint32(r.cfg)] = m
		}
		if r.tok > 0 && r.tok <= int(tsearch.LastTokenType) {
			m[r.tok] = append(m[r.tok], uint32(r.dict))
		}
	}
	return out
})

// putTSConfig and putTSDict store a descriptor (new or replacing the one
// of its OID).
func (c *catalog) putTSConfig(cfg *tsConfigDesc) {
	putEntry(&c.tsConfigs, cfg.oid, cfg)
}

func (c *catalog) putTSDict(d *tsUserDict) {
	putEntry(&c.tsDicts, d.oid, d)
}

// sortedTSConfigs and sortedTSDicts are the users' objects by OID.
func sortedTSConfigs(c *catalog) []*tsConfigDesc {
	out := make([]*tsConfigDesc, 0, len(c.tsConfigs))
	for _, cfg := range c.tsConfigs {
		out = append(out, cfg)
	}
	slices.SortFunc(out, func(a, b *tsConfigDesc) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

func sortedTSDicts(c *catalog) []*tsUserDict {
	out := make([]*tsUserDict, 0, len(c.tsDicts))
	for _, d := range c.tsDicts {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *tsUserDict) int { return cmp.Compare(a.oid, b.oid) })
	return out
}

// tsObjectsClash reports whether two users' configurations, or two
// dictionaries, share a name in a schema: two transactions each created
// one, which the unique index refuses to the second to commit.
func tsObjectsClash(c *catalog) string {
	seen := map[[2]string]bool{}
	for _, cfg := range c.tsConfigs {
		if seen[[2]string{cfg.schema, cfg.name}] {
			return "pg_ts_config_cfgname_index"
		}
		seen[[2]string{cfg.schema, cfg.name}] = true
	}
	seen = map[[2]string]bool{}
	for _, d := range c.tsDicts {
		if seen[[2]string{d.schema, d.name}] {
			return "pg_ts_dict_dictname_index"
		}
		seen[[2]string{d.schema, d.name}] = true
	}
	return ""
}

// tsKind is one kind of text search object as name lookups see it: its
// noun, its built-in objects (all in pg_catalog), and the others a schema
// holds (an extension's or a user's), 0 for none.
type tsKind struct {
	noun    string
	builtin func() *tsNames
	other   func(c *catalog, schema, name string) uint32
}

var (
	tsConfigKind = tsKind{noun: "text search configuration", builtin: tsConfigNames,
		other: func(c *catalog, schema, name string) uint32 {
			for _, cfg := range c.tsConfigs {
				if cfg.schema == schema && cfg.name == name {
					return cfg.oid
				}
			}
			return 0
		}}
	tsDictKind = tsKind{noun: "text search dictionary", builtin: tsDictNames,
		other: func(c *catalog, schema, name string) uint32 {
			for _, ext := range c.extensions {
				for _, d := range ext.dictionaries {
					if d.schema == schema && d.def.name == name {
						return d.oid
					}
				}
			}
			for _, d := range c.tsDicts {
				if d.schema == schema && d.name == name {
					return d.oid
				}
			}
			return 0
		}}
	tsTemplateKind = tsKind{noun: "text search template", builtin: tsTemplateNames,
		other: func(c *catalog, schema, name string) uint32 {
			for _, ext := range c.extensions {
				for _, d := range ext.dictionaries {
					if d.schema == schema && d.def.template == name {
						return d.templateOID
					}
				}
			}
			return 0
		}}
	tsParserKind = tsKind{noun: "text search parser", builtin: tsParserNames,
		other: func(*catalog, string, string) uint32 { return 0 }}
)

// lookupTS is get_ts_config_oid and its kin: the OID of the object of
// kind a possibly qualified name names, along the search path unless
// qualified (pg_catalog holding the built-in ones); 0 with missingOK
// when there is none.
func (s *Session) lookupTS(c *catalog, kind tsKind, names []string, missingOK bool) (uint32, error) {
	switch len(names) {
	case 1, 2:
	case 3:
		return 0, pgerror.Newf(pgerror.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(names, "."))
	default:
		return 0, pgerror.Newf(pgerror.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, "."))
	}
	name := names[len(names)-1]
	if len(names) == 2 {
		schema := s.schemaAlias(names[0])
		if _, ok := c.schemas[schema]; !ok && schema != "pg_catalog" && schema != "information_schema" {
			if missingOK {
				return 0, nil
			}
			return 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", names[0])
		}
	}
	for _, schema := range s.lookupSchemas(names) {
		if schema == "pg_catalog" {
			if oid, ok := kind.builtin().byName[name]; ok {
				return uint32(oid), nil
			}
			continue
		}
		if oid := kind.other(c, schema, name); oid != 0 {
			return oid, nil
		}
	}
	if missingOK {
		return 0, nil
	}
	return 0, pgerror.Newf(pgerror.UndefinedObject, "%s \"%s\" does not exist", kind.noun, strings.Join(names, "."))
}

// tsRegIn is regconfigin and regdictionaryin.
func (n catalogNames) tsRegIn(kind tsKind, text string) (int64, error) {
	parts, err := n.qualifiedName(text, "qualified")
	if err != nil {
		return 0, err
	}
	oid, err := n.s.lookupTS(n.catalog(), kind, parts, false)
	return int64(oid), err
}

// tsUserObjectName is regconfigout and regdictionaryout for a user's
// configuration or dictionary: qualified when the search path finds
// another object (or none) by its name.
func (n catalogNames) tsUserObjectName(kind tsKind, oid int64) (string, bool) {
	c := n.catalog()
	var schema, name string
	if cfg := c.tsConfigs[uint32(oid)]; cfg != nil && kind.noun == tsConfigKind.noun {
		schema, name = cfg.schema, cfg.name
	} else if d := c.tsDicts[uint32(oid)]; d != nil && kind.noun == tsDictKind.noun {
		schema, name = d.schema, d.name
	} else {
		return "", false
	}
	if n.s != nil {
		if found, _ := n.s.lookupTS(c, kind, []string{name}, true); int64(found) == oid {
			return types.QuoteIdent(name), true
		}
	}
	return types.QuoteIdent(schema) + "." + types.QuoteIdent(name), true
}

// userTSObjectVisible is pg_ts_config_is_visible and pg_ts_dict_is_visible
// for a user's object: whether its name finds it; ok false for an OID
// that names none.
func (s *Session) userTSObjectVisible(oid int64) (visible, ok bool) {
	c, _ := s.catalog()
	var kind tsKind
	var name string
	if cfg := c.tsConfigs[uint32(oid)]; cfg != nil {
		kind, name = tsConfigKind, cfg.name
	} else if d := c.tsDicts[uint32(oid)]; d != nil {
		kind, name = tsDictKind, d.name
	} else {
		return false, false
	}
	found, _ := s.lookupTS(c, kind, []string{name}, true)
	return int64(found) == oid, true
}

// tsConfig returns the configuration a regconfig OID names: a user's,
// or a built-in one (0A000 for one fickle does not have); a dictionary
// it maps that fickle cannot run refuses it too.
func (s *Session) tsConfig(oid int64) (*tsearch.Config, error) {
	c, _ := s.catalog()
	return tsConfigIn(c, oid)
}

// tsConfig is the session's tsConfig, or outside a session (an index's
// expression) that of the catalog the expression was compiled against.
func (x *execCtx) tsConfig(oid int64) (*tsearch.Config, error) {
	if x.s != nil {
		return x.s.tsConfig(oid)
	}
	if x.exprCatalog != nil {
		return tsConfigIn(x.exprCatalog, oid)
	}
	return tsConfig(oid)
}

// tsConfigIn is tsConfig in catalog c.
func tsConfigIn(c *catalog, oid int64) (*tsearch.Config, error) {
	desc := c.tsConfigs[uint32(oid)]
	if desc == nil {
		return tsConfig(oid)
	}
	cfg := &tsearch.Config{Name: desc.name, OID: desc.oid}
	for t, dicts := range desc.maps {
		for _, d := range dicts {
			dict, err := tsDictionaryIn(c, int64(d))
			if err != nil {
				return nil, err
			}
			cfg.Map[t] = append(cfg.Map[t], dict)
		}
	}
	return cfg, nil
}

// tsDictionary returns the dictionary a regdictionary OID names: a
// user's, an extension's or a built-in one; 0A000 for one fickle cannot
// run.
func tsDictionaryIn(c *catalog, oid int64) (*tsearch.Dictionary, error) {
	if d := c.tsDicts[uint32(oid)]; d != nil {
		if d.dict.Unsupported {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "text search dictionary \"%s\" is not supported", d.name).
				WithHint("fickle's Snowball dictionaries stem English and French only.")
		}
		return d.dict, nil
	}
	if d := extensionDictionaryByOID(c, oid); d != nil {
		return tsearch.NewFunc(d.def.name, d.oid, d.def.template, d.def.filter, d.def.lexize), nil
	}
	return tsDictionary(oid)
}

// tsTemplateName is the name of the template of OID oid.
func tsTemplateName(c *catalog, oid uint32) string {
	if name, ok := tsTemplateNames().byOid[int64(oid)]; ok {
		return name
	}
	for _, ext := range c.extensions {
		for _, d := range ext.dictionaries {
			if d.templateOID == oid {
				return d.def.template
			}
		}
	}
	return ""
}

// userTSConfigRows, userTSConfigMapRows and userTSDictRows are
// pg_ts_config's, pg_ts_config_map's and pg_ts_dict's rows of the users'
// objects.
func userTSConfigRows(c *catalog) [][]any {
	var out [][]any
	for _, cfg := range sortedTSConfigs(c) {
		out = append(out, []any{int64(cfg.oid), cfg.name, schemaOID(c, cfg.schema), int64(cfg.owner), int64(cfg.parser)})
	}
	return out
}

func userTSConfigMapRows(c *catalog) [][]any {
	var out [][]any
	for _, cfg := range sortedTSConfigs(c) {
		for t, dicts := range cfg.maps {
			for i, dict := range dicts {
				out = append(out, []any{int64(cfg.oid), int64(t), int64(i + 1), int64(dict)})
			}
		}
	}
	return out
}

func userTSDictRows(c *catalog) [][]any {
	out := extensionDictionaryRows(c)
	for _, ud := range sortedTSDicts(c) {
		var opt any
		if len(ud.options) > 0 {
			opt = ud.dict.InitOption
		}
		out = append(out, []any{int64(ud.oid), ud.name, schemaOID(c, ud.schema), int64(ud.owner), int64(ud.template), opt})
	}
	return out
}

// userTSConfigSetting is check_TSCurrentConfig for SET
// default_text_search_config naming a user's configuration: the value
// qualified with its schema, as PostgreSQL stores it; ok false for any
// other value or setting (the built-in configurations are the setting's
// own check's).
func (s *Session) userTSConfigSetting(name, value string, toDefault bool) (string, bool) {
	if name != "default_text_search_config" || toDefault {
		return "", false
	}
	parts, err := (catalogNames{s: s}).qualifiedName(value, "qualified")
	if err != nil {
		return "", false
	}
	c, _ := s.catalog()
	oid, _ := s.lookupTS(c, tsConfigKind, parts, true)
	cfg := c.tsConfigs[oid]
	if cfg == nil {
		return "", false
	}
	return types.QuoteIdent(cfg.schema) + "." + types.QuoteIdent(cfg.name), true
}
