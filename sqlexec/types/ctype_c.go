package types

import "strings"

// fickle's databases have LC_CTYPE C (the lc_ctype setting), under which
// PostgreSQL maps case, and tells letters and digits apart, in ASCII only:
// lower('É') is 'É', initcap takes a non-ASCII letter for a word break, and
// ILIKE and case-insensitive regular expressions fold only A-Z and a-z
// (str_tolower, asc_initcap and the regex engine's C-locale classes).

// asciiLower maps A-Z to a-z and leaves every other character as it is.
func asciiLower(s string) string { return asciiMapCase(s, 'A', 'Z', 'a'-'A') }

// asciiUpper maps a-z to A-Z and leaves every other character as it is.
func asciiUpper(s string) string { return asciiMapCase(s, 'a', 'z', 'A'-'a') }

func asciiMapCase(s string, lo, hi byte, delta int) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= rune(lo) && r <= rune(hi) })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if b[i] >= lo && b[i] <= hi {
			b[i] = byte(int(b[i]) + delta)
		}
	}
	return string(b)
}

// isASCIIAlnum reports whether c is an ASCII letter or digit, which is
// what isalnum answers in the C locale.
func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// initcap upper-cases the first letter of each word and lower-cases the
// rest, words being runs of ASCII letters and digits, as asc_initcap does.
func initcap(s string) string {
	b := []byte(s)
	inWord := false
	for i, c := range b {
		switch {
		case inWord && c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case !inWord && c >= 'a' && c <= 'z':
			b[i] = c - ('a' - 'A')
		}
		inWord = isASCIIAlnum(c)
	}
	return string(b)
}

// asciiFoldRange returns the ASCII case counterparts of the characters
// lo..hi that are letters, as ranges ("a-c", "X"), for a case-insensitive
// bracket expression.
func asciiFoldRange(lo, hi rune) []string {
	var out []string
	for _, r := range [][3]rune{{'A', 'Z', 'a' - 'A'}, {'a', 'z', 'A' - 'a'}} {
		from, to := max(lo, r[0]), min(hi, r[1])
		switch {
		case from > to:
		case from == to:
			out = append(out, string(from+r[2]))
		default:
			out = append(out, string(from+r[2])+"-"+string(to+r[2]))
		}
	}
	return out
}
