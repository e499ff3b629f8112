package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The money type follows cash.c under lc_monetary C, the only locale fickle
// declares: an int64 count of cents, read with an optional "$", "-", "+"
// or "(" around the digits, "," thousands separators and a "." before at
// most two fraction digits (a third rounds half up), and printed as
// -$1,234.56. C gives no frac_digits, so cash.c's default of two applies,
// and no currency symbol or separators, so "$", "," and "." do.

// OidMoney and OidMoneyArray are money and money[].
const (
	OidMoney      Oid = 790
	OidMoneyArray Oid = 791
)

// Money is the money type.
var Money = Type{OidMoney, -1}

// moneyScale is 10^frac_digits, the cents in a dollar.
const moneyScale = 100

var errMoneyOutOfRange = pgerror.New(pgerror.NumericValueOutOfRange, "money out of range")

func init() {
	m := Money
	addComparisons(m, m, func(_ *Env, a, b any) int { return cmp3(a.(int64), b.(int64)) })
	addBinary("+", m, m, m, func(_ *Env, a, b any) (any, error) { return moneyAdd(a.(int64), b.(int64)) })
	addBinary("-", m, m, m, func(_ *Env, a, b any) (any, error) { return moneySub(a.(int64), b.(int64)) })
	addBinary("/", m, m, Float8, func(_ *Env, a, b any) (any, error) {
		if b.(int64) == 0 {
			return nil, errDivisionByZero
		}
		return float64(a.(int64)) / float64(b.(int64)), nil
	})
	for _, f := range []Type{Float4, Float8} {
		addBinary("*", m, f, m, func(_ *Env, a, b any) (any, error) { return moneyFromFloat(float64(a.(int64)) * b.(float64)) })
		addBinary("*", f, m, m, func(_ *Env, a, b any) (any, error) { return moneyFromFloat(a.(float64) * float64(b.(int64))) })
		addBinary("/", m, f, m, func(_ *Env, a, b any) (any, error) {
			if b.(float64) == 0 {
				return nil, errDivisionByZero
			}
			return moneyFromFloat(float64(a.(int64)) / b.(float64))
		})
	}
	for _, i := range []Type{Int2, Int4, Int8} {
		addBinary("*", m, i, m, func(_ *Env, a, b any) (any, error) { return moneyMul(a.(int64), b.(int64)) })
		addBinary("*", i, m, m, func(_ *Env, a, b any) (any, error) { return moneyMul(a.(int64), b.(int64)) })
		addBinary("/", m, i, m, func(_ *Env, a, b any) (any, error) { return moneyDiv(a.(int64), b.(int64)) })
	}

	addCast(OidMoney, OidNumeric, CastAssignment, func(_ *Env, v any) (any, error) { return apd.New(v.(int64), -2), nil })
	addCast(OidNumeric, OidMoney, CastAssignment, numericToMoney)
	addCast(OidInt4, OidMoney, CastAssignment, intToMoney)
	addCast(OidInt8, OidMoney, CastAssignment, intToMoney)

	addFunc("cash_words", Immutable, Text, func(_ *Env, a []any) (any, error) { return cashWords(a[0].(int64)), nil }, m)
	addFunc("cashlarger", Immutable, m, func(_ *Env, a []any) (any, error) { return max(a[0].(int64), a[1].(int64)), nil }, m, m)
	addFunc("cashsmaller", Immutable, m, func(_ *Env, a []any) (any, error) { return min(a[0].(int64), a[1].(int64)), nil }, m, m)
	addFunc("cash_cmp", Immutable, Int4, func(_ *Env, a []any) (any, error) { return int64(cmp3(a[0].(int64), a[1].(int64))), nil }, m, m)
	addAgg("sum", m, func() Accumulator { return &moneySumAcc{} }, m)
}

// moneyAdd is cash_pl, checked for overflow.
func moneyAdd(a, b int64) (any, error) {
	s := a + b
	if (s > a) != (b > 0) {
		return nil, errMoneyOutOfRange
	}
	return s, nil
}

// moneySub is cash_mi, checked for overflow.
func moneySub(a, b int64) (any, error) {
	s := a - b
	if (s < a) != (b > 0) {
		return nil, errMoneyOutOfRange
	}
	return s, nil
}

