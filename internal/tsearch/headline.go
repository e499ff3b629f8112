package tsearch

import (
	"context"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// HeadlineToken is one token of a text as ts_headline's hlparsetext sees
// it: every token the parser returns, in order, with what the
// configuration's dictionaries made of it.
type HeadlineToken struct {
	Type TokenType
	Text string
	// Pos is the position the token took, counted on from the pos
	// HeadlineTokens was given as to_tsvector counts them; 0 for a token
	// no dictionary recognized (which takes none).
	Pos int
	// Lexemes are the lexemes of the first dictionary that recognized the
	// token: nil when none did (or none is mapped), empty for a stopword.
	Lexemes []string
}

// HeadlineTokens is hlparsetext's view of text: every token (blanks and
// tags too) with its position and lexemes, positions counting on from pos
// (ts_headline on json carries them from one string to the next); the
// last position taken returns. Tokens of MaxWordLen bytes or more are
// dropped with a notice, as parsetext drops them.
func HeadlineTokens(ctx context.Context, cfg *Config, text string, pos int) ([]HeadlineToken, int, []Notice, error) {
	if cfg.hasPhrases() {
		return nil, pos, nil, pgerror.Unsupported("ts_headline with a thesaurus dictionary")
	}
	var out []HeadlineToken
	var notices []Notice
	err := EachToken(ctx, text, func(t Token) error {
		if len(t.Text) >= MaxWordLen {
			notices = append(notices, tooLongNotice())
			return nil
		}
		h := HeadlineToken{Type: t.Type, Text: t.Text}
		if lex, _, ok := lexizeToken(cfg, t); ok {
			pos++
			h.Pos, h.Lexemes = pos, lex
		}
		out = append(out, h)
		return nil
	})
	return out, pos, notices, err
}

// The default parser's classification of tokens for headlines
// (wparser_def.c's NONWORDTOKEN, NOENDTOKEN, HLIDREPLACE and HLIDSKIP).

// HeadlineNonWord reports whether a headline does not count tokens of
// this type as words: blanks, tags, and the compound tokens (URLs and
// hyphenated words) whose parts follow them as tokens of their own.
func (t TokenType) HeadlineNonWord() bool {
	return t == Blank || t.HeadlineReplaced() || t.HeadlineSkipped()
}

// HeadlineNoEnd reports whether a headline avoids ending on a token of
// this type: non-words, numbers, versions, protocols and entities.
func (t TokenType) HeadlineNoEnd() bool {
	switch t {
	case SFloat, Version, Float, Int, UInt, Protocol, Entity:
		return true
	}
	return t.HeadlineNonWord()
}

// HeadlineReplaced reports whether a headline shows a token of this type
// as a space (tags), unless it highlights the whole text.
func (t TokenType) HeadlineReplaced() bool { return t == Tag }

// HeadlineSkipped reports whether a headline leaves out a token of this
// type (compound tokens, whose parts it shows).
func (t TokenType) HeadlineSkipped() bool {
	return t == URL || t == NumHWord || t == ASCIIHWord || t == HWord
}
