package tsearch

import (
	"sort"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/unaccent"
)

// OptionKind is the node type of a dictionary option's value: numbers
// keep theirs, which serialize_deflist writes unquoted and defGetBoolean
// reads as 0 and 1.
type OptionKind uint8

// The kinds of option values.
const (
	OptionString OptionKind = iota
	OptionInteger
	OptionFloat
)

// Option is one option of a dictionary's definition (CREATE or ALTER TEXT
// SEARCH DICTIONARY), as the DefElem its template's init function reads.
type Option struct {
	// Name is the option's name as written (lower-cased unless quoted).
	Name string
	// Value is its value as defGetString gives it; NoValue says the
	// option was written without one.
	Value   string
	Kind    OptionKind
	NoValue bool
}

// SerializeOptions is serialize_deflist: pg_ts_dict.dictinitoption of the
// options, numbers unquoted and strings quoted (an E before the quote when
// they hold a backslash).
func SerializeOptions(opts []Option) (string, error) {
	var b strings.Builder
	for i, o := range opts {
		if o.NoValue {
			return "", pgerror.Newf(pgerror.SyntaxError, "%s requires a parameter", o.Name)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(o.Name))
		b.WriteString(" = ")
		if o.Kind != OptionString {
			b.WriteString(o.Value)
			continue
		}
		if strings.Contains(o.Value, `\`) {
			b.WriteByte('E')
		}
		b.WriteByte('\'')
		for _, c := range []byte(o.Value) {
			if c == '\'' || c == '\\' {
				b.WriteByte(c)
			}
			b.WriteByte(c)
		}
		b.WriteByte('\'')
	}
	return b.String(), nil
}

// quoteIdent is quote_identifier for an option name: quoted unless it is
// lower-case letters, digits and underscores not starting with a digit.
// (Option names that are keywords do not occur among the templates'.)
func quoteIdent(s string) string {
	plain := s != "" && !('0' <= s[0] && s[0] <= '9')
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_'
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// boolOption is defGetBoolean.
func boolOption(o Option) (bool, error) {
	if o.NoValue {
		return true, nil
	}
	if o.Kind == OptionInteger {
		switch o.Value {
		case "0":
			return false, nil
		case "1":
			return true, nil
		}
	} else if o.Kind == OptionString {
		switch strings.ToLower(o.Value) {
		case "true", "on":
			return true, nil
		case "false", "off":
			return false, nil
		}
	}
	return false, pgerror.Newf(pgerror.SyntaxError, "%s requires a Boolean value", o.Name)
}

// stringOption is defGetString: an option without a value has none.
func stringOption(o Option) (string, error) {
	if o.NoValue {
		return "", pgerror.Newf(pgerror.SyntaxError, "%s requires a parameter", o.Name)
	}
	return o.Value, nil
}

// NewDictionary is the init function of template (a built-in template's
// name, or "unaccent" for the unaccent extension's): the dictionary name
// (with OID oid) the options make, or the error PostgreSQL raises for an
// option the template refuses or a file it cannot read; lookup finds a
// thesaurus's subdictionary by its (possibly qualified) name. A template
// fickle cannot run (ispell) is refused with 0A000; a Snowball dictionary
// of a language fickle has no stemmer for is made Unsupported, refused
// where it is used.
func NewDictionary(template, name string, oid uint32, opts []Option, lookup func(name string) (*Dictionary, error)) (*Dictionary, error) {
	d := &Dictionary{Name: name, OID: oid, Template: template}
	var err error
	switch template {
	case "simple":
		err = d.initSimple(opts)
	case "synonym":
		err = d.initSynonym(opts)
	case "snowball":
		err = d.initSnowball(opts)
	case "unaccent":
		err = d.initUnaccent(opts)
	case "thesaurus":
		err = d.initThesaurus(opts, lookup)
	default:
		return nil, pgerror.Unsupported("text search template \"" + template + "\"")
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// initSimple is dsimple_init: StopWords (a file's words are stopwords)
// and Accept (false: a word that is no stopword is not recognized, for
// the next dictionary to try).
func (d *Dictionary) initSimple(opts []Option) error {
	var stop map[string]bool
	accept, stopLoaded, acceptLoaded := true, false, false
	for _, o := range opts {
		switch o.Name {
		case "stopwords":
			if stopLoaded {
				return pgerror.New(pgerror.InvalidParameterValue, "multiple StopWords parameters")
			}
			if err := loadStopWords(o, &stop); err != nil {
				return err
			}
			stopLoaded = true
		case "accept":
			if acceptLoaded {
				return pgerror.New(pgerror.InvalidParameterValue, "multiple Accept parameters")
			}
			var err error
			if accept, err = boolOption(o); err != nil {
				return err
			}
			acceptLoaded = true
		default:
			return pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized simple dictionary parameter: \"%s\"", o.Name)
		}
	}
	d.lexize = func(word string) ([]string, bool) {
		w := Lower(word)
		switch {
		case w == "" || stop[w]:
			return []string{}, false
		case accept:
			return []string{w}, false
		}
		return nil, false
	}
	return nil
}

// loadStopWords is readstoplist for a StopWords option: an empty name
// loads none.
func loadStopWords(o Option, into *map[string]bool) error {
	file, err := stringOption(o)
	if err != nil || file == "" {
		return err
	}
	*into, err = readStopWords(file)
	return err
}

// synonym is one line of a synonym file.
type synonym struct {
	in, out string
	prefix  bool
}

// initSynonym is dsynonym_init: Synonyms names the file (its lines map
// their first word to their second; a second word ending in * matches as
// a prefix), CaseSensitive keeps both words' case.
func (d *Dictionary) initSynonym(opts []Option) error {
	file, caseSensitive := "", false
	var err error
	for _, o := range opts {
		switch o.Name {
		case "synonyms":
			if file, err = stringOption(o); err != nil {
				return err
			}
		case "casesensitive":
			if caseSensitive, err = boolOption(o); err != nil {
				return err
			}
		default:
			return pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized synonym parameter: \"%s\"", o.Name)
		}
	}
	if file == "" {
		return pgerror.New(pgerror.InvalidParameterValue, "missing Synonyms parameter")
	}
	lines, err := readConfigFile(file, "syn", "synonym")
	if err != nil {
		return err
	}
	var syns []synonym
	for _, l := range lines {
		in, rest, _ := nextWord(l, false)
		if in == "" || rest == "" {
			continue
		}
		out, _, prefix := nextWord(rest[1:], true)
		if out == "" && !prefix {
			continue
		}
		if !caseSensitive {
			in, out = Lower(in), Lower(out)
		}
		syns = append(syns, synonym{in: in, out: out, prefix: prefix})
	}
	sort.SliceStable(syns, func(i, j int) bool { return syns[i].in < syns[j].in })
	d.lexize = func(word string) ([]string, bool) {
		if word == "" || len(syns) == 0 {
			return nil, false
		}
		if !caseSensitive {
			word = Lower(word)
		}
		i := sort.Search(len(syns), func(i int) bool { return syns[i].in >= word })
		if i == len(syns) || syns[i].in != word {
			return nil, false
		}
		return []string{syns[i].out}, syns[i].prefix
	}
	return nil
}

// nextWord is dict_synonym.c's findwrd: the next word of s delimited by
// white space and what follows it; with star, a last character * is no
// part of the word but makes it a prefix.
func nextWord(s string, star bool) (word, rest string, prefix bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) {
		return "", "", false
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	word, rest = s[i:j], s[j:]
	if star && strings.HasSuffix(word, "*") {
		return word[:len(word)-1], rest, true
	}
	return word, rest, false
}

// snowballLanguages are the languages PostgreSQL 15's Snowball template
// has stemmers for in UTF-8.
var snowballLanguages = []string{"arabic", "armenian", "basque", "catalan", "danish", "dutch", "english", "finnish",
	"french", "german", "greek", "hindi", "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali",
	"norwegian", "porter", "portuguese", "romanian", "russian", "serbian", "spanish", "swedish", "tamil", "turkish",
	"yiddish"}

// snowballStemmers are the Snowball stemmers fickle has, by language.
var snowballStemmers = map[string]func(string) string{"english": StemEnglish, "french": StemFrench}

// initSnowball is dsnowball_init: Language (matched ignoring case) and
// StopWords. fickle stems English and French (snowballStemmers); a
// dictionary of another language is made, and refused where it is used.
func (d *Dictionary) initSnowball(opts []Option) error {
	var stop map[string]bool
	stopLoaded, language := false, ""
	for _, o := range opts {
		switch o.Name {
		case "stopwords":
			if stopLoaded {
				return pgerror.New(pgerror.InvalidParameterValue, "multiple StopWords parameters")
			}
			if err := loadStopWords(o, &stop); err != nil {
				return err
			}
			stopLoaded = true
		case "language":
			if language != "" {
				return pgerror.New(pgerror.InvalidParameterValue, "multiple Language parameters")
			}
			l, err := stringOption(o)
			if err != nil {
				return err
			}
			known := false
			for _, k := range snowballLanguages {
				known = known || strings.EqualFold(k, l)
			}
			if !known {
				return pgerror.Newf(pgerror.UndefinedObject, "no Snowball stemmer available for language \"%s\" and encoding \"UTF8\"", l)
			}
			language = strings.ToLower(l)
		default:
			return pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized Snowball parameter: \"%s\"", o.Name)
		}
	}
	if language == "" {
		return pgerror.New(pgerror.InvalidParameterValue, "missing Language parameter")
	}
	stem := snowballStemmers[language]
	if stem == nil {
		d.Unsupported = true
		d.lexize = func(string) ([]string, bool) { return nil, false }
		return nil
	}
	d.lexize = func(word string) ([]string, bool) {
		w := Lower(word)
		switch {
		case len(word) > snowballMaxLen:
			return []string{w}, false
		case w == "" || stop[w]:
			return []string{}, false
		}
		return []string{stem(w)}, false
	}
	return nil
}

// initUnaccent is unaccent_init: Rules names the rules file. The
// dictionary filters (TSL_FILTER): a word it changes goes on, changed,
// to the next dictionary.
func (d *Dictionary) initUnaccent(opts []Option) error {
	var rules *unaccent.Rules
	for _, o := range opts {
		switch o.Name {
		case "rules":
			if rules != nil {
				return pgerror.New(pgerror.InvalidParameterValue, "multiple Rules parameters")
			}
			file, err := stringOption(o)
			if err != nil {
				return err
			}
			lines, err := readConfigFile(file, "rules", "unaccent")
			if err != nil {
				return err
			}
			rules = unaccent.Parse(strings.Join(lines, ""))
		default:
			return pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized Unaccent parameter: \"%s\"", o.Name)
		}
	}
	if rules == nil {
		return pgerror.New(pgerror.InvalidParameterValue, "missing Rules parameter")
	}
	d.Filter = true
	d.lexize = func(word string) ([]string, bool) {
		if out, changed := rules.Lexize(word); changed {
			return []string{out}, false
		}
		return nil, false
	}
	return nil
}

// NewFunc is a dictionary whose lexize is fn (an extension's): filter
// says it filters, as unaccent's does.
func NewFunc(name string, oid uint32, template string, filter bool, fn func(word string) []string) *Dictionary {
	return &Dictionary{Name: name, OID: oid, Template: template, Filter: filter,
		lexize: func(word string) ([]string, bool) { return fn(word), false }}
}
