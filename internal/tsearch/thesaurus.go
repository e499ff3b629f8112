package tsearch

import (
	"cmp"
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The thesaurus template, as dict_thesaurus.c runs it: a file of rules
// "sample words : substitute words" (? in a sample stands for a stopword,
// * before a substitute word keeps it as written), the samples' and the
// substitutes' words normalized by a subdictionary when the dictionary is
// made, and a phrase of the text matching a sample replaced by its
// substitute, the longest match winning.

// thEntry is a LexemeInfo: a sample word's place, in rule idsubst at
// position posinsubst, as one of tnvariant lexemes of its variant.
type thEntry struct {
	idsubst    int
	posinsubst int
	tnvariant  int
}

// thSubst is a TheSubstitute: the position of its rule's last sample
// word and the substitute's lexemes.
type thSubst struct {
	lastLexeme int
	res        []tsLex
}

// thesaurus is a DictThesaurus.
type thesaurus struct {
	sub *Dictionary
	// words are the sample words' lexemes' places, each list ascending
	// by rule, position and variant size; stop the stopword marker's.
	words map[string][]*thEntry
	stop  []*thEntry
	subst []thSubst
}

// thRawWord is a word of a rule as the file has it.
type thRawWord struct {
	word       string
	idsubst    int
	posinsubst int
	asIs       bool
}

// readThesaurus is thesaurusRead: the rules of the data directory's file
// base.ths.
func readThesaurus(base string) (samples []thRawWord, substs [][]thRawWord, err error) {
	lines, err := readConfigFile(base, "ths", "thesaurus")
	if err != nil {
		return nil, nil, err
	}
	fileErr := func(msg string) error { return pgerror.New(pgerror.ConfigFileError, msg) }
	const (
		waitLex = iota
		inLex
		waitSubs
		inSubs
	)
	for _, line := range lines {
		i := 0
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) || line[i] == '#' || line[i] == '\n' || line[i] == '\r' {
			continue
		}
		id := len(substs)
		state, begin, pos, useAsIs := waitLex, 0, 0, false
		var subst []thRawWord
		for p := 0; p < len(line); p++ {
			c := line[p]
			switch state {
			case waitLex:
				if c == ':' {
					if pos == 0 {
						return nil, nil, fileErr("unexpected delimiter")
					}
					state = waitSubs
				} else if !isSpace(c) {
					begin, state = p, inLex
				}
			case inLex:
				if c == ':' || isSpace(c) {
					samples = append(samples, thRawWord{word: line[begin:p], idsubst: id, posinsubst: pos})
					pos++
					state = waitLex
					if c == ':' {
						state = waitSubs
					}
				}
			case waitSubs:
				switch {
				case c == '*':
					useAsIs, state, begin = true, inSubs, p+1
				case c == '\\':
					useAsIs, state, begin = false, inSubs, p+1
				case !isSpace(c):
					useAsIs, state, begin = false, inSubs, p
				}
			case inSubs:
				if isSpace(c) {
					if p == begin {
						return nil, nil, fileErr("unexpected end of line or lexeme")
					}
					subst = append(subst, thRawWord{word: line[begin:p], idsubst: id, posinsubst: pos, asIs: useAsIs})
					state = waitSubs
				}
			}
		}
		if state == inSubs {
			if len(line) == begin {
				return nil, nil, fileErr("unexpected end of line or lexeme")
			}
			subst = append(subst, thRawWord{word: line[begin:], idsubst: id, posinsubst: pos, asIs: useAsIs})
		}
		if len(subst) == 0 || pos == 0 {
			return nil, nil, fileErr("unexpected end of line")
		}
		if len(subst) > 0xffff || pos > 0xffff {
			return nil, nil, fileErr("too many lexemes in thesaurus entry")
		}
		substs = append(substs, subst)
	}
	return samples, substs, nil
}

