package sqlexec

import (
	"strconv"
	"strings"
	"testing"
)

func TestNormalizeLiteralsReplacesNumbersWhereTheyAreValues(t *testing.T) {
	for _, c := range []struct {
		in, want, kinds string
		values          []string
	}{
		{"SELECT abalance FROM a WHERE aid = 17", "SELECT abalance FROM a WHERE aid = $1", "i", []string{"17"}},
		{"UPDATE a SET b = b + -3071 WHERE aid = 5", "UPDATE a SET b = b + $1 WHERE aid = $2", "ii", []string{"-3071", "5"}},
		{"UPDATE a SET b = b - 3 WHERE aid=-5", "UPDATE a SET b = b - $1 WHERE aid=$2", "ii", []string{"3", "-5"}},
		{"select 1", "select $1", "i", []string{"1"}},
		{"SELECT - 2147483648, 2147483647, 2147483648", "SELECT $1, $2, $3", "iil", []string{"-2147483648", "2147483647", "2147483648"}},
		{"SELECT 9223372036854775808, -9223372036854775808", "SELECT $1, $2", "nl", nil},
		{"SELECT 1.5, .5, 1e5, 1.e-3, 007", "SELECT $1, $2, $3, $4, $5", "nnnni", []string{"1.5", ".5", "1e5", "1.e-3", "007"}},
		{"SELECT x FROM t WHERE x IN (1, 2) LIMIT 10 OFFSET 2", "SELECT x FROM t WHERE x IN ($1, $2) LIMIT $3 OFFSET $4", "iiii", nil},
		{"SELECT x FROM t ORDER BY 1, x + 2 LIMIT 3", "SELECT x FROM t ORDER BY 1, x + 2 LIMIT $1", "i", nil},
		{"SELECT x, count(*) FROM t WHERE y > 2 GROUP BY 1 HAVING count(*) > 3", "SELECT x, count(*) FROM t WHERE y > $1 GROUP BY 1 HAVING count(*) > $2", "ii", nil},
		{"SELECT sum(x) OVER (PARTITION BY 1 ORDER BY 2 ROWS 3 PRECEDING), 4 FROM t", "SELECT sum(x) OVER (PARTITION BY 1 ORDER BY 2 ROWS 3 PRECEDING), $1 FROM t", "i", nil},
		{"SELECT 1::text, CAST(2 AS numeric(10,2)), x::varchar(3), 4 FROM t", "SELECT 1::text, CAST($1 AS numeric(10,2)), x::varchar(3), $2 FROM t", "ii", nil},
		{"SELECT a[1], 'x', E'\\'', $$5$$, \"c1\" FROM t WHERE d = 5", "SELECT a[1], 'x', E'\\'', $$5$$, \"c1\" FROM t WHERE d = $1", "i", nil},
		{"SELECT /* 1 /* 2 */ 3 */ 4 -- 5\n, 6;", "SELECT /* 1 /* 2 */ 3 */ $1 -- 5\n, $2;", "ii", nil},
		{"SELECT x @- 1, y - 1, (-1), - -1 FROM t", "", "", nil},
		{"SELECT x @- 1, y - 1, (-1) FROM t", "SELECT x @- $1, y - $2, ($3) FROM t", "iii", []string{"1", "1", "-1"}},
		{"INSERT INTO t VALUES (1, 'a', -2.5)", "INSERT INTO t VALUES ($1, $2, $3)", "isn", []string{"1", "a", "-2.5"}},
		{"INSERT INTO t VALUES ('a', f('b'), 'c' || 'd', 'e'::text, ('f'), ROW('g')), ('h', 'i' collate \"C\") ON CONFLICT (k) DO UPDATE SET v = 'j', w = 'k' || 'l' WHERE t.x = 'm' RETURNING 'n'",
			"INSERT INTO t VALUES ($1, f('b'), 'c' || 'd', $2::text, ('f'), ROW('g')), ($3, 'i' collate \"C\") ON CONFLICT (k) DO UPDATE SET v = $4, w = 'k' || 'l' WHERE t.x = $5 RETURNING 'n'", "sssss", []string{"a", "e", "h", "j", "m"}},
		{"INSERT INTO t SELECT * FROM (VALUES ('a', 1)) v", "INSERT INTO t SELECT * FROM (VALUES ('a', $1)) v", "i", nil},
		{"INSERT INTO t (a) VALUES (1) RETURNING a = 'x'", "INSERT INTO t (a) VALUES ($1) RETURNING a = 'x'", "i", nil},
		{"DELETE FROM t WHERE id = 3 RETURNING id", "DELETE FROM t WHERE id = $1 RETURNING id", "i", nil},
		{"SELECT interval '1' day, x FROM t WHERE y = 2", "SELECT interval '1' day, x FROM t WHERE y = $1", "i", nil},
		{"SELECT * FROM t WHERE name = 'it''s' AND k = 5", "SELECT * FROM t WHERE name = $1 AND k = $2", "si", []string{"it's", "5"}},
		{"UPDATE t SET a = 'x' WHERE \"b\" <> 'y' RETURNING a", "UPDATE t SET a = $1 WHERE \"b\" <> $2 RETURNING a", "ss", []string{"x", "y"}},
		{"UPDATE t SET a[1] = 'x', (b, c) = ('y', 'z'), d.f = 'w', \"E\" = 'it''s' FROM u", "UPDATE t SET a[1] = 'x', (b, c) = ('y', 'z'), d.f = 'w', \"E\" = $1 FROM u", "s", []string{"it's"}},
		{"SELECT * FROM t WHERE (t.x >= 'a') AND 'b' = y AND z = 'c' || 'd' AND w = date 'e' AND v = E'f'", "SELECT * FROM t WHERE (t.x >= $1) AND 'b' = y AND z = 'c' || 'd' AND w = date 'e' AND v = E'f'", "s", nil},
		{"UPDATE t SET a = (SELECT b FROM u WHERE c = 'x'), d = 'y', e = e + '1'", "UPDATE t SET a = (SELECT b FROM u WHERE c = $1), d = $2, e = e + $3", "sss", []string{"x", "y", "1"}},
		{"SELECT 'a' = 'b' FROM t WHERE NULL = 'c' OR x = 'd'::text OR y = 'e'", "SELECT 'a' = 'b' FROM t WHERE NULL = 'c' OR x = $1::text OR y = $2", "ss", []string{"d", "e"}},
		{"SELECT '2020-01-01'::date, 'x'::TEXT AS y, '1'::int + 1, 'it''s'::\"char\" FROM t WHERE d > '2020-01-01'::date AND 'a'::text = 'b' ORDER BY 1",
			"SELECT $1::date, $2::TEXT AS y, $3::int + $4, $5::\"char\" FROM t WHERE d > $6::date AND $7::text = $8 ORDER BY 1", "sssissss", []string{"2020-01-01", "x", "1", "1", "it's", "2020-01-01", "a", "b"}},
		{"SELECT 'a' IN ('b') FROM t WHERE x IN ('a', 'b') AND y NOT IN ('c') AND z IN (SELECT 'd', 'e') AND lower(w) IN ('f') AND v IN (('g'), 'h' || 'i', 'j')",
			"SELECT 'a' IN ('b') FROM t WHERE x IN ($1, $2) AND y NOT IN ($3) AND z IN (SELECT 'd', 'e') AND lower(w) IN ('f') AND v IN (('g'), 'h' || 'i', $4)", "ssss", []string{"a", "b", "c", "j"}},
		{"SELECT '1'::numeric(10,2), 'x'::character varying, '{1}'::int[], 'x'::pg_catalog.text, '1'::interval day, 'x'::unknown, 'x'::\"unknown\", 'x'::date::text, 1 FROM t ORDER BY 'x'::text",
			"SELECT '1'::numeric(10,2), 'x'::character varying, '{1}'::int[], 'x'::pg_catalog.text, '1'::interval day, 'x'::unknown, 'x'::\"unknown\", 'x'::date::text, $1 FROM t ORDER BY 'x'::text", "i", nil},
	} {
		q, ok := normalizeLiterals(c.in)
		if c.want == "" {
			if ok {
				t.Errorf("%q: normalized to %q, want it left alone", c.in, q.text)
			}
			continue
		}
		if !ok || q.text != c.want || q.kinds != c.kinds {
			t.Errorf("%q: got %v %q %q, want %q %q", c.in, ok, q.text, q.kinds, c.want, c.kinds)
			continue
		}
		for i, v := range c.values {
			if q.lits[i].text != v {
				t.Errorf("%q: literal %d is %q, want %q", c.in, i+1, q.lits[i].text, v)
			}
		}
		for _, l := range q.lits {
			if got := c.in[l.origStart:l.origEnd]; l.kind != litString && strings.ReplaceAll(got, " ", "") != l.text {
				t.Errorf("%q: literal %q spans %q", c.in, l.text, got)
			}
		}
	}
}

