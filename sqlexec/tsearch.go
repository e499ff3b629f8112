package sqlexec

import (
	"strings"
	"sync"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/tsearch"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Text search's text side: the regconfig and regdictionary types' names,
// ts_lexize, and the set-returning ts_parse, ts_token_type and ts_debug,
// over package tsearch. pg_catalog lists every built-in text search object
// of PostgreSQL 15 (pgdata); fickle has the default parser, the simple,
// english and french configurations and the simple, english_stem and
// french_stem dictionaries, and refuses the others (german, spanish_stem,
// ...) with 0A000 where they
// would be used. Users' configurations and dictionaries are
// ddl_tsearch.go's.

// tsNames maps the names of one kind of built-in text search object to
// their OIDs and back.
type tsNames struct {
	kind   string // "text search configuration", as messages name it
	byName map[string]int64
	byOid  map[int64]string
}

func loadTSNames(kind, table, nameCol string) func() *tsNames {
	return sync.OnceValue(func() *tsNames {
		n := &tsNames{kind: kind, byName: map[string]int64{}, byOid: map[int64]string{}}
		eachRow(pgdata.Load(table), func(get func(string) string) {
			var oid int64
			for _, c := range get("oid") {
				oid = oid*10 + int64(c-'0')
			}
			n.byName[get(nameCol)] = oid
			n.byOid[oid] = get(nameCol)
		})
		return n
	})
}

var (
	tsConfigNames   = loadTSNames("text search configuration", pgdata.PgTsConfig, "cfgname")
	tsDictNames     = loadTSNames("text search dictionary", pgdata.PgTsDict, "dictname")
	tsParserNames   = loadTSNames("text search parser", pgdata.PgTsParser, "prsname")
	tsTemplateNames = loadTSNames("text search template", pgdata.PgTsTemplate, "tmplname")
)

// tsObjectOID reads a possibly qualified name of a built-in text search
// object (ts_parse's parser name): all live in pg_catalog, which every
// search path reads.
func (n catalogNames) tsObjectOID(names *tsNames, text string) (int64, error) {
	parts, err := n.qualifiedName(text, "qualified")
	if err != nil {
		return 0, err
	}
	if len(parts) == 2 {
		schema := n.s.schemaAlias(parts[0])
		if _, ok := n.catalog().schemas[schema]; !ok && schema != "pg_catalog" && schema != "information_schema" {
			return 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", parts[0])
		}
		if schema != "pg_catalog" {
			return 0, pgerror.Newf(pgerror.UndefinedObject, "%s \"%s\" does not exist", names.kind, strings.Join(parts, "."))
		}
	}
	if oid, ok := names.byName[parts[len(parts)-1]]; ok {
		return oid, nil
	}
	return 0, pgerror.Newf(pgerror.UndefinedObject, "%s \"%s\" does not exist", names.kind, strings.Join(parts, "."))
}

// tsObjectName is regconfigout and regdictionaryout.
func tsObjectName(names *tsNames, oid int64) (string, bool) {
	name, ok := names.byOid[oid]
	if !ok {
		return "", false
	}
	return types.QuoteIdent(name), true
}

// tsConfig returns the configuration a regconfig OID names: 0A000 for a
// built-in one fickle does not have.
func tsConfig(oid int64) (*tsearch.Config, error) {
	for _, c := range tsearch.Configs {
		if int64(c.OID) == oid {
			return c, nil
		}
	}
	if name, ok := tsConfigNames().byOid[oid]; ok {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "text search configuration \"%s\" is not supported", name).
			WithHint("fickle has the simple, english and french configurations.")
	}
	return nil, pgerror.Newf(pgerror.InternalError, "cache lookup failed for text search configuration %d", oid)
}

// tsDictionary is tsConfig for regdictionary.
func tsDictionary(oid int64) (*tsearch.Dictionary, error) {
	for _, d := range tsearch.Dictionaries {
		if int64(d.OID) == oid {
			return d, nil
		}
	}
	if name, ok := tsDictNames().byOid[oid]; ok {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "text search dictionary \"%s\" is not supported", name).
			WithHint("fickle has the simple, english_stem and french_stem dictionaries.")
	}
	return nil, pgerror.Newf(pgerror.InternalError, "cache lookup failed for text search dictionary %d", oid)
}