// initThesaurus is thesaurus_init: DictFile names the rules file,
// Dictionary the subdictionary (found by lookup) that normalizes their
// words.
func (d *Dictionary) initThesaurus(opts []Option, lookup func(name string) (*Dictionary, error)) error {
	var samples []thRawWord
	var substs [][]thRawWord
	loaded, subName := false, ""
	for _, o := range opts {
		switch o.Name {
		case "dictfile":
			if loaded {
				return pgerror.New(pgerror.InvalidParameterValue, "multiple DictFile parameters")
			}
			file, err := stringOption(o)
			if err != nil {
				return err
			}
			if samples, substs, err = readThesaurus(file); err != nil {
				return err
			}
			loaded = true
		case "dictionary":
			if subName != "" {
				return pgerror.New(pgerror.InvalidParameterValue, "multiple Dictionary parameters")
			}
			var err error
			if subName, err = stringOption(o); err != nil {
				return err
			}
		default:
			return pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized Thesaurus parameter: \"%s\"", o.Name)
		}
	}
	if !loaded {
		return pgerror.New(pgerror.InvalidParameterValue, "missing DictFile parameter")
	}
	if subName == "" {
		return pgerror.New(pgerror.InvalidParameterValue, "missing Dictionary parameter")
	}
	sub, err := lookup(subName)
	if err != nil {
		return err
	}
	if sub.thesaurus != nil {
		return pgerror.New(pgerror.InternalError, "forbidden call of thesaurus or nested call")
	}
	if sub.Unsupported {
		return pgerror.Unsupported("text search dictionary \"" + sub.Name + "\" as a thesaurus's subdictionary")
	}
	t := &thesaurus{sub: sub, words: map[string][]*thEntry{}}
	if err := t.compileSamples(samples); err != nil {
		return err
	}
	if err := t.compileSubstitutes(substs); err != nil {
		return err
	}
	d.thesaurus = t
	return nil
}

// compileSamples is compileTheLexeme: each sample word's lexemes (its
// variants') with their places, each place once.
func (t *thesaurus) compileSamples(samples []thRawWord) error {
	for _, w := range samples {
		if w.word == "?" {
			t.stop = append(t.stop, &thEntry{idsubst: w.idsubst, posinsubst: w.posinsubst, tnvariant: 1})
			continue
		}
		lex := t.sub.lexemes(w.word, nil)
		switch {
		case lex == nil:
			return pgerror.Newf(pgerror.ConfigFileError, "thesaurus sample word \"%s\" isn't recognized by subdictionary (rule %d)", w.word, w.idsubst+1)
		case len(lex) == 0:
			return pgerror.Newf(pgerror.ConfigFileError, "thesaurus sample word \"%s\" is a stop word (rule %d)", w.word, w.idsubst+1).
				WithHint("Use \"?\" to represent a stop word within a sample phrase.")
		}
		for p := 0; p < len(lex); {
			q := p
			for q < len(lex) && lex[q].nvariant == lex[p].nvariant {
				q++
			}
			for _, l := range lex[p:q] {
				t.words[l.word] = append(t.words[l.word], &thEntry{idsubst: w.idsubst, posinsubst: w.posinsubst, tnvariant: q - p})
			}
			p = q
		}
	}
	order := func(a, b *thEntry) int {
		return cmp.Or(cmp.Compare(a.idsubst, b.idsubst), cmp.Compare(a.posinsubst, b.posinsubst), cmp.Compare(a.tnvariant, b.tnvariant))
	}
	same := func(a, b *thEntry) bool { return order(a, b) == 0 }
	for w, es := range t.words {
		slices.SortStableFunc(es, order)
		t.words[w] = slices.CompactFunc(es, same)
	}
	slices.SortStableFunc(t.stop, order)
	t.stop = slices.CompactFunc(t.stop, same)
	return nil
}

// compileSubstitutes is compileTheSubstitute: each rule's substitute
// normalized by the subdictionary (a word marked * kept as written), its
// later words each taking a position of their own.
func (t *thesaurus) compileSubstitutes(substs [][]thRawWord) error {
	t.subst = make([]thSubst, len(substs))
	for i, words := range substs {
		var res []tsLex
		for n, w := range words {
			var lexized []tsLex
			if w.asIs {
				lexized = []tsLex{{word: w.word, nvariant: uint16(n)}}
			} else {
				lexized = t.sub.lexemes(w.word, nil)
			}
			switch {
			case lexized == nil:
				return pgerror.Newf(pgerror.ConfigFileError, "thesaurus substitute word \"%s\" isn't recognized by subdictionary (rule %d)", w.word, i+1)
			case len(lexized) == 0:
				return pgerror.Newf(pgerror.ConfigFileError, "thesaurus substitute word \"%s\" is a stop word (rule %d)", w.word, i+1)
			}
			first := len(res)
			res = append(res, lexized...)
			if first > 0 {
				res[first].flags |= lexAddPos
			}
		}
		t.subst[i] = thSubst{lastLexeme: words[0].posinsubst - 1, res: res}
	}
	return nil
}

