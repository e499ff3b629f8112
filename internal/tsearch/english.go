package tsearch

import "strings"

// StemEnglish is Snowball's English (Porter2) stemmer as PostgreSQL 15's
// english_stem dictionary runs it (src/backend/snowball/libstemmer/
// stem_UTF_8_english.c), on a lower-cased word. It works on characters;
// a character outside a-z is a consonant to it.
func StemEnglish(word string) string {
	w := []rune(word)
	if r, ok := englishException1(w); ok {
		return r
	}
	if len(w) < 3 {
		return word
	}
	s := &stemmer{w: w}
	s.prelude()
	s.markRegions()
	s.step1a()
	if !s.exception2() {
		s.step1b()
		s.step1c()
		s.step2()
		s.step3()
		s.step4()
		s.step5()
	}
	if s.yFound {
		for i, c := range s.w {
			if c == 'Y' {
				s.w[i] = 'y'
			}
		}
	}
	return string(s.w)
}

type stemmer struct {
	w      []rune
	p1, p2 int
	yFound bool
}

func isVowel(c rune) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// isVWXY is Snowball's v_WXY grouping: a vowel, w, x or Y.
func isVWXY(c rune) bool { return isVowel(c) || c == 'w' || c == 'x' || c == 'Y' }

func isValidLI(c rune) bool { return strings.ContainsRune("cdeghkmnrt", c) }

var englishException1Words = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
	"sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

func englishException1(w []rune) (string, bool) {
	r, ok := englishException1Words[string(w)]
	return r, ok
}

func (s *stemmer) exception2() bool {
	switch string(s.w) {
	case "inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed":
		return true
	}
	return false
}

func (s *stemmer) prelude() {
	if len(s.w) > 0 && s.w[0] == '\'' {
		s.w = s.w[1:]
	}
	if len(s.w) > 0 && s.w[0] == 'y' {
		s.w[0] = 'Y'
		s.yFound = true
	}
	for i := 1; i < len(s.w); i++ {
		if s.w[i] == 'y' && isVowel(s.w[i-1]) {
			s.w[i] = 'Y'
			s.yFound = true
		}
	}
}

// markRegions sets p1 and p2: R1 starts after the first non-vowel that
// follows a vowel (or after gener, commun, arsen), R2 likewise within R1.
func (s *stemmer) markRegions() {
	n := len(s.w)
	s.p1, s.p2 = n, n
	start := -1
	for _, pre := range []string{"gener", "commun", "arsen"} {
		if strings.HasPrefix(string(s.w), pre) {
			start = len([]rune(pre))
			break
		}
	}
	if start < 0 {
		start = s.pastVowelConsonant(0)
		if start < 0 {
			return
		}
	}
	s.p1 = start
	if p2 := s.pastVowelConsonant(start); p2 >= 0 {
		s.p2 = p2
	}
}

// pastVowelConsonant returns the position after the first non-vowel that
// follows a vowel at or after from, -1 when there is none.
func (s *stemmer) pastVowelConsonant(from int) int {
	i := from
	for i < len(s.w) && !isVowel(s.w[i]) {
		i++
	}
	if i >= len(s.w) {
		return -1
	}
	for i < len(s.w) && isVowel(s.w[i]) {
		i++
	}
	if i >= len(s.w) {
		return -1
	}
	return i + 1
}

func (s *stemmer) hasSuffix(suf string) bool {
	r := []rune(suf)
	if len(r) > len(s.w) {
		return false
	}
	return string(s.w[len(s.w)-len(r):]) == suf
}

// longest returns the longest of the suffixes the word ends with, "" when
// none.
func (s *stemmer) longest(sufs ...string) string {
	best := ""
	for _, suf := range sufs {
		if len(suf) > len(best) && s.hasSuffix(suf) {
			best = suf
		}
	}
	return best
}

func (s *stemmer) replace(suf, with string) {
	s.w = append(s.w[:len(s.w)-len([]rune(suf))], []rune(with)...)
}

// shortBefore is shortv tested at position i (the characters before i).
func (s *stemmer) shortBefore(i int) bool {
	if i >= 3 && !isVWXY(s.w[i-1]) && isVowel(s.w[i-2]) && !isVowel(s.w[i-3]) {
		return true
	}
	return i == 2 && !isVowel(s.w[1]) && isVowel(s.w[0])
}

func hasVowel(w []rune) bool {
	for _, c := range w {
		if isVowel(c) {
			return true
		}
	}
	return false
}

