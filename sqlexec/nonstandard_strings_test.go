package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestNonStandardStringsRefusesBackslashLiterals(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		code pgerror.Code
	}{
		{`SELECT 'a\b'`, pgerror.FeatureNotSupported},
		{`SELECT 'ab\'cd'`, pgerror.FeatureNotSupported},
		{`SELECT U&'d\0061t'`, pgerror.FeatureNotSupported},
		{`SELECT 'plain', E'a\nb', $$x\y$$`, ""},
		{`SELECT 'x' AS U&"d\0061t"`, ""},
		{`SELECT 1`, ""},
	} {
		err := checkNonStandardStrings(tc.sql)
		if got := pgerror.GetCode(err); got != tc.code {
			t.Errorf("%s: got %q (%v), want %q", tc.sql, got, err, tc.code)
		}
	}
}