// matchID is matchIdSubst: whether the variants found so far (none: any)
// include rule id.
func matchID(stored []*thEntry, id int) bool {
	if len(stored) == 0 {
		return true
	}
	for _, e := range stored {
		if e.idsubst == id {
			return true
		}
	}
	return false
}

// findVariant is findVariant: to in, the places at position curpos of the
// rules every one of the token's lexemes (newin, each's places) is in,
// of variants of that many lexemes, and that continue the rules stored
// matched so far; the latest found first.
func findVariant(in, stored []*thEntry, curpos int, newin [][]*thEntry) []*thEntry {
	n := len(newin)
	at := make([]int, n)
	get := func(i int) *thEntry {
		if at[i] < len(newin[i]) {
			return newin[i][at[i]]
		}
		return nil
	}
	for {
		ptr := get(0)
		i := 0
		for i < n {
			for get(i) != nil && get(i).idsubst < ptr.idsubst {
				at[i]++
			}
			if get(i) == nil {
				return in
			}
			if get(i).idsubst > ptr.idsubst {
				ptr, i = get(i), 0
				continue
			}
			for get(i).idsubst == ptr.idsubst {
				if get(i).posinsubst == curpos && get(i).tnvariant == n {
					ptr = get(i)
					break
				}
				at[i]++
				if get(i) == nil {
					return in
				}
			}
			if get(i).idsubst != ptr.idsubst {
				ptr, i = get(i), 0
				continue
			}
			i++
		}
		if matchID(stored, ptr.idsubst) && (len(in) == 0 || !matchID(in, ptr.idsubst)) {
			in = append([]*thEntry{ptr}, in...)
		}
		for i := range at {
			at[i]++
		}
	}
}

// lexize is thesaurus_lexize: the next token of a phrase through the
// subdictionary, the rules it continues kept in st; a rule it completes
// gives its substitute (st.getNext: a longer rule may still match).
func (t *thesaurus) lexize(word string, st *dictState) []tsLex {
	if st.isEnd {
		return nil
	}
	stored := st.private
	curpos := 0
	if len(stored) > 0 {
		curpos = stored[0].posinsubst + 1
	}
	res := t.sub.lexemes(word, nil)
	var info []*thEntry
	if len(res) > 0 {
		for p := 0; p < len(res); {
			q := p
			for q < len(res) && res[q].nvariant == res[p].nvariant {
				q++
			}
			infos := make([][]*thEntry, 0, q-p)
			for _, l := range res[p:q] {
				es := t.words[l.word]
				if es == nil {
					break
				}
				infos = append(infos, es)
			}
			if len(infos) == q-p {
				info = findVariant(info, stored, curpos, infos)
			}
			p = q
		}
	} else if res != nil {
		info = findVariant(nil, stored, curpos, [][]*thEntry{t.stop})
	}
	st.private = info
	if len(info) == 0 {
		st.getNext = false
		return nil
	}
	for _, e := range info {
		if t.subst[e.idsubst].lastLexeme == curpos {
			st.getNext = len(info) > 1
			return slices.Clone(t.subst[e.idsubst].res)
		}
	}
	st.getNext = true
	return nil
}

// tsLexize is ts_lexize of a thesaurus: the one token, then the end of
// the text when the thesaurus asks for more.
func (t *thesaurus) tsLexize(word string) []string {
	var st dictState
	res := t.lexize(word, &st)
	if st.getNext {
		st.isEnd = true
		if more := t.lexize(word, &st); more != nil {
			res = more
		}
	}
	if res == nil {
		return nil
	}
	out := make([]string, len(res))
	for i, l := range res {
		out[i] = l.word
	}
	return out
}
