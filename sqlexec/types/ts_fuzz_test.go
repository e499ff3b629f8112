package types

import (
	"bytes"
	"testing"
)

// FuzzParseTSVector reads tsvector text, which applications store from
// untrusted documents: any input is accepted or refused with an error;
// what is accepted prints back to itself, its key decodes to an equal
// value and keys order as tsvector_cmp does.
func FuzzParseTSVector(f *testing.F) {
	for _, s := range []string{"a:1 b:2A,3 a:5 'x y':1B c\\\\d", `'\\as' ab\c ab\\c AB\\\c ab\\\\c`, "", "a:0", "a:1AA",
		"1:1 2:16383 3:16384 4:99999999999 5:1a2", "a:1,1A,2,2C", "'a''b'", "a\\", "'", "a:", "é:3 ü"} {
		f.Add(s, "b:1")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		roundTrip(t, TSVectorType, s)
		v, err := ParseTSVector(s)
		if err != nil {
			return
		}
		key := AppendKey(nil, TSVectorType, v)
		back, _, err := DecodeKey(TSVectorType, key)
		if err != nil || Compare(TSVectorType, v, back) != 0 {
			t.Fatalf("%q: key decodes to %v, %v", s, back, err)
		}
		w, err := ParseTSVector(other)
		if err != nil {
			return
		}
		if c := bytes.Compare(key, AppendKey(nil, TSVectorType, w)); c != Compare(TSVectorType, v, w) {
			t.Fatalf("%q vs %q: key order %d, compare %d", s, other, c, Compare(TSVectorType, v, w))
		}
		tsExecute(v, TSQuery{})
		tsvectorConcat(v, w)
	})
}

// FuzzParseTSQuery reads tsquery text in each syntax parse_tsquery has:
// any input is accepted or refused with an error; a standard query prints
// what reads back, the printed text of tsquery input reads back to the same
// text, its key orders as tsquery_cmp does, and every accepted query can be
// matched and ranked. The text is not a value's identity: PostgreSQL prints
// 'a & (b & c)' without parentheses, as it prints '(a & b) & c', and the two
// compare unequal.
func FuzzParseTSQuery(f *testing.F) {
	for _, s := range []string{"a & b | !c <-> d", "(a|b) & c <2> (d | e)", "!(a & b)", "a:*AB", "a <-> (b <-> c)",
		"a <16385> b", "'a b':c & 'x''y'", "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!a", "a <", "(((a)))", `"a b" or -c`, "or or -"} {
		f.Add(s, "b & a")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		if q, err := parseTSQueryText(s); err == nil {
			out := FormatTSQuery(q.(TSQuery))
			back, err := parseTSQueryText(out)
			if err != nil {
				t.Fatalf("%q printed as %q, which does not parse: %v", s, out, err)
			}
			if FormatTSQuery(back.(TSQuery)) != out {
				t.Fatalf("%q printed as %q reads back as %q", s, out, FormatTSQuery(back.(TSQuery)))
			}
		}
		target, err := parseTSQueryText("b | a")
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []TSQueryMode{TSQueryStandard, TSQueryPlain, TSQueryWeb} {
			for _, norm := range []TSQueryNormalizer{nil, stopwordNormalizer} {
				q, _, err := ParseTSQuery(s, TSQueryOptions{Mode: mode, Normalize: norm, Phrase: true})
				if err != nil {
					continue
				}
				doc, _ := ParseTSVector("a:1 b:2,3 c:4A")
				tsExecute(doc, q)
				calcRank(tsDefaultWeights, doc, q, 63)
				calcRankCD(tsDefaultWeights, doc, q, 63)
				tsqueryRewrite(q, target.(TSQuery), q)
				if mode == TSQueryStandard && FormatTSQuery(q) != "" {
					if _, _, err := ParseTSQuery(FormatTSQuery(q), TSQueryOptions{}); err != nil {
						t.Fatalf("%q: %q does not read back: %v", s, FormatTSQuery(q), err)
					}
				}
			}
		}
		q, err := parseTSQueryText(s)
		if err != nil {
			return
		}
		r, err := parseTSQueryText(other)
		if err != nil {
			return
		}
		ka, kb := AppendKey(nil, TSQueryType, q), AppendKey(nil, TSQueryType, r)
		if c := bytes.Compare(ka, kb); c != Compare(TSQueryType, q, r) {
			t.Fatalf("%q vs %q: key order %d, compare %d", s, other, c, Compare(TSQueryType, q, r))
		}
		back, _, err := DecodeKey(TSQueryType, ka)
		if err != nil || Compare(TSQueryType, q, back) != 0 {
			t.Fatalf("%q: key decodes to %v, %v", s, back, err)
		}
	})
}

// stopwordNormalizer treats "stop" as a stopword and splits words on '-'
// into tokens, as a configuration's parser might.
func stopwordNormalizer(operand string) ([]TSQueryWord, error) {
	var out []TSQueryWord
	pos := 0
	start := 0
	for i := 0; i <= len(operand); i++ {
		if i < len(operand) && operand[i] != '-' && operand[i] != ' ' {
			continue
		}
		if w := operand[start:i]; w != "" {
			pos++
			if w != "stop" {
				out = append(out, TSQueryWord{Lexeme: w, Pos: pos})
			}
		}
		start = i + 1
	}
	return out, nil
}
