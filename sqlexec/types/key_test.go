package types

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
)

// randomDatum returns a random datum of t, biased towards the edge cases of
// its order (zeros, signs, NaN, infinities, equal values spelled
// differently, prefixes, embedded NULs).
func randomDatum(r *rand.Rand, t Type) any {
	if elem, isArray := t.Elem(); isArray {
		// Short arrays over few values: equal prefixes, NULL elements.
		out := make([]any, r.IntN(4))
		for i := range out {
			if r.IntN(4) > 0 {
				out[i] = randomDatum(r, elem)
			}
		}
		return out
	}
	if sub, isRange := t.RangeSubtype(); isRange {
		return randomRange(r, t, sub)
	}
	switch t.Oid {
	case OidBool:
		return r.IntN(2) == 1
	case OidInt8:
		edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 255, 256, -256}
		if r.IntN(3) == 0 {
			return edges[r.IntN(len(edges))]
		}
		return r.Int64() >> r.IntN(64)
	case OidFloat8:
		edges := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1, -1, math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}
		if r.IntN(3) == 0 {
			return edges[r.IntN(len(edges))]
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	case OidNumeric:
		switch r.IntN(8) {
		case 0:
			return &apd.Decimal{Form: apd.NaN}
		case 1:
			return &apd.Decimal{Form: apd.Infinite, Negative: r.IntN(2) == 0}
		case 2:
			return apd.New(0, int32(-r.IntN(4)))
		}
		coeff := r.Int64N(2000) - 1000
		if r.IntN(4) == 0 {
			coeff *= 1000 // trailing zeros: 1.000 and 1 compare equal
		}
		return normalizeDecimal(apd.New(coeff, int32(r.IntN(12)-8)))
	case OidText, OidBpchar:
		alphabet := []string{"a", "b", "é", "\x00", " ", "z", "ab"}
		s := ""
		for range r.IntN(5) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	case OidBytea:
		b := make([]byte, r.IntN(5))
		for i := range b {
			b[i] = []byte{0, 1, 0xff, 'a'}[r.IntN(4)]
		}
		return b
	case OidUUID:
		var u [16]byte
		u[r.IntN(16)] = byte(r.IntN(3))
		return u
	case OidTimestamptz:
		switch r.IntN(6) {
		case 0:
			return InfinityTime
		case 1:
			return NegInfinityTime
		}
		return time.Unix(r.Int64N(1<<40)-1<<39, int64(r.IntN(1000))*1000).UTC()
	case OidInterval:
		return pgtype.Interval{Months: int32(r.IntN(5) - 2), Days: int32(r.IntN(70) - 35), Microseconds: (r.Int64N(5) - 2) * usecPerDay / int64(1+r.IntN(4)), Valid: true}
	case OidBit, OidVarbit:
		// Few bits, mostly zeros: prefixes, and strings that differ only
		// in their length or in the pad bits of a byte.
		w := newBitStringBuilder(20)
		for range r.IntN(20) {
			w.add(r.IntN(4) == 0)
		}
		return w.result()
	case OidMoney:
		return r.Int64N(2001) - 1000
	case OidTimetz:
		// Few hours and zones, so that equal UTC times in different
		// zones come up.
		return TimeTZ{Time: r.Int64N(25) * usecPerHour, Zone: int32(r.IntN(5)-2) * 3600}
	case OidJSONB:
		docs := []string{`null`, `1`, `1.0`, `2`, `"a"`, `"b"`, `true`, `false`, `[]`, `[1]`, `[1, 2]`, `{}`, `{"a": 1}`, `{"b": 1}`, `{"aa": 1}`, `{"a": 1, "b": 2}`}
		return docs[r.IntN(len(docs))]
	}
	panic("no generator for " + formatType(t))
}

var keyTypes = []Type{Bool, Int8, Float8, NumericAny, Text, Bpchar(4), Bytea, UUID, Timestamptz, Interval, JSONB,
	{arrayTypes[OidBool], -1}, {arrayTypes[OidInt8], -1}, {arrayTypes[OidNumeric], -1}, {arrayTypes[OidText], -1}, {arrayTypes[OidJSONB], -1},
	{OidInt8Range, -1}, {OidNumRange, -1}, {OidTstzRange, -1}, {arrayTypes[OidInt8Range], -1}, BitAny, VarbitAny,
	{arrayTypes[OidVarbit], -1}, Money, Timetz, {OidTimetzArray, -1}}