// currentTSConfig is getTSCurrentConfig: the configuration
// default_text_search_config names.
func (s *Session) currentTSConfig() (*tsearch.Config, error) {
	oid, err := s.currentTSConfigOID()
	if err != nil {
		return nil, err
	}
	return s.tsConfig(oid)
}

// currentTSConfigOID is the OID of the configuration
// default_text_search_config names (get_current_ts_config).
func (s *Session) currentTSConfigOID() (int64, error) {
	v, _ := s.setting("default_text_search_config")
	return (catalogNames{s: s}).tsRegIn(tsConfigKind, v)
}

// tsParserOID resolves ts_parse's and ts_token_type's first argument, a
// parser's name or OID, to the default parser's OID.
func tsParserOID(x *execCtx, arg any) error {
	var oid int64
	switch v := arg.(type) {
	case string:
		var err error
		if oid, err = (catalogNames{s: x.s}).tsObjectOID(tsParserNames(), v); err != nil {
			return err
		}
	case int64:
		oid = v
	}
	if oid != tsearch.ParserOID {
		return pgerror.Newf(pgerror.InternalError, "cache lookup failed for text search parser %d", oid)
	}
	return nil
}

// tsError turns package tsearch's errors into PostgreSQL's.
func tsError(err error) error {
	if err == tsearch.ErrInvalidText {
		return pgerror.New(pgerror.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
	}
	return err
}

func init() {
	// The visibility tests psql's \dF commands call: every text search
	// object is a built-in one of pg_catalog, which every search path
	// reads; an OID that names none gives NULL.
	for fn, names := range map[string]func() *tsNames{"pg_ts_config_is_visible": tsConfigNames,
		"pg_ts_dict_is_visible": tsDictNames, "pg_ts_parser_is_visible": tsParserNames,
		"pg_ts_template_is_visible": tsTemplateNames} {
		addSysFunc(fn, sysFunc{args: []types.Type{types.OidType}, result: types.Bool, eval: func(x *execCtx, a []any) (any, error) {
			if _, ok := names().byOid[a[0].(int64)]; !ok {
				if visible, ok := x.s.userTSObjectVisible(a[0].(int64)); ok {
					return visible, nil
				}
				return x.s.extensionTSObjectVisible(a[0].(int64)), nil
			}
			return true, nil
		}})
	}
	textArray, _ := types.ArrayOf(types.Text)
	addSysFunc("ts_lexize", sysFunc{args: []types.Type{types.Regdictionary, types.Text}, result: textArray,
		eval: func(x *execCtx, a []any) (any, error) {
			lexize, err := x.s.dictionaryLexize(a[0].(int64))
			if err != nil {
				return nil, err
			}
			lex := lexize(a[1].(string))
			if lex == nil {
				return nil, nil
			}
			return textArrayValue(lex), nil
		}})
	setFuncs["ts_parse"] = &setFunc{schema: "pg_catalog", strict: true, bind: bindTSParser("ts_parse", 2, tsParseFields), rows: tsParseRows}
	setFuncs["ts_token_type"] = &setFunc{schema: "pg_catalog", strict: true, bind: bindTSParser("ts_token_type", 1, tsTokenTypeFields), rows: tsTokenTypeRows}
	setFuncs["ts_debug"] = &setFunc{schema: "pg_catalog", strict: true, bind: bindTSDebug, rows: tsDebugRows}
}

// textArrayValue is a one-dimensional text[] datum of the strings.
func textArrayValue(ss []string) any {
	elems := make([]any, len(ss))
	for i, s := range ss {
		elems[i] = s
	}
	return elems
}

var (
	tsParseFields     = []types.Field{{Name: "tokid", Type: types.Int4}, {Name: "token", Type: types.Text}}
	tsTokenTypeFields = []types.Field{{Name: "tokid", Type: types.Int4}, {Name: "alias", Type: types.Text},
		{Name: "description", Type: types.Text}}
)

// tsNoFunction is the 42883 of a call of a text search function whose
// arguments match none of its signatures, naming the arguments' types as
// PostgreSQL does (an untyped literal is unknown).
func tsNoFunction(b *binder, name string, args []*scalar, loc int32) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = types.FormatType(a.typ)
		if unresolved(a) {
			ts[i] = "unknown"
		}
	}
	return b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), loc)
}