// moneyMul is cash_mul_int8 and its kin, checked for overflow.
func moneyMul(a, b int64) (any, error) {
	if _, err := intMul(OidInt8, a, b); err != nil {
		return nil, errMoneyOutOfRange
	}
	return a * b, nil
}

// moneyDiv is cash_div_int8 and its kin: the quotient truncated toward
// zero. PostgreSQL divides without checking the one quotient that does
// not fit, and the processor's trap reaches the client as SIGFPE's error.
func moneyDiv(a, b int64) (any, error) {
	switch {
	case b == 0:
		return nil, errDivisionByZero
	case b == -1 && a == math.MinInt64:
		return nil, pgerror.New(pgerror.FloatingPointException, "floating-point exception").
			WithDetail("An invalid floating-point operation was signaled. This probably means an out-of-range result or an invalid operation, such as division by zero.")
	}
	return a / b, nil
}

// moneyFromFloat is the rounding of cash_mul_flt8 and cash_div_flt8: to
// the nearest cent, ties to even as rint does, and money out of range
// when that is NaN or outside int64 (FLOAT8_FITS_IN_INT64).
func moneyFromFloat(f float64) (any, error) {
	r := math.RoundToEven(f)
	if math.IsNaN(r) || r < math.MinInt64 || r >= -math.MinInt64 {
		return nil, errMoneyOutOfRange
	}
	return int64(r), nil
}

// numericToMoney is numeric_cash: the amount times 100, rounded to an
// int8 as numeric_int8 rounds (half away from zero) and checked as it
// checks.
func numericToMoney(env *Env, v any) (any, error) {
	d := v.(*apd.Decimal)
	if d.Form == apd.Finite {
		scaled := new(apd.Decimal)
		scaled.Set(d)
		scaled.Exponent += 2
		if scaled.Exponent > 0 {
			// numericToInt wants the integer digits written out.
			if scaled.NumDigits()+int64(scaled.Exponent) > 20 {
				return nil, intOutOfRange(OidInt8)
			}
			var pow apd.BigInt
			pow.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(scaled.Exponent)), nil)
			scaled.Coeff.Mul(&scaled.Coeff, &pow)
			scaled.Exponent = 0
		}
		v = scaled
	}
	return numericToInt(OidInt8)(env, v)
}

// intToMoney is int4_cash and int8_cash: the amount in cents, through
// int8mul's overflow check.
func intToMoney(_ *Env, v any) (any, error) {
	return intMul(OidInt8, v.(int64), moneyScale)
}

// moneyError is cash_in's failure for s.
func moneyError(code pgerror.Code, s string) error {
	if code == pgerror.NumericValueOutOfRange {
		return pgerror.Newf(code, "value \"%s\" is out of range for type money", s)
	}
	return pgerror.Newf(code, "invalid input syntax for type money: \"%s\"", s)
}

