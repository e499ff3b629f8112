package tsearch

import (
	"context"
	"fmt"
)

// Config is a text-search configuration: the default parser and, per
// token type, the dictionaries tried in order (pg_ts_config_map).
type Config struct {
	// Name is the configuration's name in pg_ts_config.
	Name string
	// OID is its pg_ts_config oid in PostgreSQL 15.
	OID uint32
	// Map lists each token type's dictionaries; a type without any is
	// not indexed (blank, tag, protocol, entity).
	Map [LastTokenType + 1][]*Dictionary
}

// ParserOID is the default parser's pg_ts_parser oid.
const ParserOID = 3722

// SimpleConfig is the simple configuration: every word and number type
// to the simple dictionary.
var SimpleConfig = func() *Config {
	c := &Config{Name: "simple", OID: 3748}
	for _, t := range indexedTypes {
		c.Map[t] = []*Dictionary{Simple}
	}
	return c
}()

// EnglishConfig is the english configuration: words through english_stem,
// the rest through simple.
var EnglishConfig = stemmingConfig("english", 13164, EnglishStem)

// FrenchConfig is the french configuration: words through french_stem,
// the rest through simple.
var FrenchConfig = stemmingConfig("french", 13168, FrenchStem)

// stemmingConfig is a built-in language's configuration, as
// snowball_create.sql makes them: words through the language's stemmer,
// the other indexed tokens through simple.
func stemmingConfig(name string, oid uint32, stem *Dictionary) *Config {
	c := &Config{Name: name, OID: oid}
	for _, t := range indexedTypes {
		c.Map[t] = []*Dictionary{Simple}
	}
	for _, t := range []TokenType{ASCIIWord, Word, ASCIIHWord, HWord, HWordASCIIPart, HWordPart} {
		c.Map[t] = []*Dictionary{stem}
	}
	return c
}

// indexedTypes are the token types PostgreSQL's built-in configurations
// map to a dictionary.
var indexedTypes = []TokenType{ASCIIWord, Word, NumWord, Email, URL, Host, SFloat, Version, HWordNumPart,
	HWordPart, HWordASCIIPart, NumHWord, ASCIIHWord, HWord, URLPath, File, Float, Int, UInt}

// Configs are the configurations fickle has.
var Configs = []*Config{SimpleConfig, EnglishConfig, FrenchConfig}

