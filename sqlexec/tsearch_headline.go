package sqlexec

import (
	"context"

	"github.com/fickle-db/fickle/internal/tsearch"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// ts_headline over text, json and jsonb, and to_tsvector with
// json(b)_to_tsvector over json and jsonb documents (wparser.c's
// ts_headline_* and to_tsany.c's json forms). Package tsearch gives the
// tokens, package types selects and marks the headline and walks the
// documents.

// headlineWords is hlparsetext: text's tokens through cfg, positions
// counting on from pos; the last position taken returns.
func (s *Session) headlineWords(ctx context.Context, cfg *tsearch.Config, text string, pos int) ([]types.HeadlineWord, int, error) {
	toks, end, notices, err := tsearch.HeadlineTokens(ctx, cfg, text, pos)
	s.tsNotices(notices)
	if err != nil {
		return nil, 0, tsError(err)
	}
	words := make([]types.HeadlineWord, len(toks))
	for i, t := range toks {
		words[i] = types.HeadlineWord{Text: t.Text, Pos: t.Pos, Lexemes: t.Lexemes, NonWord: t.Type.HeadlineNonWord(),
			NoEnd: t.Type.HeadlineNoEnd(), Replace: t.Type.HeadlineReplaced(), Skip: t.Type.HeadlineSkipped()}
	}
	return words, end, nil
}

// tsHeadline is ts_headline(cfg, doc, query, options) for a text (kind
// Text) or each string of a json or jsonb document. Options are read
// before any text is, and checked with each text headlined (a document
// without strings takes any).
func (s *Session) tsHeadline(ctx context.Context, cfg *tsearch.Config, kind types.Type, doc string, q types.TSQuery, options *string) (string, error) {
	var opts []types.HeadlineOption
	if options != nil {
		var err error
		if opts, err = types.ParseHeadlineOptions(*options); err != nil {
			return "", err
		}
	}
	pos := 0
	headline := func(text string) (string, error) {
		words, end, err := s.headlineWords(ctx, cfg, text, pos)
		if err != nil {
			return "", err
		}
		pos = end
		return types.TSHeadline(ctx, words, q, opts)
	}
	switch kind.Oid {
	case types.OidJSON:
		return types.TransformJSONStrings(doc, false, headline)
	case types.OidJSONB:
		return types.TransformJSONStrings(doc, true, headline)
	}
	return headline(doc)
}

// jsonToTSVector is to_tsvector and json(b)_to_tsvector over a document:
// the values flags asks for parsed as one text, a position left out
// after each value that gave lexemes, so that no phrase spans two values.
func (s *Session) jsonToTSVector(ctx context.Context, cfg *tsearch.Config, doc string, isB bool, flags int) (types.TSVector, error) {
	var words []types.TSWord
	pos := 0
	for _, v := range types.JSONTSValues(doc, isB, flags) {
		lex, end, notices, err := tsearch.DocumentAfter(ctx, cfg, v, pos)
		s.tsNotices(notices)
		if err != nil {
			return nil, tsError(err)
		}
		for _, l := range lex {
			words = append(words, types.TSWord{Word: l.Word, Pos: l.Pos})
		}
		pos = end
		if len(lex) > 0 {
			pos++
		}
	}
	return types.TSVectorFromWords(words)
}

func init() {
	// Each function with a configuration (immutable) and without, which
	// reads default_text_search_config (stable).
	withConfig := func(name string, args []types.Type, result types.Type, run func(x *execCtx, cfg *tsearch.Config, a []any) (any, error)) {
		addSysFunc(name, sysFunc{args: append([]types.Type{types.Regconfig}, args...), result: result, immutable: true,
			eval: func(x *execCtx, a []any) (any, error) {
				cfg, err := x.tsConfig(a[0].(int64))
				if err != nil {
					return nil, err
				}
				return run(x, cfg, a[1:])
			}})
		addSysFunc(name, sysFunc{args: args, result: result,
			eval: func(x *execCtx, a []any) (any, error) {
				cfg, err := x.s.currentTSConfig()
				if err != nil {
					return nil, err
				}
				return run(x, cfg, a)
			}})
	}
	for _, doc := range []types.Type{types.Text, types.JSON, types.JSONB} {
		result := doc
		withConfig("ts_headline", []types.Type{doc, types.TSQueryType}, result, func(x *execCtx, cfg *tsearch.Config, a []any) (any, error) {
			return x.s.tsHeadline(x.ctx, cfg, doc, a[0].(string), a[1].(types.TSQuery), nil)
		})
		withConfig("ts_headline", []types.Type{doc, types.TSQueryType, types.Text}, result, func(x *execCtx, cfg *tsearch.Config, a []any) (any, error) {
			opts := a[2].(string)
			return x.s.tsHeadline(x.ctx, cfg, doc, a[0].(string), a[1].(types.TSQuery), &opts)
		})
	}
	for _, doc := range []types.Type{types.JSON, types.JSONB} {
		isB := doc.Oid == types.OidJSONB
		withConfig("to_tsvector", []types.Type{doc}, types.TSVectorType, func(x *execCtx, cfg *tsearch.Config, a []any) (any, error) {
			return x.s.jsonToTSVector(x.ctx, cfg, a[0].(string), isB, types.JSONTSString)
		})
		name := "json_to_tsvector"
		if isB {
			name = "jsonb_to_tsvector"
		}
		withConfig(name, []types.Type{doc, types.JSONB}, types.TSVectorType, func(x *execCtx, cfg *tsearch.Config, a []any) (any, error) {
			flags, err := types.JSONTSFlags(a[1].(string))
			if err != nil {
				return nil, err
			}
			return x.s.jsonToTSVector(x.ctx, cfg, a[0].(string), isB, flags)
		})
	}
}
