package tsearch

import (
	"slices"
	"strings"
)

// StemFrench is Snowball's French stemmer (Snowball 2.2.0, the version
// PostgreSQL 15's french_stem dictionary runs) on a lower-cased word. It
// works on characters: the prelude marks u, i and y that act as
// consonants (U, I, Y) and diaereses (He, Hi), the suffix steps work
// backwards from the end within the regions RV, R1 and R2, and the
// postlude undoes the marks.
func StemFrench(word string) string {
	s := &frStemmer{w: []rune(word)}
	s.prelude()
	s.markRegions()
	s.c, s.lb = len(s.w), 0
	if s.standardSuffix() || s.atEnd().iVerbSuffix() || s.atEnd().verbSuffix() {
		s.atEnd()
		s.ket = s.c
		if s.eat("Y") {
			s.bra = s.c
			s.replace("i")
		} else if s.eat("ç") {
			s.bra = s.c
			s.replace("c")
		}
	} else {
		s.atEnd().residualSuffix()
	}
	s.atEnd().unDouble()
	s.atEnd().unAccent()
	return s.postlude()
}

// frStemmer is the state of Snowball's backward mode: the word, the
// cursor c, the backward limit lb, the slice bra..ket an operation acts
// on, and the region starts pV, p1 and p2.
type frStemmer struct {
	w          []rune
	c, lb      int
	bra, ket   int
	pV, p1, p2 int
}

// isFrenchVowel is the grouping v.
func isFrenchVowel(r rune) bool { return strings.ContainsRune("aeiouyâàëéêèïîôûù", r) }

// prelude is `repeat goto (...)`: it marks, from the left, u or i between
// vowels, y after a vowel or before one, and u after q as consonants
// (upper case), and ë, ï as He, Hi; each mark is tried again at the
// place it was made, as goto leaves the cursor there.
func (s *frStemmer) prelude() {
	vowelAt := func(i int) bool { return i < len(s.w) && isFrenchVowel(s.w[i]) }
	for i := 0; i < len(s.w); {
		w := s.w
		switch {
		case isFrenchVowel(w[i]) && i+1 < len(w) && w[i+1] == 'u' && vowelAt(i+2):
			w[i+1] = 'U'
		case isFrenchVowel(w[i]) && i+1 < len(w) && w[i+1] == 'i' && vowelAt(i+2):
			w[i+1] = 'I'
		case isFrenchVowel(w[i]) && i+1 < len(w) && w[i+1] == 'y':
			w[i+1] = 'Y'
		case w[i] == 'ë':
			s.w = slices.Replace(w, i, i+1, 'H', 'e')
		case w[i] == 'ï':
			s.w = slices.Replace(w, i, i+1, 'H', 'i')
		case w[i] == 'y' && vowelAt(i+1):
			w[i] = 'Y'
		case w[i] == 'q' && i+1 < len(w) && w[i+1] == 'u':
			w[i+1] = 'U'
		default:
			i++
		}
	}
}

// markRegions sets pV (after a leading pair of vowels and the letter
// after them, after par, col or tap, else after the first vowel past the
// first letter), p1 and p2 (after each of the first two vowel-consonant
// pairs); the length of the word where there is none.
func (s *frStemmer) markRegions() {
	n := len(s.w)
	s.pV, s.p1, s.p2 = n, n, n
	w := s.w
	switch {
	case n >= 3 && isFrenchVowel(w[0]) && isFrenchVowel(w[1]):
		s.pV = 3
	case n >= 3 && (string(w[:3]) == "par" || string(w[:3]) == "col" || string(w[:3]) == "tap"):
		s.pV = 3
	case n >= 1:
		for i := 1; i < n; i++ {
			if isFrenchVowel(w[i]) {
				s.pV = i + 1
				break
			}
		}
	}
	// gopast v gopast non-v, twice.
	c := 0
	next := func() (int, bool) {
		for c < n && !isFrenchVowel(w[c]) {
			c++
		}
		if c == n {
			return 0, false
		}
		c++
		for c < n && isFrenchVowel(w[c]) {
			c++
		}
		if c == n {
			return 0, false
		}
		c++
		return c, true
	}
	if p, ok := next(); ok {
		s.p1 = p
		if p, ok := next(); ok {
			s.p2 = p
		}
	}
}

// atEnd puts the cursor back at the end of the word, as Snowball's or,
// and and do restore it in backward mode.
func (s *frStemmer) atEnd() *frStemmer {
	s.c, s.lb = len(s.w), 0
	return s
}

// eat matches lit ending at the cursor (not crossing lb) and moves the
// cursor before it.
func (s *frStemmer) eat(lit string) bool {
	r := []rune(lit)
	if s.c-len(r) < s.lb || string(s.w[s.c-len(r):s.c]) != lit {
		return false
	}
	s.c -= len(r)
	return true
}

