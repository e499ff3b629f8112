package types

import (
	"context"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/fickle-db/fickle/internal/testpg"
)

// TestNormalizeAgreesWithPostgres checks unicode15Normalizing against a
// PostgreSQL 15 (FICKLE_TEST_PG): for every code point whose normalization
// is not the identity in x/text's tables (a decomposition or a combining
// class), alone and beside combining marks of the lowest and highest
// classes (which it must be reordered around if it is one itself), every
// form must give PostgreSQL's result unless the code point is refused. A
// code point that normalizes to itself in x/text does so in PostgreSQL too:
// editions of the character database only add normalizations.
func TestNormalizeAgreesWithPostgres(t *testing.T) {
	ctx := context.Background()
	conn := testpg.Connect(t)
	var inputs []string
	var cps []rune
	for r := rune(1); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		p := norm.NFKD.PropertiesString(string(r))
		if p.CCC() == 0 && len(p.Decomposition()) == 0 && norm.NFC.String(string(r)) == string(r) {
			continue
		}
		// U+0345 has the highest combining class (240), U+0334 the lowest (1).
		inputs = append(inputs, string(r), "a\u0345"+string(r), "a"+string(r)+"\u0334")
		cps = append(cps, r, r, r)
	}
	rows, err := conn.Query(ctx, `SELECT normalize(s, NFC), normalize(s, NFD), normalize(s, NFKC), normalize(s, NFKD)
		FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i) ORDER BY i`, inputs)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	forms := []string{"NFC", "NFD", "NFKC", "NFKD"}
	i, failures := 0, 0
	for rows.Next() {
		var want [4]string
		if err := rows.Scan(&want[0], &want[1], &want[2], &want[3]); err != nil {
			t.Fatal(err)
		}
		for k, form := range forms {
			if NormalizationUnknownToPostgres(cps[i]) || failures >= 20 {
				break
			}
			if got, err := unicodeNormalize(inputs[i], normalizationForms[form]); err != nil || got != want[k] {
				t.Errorf("normalize(%+q, %s) = %+q (%v), PostgreSQL %+q: U+%04X belongs in unicode15Normalizing", inputs[i], form, got, err, want[k], cps[i])
				failures++
			}
		}
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(inputs) || len(inputs) < 10000 {
		t.Fatalf("compared %d of %d inputs", i, len(inputs))
	}
}
