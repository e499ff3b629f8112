// Package tsearch is the text side of PostgreSQL's full-text search, as
// PostgreSQL 15 does it in a UTF-8 database whose LC_CTYPE is C: the
// default parser, the simple and english_stem dictionaries, and the
// simple and english configurations. It knows nothing of SQL or of the
// tsvector and tsquery types; sqlexec builds those from what it returns.
//
// # Parser
//
// Parse and EachToken split text into the default parser's tokens
// (ts_parse('default', text)): the state machine of wparser_def.c,
// transcribed table by table (states.go), with its stack of pushed
// states, its look-ahead sub-parsers for hosts and URL paths, and the
// <script>/<style> skipping. Character classes are the C locale's: ASCII
// letters, digits and spaces as ctype.h has them, and every non-ASCII
// character a letter (so "über" is a word, not an asciiword). Text that
// is not valid UTF-8 or holds a NUL byte, which PostgreSQL's text cannot,
// gives ErrInvalidText.
//
// # Dictionaries and configurations
//
// Simple lower-cases (ASCII letters only, as tolower() in the C locale)
// and has no stopwords. EnglishStem lower-cases, gives an empty result
// for the 127 words of english.stop, leaves words over 1000 bytes only
// lower-cased, and stems the rest with Snowball's English (Porter2)
// stemmer (StemEnglish). Dictionary.Lexize is ts_lexize: nil for a word
// the dictionary does not know (neither does), empty for a stopword.
//
// SimpleConfig, EnglishConfig and FrenchConfig map token types to
// dictionaries as pg_ts_config_map does in PostgreSQL 15; blank, tag,
// protocol and entity tokens map to none and are not indexed. PostgreSQL's
// other built-in configurations and Snowball dictionaries (german,
// spanish, ...) are not
// here: IsUnsupportedConfig and IsUnsupportedDictionary name them so that
// the SQL layer refuses them with 0A000 instead of calling them unknown.
//
// NewDictionary runs a template's init function for CREATE TEXT SEARCH
// DICTIONARY: simple (StopWords, Accept), synonym (Synonyms,
// CaseSensitive), snowball (Language, StopWords; English and French stem, other
// languages make an Unsupported dictionary), thesaurus (DictFile,
// Dictionary) and unaccent's (Rules; a filtering dictionary). The files
// come from PostgreSQL's tsearch_data directory (DataDir: SetDataDir,
// else $FICKLE_TSEARCH_DATA, else pg_config's share directory), read and
// checked as ts_utils.c and the dictionaries read them, with PostgreSQL's
// errors. The SQL layer builds a Config of its own for a user's
// configuration.
//
// # What to_tsvector and the tsquery functions get
//
// Document(cfg, text) is parsetext as to_tsvector runs it: every token
// through its type's dictionaries in order until one recognizes it (a
// filtering dictionary's lexeme going on to the next; a thesaurus reading
// on for a phrase, as ts_parse.c's LexizeExec does); each recognized token
// takes the next position (counted from 1), a stopword's included, and
// each of its lexemes gets that position; tokens whose type has no
// dictionary take none. Positions above MaxPos (16383) are MaxPos.
// Tokens of MaxWordLen (2047) bytes or more are skipped, each with the
// Notice PostgreSQL raises ("word is too long to be indexed"). The
// lexemes come in text order with duplicates; sorting them, merging a
// lexeme's positions and keeping at most 255 of them is the tsvector's.
//
// The tsquery functions (to_tsquery and its kin) run Document on each
// operand of the query text: sqlexec hands its lexemes and positions to the
// tsquery parser, which joins them as PostgreSQL's pushval_morph does.
//
// HeadlineTokens(cfg, text, pos) is what ts_headline's hlparsetext sees:
// every token, blanks and tags included, with its type, the position it
// took and its lexemes (too-long tokens dropped as Document drops them);
// the TokenType methods HeadlineNonWord, HeadlineNoEnd, HeadlineReplaced
// and HeadlineSkipped classify tokens as the default parser's headline
// selector does. sqlexec/types selects and marks the headline.
//
// Debug(cfg, text) is ts_debug: per token, its type, the dictionaries
// mapped to it, the first that recognized it and its lexemes.
//
// Every function here is compared with a PostgreSQL 15 on the regression
// suite's corpus and SQL files, random text and some 140,000 English
// words when FICKLE_TEST_PG is set (pg_test.go).
package tsearch