// TestAppendKeyOrdersLikeCompare checks, on seeded random pairs, that key
// encodings order exactly as Compare, that NULL sorts last, that two-column
// keys order column by column, and that DecodeKey returns an equal value.
func TestAppendKeyOrdersLikeCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range keyTypes {
		for range 3000 {
			a, b := randomDatum(r, typ), randomDatum(r, typ)
			if typ.Oid == OidBpchar {
				a, _ = coerceLength(typ, a.(string), true)
				b, _ = coerceLength(typ, b.(string), true)
			}
			ka, kb := AppendKey(nil, typ, a), AppendKey(nil, typ, b)
			if got, want := bytes.Compare(ka, kb), Compare(typ, a, b); got != want {
				t.Fatalf("%s: keys of %v and %v compare %d, values %d", formatType(typ), a, b, got, want)
			}
			if bytes.Compare(ka, AppendKey(nil, typ, nil)) >= 0 {
				t.Fatalf("%s: %v does not sort before NULL", formatType(typ), a)
			}
			two := bytes.Compare(AppendKey(AppendKey(nil, typ, a), Int8, int64(1)), AppendKey(AppendKey(nil, typ, b), Int8, int64(0)))
			if want := Compare(typ, a, b); (want != 0 && two != want) || (want == 0 && two != 1) {
				t.Fatalf("%s: two-column keys of %v and %v compare %d", formatType(typ), a, b, two)
			}
			dec, rest, err := DecodeKey(typ, append(ka, 0x7e))
			if err != nil || !bytes.Equal(rest, []byte{0x7e}) || Compare(typ, a, dec) != 0 {
				t.Fatalf("%s: DecodeKey(AppendKey(%v)) = %v, rest %x, %v", formatType(typ), a, dec, rest, err)
			}
		}
	}
}

func TestCompareSpecialValues(t *testing.T) {
	tests := []struct {
		typ  Type
		a, b any
		want int
	}{
		{Float8, math.NaN(), math.Inf(1), 1},
		{Float8, math.NaN(), math.NaN(), 0},
		{Float8, math.Copysign(0, -1), 0.0, 0},
		{NumericAny, &apd.Decimal{Form: apd.NaN}, &apd.Decimal{Form: apd.Infinite}, 1},
		{NumericAny, apd.New(10, -1), apd.New(1, 0), 0},
		{Bpchar(5), "ab   ", "ab", 0},
		{Text, "ab ", "ab", 1},
		{Text, "é", "z", 1}, // code point order, the "C" collation
		{Interval, pgtype.Interval{Months: 1, Valid: true}, pgtype.Interval{Days: 30, Valid: true}, 0},
		{Interval, pgtype.Interval{Days: 1, Valid: true}, pgtype.Interval{Microseconds: usecPerDay, Valid: true}, 0},
		{JSONB, `{"b": 1}`, `{"aa": 1}`, 1},                   // keys compare as strings, as in PostgreSQL
		{JSONB, `{"b": 1, "cc": 2}`, `{"b": 2, "aa": 1}`, -1}, // visited in storage order: b, then cc or aa
		{JSONB, `[1]`, `{}`, -1},
		{JSONB, `"a"`, `1`, -1},
		{Timestamptz, InfinityTime, time.Date(294276, 12, 31, 23, 59, 59, 999999000, time.UTC), 1},
	}
	for _, tt := range tests {
		if got := Compare(tt.typ, tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%s, %v, %v) = %d, want %d", formatType(tt.typ), tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDecodeKeyRejectsTruncatedInput(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range keyTypes {
		for range 200 {
			k := AppendKey(nil, typ, randomDatum(r, typ))
			for n := 0; n < len(k); n++ {
				if v, _, err := DecodeKey(typ, k[:n]); err == nil {
					t.Fatalf("%s: DecodeKey(%x) of a truncated key returned %v", formatType(typ), k[:n], v)
				}
			}
		}
	}
}