// among finds the longest of cands ending at the cursor (not crossing
// lb), sets the slice to it and moves the cursor before it: Snowball's
// [substring] among(...). It returns "" for none.
func (s *frStemmer) among(cands ...string) string {
	best := ""
	for _, cand := range cands {
		r := []rune(cand)
		if len(r) > len([]rune(best)) && s.c-len(r) >= s.lb && string(s.w[s.c-len(r):s.c]) == cand {
			best = cand
		}
	}
	if best == "" {
		return ""
	}
	s.ket = s.c
	s.c -= len([]rune(best))
	s.bra = s.c
	return best
}

// slice sets the slice to lit ending at the cursor and moves the cursor
// before it: Snowball's [lit].
func (s *frStemmer) slice(lit string) bool {
	ket := s.c
	if !s.eat(lit) {
		return false
	}
	s.bra, s.ket = s.c, ket
	return true
}

func (s *frStemmer) rv() bool { return s.pV <= s.c }
func (s *frStemmer) r1() bool { return s.p1 <= s.c }
func (s *frStemmer) r2() bool { return s.p2 <= s.c }

// del deletes the slice; the cursor stays before it.
func (s *frStemmer) del() bool { return s.replace("") }

// replace replaces the slice with lit, the cursor following a change of
// length behind it as Snowball's replace_s moves it.
func (s *frStemmer) replace(lit string) bool {
	r := []rune(lit)
	adj := len(r) - (s.ket - s.bra)
	s.w = slices.Replace(s.w, s.bra, s.ket, r...)
	if s.c >= s.ket {
		s.c += adj
	} else if s.c > s.bra {
		s.c = s.bra
	}
	s.ket = s.bra + len(r)
	return true
}

// r2DeleteOr is `(R2 delete) or <- lit` on the slice.
func (s *frStemmer) r2DeleteOr(lit string) {
	if s.r2() {
		s.del()
	} else {
		s.replace(lit)
	}
}

// nonVowel is non-v: a letter that is not a vowel before the cursor.
func (s *frStemmer) nonVowel() bool {
	if s.c-1 < s.lb || isFrenchVowel(s.w[s.c-1]) {
		return false
	}
	s.c--
	return true
}

func (s *frStemmer) standardSuffix() bool {
	switch s.among("ance", "iqUe", "isme", "able", "iste", "eux", "ances", "iqUes", "ismes", "ables", "istes",
		"atrice", "ateur", "ation", "atrices", "ateurs", "ations", "logie", "logies", "usion", "ution", "usions", "utions",
		"ence", "ences", "ement", "ements", "ité", "ités", "if", "ive", "ifs", "ives", "eaux", "aux", "euse", "euses",
		"issement", "issements", "amment", "emment", "ment", "ments") {
	case "":
		return false
	case "ance", "iqUe", "isme", "able", "iste", "eux", "ances", "iqUes", "ismes", "ables", "istes":
		return s.r2() && s.del()
	case "atrice", "ateur", "ation", "atrices", "ateurs", "ations":
		if !s.r2() {
			return false
		}
		s.del()
		if s.slice("ic") {
			s.r2DeleteOr("iqU")
		}
	case "logie", "logies":
		return s.r2() && s.replace("log")
	case "usion", "ution", "usions", "utions":
		return s.r2() && s.replace("u")
	case "ence", "ences":
		return s.r2() && s.replace("ent")
	case "ement", "ements":
		if !s.rv() {
			return false
		}
		s.del()
		switch s.among("iv", "eus", "abl", "iqU", "ièr", "Ièr") {
		case "iv":
			if s.r2() {
				s.del()
				if s.slice("at") && s.r2() {
					s.del()
				}
			}
		case "eus":
			if s.r2() {
				s.del()
			} else if s.r1() {
				s.replace("eux")
			}
		case "abl", "iqU":
			if s.r2() {
				s.del()
			}
		case "ièr", "Ièr":
			if s.rv() {
				s.replace("i")
			}
		}
	case "ité", "ités":
		if !s.r2() {
			return false
		}
		s.del()
		switch s.among("abil", "ic", "iv") {
		case "abil":
			s.r2DeleteOr("abl")
		case "ic":
			s.r2DeleteOr("iqU")
		case "iv":
			if s.r2() {
				s.del()
			}
		}
	case "if", "ive", "ifs", "ives":
		if !s.r2() {
			return false
		}
		s.del()
		if s.slice("at") && s.r2() {
			s.del()
			if s.slice("ic") {
				s.r2DeleteOr("iqU")
			}
		}
	case "eaux":
		s.replace("eau")
	case "aux":
		return s.r1() && s.replace("al")
	case "euse", "euses":
		if s.r2() {
			s.del()
		} else if s.r1() {
			s.replace("eux")
		} else {
			return false
		}
	case "issement", "issements":
		return s.r1() && s.nonVowel() && s.del()
	case "amment":
		// RV fail(<- 'ant'): the step fails, for the verb steps to
		// see the changed word.
		if s.rv() {
			s.replace("ant")
		}
		return false
	case "emment":
		if s.rv() {
			s.replace("ent")
		}
		return false
	case "ment", "ments":
		// test(v RV) fail(delete)
		if s.c-1 >= s.lb && isFrenchVowel(s.w[s.c-1]) && s.pV <= s.c-1 {
			s.del()
		}
		return false
	}
	return true
}

