package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestNonStandardStringsRewritesBackslashLiteralsKeepingPositions(t *testing.T) {
	for _, tc := range []struct {
		sql, want string
		code      pgerror.Code
	}{
		{`SELECT 'a\\b', 1`, `SELECT 'a\b' , 1`, ""},
		{`SELECT 'ab\'cd'`, `SELECT 'ab''cd'`, ""},
		{`SELECT 'x\ny' || 'z'`, "SELECT 'x\ny'  || 'z'", ""},
		{"SELECT 'a\\\\'\n  'b\\t'", "SELECT 'a\\b\t'       ", ""},
		{`SELECT 'plain', E'a\nb', $$x\y$$, $t$'\$t$, "q\"`, `SELECT 'plain', E'a\nb', $$x\y$$, $t$'\$t$, "q\"`, ""},
		{`SELECT 'x' AS U&"d\0061t" -- it's \`, `SELECT 'x' AS U&"d\0061t" -- it's \`, ""},
		{`SELECT U&'d\0061t'`, "", pgerror.FeatureNotSupported},
		{`SELECT N'a\\b'`, `SELECT N'a\b' `, ""},
		{`SELECT 'a\'`, "", pgerror.SyntaxError},
		{`SELECT 'a\000b'`, "", pgerror.CharacterNotInRepertoire},
		{`SELECT 1`, `SELECT 1`, ""},
	} {
		got, err := rewriteNonStandardStrings(tc.sql)
		if code := pgerror.GetCode(err); code != tc.code {
			t.Errorf("%s: got %q (%v), want %q", tc.sql, code, err, tc.code)
			continue
		}
		if err == nil && got != tc.want {
			t.Errorf("%s: rewritten to %q, want %q", tc.sql, got, tc.want)
		}
	}
}
