package types

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestIntegerArithmeticMatchesBigInts checks + - * / % on random operands of
// every integer type against math/big: the result when it fits the result
// type, 22003 when it does not, 22012 on division by zero.
func TestIntegerArithmeticMatchesBigInts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ints := []Type{Int2, Int4, Int8}
	random := func(typ Type) int64 {
		lo, hi := intBounds(typ.Oid)
		switch r.IntN(4) {
		case 0:
			return []int64{lo, hi, 0, -1, 1}[r.IntN(5)]
		case 1:
			return r.Int64N(201) - 100
		}
		return lo + int64(r.Uint64N(uint64(hi-lo)))
	}
	for range 20000 {
		lt, rt := ints[r.IntN(3)], ints[r.IntN(3)]
		op := []string{"+", "-", "*", "/", "%"}[r.IntN(5)]
		if op == "%" {
			rt = lt
		}
		a, b := random(lt), random(rt)
		o, err := ResolveBinaryOp(op, lt, rt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := o.Eval(a, b)
		x, y := big.NewInt(a), big.NewInt(b)
		want := new(big.Int)
		wantCode := pgerror.Code("")
		switch op {
		case "+":
			want.Add(x, y)
		case "-":
			want.Sub(x, y)
		case "*":
			want.Mul(x, y)
		case "/", "%":
			if b == 0 {
				wantCode = pgerror.DivisionByZero
				break
			}
			q, m := new(big.Int).QuoRem(x, y, new(big.Int))
			if op == "/" {
				want = q
			} else {
				want = m
			}
		}
		lo, hi := intBounds(o.Result.Oid)
		if wantCode == "" && (want.Cmp(big.NewInt(lo)) < 0 || want.Cmp(big.NewInt(hi)) > 0) {
			wantCode = pgerror.NumericValueOutOfRange
		}
		if code := pgerror.GetCode(err); code != wantCode || (err == nil && got.(int64) != want.Int64()) {
			t.Fatalf("%d::%s %s %d::%s = %v, %v; want %v, %s", a, FormatType(lt), op, b, FormatType(rt), got, err, want, wantCode)
		}
	}
}

// TestNumericDivisionRoundsExactly checks numeric / numeric on random
// operands against exact rational arithmetic: the quotient rounded half
// away from zero to the scale select_div_scale picks.
func TestNumericDivisionRoundsExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 5000 {
		a := apd.New(r.Int64N(2_000_000_001)-1_000_000_000, -int32(r.IntN(8)))
		b := apd.New(r.Int64N(2_000_001)-1_000_000, -int32(r.IntN(8)))
		if b.IsZero() {
			continue
		}
		got, err := numericDiv(a, b)
		if err != nil {
			t.Fatal(err)
		}
		scale := divScale(a, b)
		ra, _ := new(big.Rat).SetString(a.Text('f'))
		rb, _ := new(big.Rat).SetString(b.Text('f'))
		q := new(big.Rat).Quo(ra, rb)
		// Round half away from zero at scale.
		m := new(big.Rat).Mul(q, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
		num, den := m.Num(), m.Denom()
		n2 := new(big.Int).Mul(new(big.Int).Abs(num), big.NewInt(2))
		n2.Add(n2, den)
		rounded := n2.Quo(n2, new(big.Int).Mul(den, big.NewInt(2)))
		if num.Sign() < 0 {
			rounded.Neg(rounded)
		}
		want := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(rounded), -int32(scale))
		if got.(*apd.Decimal).Cmp(want) != 0 || dscale(got.(*apd.Decimal)) != scale {
			t.Fatalf("%s / %s = %s, want %s (scale %d)", a.Text('f'), b.Text('f'), formatNumeric(got.(*apd.Decimal)), formatNumeric(want), scale)
		}
	}
}

// TestTimestampArithmeticBeyondDurationRange adds intervals whose time part
// exceeds time.Duration's 292 years.
func TestTimestampArithmeticBeyondDurationRange(t *testing.T) {
	ts, _ := ParseText(Timestamp, "2000-01-01")
	iv, _ := ParseText(Interval, "3000000 hours")
	op, err := ResolveBinaryOp("+", Timestamp, Interval)
	if err != nil {
		t.Fatal(err)
	}
	v, err := op.Eval(ts, iv)
	if err != nil || FormatText(Timestamp, v, nil) != "2342-03-29 00:00:00" {
		t.Errorf("2000-01-01 + 3000000 hours = %v, %v", v, err)
	}
	huge, err := ParseText(Interval, "2562047788 hours")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Eval(ts, huge); pgerror.GetCode(err) != pgerror.DatetimeFieldOverflow {
		t.Errorf("timestamp overflow: %v", err)
	}
	f, _ := ResolveFunc("to_timestamp", []Type{Float8})
	if v, err := f.Eval(nil, []any{9e12}); err != nil || FormatText(Timestamptz, v, nil) != "287168-08-24 16:00:00+00" {
		t.Errorf("to_timestamp(9e12) = %v, %v", v, err)
	}
	if _, err := f.Eval(nil, []any{1e13}); pgerror.GetCode(err) != pgerror.DatetimeFieldOverflow {
		t.Errorf("to_timestamp(1e13): %v", err)
	}
}

// TestFloatPowNaNFollowsPOSIX pins dpow's NaN cases, settled before its
// errors: NaN ^ 0 and 1 ^ NaN are 1, any other NaN operand gives NaN,
// even a negative base that a non-integer exponent would reject.
func TestFloatPowNaNFollowsPOSIX(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		a, b float64
		want float64 // NaN means NaN
	}{
		{-1, nan, nan}, {nan, 0, 1}, {1, nan, 1}, {nan, nan, nan}, {0, nan, nan}, {nan, -1, nan}, {-0.5, nan, nan},
	}
	for _, tt := range tests {
		got, err := floatPow(tt.a, tt.b)
		if err != nil {
			t.Errorf("floatPow(%v, %v): %v", tt.a, tt.b, err)
			continue
		}
		if g := got.(float64); math.IsNaN(tt.want) != math.IsNaN(g) || !math.IsNaN(g) && g != tt.want {
			t.Errorf("floatPow(%v, %v) = %v, want %v", tt.a, tt.b, g, tt.want)
		}
	}
}