// ConfigByName returns the configuration of that name (lower case,
// unqualified).
func ConfigByName(name string) (*Config, bool) {
	for _, c := range Configs {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// unsupportedLanguages are the Snowball languages PostgreSQL 15 ships a
// configuration (LANGUAGE) and a dictionary (LANGUAGE_stem) for, which
// fickle does not have.
var unsupportedLanguages = []string{"arabic", "armenian", "basque", "catalan", "danish", "dutch", "finnish",
	"german", "greek", "hindi", "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali",
	"norwegian", "portuguese", "romanian", "russian", "serbian", "spanish", "swedish", "tamil", "turkish", "yiddish"}

// IsUnsupportedConfig reports whether name is a built-in configuration
// of PostgreSQL 15 that fickle does not have: the SQL layer refuses it
// (0A000) rather than calling it unknown.
func IsUnsupportedConfig(name string) bool {
	for _, l := range unsupportedLanguages {
		if l == name {
			return true
		}
	}
	return false
}

// IsUnsupportedDictionary is IsUnsupportedConfig for dictionaries.
func IsUnsupportedDictionary(name string) bool {
	for _, l := range unsupportedLanguages {
		if l+"_stem" == name {
			return true
		}
	}
	return false
}

// MaxWordLen is MAXSTRLEN: a token of this many bytes or more is not
// indexed ("word is too long to be indexed").
const MaxWordLen = 1<<11 - 1

// MaxPos is the largest position a tsvector holds (MAXENTRYPOS-1): later
// words all take this position.
const MaxPos = 1<<14 - 1

// Lexeme is one normalized word of a text and its position, counted from
// 1 as to_tsvector's parsetext counts them.
type Lexeme struct {
	Word string
	Pos  int
	// Prefix says the lexeme matches as a prefix in a tsquery (a synonym
	// dictionary's word ending in *).
	Prefix bool
	// Variant is the lexeme's variant among its token's alternatives (a
	// thesaurus substitute's word number), which a tsquery ORs.
	Variant int
}

// Notice is a notice PostgreSQL raises while normalizing text.
type Notice struct {
	Message string
	Detail  string
}

func tooLongNotice() Notice {
	return Notice{Message: "word is too long to be indexed",
		Detail: fmt.Sprintf("Words longer than %d characters are ignored.", MaxWordLen)}
}

// parseText is PostgreSQL's parsetext: every token of text through the
// configuration's dictionaries (lexizer), each token (or phrase) a
// dictionary recognizes taking the next position after pos (a stopword's
// too), each lexeme at its token's position, a thesaurus substitute's
// later words at the positions after; it returns the last position taken.
// Tokens of MaxWordLen bytes or more are skipped with a notice.
func parseText(ctx context.Context, cfg *Config, text string, pos int) ([]Lexeme, int, []Notice, error) {
	var out []Lexeme
	var notices []Notice
	ld := &lexizer{cfg: cfg}
	drain := func() {
		for norms := ld.exec(); norms != nil; norms = ld.exec() {
			pos++
			for _, l := range norms {
				if l.flags&lexAddPos != 0 {
					pos++
				}
				out = append(out, Lexeme{Word: l.word, Pos: pos, Prefix: l.flags&lexPrefix != 0, Variant: int(l.nvariant)})
			}
		}
	}
	err := EachToken(ctx, text, func(t Token) error {
		if len(t.Text) >= MaxWordLen {
			notices = append(notices, tooLongNotice())
			return nil
		}
		ld.add(t.Type, t.Text)
		drain()
		return nil
	})
	if err == nil {
		ld.add(0, "")
		drain()
	}
	return out, pos, notices, err
}

// lexizeToken is LexizeExec for one token of a configuration without a
// thesaurus (ts_headline's view of the text): its type's dictionaries in
// order until one recognizes it, a filtering dictionary's lexeme taking
// the token's place for the dictionaries after it; ok false when none
// recognizes it (a filter's lexeme that no later dictionary takes
// included).
func lexizeToken(cfg *Config, t Token) (lex []string, prefix, ok bool) {
	word := t.Text
	for _, d := range cfg.Map[t.Type] {
		lex, prefix := d.lexize(word)
		if lex == nil {
			continue
		}
		if d.Filter && len(lex) > 0 {
			word = lex[0]
			continue
		}
		return lex, prefix, true
	}
	return nil, false, false
}

// Document is to_tsvector's view of text: each lexeme with its position,
// in text order, positions capped at MaxPos. Duplicates stay; building
// the tsvector (sorting, merging a lexeme's positions, keeping at most
// 256 of them) is the tsvector type's work.
func Document(ctx context.Context, cfg *Config, text string) ([]Lexeme, []Notice, error) {
	lex, _, notices, err := DocumentAfter(ctx, cfg, text, 0)
	return lex, notices, err
}

// DocumentAfter is Document for a text that continues a document whose
// last position was pos (tsvector_update_trigger parses its columns as
// one text): positions count on from pos, and the last one taken returns.
func DocumentAfter(ctx context.Context, cfg *Config, text string, pos int) ([]Lexeme, int, []Notice, error) {
	lex, end, notices, err := parseText(ctx, cfg, text, pos)
	for i := range lex {
		if lex[i].Pos > MaxPos {
			lex[i].Pos = MaxPos
		}
	}
	return lex, end, notices, err
}

// DebugRow is one row of ts_debug.
type DebugRow struct {
	Type  TokenType
	Token string
	// Dictionaries are the dictionaries the token type maps to.
	Dictionaries []*Dictionary
	// Dictionary is the first that recognized the token, or the first
	// mapped when none did (ts_debug orders them so); nil when none is
	// mapped. Lexemes are its lexemes, nil when it did not recognize the
	// token.
	Dictionary *Dictionary
	Lexemes    []string
}

// Debug is ts_debug(cfg, text).
func Debug(ctx context.Context, cfg *Config, text string) ([]DebugRow, error) {
	var out []DebugRow
	err := EachToken(ctx, text, func(t Token) error {
		row := DebugRow{Type: t.Type, Token: t.Text, Dictionaries: cfg.Map[t.Type]}
		for _, d := range row.Dictionaries {
			if lex := d.Lexize(t.Text); lex != nil {
				row.Dictionary, row.Lexemes = d, lex
				break
			}
		}
		if row.Dictionary == nil && len(row.Dictionaries) > 0 {
			row.Dictionary = row.Dictionaries[0]
		}
		out = append(out, row)
		return nil
	})
	return out, err
}
