// Package unaccent is the unaccent extension's dictionary: the rules file
// PostgreSQL 15 ships (unaccent.rules, embedded here as its contrib
// package installs it) and the replacement its lexize makes. The package
// knows no SQL: sqlexec's unaccent extension calls it.
package unaccent

import (
	_ "embed"
	"strings"
	"unicode/utf8"
)

//go:embed unaccent.rules
var rulesFile string

// Rules maps each source string of a rules file to its replacement, ""
// for a source the file deletes.
type Rules struct {
	to map[string]string
	// longest is the length, in characters, of the longest source.
	longest int
}

// Default is the rules of the unaccent dictionary CREATE EXTENSION
// unaccent makes (RULES = 'unaccent').
var Default = Parse(rulesFile)

// Parse reads a rules file as unaccent's initTrie does: each line holds a
// source and, after white space, its replacement, which may be written in
// double quotes (a doubled quote standing for one) to hold white space; a
// line with a source alone deletes it; a source given twice keeps its
// first replacement; other lines are ignored.
func Parse(text string) *Rules {
	r := &Rules{to: map[string]string{}}
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		src, trg := fields[0], ""
		if len(fields) > 1 {
			rest := strings.TrimLeft(line[strings.Index(line, src)+len(src):], " \t")
			trg = replacement(rest, fields[1])
		}
		if _, dup := r.to[src]; dup {
			continue
		}
		r.to[src] = trg
		r.longest = max(r.longest, utf8.RuneCountInString(src))
	}
	return r
}

// replacement is a rule's replacement from the rest of its line after the
// source: a double-quoted string, or else its first field.
func replacement(rest, field string) string {
	if len(rest) < 2 || rest[0] != '"' {
		return field
	}
	var b strings.Builder
	for i := 1; i < len(rest); i++ {
		if rest[i] != '"' {
			b.WriteByte(rest[i])
			continue
		}
		if i+1 < len(rest) && rest[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		return b.String()
	}
	return field // no closing quote: the field as written
}

// Lexize is the dictionary's lexize: s with, at each position, the
// longest source the rules have replaced, and whether any was (when none
// was, the dictionary does not recognize s: ts_lexize gives NULL and
// unaccent() returns s unchanged).
func (r *Rules) Lexize(s string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		matched := 0
		var to string
		end := i
		for n := 1; n <= r.longest && end < len(s); n++ {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
			if t, ok := r.to[s[i:end]]; ok {
				matched, to = end-i, t
			}
		}
		if matched == 0 {
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		b.WriteString(to)
		changed = true
		i += matched
	}
	return b.String(), changed
}
