package tsearch

import "strings"

// Dictionary is a text-search dictionary: it normalizes one token.
type Dictionary struct {
	// Name is the dictionary's name in pg_ts_dict.
	Name string
	// OID is its pg_ts_dict oid in PostgreSQL 15.
	OID uint32
	// Template is the pg_ts_template it is made from.
	Template string
	// InitOption is pg_ts_dict.dictinitoption.
	InitOption string
	// Filter says the dictionary filters (TSL_FILTER, unaccent): the
	// lexeme it gives a token replaces the token for the dictionaries
	// after it, instead of being the token's.
	Filter bool
	// Unsupported says fickle cannot run the dictionary (a Snowball
	// language it has no stemmer for): the SQL layer refuses it (0A000)
	// where it would be used.
	Unsupported bool
	// lexize returns the token's lexemes as Lexize does, and whether they
	// match as prefixes in a tsquery (TSL_PREFIX).
	lexize func(word string) ([]string, bool)
	// thesaurus, when set, makes the dictionary a thesaurus, which reads
	// phrases instead (lexize is unused).
	thesaurus *thesaurus
}

// Lexize is ts_lexize: the lexemes the dictionary gives the token, nil
// when it does not recognize it, and an empty non-nil slice when it
// recognizes it as a stopword.
func (d *Dictionary) Lexize(word string) []string {
	if d.thesaurus != nil {
		return d.thesaurus.tsLexize(word)
	}
	lex, _ := d.lexize(word)
	return lex
}

// Lower lower-cases as PostgreSQL's lowerstr does in the C locale: ASCII
// letters only (tolower() of the C library), every other byte unchanged.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// snowballMaxLen is the longest word (in bytes) PostgreSQL hands its
// Snowball stemmers; a longer one is only lower-cased.
const snowballMaxLen = 1000

// Simple is the simple dictionary: the lower-cased token, no stopwords.
var Simple = &Dictionary{Name: "simple", OID: 3765, Template: "simple", lexize: func(word string) ([]string, bool) {
	w := Lower(word)
	if w == "" {
		return []string{}, false
	}
	return []string{w}, false
}}

// EnglishStem is the english_stem dictionary: Snowball's English stemmer
// with the english stopword list.
var EnglishStem = &Dictionary{Name: "english_stem", OID: 13163, Template: "snowball",
	InitOption: "language = 'english', stopwords = 'english'", lexize: func(word string) ([]string, bool) {
		w := Lower(word)
		if w == "" || englishStopwords[w] {
			return []string{}, false
		}
		if len(w) > snowballMaxLen {
			return []string{w}, false
		}
		return []string{StemEnglish(w)}, false
	}}

// FrenchStem is the french_stem dictionary: Snowball's French stemmer
// with the french stopword list.
var FrenchStem = &Dictionary{Name: "french_stem", OID: 13167, Template: "snowball",
	InitOption: "language = 'french', stopwords = 'french'", lexize: func(word string) ([]string, bool) {
		w := Lower(word)
		if w == "" || frenchStopwords[w] {
			return []string{}, false
		}
		if len(w) > snowballMaxLen {
			return []string{w}, false
		}
		return []string{StemFrench(w)}, false
	}}

// Dictionaries are the dictionaries fickle has.
var Dictionaries = []*Dictionary{Simple, EnglishStem, FrenchStem}

// DictionaryByName returns the dictionary of that name (lower case,
// unqualified).
func DictionaryByName(name string) (*Dictionary, bool) {
	for _, d := range Dictionaries {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// englishStopwords is src/backend/snowball/stopwords/english.stop.
var englishStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves
what which who whom this that these those am is are was were be been being have has had having
do does did doing a an the and but if or because as until while of at by for with about against
between into through during before after above below to from up down in out on off over under
again further then once here there when where why how all any both each few more most other some
such no nor not only own same so than too very s t can will just don should now`) {
		m[w] = true
	}
	return m
}()

// frenchStopwords is src/backend/snowball/stopwords/french.stop.
var frenchStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`au aux avec ce ces dans de des du elle en et eux il je la le leur lui ma mais me même mes moi mon ne nos notre
nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous c d j l à m n
s t y été étée étées étés étant étante étants étantes suis es est sommes êtes sont serai seras sera serons
serez seront serais serait serions seriez seraient étais était étions étiez étaient fus fut fûmes fûtes furent
sois soit soyons soyez soient fusse fusses fût fussions fussiez fussent ayant ayante ayantes ayants eu eue
eues eus ai as avons avez ont aurai auras aura aurons aurez auront aurais aurait aurions auriez auraient avais
avait avions aviez avaient eut eûmes eûtes eurent aie aies ait ayons ayez aient eusse eusses eût eussions
eussiez eussent`) {
		m[w] = true
	}
	return m
}()