// inRV runs step with the backward limit at pV (setlimit tomark pV),
// failing when the cursor is before it.
func (s *frStemmer) inRV(step func() bool) bool {
	if s.c < s.pV {
		return false
	}
	lb := s.lb
	s.lb = s.pV
	ok := step()
	s.lb = lb
	return ok
}

func (s *frStemmer) iVerbSuffix() bool {
	return s.inRV(func() bool {
		if s.among("îmes", "ît", "îtes", "i", "ie", "ies", "ir", "ira", "irai", "iraIent", "irais", "irait", "iras", "irent",
			"irez", "iriez", "irions", "irons", "iront", "is", "issaIent", "issais", "issait", "issant", "issante", "issantes",
			"issants", "isse", "issent", "isses", "issez", "issiez", "issions", "issons", "it") == "" {
			return false
		}
		if s.c-1 >= s.lb && s.w[s.c-1] == 'H' {
			return false
		}
		return s.nonVowel() && s.del()
	})
}

func (s *frStemmer) verbSuffix() bool {
	return s.inRV(func() bool {
		switch s.among("ions", "é", "ée", "ées", "és", "èrent", "er", "era", "erai", "eraIent", "erais", "erait", "eras",
			"erez", "eriez", "erions", "erons", "eront", "ez", "iez", "âmes", "ât", "âtes", "a", "ai", "aIent", "ais", "ait",
			"ant", "ante", "antes", "ants", "as", "asse", "assent", "asses", "assiez", "assions") {
		case "":
			return false
		case "ions":
			return s.r2() && s.del()
		case "âmes", "ât", "âtes", "a", "ai", "aIent", "ais", "ait", "ant", "ante", "antes", "ants", "as", "asse", "assent",
			"asses", "assiez", "assions":
			s.del()
			if s.slice("e") {
				s.del()
			}
			return true
		default:
			return s.del()
		}
	})
}

func (s *frStemmer) residualSuffix() {
	if s.slice("s") {
		c := s.c
		hi := c-2 >= s.lb && string(s.w[c-2:c]) == "Hi"
		if hi || c-1 >= s.lb && !strings.ContainsRune("aiouès", s.w[c-1]) {
			s.del()
		} else {
			s.c = len(s.w)
		}
	}
	s.inRV(func() bool {
		switch s.among("ion", "ier", "ière", "Ier", "Ière", "e") {
		case "ion":
			if s.r2() && s.c-1 >= s.lb && (s.w[s.c-1] == 's' || s.w[s.c-1] == 't') {
				return s.del()
			}
		case "ier", "ière", "Ier", "Ière":
			return s.replace("i")
		case "e":
			return s.del()
		}
		return false
	})
}

func (s *frStemmer) unDouble() {
	for _, end := range []string{"enn", "onn", "ett", "ell", "eill"} {
		if strings.HasSuffix(string(s.w), end) {
			s.w = s.w[:len(s.w)-1]
			return
		}
	}
}

func (s *frStemmer) unAccent() {
	i := len(s.w)
	for i > 0 && !isFrenchVowel(s.w[i-1]) {
		i--
	}
	if i == len(s.w) || i == 0 {
		return
	}
	if s.w[i-1] == 'é' || s.w[i-1] == 'è' {
		s.w[i-1] = 'e'
	}
}

// postlude turns the marks back into letters: I, U, Y into i, u, y, He
// and Hi into ë and ï, and drops any other H (a mark whose e or i a
// suffix took).
func (s *frStemmer) postlude() string {
	var b strings.Builder
	w := s.w
	for i := 0; i < len(w); i++ {
		switch {
		case w[i] == 'H' && i+1 < len(w) && w[i+1] == 'e':
			b.WriteRune('ë')
			i++
		case w[i] == 'H' && i+1 < len(w) && w[i+1] == 'i':
			b.WriteRune('ï')
			i++
		case w[i] == 'H':
		case w[i] == 'I':
			b.WriteRune('i')
		case w[i] == 'U':
			b.WriteRune('u')
		case w[i] == 'Y':
			b.WriteRune('y')
		default:
			b.WriteRune(w[i])
		}
	}
	return b.String()
}
