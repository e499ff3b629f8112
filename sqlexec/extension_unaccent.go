package sqlexec

import (
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/unaccent"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// unaccent 1.1: its text search template and dictionary unaccent (with
// the rules file PostgreSQL 15 ships, package unaccent) and the functions
// unaccent(text), which applies the dictionary of the function's own
// schema, and unaccent(regdictionary, text), which applies the one named.
// An extension's dictionary is read through regdictionary, ts_lexize,
// pg_ts_dict and pg_ts_template, and a user's configuration may map it
// (ddl_tsearch.go).

// extensionDictionary is a text search dictionary an extension's script
// creates, with the template it creates for it: pg_ts_dict's
// dictinitoption, and its lexize, which returns the lexemes of a token,
// nil when it does not recognize it.
type extensionDictionary struct {
	name, template, initOption string
	lexize                     func(token string) []string
	// filter says the dictionary filters (TSL_FILTER): in a
	// configuration, its lexeme goes on to the next dictionary.
	filter bool
}

// tsDictDesc is an installed extension's dictionary and its template.
type tsDictDesc struct {
	oid, templateOID uint32
	schema           string
	def              extensionDictionary
}

func init() {
	text := types.Text
	registerExtension(&availableExtension{name: "unaccent", version: "1.1", library: "unaccent", relocatable: true,
		comment: "text search dictionary that removes accents",
		functions: []extensionFunc{
			{name: "unaccent", params: []funcParam{{typ: types.Regdictionary, mode: 'i', arg: true}, {typ: text, mode: 'i', arg: true}},
				result: text, volatility: 's', symbol: "unaccent_dict", eval: unaccentDict},
			{name: "unaccent", params: []funcParam{{typ: text, mode: 'i', arg: true}}, result: text, volatility: 's',
				symbol: "unaccent_dict", eval: unaccentDict},
		},
		dictionaries: []extensionDictionary{{name: "unaccent", template: "unaccent", initOption: "rules = 'unaccent'", filter: true,
			lexize: func(token string) []string {
				if out, changed := unaccent.Default.Lexize(token); changed {
					return []string{out}
				}
				return nil
			}}},
	})
}

// unaccentDict is unaccent_dict, both overloads' C function: the first
// lexeme the dictionary gives the text, or the text when it gives none.
// unaccent(text) uses the unaccent dictionary of the schema of the
// extension, where the function is.
func unaccentDict(x *execCtx, a []any) (any, error) {
	var lexize func(string) []string
	s := a[len(a)-1].(string)
	if len(a) == 1 {
		c, _ := x.s.catalog()
		ext := c.extensions["unaccent"]
		if ext == nil || len(ext.dictionaries) == 0 {
			return nil, pgerror.New(pgerror.UndefinedObject, "text search dictionary \"unaccent\" does not exist")
		}
		lexize = ext.dictionaries[0].def.lexize
	} else {
		var err error
		if lexize, err = x.s.dictionaryLexize(a[0].(int64)); err != nil {
			return nil, err
		}
	}
	if lex := lexize(s); len(lex) > 0 {
		return lex[0], nil
	}
	return s, nil
}

// dictionaryLexize is the lexize of the dictionary of OID oid: an
// installed extension's, a user's or a built-in one fickle has.
func (s *Session) dictionaryLexize(oid int64) (func(string) []string, error) {
	c, _ := s.catalog()
	if d := extensionDictionaryByOID(c, oid); d != nil {
		return d.def.lexize, nil
	}
	d, err := tsDictionaryIn(c, oid)
	if err != nil {
		return nil, err
	}
	return d.Lexize, nil
}

// createExtensionDictionaries creates avail's templates and dictionaries in
// ext's schema.
func (d *ddl) createExtensionDictionaries(avail *availableExtension, ext *extensionDesc) {
	for _, dd := range avail.dictionaries {
		tmpl := d.cat.newOID()
		ext.dictionaries = append(ext.dictionaries, &tsDictDesc{oid: d.cat.newOID(), templateOID: tmpl, schema: ext.schema, def: dd})
	}
}

// extensionDictionaryByOID is the installed extensions' dictionary of OID
// oid, nil for none.
func extensionDictionaryByOID(c *catalog, oid int64) *tsDictDesc {
	for _, ext := range c.extensions {
		for _, d := range ext.dictionaries {
			if int64(d.oid) == oid {
				return d
			}
		}
	}
	return nil
}

// extensionDictionaryName is regdictionaryout for the installed
// extensions' dictionaries: qualified when its schema is not on
// search_path.
func (n catalogNames) extensionDictionaryName(oid int64) (string, bool) {
	d := extensionDictionaryByOID(n.catalog(), oid)
	if d == nil {
		return "", false
	}
	if n.s != nil && slices.Contains(n.s.searchPath(), d.schema) {
		return types.QuoteIdent(d.def.name), true
	}
	return types.QuoteIdent(d.schema) + "." + types.QuoteIdent(d.def.name), true
}

// extensionDictionaryRows are pg_ts_dict's rows of the installed
// extensions' dictionaries.
func extensionDictionaryRows(c *catalog) [][]any {
	var out [][]any
	for _, ext := range sortedExtensions(c) {
		for _, d := range ext.dictionaries {
			out = append(out, []any{int64(d.oid), d.def.name, schemaOID(c, d.schema), int64(ext.owner), int64(d.templateOID), d.def.initOption})
		}
	}
	return out
}

// extensionTemplateRows are pg_ts_template's rows of the installed
// extensions' templates (their init and lexize functions, which take
// internal, are not created: 0).
func extensionTemplateRows(c *catalog) [][]any {
	var out [][]any
	for _, ext := range sortedExtensions(c) {
		for _, d := range ext.dictionaries {
			out = append(out, []any{int64(d.templateOID), d.def.template, schemaOID(c, d.schema), int64(0), int64(0)})
		}
	}
	return out
}

// extensionTSObjectVisible is pg_ts_dict_is_visible and
// pg_ts_template_is_visible for the installed extensions' dictionaries
// and templates: whether the search path reaches their schema; NULL for
// an OID that names none.
func (s *Session) extensionTSObjectVisible(oid int64) any {
	c, _ := s.catalog()
	for _, ext := range c.extensions {
		for _, d := range ext.dictionaries {
			if int64(d.oid) == oid || int64(d.templateOID) == oid {
				return slices.Contains(s.searchPath(), d.schema)
			}
		}
	}
	return nil
}
