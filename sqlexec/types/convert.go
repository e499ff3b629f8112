package types

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// The conversions behind pg_cast's functions. Each takes a non-NULL datum of
// its source type.

// intToInt narrows or widens an integer to the integer type to.
func intToInt(to Oid) EnvCastFunc {
	return func(_ *Env, v any) (any, error) { return checkInt(to, v.(int64)) }
}

// intToOid converts int2/int4 to oid as PostgreSQL's int4 to oid cast does:
// negative values wrap around 2^32.
func intToOid(_ *Env, v any) (any, error) {
	x := v.(int64)
	if x < math.MinInt32 || x > math.MaxUint32 {
		return nil, intOutOfRange(OidOid)
	}
	if x < 0 {
		x += 1 << 32
	}
	return x, nil
}

// oidToInt4 is the oid to int4 cast: the 32 bits reinterpreted as signed.
func oidToInt4(_ *Env, v any) (any, error) { return int64(int32(uint32(v.(int64)))), nil }

func intToFloat(to Oid) EnvCastFunc {
	return func(_ *Env, v any) (any, error) {
		f := float64(v.(int64))
		if to == OidFloat4 {
			f = float64(float32(f))
		}
		return f, nil
	}
}

func intToNumeric(_ *Env, v any) (any, error) { return apd.New(v.(int64), 0), nil }

// floatToInt rounds to the nearest integer, halves to even (rint), and
// checks the range.
func floatToInt(to Oid) EnvCastFunc {
	return func(_ *Env, v any) (any, error) {
		f := math.RoundToEven(v.(float64))
		lo, hi := intBounds(to)
		if math.IsNaN(f) || f < float64(lo) || f >= -float64(lo) || f > float64(hi) {
			return nil, intOutOfRange(to)
		}
		return int64(f), nil
	}
}

// float8ToFloat4 fails with 22003 on overflow and underflow.
func float8ToFloat4(_ *Env, v any) (any, error) {
	f := v.(float64)
	r := float64(float32(f))
	if math.IsInf(r, 0) && !math.IsInf(f, 0) {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")
	}
	if r == 0 && f != 0 {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: underflow")
	}
	return r, nil
}

func float4ToFloat8(_ *Env, v any) (any, error) { return v.(float64), nil }

// floatToNumeric converts through %.15g (float4: %.6g), as float8_numeric
// does, so 0.1::float8::numeric is 0.1.
func floatToNumeric(from Oid) EnvCastFunc {
	digits := 15
	if from == OidFloat4 {
		digits = 6
	}
	return func(_ *Env, v any) (any, error) {
		f := v.(float64)
		switch {
		case math.IsNaN(f):
			return &apd.Decimal{Form: apd.NaN}, nil
		case math.IsInf(f, 0):
			return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}, nil
		}
		d, _, err := apd.NewFromString(strconv.FormatFloat(f, 'g', digits, 64))
		if err != nil {
			return nil, pgerror.Wrapf(err, pgerror.InternalError, "float to numeric: %v", err)
		}
		return normalizeDecimal(d), nil
	}
}

// numericToInt rounds half away from zero.
func numericToInt(to Oid) EnvCastFunc {
	return func(_ *Env, v any) (any, error) {
		d := v.(*apd.Decimal)
		switch d.Form {
		case apd.NaN, apd.NaNSignaling:
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot convert NaN to %s", typeInfoOf(to).sqlName)
		case apd.Infinite:
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot convert infinity to %s", typeInfoOf(to).sqlName)
		}
		r := new(apd.Decimal)
		if _, err := decimalContext.WithPrecision(uint32(max(d.NumDigits()+1, 1))).Quantize(r, d, 0); err != nil {
			return nil, intOutOfRange(to)
		}
		i, err := r.Int64()
		if err != nil {
			return nil, intOutOfRange(to)
		}
		return checkInt(to, i)
	}
}

// numericToFloat converts through the decimal text, as numeric_float8 does.
func numericToFloat(to Oid) EnvCastFunc {
	return func(_ *Env, v any) (any, error) {
		d := v.(*apd.Decimal)
		switch d.Form {
		case apd.NaN, apd.NaNSignaling:
			return floatNaN, nil
		case apd.Infinite:
			if d.Negative {
				return math.Inf(-1), nil
			}
			return math.Inf(1), nil
		}
		bits := 64
		if to == OidFloat4 {
			bits = 32
		}
		f, err := strconv.ParseFloat(d.Text('E'), bits)
		if err != nil {
			return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "%q is out of range for type %s", formatNumeric(d), typeInfoOf(to).sqlName)
		}
		return f, nil
	}
}

func boolToInt(_ *Env, v any) (any, error) {
	if v.(bool) {
		return int64(1), nil
	}
	return int64(0), nil
}

// boolToText is booltext: the words, not the t/f of boolout.
func boolToText(_ *Env, v any) (any, error) {
	if v.(bool) {
		return "true", nil
	}
	return "false", nil
}

func intToBool(_ *Env, v any) (any, error) { return v.(int64) != 0, nil }

