// Package trgm is pg_trgm's text side: how PostgreSQL 15's pg_trgm splits a
// string into words and trigrams, and its similarity, word_similarity and
// strict_word_similarity, as they behave in a database of fickle's
// settings (UTF8, C collation and ctype). There a word is a run of ASCII
// letters and digits: the C ctype classes every byte of a multibyte
// character as neither letter nor digit, so non-ASCII characters separate
// words like punctuation does, and case folding is ASCII's. Every trigram
// is therefore three ASCII bytes and none is hashed.
//
// The package knows no SQL: sqlexec's pg_trgm extension calls it.
package trgm

import (
	"slices"
	"strings"
)

// Trigram is three bytes of a padded, lower-cased word.
type Trigram [3]byte

// String is the trigram's text, as show_trgm prints it.
func (t Trigram) String() string { return string(t[:]) }

func compare(a, b Trigram) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// isWordByte is pg_trgm's ISWORDCHR under the C ctype.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Word bounds of a trigram, for strict word similarity.
const (
	boundLeft  = 1
	boundRight = 2
)

// extract returns the trigrams of s's words in order, each word padded with
// two blanks before and one after, and, when bounds is set, which of them
// begin and end a word.
func extract(s string, bounds bool) ([]Trigram, []uint8) {
	var out []Trigram
	var bnds []uint8
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		word := "  " + strings.ToLower(s[i:j]) + " "
		first := len(out)
		for k := 0; k+3 <= len(word); k++ {
			out = append(out, Trigram{word[k], word[k+1], word[k+2]})
			if bounds {
				bnds = append(bnds, 0)
			}
		}
		if bounds {
			bnds[first] |= boundLeft
			bnds[len(out)-1] |= boundRight
		}
		i = j
	}
	return out, bnds
}

// Trigrams returns s's distinct trigrams in order (pg_trgm's
// generate_trgm), what show_trgm lists.
func Trigrams(s string) []Trigram {
	t, _ := extract(s, false)
	slices.SortFunc(t, compare)
	return slices.Compact(t)
}

// ratio is pg_trgm's CALCSML with DIVUNION: shared trigrams over the
// trigrams of the union, in float4 arithmetic.
func ratio(count, len1, len2 int) float32 {
	return float32(count) / float32(len1+len2-count)
}

// Similarity is similarity(a, b): the trigrams a and b share over those
// either has, 0 when either has none.
func Similarity(a, b string) float32 {
	t1, t2 := Trigrams(a), Trigrams(b)
	if len(t1) == 0 || len(t2) == 0 {
		return 0
	}
	count := 0
	for i, j := 0, 0; i < len(t1) && j < len(t2); {
		switch c := compare(t1[i], t2[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			i++
			j++
			count++
		}
	}
	return ratio(count, len(t1), len(t2))
}

// WordSimilarity is word_similarity(a, b): the greatest similarity between
// a's trigrams and those of a continuous extent of b's, the extent
// bounded by trigrams a has.
func WordSimilarity(a, b string) float32 { return wordSimilarity(a, b, false) }

// StrictWordSimilarity is strict_word_similarity(a, b): the same with the
// extent bounded by whole words of b.
func StrictWordSimilarity(a, b string) float32 { return wordSimilarity(a, b, true) }

// wordSimilarity is pg_trgm's calc_word_similarity: it numbers the distinct
// trigrams of both strings, marks those the pattern a has, and runs the
// window search over b's trigrams in order.
func wordSimilarity(a, b string, strict bool) float32 {
	t1, _ := extract(a, false)
	t2, bounds := extract(b, strict)
	// Positional trigrams: a's at position -1, b's at their index, sorted
	// by trigram, then position.
	type posTrigram struct {
		t   Trigram
		pos int
	}
	all := make([]posTrigram, 0, len(t1)+len(t2))
	for _, t := range t1 {
		all = append(all, posTrigram{t, -1})
	}
	for i, t := range t2 {
		all = append(all, posTrigram{t, i})
	}
	slices.SortFunc(all, func(x, y posTrigram) int {
		if c := compare(x.t, y.t); c != 0 {
			return c
		}
		return x.pos - y.pos
	})
	// index[i] numbers b's trigram i among the distinct trigrams; found[n]
	// says whether a has distinct trigram n.
	index := make([]int, len(t2))
	found := make([]bool, len(all)+1)
	unique1, n := 0, 0
	for i, p := range all {
		if i > 0 && compare(all[i-1].t, p.t) != 0 {
			if found[n] {
				unique1++
			}
			n++
		}
		if p.pos >= 0 {
			index[p.pos] = n
		} else {
			found[n] = true
		}
	}
	if found[n] {
		unique1++
	}
	return windowSearch(index, found, unique1, bounds, strict)
}

// windowSearch is pg_trgm's iterate_word_similarity without its
// check-only shortcut (which changes no comparison with the threshold):
// for each trigram of b that may end an extent it moves the extent's
// lower end to where the similarity is greatest.
func windowSearch(index []int, found []bool, unique1 int, bounds []uint8, strict bool) float32 {
	lower := -1
	if strict {
		lower = 0
	}
	lastPos := make([]int, len(found))
	for i := range lastPos {
		lastPos[i] = -1
	}
	unique2, count := 0, 0
	var best float32
	for i, ti := range index {
		if lower >= 0 || found[ti] {
			if lastPos[ti] < 0 {
				unique2++
				if found[ti] {
					count++
				}
			}
			lastPos[ti] = i
		}
		ends := found[ti]
		if strict {
			ends = bounds[i]&boundRight != 0
		}
		if !ends {
			continue
		}
		upper := i
		if lower == -1 {
			lower = i
			unique2 = 1
		}
		cur := ratio(count, unique1, unique2)
		tmpCount, tmpUnique2, prevLower := count, unique2, lower
		for tmpLower := lower; tmpLower <= upper; tmpLower++ {
			if !strict || bounds[tmpLower]&boundLeft != 0 {
				if tmp := ratio(tmpCount, unique1, tmpUnique2); tmp > cur {
					cur, unique2, lower, count = tmp, tmpUnique2, tmpLower, tmpCount
				}
			}
			if t := index[tmpLower]; lastPos[t] == tmpLower {
				tmpUnique2--
				if found[t] {
					tmpCount--
				}
			}
		}
		best = max(best, cur)
		for tmpLower := prevLower; tmpLower < lower; tmpLower++ {
			if t := index[tmpLower]; lastPos[t] == tmpLower {
				lastPos[t] = -1
			}
		}
	}
	return best
}
