package types

import (
	"math"
	"testing"
)

// TestFloatNaNIsCNaN pins the bits of the NaNs float8in gives, as
// PostgreSQL 15's float8send showed them: binary output sends a float's
// bits, so 'NaN' must be C's NAN and '-NaN' keep its sign.
func TestFloatNaNIsCNaN(t *testing.T) {
	tests := []struct {
		text string
		bits uint64
	}{
		{"NaN", 0x7ff8000000000000},
		{"+nan", 0x7ff8000000000000},
		{"-NaN", 0xfff8000000000000},
	}
	for _, tt := range tests {
		v, err := ParseText(Float8, tt.text)
		if err != nil || math.Float64bits(v.(float64)) != tt.bits {
			t.Errorf("%s: %v, %v; want bits %x", tt.text, v, err, tt.bits)
		}
	}
	p, err := ParseText(tPoint, "(-NaN,nan)")
	if err != nil || math.Float64bits(p.(Point).X) != 0xfff8000000000000 || math.Float64bits(p.(Point).Y) != 0x7ff8000000000000 {
		t.Errorf("(-NaN,nan)::point: %v, %v", p, err)
	}
}