func TestNormalizeLiteralsLeavesOtherTextsToTheParser(t *testing.T) {
	for _, in := range []string{
		"SELECT 'a'",                         // no number
		"CREATE TABLE t (a varchar(10))",     // DDL
		"SET x = 1",                          // not DML
		"SELECT 1; SELECT 2",                 // two statements
		"SELECT $1 + 1",                      // its own parameter
		"SELECT 0x1F, 1",                     // PostgreSQL 16 hex (the parser's call)
		"SELECT 1_000",                       // underscores
		"SELECT 123abc",                      // trailing junk
		"SELECT 1..2",                        // junk
		"SELECT 1e",                          // exponent without digits
		"SELECT 1 /* unterminated",           // comment
		"SELECT 'unterminated, 1",            // string
		"SELECT 1 INTO t",                    // creates a table
		"SELECT DISTINCT ON (1) x, 2 FROM t", // positions
		"SELECT 'a'\n'b', 1",                 // continued string
		"SELECT U&'d\\0061t', 1",             // Unicode escapes
		"WITH c AS (SELECT 1) SELECT * FROM c",
	} {
		if q, ok := normalizeLiterals(in); ok {
			t.Errorf("%q: normalized to %q, want it left alone", in, q.text)
		}
	}
}

func TestOrigOffsetMapsNormalizedOffsetsBack(t *testing.T) {
	in := "SELECT 12345 + x, y FROM t WHERE z = -1"
	q, ok := normalizeLiterals(in)
	if !ok {
		t.Fatal("not normalized")
	}
	for _, word := range []string{"SELECT", "+ x", "y FROM", "WHERE z"} {
		n := strings.Index(q.text, word)
		if o := q.origOffset(n); !strings.HasPrefix(in[o:], word) {
			t.Errorf("%q at %d maps to %d: %q", word, n, o, in[o:])
		}
	}
	if o := q.origOffset(len(q.text)); o != len(in) {
		t.Errorf("end maps to %d, want %d", o, len(in))
	}
}