func (s *stemmer) step1a() {
	if suf := s.longest("'", "'s", "'s'"); suf != "" {
		s.replace(suf, "")
	}
	switch suf := s.longest("sses", "ied", "ies", "s", "us", "ss"); suf {
	case "sses":
		s.replace(suf, "ss")
	case "ied", "ies":
		if len(s.w)-3 >= 2 {
			s.replace(suf, "i")
		} else {
			s.replace(suf, "ie")
		}
	case "s":
		if len(s.w) >= 2 && hasVowel(s.w[:len(s.w)-2]) {
			s.replace(suf, "")
		}
	}
}

func (s *stemmer) step1b() {
	switch suf := s.longest("eed", "eedly", "ed", "edly", "ing", "ingly"); suf {
	case "eed", "eedly":
		if len(s.w)-len(suf) >= s.p1 {
			s.replace(suf, "ee")
		}
	case "ed", "edly", "ing", "ingly":
		if !hasVowel(s.w[:len(s.w)-len(suf)]) {
			return
		}
		s.replace(suf, "")
		switch end := s.longest("at", "bl", "iz", "bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"); end {
		case "at", "bl", "iz":
			s.w = append(s.w, 'e')
		case "":
			if len(s.w) == s.p1 && s.shortBefore(len(s.w)) {
				s.w = append(s.w, 'e')
			}
		default:
			s.w = s.w[:len(s.w)-1]
		}
	}
}

func (s *stemmer) step1c() {
	n := len(s.w)
	if n >= 3 && (s.w[n-1] == 'y' || s.w[n-1] == 'Y') && !isVowel(s.w[n-2]) {
		s.w[n-1] = 'i'
	}
}

func (s *stemmer) inR1(suf string) bool { return len(s.w)-len([]rune(suf)) >= s.p1 }
func (s *stemmer) inR2(suf string) bool { return len(s.w)-len([]rune(suf)) >= s.p2 }

// before is the character before suffix suf, 0 at the word's start.
func (s *stemmer) before(suf string) rune {
	i := len(s.w) - len([]rune(suf)) - 1
	if i < 0 {
		return 0
	}
	return s.w[i]
}

var step2Map = map[string]string{
	"tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent",
	"izer": "ize", "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate",
	"alism": "al", "aliti": "al", "alli": "al", "fulness": "ful", "ousli": "ous", "ousness": "ous",
	"iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble", "ogi": "og", "fulli": "ful",
	"lessli": "less", "li": "",
}

func (s *stemmer) step2() {
	suf := s.longestOf(step2Map)
	if suf == "" || !s.inR1(suf) {
		return
	}
	switch suf {
	case "ogi":
		if s.before(suf) == 'l' {
			s.replace(suf, "og")
		}
	case "li":
		if isValidLI(s.before(suf)) {
			s.replace(suf, "")
		}
	default:
		s.replace(suf, step2Map[suf])
	}
}

func (s *stemmer) longestOf(m map[string]string) string {
	best := ""
	for suf := range m {
		if len(suf) > len(best) && s.hasSuffix(suf) {
			best = suf
		}
	}
	return best
}

var step3Map = map[string]string{
	"tional": "tion", "ational": "ate", "alize": "al", "icate": "ic", "iciti": "ic", "ical": "ic",
	"ful": "", "ness": "", "ative": "",
}

func (s *stemmer) step3() {
	suf := s.longestOf(step3Map)
	if suf == "" || !s.inR1(suf) {
		return
	}
	if suf == "ative" && !s.inR2(suf) {
		return
	}
	s.replace(suf, step3Map[suf])
}

var step4Suffixes = map[string]string{
	"al": "", "ance": "", "ence": "", "er": "", "ic": "", "able": "", "ible": "", "ant": "", "ement": "",
	"ment": "", "ent": "", "ism": "", "ate": "", "iti": "", "ous": "", "ive": "", "ize": "", "ion": "",
}

func (s *stemmer) step4() {
	suf := s.longestOf(step4Suffixes)
	if suf == "" || !s.inR2(suf) {
		return
	}
	if suf == "ion" {
		if b := s.before(suf); b == 's' || b == 't' {
			s.replace(suf, "")
		}
		return
	}
	s.replace(suf, "")
}

func (s *stemmer) step5() {
	n := len(s.w)
	if n == 0 {
		return
	}
	switch s.w[n-1] {
	case 'e':
		if s.inR2("e") || (s.inR1("e") && !s.shortBefore(n-1)) {
			s.w = s.w[:n-1]
		}
	case 'l':
		if s.inR2("l") && n >= 2 && s.w[n-2] == 'l' {
			s.w = s.w[:n-1]
		}
	}
}