// parseMoney is cash_in under lc_monetary C.
func parseMoney(str string) (any, error) {
	s := str
	skipSpace := func() {
		for len(s) > 0 && isCSpace(s[0]) {
			s = s[1:]
		}
	}
	skipSymbol := func() {
		skipSpace()
		s = strings.TrimPrefix(s, "$")
		skipSpace()
	}
	skipSymbol()
	// A leading minus or parenthesis makes the amount negative; cash_in
	// does not check that the parentheses balance.
	neg := false
	switch {
	case strings.HasPrefix(s, "-"), strings.HasPrefix(s, "("):
		neg = true
		s = s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	skipSymbol()

	// The amount accumulates negated, whose range is the larger.
	var value int64
	dec, seenDot := 0, false
	outOfRange := func() error { return moneyError(pgerror.NumericValueOutOfRange, str) }
	for ; len(s) > 0; s = s[1:] {
		c := s[0]
		switch {
		case isDigit(c) && (!seenDot || dec < 2):
			d := int64(c - '0')
			if value < (math.MinInt64+d)/10 {
				return nil, outOfRange()
			}
			value = value*10 - d
			if seenDot {
				dec++
			}
			continue
		case c == '.' && !seenDot:
			seenDot = true
			continue
		case c == ',':
			continue
		}
		break
	}
	// A further digit rounds half up.
	if len(s) > 0 && s[0] >= '5' && s[0] <= '9' {
		if value == math.MinInt64 {
			return nil, outOfRange()
		}
		value--
	}
	for ; dec < 2; dec++ {
		if value < math.MinInt64/10 {
			return nil, outOfRange()
		}
		value *= 10
	}
	for len(s) > 0 && isDigit(s[0]) {
		s = s[1:]
	}
	// What may trail: spaces, a closing parenthesis, a sign, the symbol.
	for len(s) > 0 {
		switch c := s[0]; {
		case isCSpace(c) || c == ')' || c == '+' || c == '$':
		case c == '-':
			neg = true
		default:
			return nil, moneyError(pgerror.InvalidTextRepresentation, str)
		}
		s = s[1:]
	}
	if !neg {
		if value == math.MinInt64 {
			return nil, outOfRange()
		}
		value = -value
	}
	return value, nil
}

// formatMoney is cash_out under lc_monetary C: the sign, "$", the dollars
// grouped by threes with commas, and the two digits of cents.
func formatMoney(v int64) string {
	var u uint64
	var b []byte
	if v < 0 {
		b = append(b, '-')
		u = uint64(-v) // -MinInt64 wraps to its own magnitude as a uint64
	} else {
		u = uint64(v)
	}
	b = append(b, '$')
	dollars := strconv.FormatUint(u/moneyScale, 10)
	for i := range len(dollars) {
		if i > 0 && (len(dollars)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, dollars[i])
	}
	cents := u % moneyScale
	return string(append(b, '.', byte('0'+cents/10), byte('0'+cents%10)))
}

// cashWords is cash_words: the amount in English words, capitalized.
func cashWords(v int64) string {
	var b strings.Builder
	if v < 0 {
		b.WriteString("minus ")
	}
	u := uint64(v)
	if v < 0 {
		u = uint64(-v)
	}
	prefix := b.Len()
	groups := []struct {
		div  uint64
		name string
	}{
		{100000000000000000, " quadrillion "}, {100000000000000, " trillion "}, {100000000000, " billion "},
		{100000000, " million "}, {100000, " thousand "}, {100, ""},
	}
	for _, g := range groups {
		if n := u / g.div % 1000; n != 0 {
			b.WriteString(numWord(n))
			b.WriteString(g.name)
		}
	}
	if b.Len() == prefix {
		b.WriteString("zero")
	}
	if u/100 == 1 {
		b.WriteString(" dollar and ")
	} else {
		b.WriteString(" dollars and ")
	}
	cents := u % 100
	b.WriteString(numWord(cents))
	if cents == 1 {
		b.WriteString(" cent")
	} else {
		b.WriteString(" cents")
	}
	out := b.String()
	return strings.ToUpper(out[:1]) + out[1:]
}

var smallNumWords = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

var tensWords = [...]string{2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}

// numWord is num_word: a number below 1000 in words, as cash.c spells it
// ("one hundred and five", "one hundred twenty", "twenty one").
func numWord(n uint64) string {
	if n <= 20 {
		return smallNumWords[n]
	}
	tu := n % 100
	var rest string
	switch {
	case tu == 0:
		return smallNumWords[n/100] + " hundred"
	case n%10 == 0 && tu > 10:
		rest = tensWords[tu/10]
	case tu < 20:
		rest = smallNumWords[tu]
		if n > 99 {
			rest = "and " + rest
		}
	default:
		rest = tensWords[tu/10] + " " + smallNumWords[tu%10]
	}
	if n > 99 {
		return smallNumWords[n/100] + " hundred " + rest
	}
	return rest
}

// moneySumAcc is sum(money): cash_pl over the values.
type moneySumAcc struct {
	sum  int64
	seen bool
}

func (a *moneySumAcc) Add(args []any) error {
	s, err := moneyAdd(a.sum, args[0].(int64))
	if err != nil {
		return err
	}
	a.sum, a.seen = s.(int64), true
	return nil
}

func (a *moneySumAcc) Result() (any, error) {
	if !a.seen {
		return nil, nil
	}
	return a.sum, nil
}
