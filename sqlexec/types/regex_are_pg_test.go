package types

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/testpg"
)

// TestAREMatchesAgainstPostgres compares regexp_matches(text, re, flags)
// with a PostgreSQL 15 (FICKLE_TEST_PG) on random AREs built from the
// features fickle's engine runs (captures, back references, lookaround,
// constraint escapes, greedy and non-greedy quantifiers) and random texts:
// every match, every subexpression, and every error must be PostgreSQL's.
func TestAREMatchesAgainstPostgres(t *testing.T) {
	ctx := context.Background()
	conn := testpg.Connect(t)
	rng := rand.New(rand.NewSource(15))
	n := 1500
	if testing.Short() {
		n = 200
	}
	failures := 0
	for i := 0; i < n && failures < 10; i++ {
		re := randomARE(rng, 3)
		if i%3 == 2 {
			re = randomRegexSyntax(rng)
		}
		flags := []string{"g", "gi", "gn", "g"}[rng.Intn(4)]
		for k := 0; k < 3; k++ {
			text := randomRegexText(rng)
			want, wantErr := pgRegexpMatches(ctx, conn, text, re, flags)
			got, gotErr := ourRegexpMatches(text, re, flags)
			if wantErr != gotErr || want != got {
				t.Errorf("regexp_matches(%q, %q, %q): got %s%s, PostgreSQL %s%s", text, re, flags, got, gotErr, want, wantErr)
				failures++
				break
			}
			if wantErr != "" {
				break
			}
			var wantMatch bool
			if err := conn.QueryRow(ctx, "SELECT $1::text ~ $2::text", text, re).Scan(&wantMatch); err != nil {
				t.Fatal(err)
			}
			cre, err := compileRegex(re, false)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := matchRegexp(nil, cre, text); err != nil || got != wantMatch {
				t.Errorf("%q ~ %q: got %v (%v), PostgreSQL %v", text, re, got, err, wantMatch)
				failures++
				break
			}
		}
	}
}

func pgRegexpMatches(ctx context.Context, conn *pgx.Conn, text, re, flags string) (string, string) {
	var out string
	err := conn.QueryRow(ctx, `SELECT coalesce(json_agg(m ORDER BY o), '[]')::text
		FROM regexp_matches($1::text, $2::text, $3::text) WITH ORDINALITY AS r(m, o)`, text, re, flags).Scan(&out)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return "", pe.Code + ": " + pe.Message
	}
	if err != nil {
		panic(err)
	}
	var v [][]*string
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		panic(err)
	}
	b, _ := json.Marshal(v)
	return string(b), ""
}

func ourRegexpMatches(text, re, flags string) (string, string) {
	rows, err := RegexpMatches(nil, []any{text, re, flags})
	if err != nil {
		var pe *pgerror.Error
		if errors.As(err, &pe) {
			return "", string(pe.Code) + ": " + pe.Message
		}
		return "", err.Error()
	}
	v := make([][]*string, len(rows))
	for i, r := range rows {
		v[i] = make([]*string, len(r))
		for j, x := range r {
			if x != nil {
				s := x.(string)
				v[i][j] = &s
			}
		}
	}
	if v == nil {
		v = [][]*string{}
	}
	b, _ := json.Marshal(v)
	return string(b), ""
}

// reGen builds random AREs; closed counts the capturing groups closed so
// far, which back references may name.
type reGen struct {
	rng    *rand.Rand
	opened int
	closed []int
}

// randomARE builds an RE of the features the engine must get right.
func randomARE(rng *rand.Rand, depth int) string {
	g := &reGen{rng: rng}
	prefix := ""
	if rng.Intn(6) == 0 {
		prefix = []string{"(?x)", "(?i)", "(?n)", "(?p)", "(?w)", "***:", "***=", "(?q)", "(?xi)", "(?e)", "(?ei)", "(?eq)"}[rng.Intn(12)]
	}
	return prefix + g.re(depth, true)
}

func (g *reGen) re(depth int, refs bool) string {
	var sb strings.Builder
	branches := 1
	if g.rng.Intn(4) == 0 {
		branches = 2
	}
	for b := 0; b < branches; b++ {
		if b > 0 {
			sb.WriteByte('|')
		}
		for n := g.rng.Intn(3) + 1; n > 0; n-- {
			sb.WriteString(g.quantifiedAtom(depth, refs))
		}
	}
	return sb.String()
}

func (g *reGen) quantifiedAtom(depth int, refs bool) string {
	atoms := []string{"a", "b", ".", " ", "a #c\n", "[ab]", "[^a]", `\w`, `\s`, "x", "a", "b", "a", "b", `\W`, `[\s]`, `\S`, "[[:space:]]", `[^\d]`}
	var atom string
	switch r := g.rng.Intn(20); {
	case r < 9 || depth == 0:
		atom = atoms[g.rng.Intn(len(atoms))]
	case r < 12 && refs:
		g.opened++
		n := g.opened
		atom = "(" + g.re(depth-1, refs) + ")"
		g.closed = append(g.closed, n)
	case r < 13:
		atom = "(?:" + g.re(depth-1, refs) + ")"
	case r < 15 && refs && len(g.closed) > 0:
		atom = `\` + string(rune('0'+g.closed[g.rng.Intn(len(g.closed))]))
	case r < 17:
		la := []string{"(?=", "(?!", "(?<=", "(?<!"}[g.rng.Intn(4)]
		return la + g.re(depth-1, false) + ")"
	case r < 20:
		return []string{"^", "$", `\m`, `\M`, `\y`, `\Y`, `\A`, `\Z`}[g.rng.Intn(8)]
	default:
		atom = atoms[g.rng.Intn(len(atoms))]
	}
	if g.rng.Intn(2) == 0 {
		return atom
	}
	return atom + []string{"*", "+", "?", "*?", "+?", "??", "{0,2}", "{1}", "{1,}?", "{2}", "{1,2}?"}[g.rng.Intn(11)]
}

func randomRegexText(rng *rand.Rand) string {
	const chars = "aaabbbx A\n\v\t"
	b := make([]byte, rng.Intn(10))
	for i := range b {
		b[i] = chars[rng.Intn(len(chars))]
	}
	return string(b)
}

// randomRegexSyntax strings together ARE syntax, valid or not.
func randomRegexSyntax(rng *rand.Rand) string {
	pieces := []string{"a", "b", "(", ")", "[", "]", "{", "}", "*", "+", "?", "|", `\`, "^", "$", ".", ":",
		"=", "!", "<", "-", ",", "0", "1", "2", "3", "9", "x", "m", "M", "y", "Z", "#", " ", "(?", "[:", ":]",
		"[.", ".]", "[=", "=]", "alpha", "***", "\\x4", "\\u", "\\c", "\\0", "\\e", "{2,1}", "{1,", "256"}
	var sb strings.Builder
	for n := rng.Intn(7) + 1; n > 0; n-- {
		sb.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return sb.String()
}
