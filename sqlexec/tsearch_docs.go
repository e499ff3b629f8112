package sqlexec

import (
	"context"
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/tsearch"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// to_tsvector and the functions that make a tsquery of text
// (to_tsquery, plainto_tsquery, phraseto_tsquery, websearch_to_tsquery),
// with a configuration or with default_text_search_config, and
// get_current_ts_config. Package tsearch parses and normalizes the text;
// the tsvector and tsquery types (sqlexec/types) build the values, the
// tsquery ones through the tsquery parser with a normalizer, as
// PostgreSQL's to_tsany.c does.

// toTSVector is to_tsvector(cfg, text).
func (s *Session) toTSVector(ctx context.Context, cfg *tsearch.Config, text string) (types.TSVector, error) {
	lex, notices, err := tsearch.Document(ctx, cfg, text)
	s.tsNotices(notices)
	if err != nil {
		return nil, tsError(err)
	}
	words := make([]types.TSWord, len(lex))
	for i, l := range lex {
		words[i] = types.TSWord{Word: l.Word, Pos: l.Pos}
	}
	return types.TSVectorFromWords(words)
}

// toTSQuery parses query text in mode with cfg normalizing each operand,
// as to_tsquery (phrase: the lexemes of one operand joined by <->) and
// plainto_tsquery (not phrase: by &) do.
func (s *Session) toTSQuery(ctx context.Context, cfg *tsearch.Config, text string, mode types.TSQueryMode, phrase bool) (types.TSQuery, error) {
	normalize := func(operand string) ([]types.TSQueryWord, error) {
		lex, notices, err := tsearch.Document(ctx, cfg, operand)
		s.tsNotices(notices)
		if err != nil {
			return nil, tsError(err)
		}
		words := make([]types.TSQueryWord, len(lex))
		for i, l := range lex {
			words[i] = types.TSQueryWord{Lexeme: l.Word, Pos: l.Pos, Prefix: l.Prefix, Variant: l.Variant}
		}
		return words, nil
	}
	q, notices, err := types.ParseTSQuery(text, types.TSQueryOptions{Mode: mode, Normalize: normalize, Phrase: phrase})
	for _, n := range notices {
		s.tsNotice(pgerror.New(pgerror.SuccessfulCompletion, n))
	}
	return q, err
}

// tsNotices sends package tsearch's notices (a word too long to index).
func (s *Session) tsNotices(notices []tsearch.Notice) {
	for _, n := range notices {
		s.tsNotice(pgerror.New(pgerror.ProgramLimitExceeded, n.Message).WithDetail("%s", n.Detail))
	}
}

func (s *Session) tsNotice(n *pgerror.Error) {
	n.Severity = "NOTICE"
	s.notices = append(s.notices, n)
}

// sessionTextSearch is the session's default configuration for the text
// @@ operators (types.TextSearcher). Their evaluation has no statement
// context, so a parse runs to its end.
type sessionTextSearch struct{ s *Session }

func (t sessionTextSearch) Document(text string) (types.TSVector, error) {
	cfg, err := t.s.currentTSConfig()
	if err != nil {
		return nil, err
	}
	return t.s.toTSVector(context.Background(), cfg, text)
}

func (t sessionTextSearch) PlainQuery(text string) (types.TSQuery, error) {
	cfg, err := t.s.currentTSConfig()
	if err != nil {
		return types.TSQuery{}, err
	}
	return t.s.toTSQuery(context.Background(), cfg, text, types.TSQueryPlain, false)
}

func init() {
	// Each function with a configuration (immutable) and without, which
	// reads default_text_search_config (stable).
	withConfig := func(name string, result types.Type, run func(x *execCtx, cfg *tsearch.Config, text string) (any, error)) {
		addSysFunc(name, sysFunc{args: []types.Type{types.Regconfig, types.Text}, result: result, immutable: true,
			eval: func(x *execCtx, a []any) (any, error) {
				cfg, err := x.tsConfig(a[0].(int64))
				if err != nil {
					return nil, err
				}
				return run(x, cfg, a[1].(string))
			}})
		addSysFunc(name, sysFunc{args: []types.Type{types.Text}, result: result,
			eval: func(x *execCtx, a []any) (any, error) {
				cfg, err := x.s.currentTSConfig()
				if err != nil {
					return nil, err
				}
				return run(x, cfg, a[0].(string))
			}})
	}
	withConfig("to_tsvector", types.TSVectorType, func(x *execCtx, cfg *tsearch.Config, text string) (any, error) {
		return x.s.toTSVector(x.ctx, cfg, text)
	})
	for name, form := range map[string]struct {
		mode   types.TSQueryMode
		phrase bool
	}{"to_tsquery": {types.TSQueryStandard, true}, "plainto_tsquery": {types.TSQueryPlain, false},
		"phraseto_tsquery": {types.TSQueryPlain, true}, "websearch_to_tsquery": {types.TSQueryWeb, true}} {
		withConfig(name, types.TSQueryType, func(x *execCtx, cfg *tsearch.Config, text string) (any, error) {
			return x.s.toTSQuery(x.ctx, cfg, text, form.mode, form.phrase)
		})
	}
	addSysFunc("get_current_ts_config", sysFunc{result: types.Regconfig, eval: func(x *execCtx, _ []any) (any, error) {
		return x.s.currentTSConfigOID()
	}})
}

// tsvectorUpdate runs tsvector_update_trigger(tsvector_column, 'schema.config',
// text_column, ...) and tsvector_update_trigger_column(tsvector_column,
// config_column, text_column, ...), BEFORE INSERT or UPDATE FOR EACH ROW:
// the text columns, parsed as one text (positions count on from one column
// to the next, NULLs skipped), become the tsvector column. An UPDATE that
// sets none of the text or configuration columns leaves the row as it is,
// as PostgreSQL does (tg_updatedcols).
func (ts *triggerSet) tsvectorUpdate(x *execCtx, tr *triggerDesc, when, level string, new []any) ([]any, error) {
	fn := "tsvector_update_trigger"
	internal := func(msg string) error { return pgerror.New(pgerror.InternalError, fn+": "+msg) }
	switch {
	case level != "ROW":
		return nil, internal("must be fired for row")
	case when != "BEFORE":
		return nil, internal("must be fired BEFORE event")
	case ts.event != tgInsert && ts.event != tgUpdate:
		return nil, internal("must be fired for INSERT or UPDATE")
	case len(tr.args) < 3:
		return nil, internal("arguments must be tsvector_field, ts_config, text_field1, ...)")
	}
	t := ts.t
	tsvCol := t.colIndex(tr.args[0])
	if tsvCol < 0 {
		return nil, pgerror.Newf(pgerror.UndefinedColumn, "tsvector column \"%s\" does not exist", tr.args[0])
	}
	if t.cols[tsvCol].typ.Oid != types.OidTSVector {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" is not of tsvector type", tr.args[0])
	}
	updateNeeded := ts.event == tgInsert
	var cfg *tsearch.Config
	if tr.fn == tsvectorUpdateTriggerOID {
		names := strings.Split(tr.args[1], ".")
		if len(names) < 2 {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "text search configuration name \"%s\" must be schema-qualified", tr.args[1])
		}
		oid, err := (catalogNames{s: x.s}).tsRegIn(tsConfigKind, tr.args[1])
		if err != nil {
			return nil, err
		}
		if cfg, err = x.tsConfig(oid); err != nil {
			return nil, err
		}
	} else {
		c := t.colIndex(tr.args[1])
		switch {
		case c < 0:
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "config column \"%s\" does not exist", tr.args[1])
		case t.cols[c].typ.Oid != types.OidRegconfig:
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" is not of regconfig type", tr.args[1])
		case new[c] == nil:
			return nil, pgerror.Newf(pgerror.NullValueNotAllowed, "configuration column \"%s\" must not be null", tr.args[1])
		}
		var err error
		if cfg, err = x.tsConfig(new[c].(int64)); err != nil {
			return nil, err
		}
		updateNeeded = updateNeeded || slices.Contains(ts.updated, c)
	}
	var words []types.TSWord
	pos := 0
	for _, name := range tr.args[2:] {
		c := t.colIndex(name)
		if c < 0 {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", name)
		}
		switch t.cols[c].typ.Oid {
		case types.OidText, types.OidVarchar, types.OidBpchar:
		default:
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" is not of a character type", name)
		}
		updateNeeded = updateNeeded || slices.Contains(ts.updated, c)
		if new[c] == nil {
			continue
		}
		lex, end, notices, err := tsearch.DocumentAfter(x.ctx, cfg, new[c].(string), pos)
		x.s.tsNotices(notices)
		if err != nil {
			return nil, tsError(err)
		}
		for _, l := range lex {
			words = append(words, types.TSWord{Word: l.Word, Pos: l.Pos})
		}
		pos = end
	}
	if !updateNeeded {
		return new, nil
	}
	v, err := types.TSVectorFromWords(words)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(new)
	out[tsvCol] = v
	return out, nil
}
