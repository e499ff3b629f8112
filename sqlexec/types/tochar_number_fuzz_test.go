package types

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// FuzzNumberTemplates runs to_char and to_number on any template and
// input: they answer a value or a PostgreSQL error, never a panic.
func FuzzNumberTemplates(f *testing.F) {
	for _, seed := range []struct{ format, input string }{
		{"FM9,999.00PR", "<1,234.50>"}, {"S9.99EEEE", "1"}, {`"a\"b"999th`, "12th"}, {"RN", "XII"},
		{"99V99MI", "12-"}, {"0000.00SG", "-0001.20"}, {"L999G999D99", "$ 12,345.67"}, {"", ""},
	} {
		f.Add(seed.format, seed.input)
	}
	f.Fuzz(func(t *testing.T, format, input string) {
		d, _, _ := apd.NewFromString("-1234.5678")
		_, _ = numericToChar(d, format)
		_, _ = numericToChar(&apd.Decimal{Form: apd.Infinite}, format)
		_, _ = intToChar(OidInt8, math.MinInt64, format)
		_, _ = floatToChar(math.NaN(), format, 15)
		_, _ = floatToChar(-1e300, format, 15)
		_, _ = toNumber(input, format)
	})
}