// bpcharToText strips the trailing blanks of char(n), which are not
// significant.
func bpcharToText(_ *Env, v any) (any, error) { return strings.TrimRight(v.(string), " "), nil }

func identity(_ *Env, v any) (any, error) { return v, nil }

func textToName(_ *Env, v any) (any, error) { return truncateName(v.(string)), nil }

func textToChar(_ *Env, v any) (any, error) { return parseChar(v.(string)), nil }

// charToInt4 is the "char" to integer cast: the byte as a signed number.
func charToInt4(_ *Env, v any) (any, error) {
	s := v.(string)
	if s == "" {
		return int64(0), nil
	}
	return int64(int8(s[0])), nil
}

func int4ToChar(_ *Env, v any) (any, error) {
	x := v.(int64)
	if x < -128 || x > 127 {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "\"char\" out of range")
	}
	if x == 0 {
		return "", nil
	}
	return string([]byte{byte(int8(x))}), nil
}

func dateToTimestamp(_ *Env, v any) (any, error) { return v.(time.Time), nil }

// dateToTimestamptz is midnight of the day in the session time zone. As in
// date2timestamptz, midnight of the first day timestamps reach is out of
// range when the zone is east of UTC.
func dateToTimestamptz(env *Env, v any) (any, error) {
	t := v.(time.Time)
	if isInfiniteTime(t) {
		return t, nil
	}
	r := fromWallClock(t, env.location())
	if us := timeToPG(r); us < minTimestampPG || us >= endTimestampPG {
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return r, nil
}

func timestampToDate(_ *Env, v any) (any, error) {
	t := v.(time.Time)
	if isInfiniteTime(t) {
		return t, nil
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
}

func timestamptzToDate(env *Env, v any) (any, error) {
	t := v.(time.Time)
	if isInfiniteTime(t) {
		return t, nil
	}
	l := t.In(env.location())
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC), nil
}

func timestampToTimestamptz(env *Env, v any) (any, error) {
	t := v.(time.Time)
	if isInfiniteTime(t) {
		return t, nil
	}
	return fromWallClock(t, env.location()), nil
}

func timestamptzToTimestamp(env *Env, v any) (any, error) {
	t := v.(time.Time)
	if isInfiniteTime(t) {
		return t, nil
	}
	return wallClock(t.In(env.location())), nil
}

func jsonToJSONB(_ *Env, v any) (any, error) { return parseJSONB(v.(string)) }

// jsonbToScalar is the jsonb to bool/numeric/int/float cast: the document
// must be a scalar of the matching kind.
func jsonbToScalar(to Type) EnvCastFunc {
	return func(env *Env, v any) (any, error) {
		j := mustParseJSON(v.(string))
		want := jsonNumber
		if to.Oid == OidBool {
			want = jsonBool
		}
		if j.kind != want {
			kinds := []string{"null", "string", "numeric", "boolean", "array", "object"}
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot cast jsonb %s to type %s", kinds[j.kind], formatType(to))
		}
		if want == jsonBool {
			return j.b, nil
		}
		if to.Oid == OidNumeric {
			return j.num, nil
		}
		f, err := lookupCast(NumericAny, to, CastExplicit)
		if err != nil {
			return nil, err
		}
		return f(env, j.num)
	}
}

// toText is the I/O conversion to a string type: the value's text output.
func toText(from Type) EnvCastFunc {
	return func(env *Env, v any) (any, error) { return formatText(env, from, v), nil }
}

// fromText is the I/O conversion from a string type: the target's input
// function (without typmod; the typmod coercion follows).
func fromText(to Type) EnvCastFunc {
	base := Type{to.Oid, -1}
	return func(env *Env, v any) (any, error) { return parseText(env, base, v.(string)) }
}

// typmodCoercion returns the length coercion function for t's typmod, or
// nil when t has none.
func typmodCoercion(t Type, ctx CastContext) EnvCastFunc {
	if t.Typmod < 0 {
		return nil
	}
	if t.IsArray() {
		return arrayTypmodCoercion(t, ctx)
	}
	switch t.Oid {
	case OidVarchar, OidBpchar:
		explicit := ctx == CastExplicit
		return func(_ *Env, v any) (any, error) { return coerceLength(t, v.(string), explicit) }
	case OidNumeric:
		return func(_ *Env, v any) (any, error) { return applyNumericTypmod(t, v.(*apd.Decimal)) }
	case OidBit, OidVarbit:
		explicit := ctx == CastExplicit
		return func(_ *Env, v any) (any, error) { return coerceBitLength(t, v.(BitString), explicit) }
	case OidTimestamp, OidTimestamptz:
		return func(_ *Env, v any) (any, error) { return roundTimestamp(t, v.(time.Time)), nil }
	case OidTime:
		return func(_ *Env, v any) (any, error) { return roundTime(t, v.(int64)), nil }
	case OidTimetz:
		return func(_ *Env, v any) (any, error) {
			x := v.(TimeTZ)
			return TimeTZ{Time: roundTime(t, x.Time), Zone: x.Zone}, nil
		}
	case OidInterval:
		return func(_ *Env, v any) (any, error) { return adjustIntervalForTypmod(t, v.(pgtype.Interval)), nil }
	}
	return nil
}
