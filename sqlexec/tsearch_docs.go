package sqlexec

import (
	"context"

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
			words[i] = types.TSQueryWord{Lexeme: l.Word, Pos: l.Pos}
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
		s.tsNotice(pgerror.New(pgerror.SuccessfulCompletion, n.Message).WithDetail("%s", n.Detail))
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
				cfg, err := tsConfig(a[0].(int64))
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