// FuzzNormalizeLiterals checks on any text that the scanner never panics,
// and that what it normalizes maps back: every literal's text is the
// original's at its span (a unary minus folded in), and substituting the
// spans for the parameters gives the original text.
func FuzzNormalizeLiterals(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", "UPDATE a SET b = b + -3071 WHERE aid = 5", "SELECT x FROM t ORDER BY 1 LIMIT 2",
		"SELECT 1.5e3, 'a''b', E'\\'', $q$x$q$, \"a\"\"b\" /* c */ -- d\n", "INSERT INTO t VALUES (1, -2.5)",
		"INSERT INTO t VALUES ('a', 'b'::date) ON CONFLICT (k) DO UPDATE SET v = 'c' WHERE t.x = 'd'", "UPDATE t SET a = 'x', b = 'y'::text WHERE c = 'z'::int",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q, ok := normalizeLiterals(in)
		if !ok {
			return
		}
		var b strings.Builder
		prev := 0
		for i, l := range q.lits {
			if want := "$" + strconv.Itoa(i+1); q.text[l.normStart:l.normEnd] != want {
				t.Fatalf("%q: parameter %d reads %q", in, i+1, q.text[l.normStart:l.normEnd])
			}
			span := in[l.origStart:l.origEnd]
			if l.kind == litString {
				if strings.ReplaceAll(span[1:len(span)-1], "''", "'") != l.text {
					t.Fatalf("%q: string %q spans %q", in, l.text, span)
				}
			} else if !strings.HasSuffix(span, strings.TrimPrefix(l.text, "-")) || (span[0] == '-') != (l.text[0] == '-') {
				t.Fatalf("%q: literal %q spans %q", in, l.text, in[l.origStart:l.origEnd])
			}
			b.WriteString(q.text[prev:l.normStart])
			b.WriteString(in[l.origStart:l.origEnd])
			prev = l.normEnd
		}
		b.WriteString(q.text[prev:])
		if b.String() != in {
			t.Fatalf("%q: substituted back gives %q", in, b.String())
		}
	})
}