// tsCoerceArgs coerces each argument to its type implicitly, or fails as
// a call of no signature.
func tsCoerceArgs(b *binder, name string, args []*scalar, to []types.Type, loc int32) error {
	for i := range args {
		if !unresolved(args[i]) && !types.CanCoerce(args[i].typ, to[i], types.CastImplicit) {
			return tsNoFunction(b, name, args, loc)
		}
	}
	for i := range args {
		var err error
		if args[i], err = b.coerce(args[i], to[i], types.CastImplicit); err != nil {
			return err
		}
	}
	return nil
}

// bindTSParser binds ts_parse (parser, text) and ts_token_type (parser):
// the parser is a name (text) or an OID, as in PostgreSQL's two
// signatures of each; an unknown literal is the name.
func bindTSParser(name string, n int, fields []types.Field) func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	return func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
		if len(args) != n {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
		}
		to := []types.Type{types.Text, types.Text}[:n]
		switch args[0].typ.Oid {
		case types.OidOid, types.OidInt2, types.OidInt4, types.OidInt8:
			to[0] = types.OidType
		}
		if err := tsCoerceArgs(b, name, args, to, loc); err != nil {
			return nil, err
		}
		return fields, nil
	}
}

func tsParseRows(x *execCtx, args []any) ([][]any, error) {
	if err := tsParserOID(x, args[0]); err != nil {
		return nil, err
	}
	var rows [][]any
	err := tsearch.EachToken(x.ctx, args[1].(string), func(t tsearch.Token) error {
		rows = append(rows, []any{int64(t.Type), t.Text})
		return nil
	})
	return rows, tsError(err)
}

func tsTokenTypeRows(x *execCtx, args []any) ([][]any, error) {
	if err := tsParserOID(x, args[0]); err != nil {
		return nil, err
	}
	var rows [][]any
	for t := tsearch.TokenType(1); t <= tsearch.LastTokenType; t++ {
		rows = append(rows, []any{int64(t), t.Alias(), t.Description()})
	}
	return rows, nil
}

func tsDebugFields() []types.Field {
	textArray, _ := types.ArrayOf(types.Text)
	dictArray, _ := types.ArrayOf(types.Regdictionary)
	return []types.Field{{Name: "alias", Type: types.Text}, {Name: "description", Type: types.Text},
		{Name: "token", Type: types.Text}, {Name: "dictionaries", Type: dictArray},
		{Name: "dictionary", Type: types.Regdictionary}, {Name: "lexemes", Type: textArray}}
}

// bindTSDebug binds ts_debug(regconfig, text) and ts_debug(text), which
// reads default_text_search_config.
func bindTSDebug(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) != 1 && len(args) != 2 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function ts_debug with %d arguments does not exist", len(args)), loc)
	}
	to := []types.Type{types.Text}
	if len(args) == 2 {
		to = []types.Type{types.Regconfig, types.Text}
	}
	if err := tsCoerceArgs(b, "ts_debug", args, to, loc); err != nil {
		return nil, err
	}
	return tsDebugFields(), nil
}

func tsDebugRows(x *execCtx, args []any) ([][]any, error) {
	var cfg *tsearch.Config
	var err error
	if len(args) == 2 {
		cfg, err = x.tsConfig(args[0].(int64))
	} else {
		cfg, err = x.s.currentTSConfig()
	}
	if err != nil {
		return nil, err
	}
	debug, err := tsearch.Debug(x.ctx, cfg, args[len(args)-1].(string))
	if err != nil {
		return nil, tsError(err)
	}
	rows := make([][]any, len(debug))
	for i, d := range debug {
		dicts := make([]any, len(d.Dictionaries))
		for j, dict := range d.Dictionaries {
			dicts[j] = int64(dict.OID)
		}
		var dict, lexemes any
		if d.Dictionary != nil {
			dict = int64(d.Dictionary.OID)
		}
		if d.Lexemes != nil {
			lexemes = textArrayValue(d.Lexemes)
		}
		rows[i] = []any{d.Type.Alias(), d.Type.Description(), d.Token, dicts, dict, lexemes}
	}
	return rows, nil
}
