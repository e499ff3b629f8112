package types

import (
	"github.com/cockroachdb/apd/v3"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestNumericBeyondApdRefused pins the border between the values fickle
// reads, those PostgreSQL holds but fickle refuses with 0A000 (apd's
// exponents stop at 100000), and those PostgreSQL rejects with 22003.
func TestNumericBeyondApdRefused(t *testing.T) {
	for _, tc := range []struct {
		text string
		code pgerror.Code // "" when the value reads
	}{
		{"9.9e99999", ""},
		{"1e-16383", ""},
		{"9.9e131071", pgerror.FeatureNotSupported},
		{"-5e131071", pgerror.FeatureNotSupported},
		{"1e131072", pgerror.NumericValueOutOfRange},
		{"1e-200000", pgerror.NumericValueOutOfRange},
	} {
		_, err := ParseText(NumericAny, tc.text)
		if got := pgerror.GetCode(err); (err == nil) != (tc.code == "") || (err != nil && got != tc.code) {
			t.Errorf("%s: got %v (%s), want code %q", tc.text, err, got, tc.code)
		}
	}
	if _, err := numericPow(mustNumeric(t, "10"), mustNumeric(t, "131071")); pgerror.GetCode(err) != pgerror.FeatureNotSupported {
		t.Errorf("10 ^ 131071: got %v, want 0A000", err)
	}
}

func mustNumeric(t *testing.T, s string) *apd.Decimal {
	t.Helper()
	v, err := ParseText(NumericAny, s)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*apd.Decimal)
}
