package types

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The time type (time without time zone) is the time of day as an int64 of
// microseconds since midnight, 0 to 24:00:00 inclusive, as PostgreSQL keeps
// it. Its input is that of DecodeTimeOnly (a date or a zone may be given and
// are dropped), its output HH:MM:SS with the fraction's significant digits
// in every DateStyle.

func init() {
	tm, iv, d, ts := Time, Interval, Date, Timestamp
	addBinary("-", tm, tm, iv, func(_ *Env, a, b any) (any, error) {
		return pgtype.Interval{Microseconds: a.(int64) - b.(int64), Valid: true}, nil
	})
	addBinary("+", tm, iv, tm, func(_ *Env, a, b any) (any, error) { return timePlusInterval(a.(int64), b.(pgtype.Interval), 1), nil })
	addBinary("+", iv, tm, tm, func(_ *Env, a, b any) (any, error) { return timePlusInterval(b.(int64), a.(pgtype.Interval), 1), nil })
	addBinary("-", tm, iv, tm, func(_ *Env, a, b any) (any, error) { return timePlusInterval(a.(int64), b.(pgtype.Interval), -1), nil })
	addBinary("+", d, tm, ts, func(_ *Env, a, b any) (any, error) { return dateAtTime(a.(time.Time), b.(int64)) })
	addBinary("+", tm, d, ts, func(_ *Env, a, b any) (any, error) { return dateAtTime(b.(time.Time), a.(int64)) })

	addCast(OidTime, OidInterval, CastImplicit, func(_ *Env, v any) (any, error) {
		return pgtype.Interval{Microseconds: v.(int64), Valid: true}, nil
	})
	addCast(OidInterval, OidTime, CastAssignment, func(_ *Env, v any) (any, error) {
		return floorMod(v.(pgtype.Interval).Microseconds, usecPerDay), nil
	})
	addCast(OidTimestamp, OidTime, CastAssignment, func(_ *Env, v any) (any, error) {
		return timeOfWallClock(v.(time.Time)), nil
	})
	addCast(OidTimestamptz, OidTime, CastAssignment, func(env *Env, v any) (any, error) {
		t := v.(time.Time)
		if isInfiniteTime(t) {
			return nil, nil
		}
		return timeOfWallClock(wallClock(t.In(env.location()))), nil
	})

	addFunc("extract", Immutable, NumericAny, func(_ *Env, a []any) (any, error) {
		return extractTime(a[0].(string), a[1].(int64))
	}, Text, tm)
	addFunc("date_part", Immutable, Float8, func(env *Env, a []any) (any, error) {
		v, err := extractTime(a[0].(string), a[1].(int64))
		if err != nil {
			return nil, err
		}
		return numericToFloat(OidFloat8)(env, v)
	}, Text, tm)
	addFunc("make_time", Immutable, tm, func(_ *Env, a []any) (any, error) {
		return makeTime(a[0].(int64), a[1].(int64), a[2].(float64))
	}, Int4, Int4, Float8)
	addFunc("localtime", Stable, tm, func(env *Env, _ []any) (any, error) {
		t, err := envTime(env, false)
		if err != nil {
			return nil, err
		}
		return timeOfWallClock(wallClock(t.(time.Time).In(env.location()))), nil
	})
}

// timeOfWallClock is the time of day of a wall clock; NULL for the
// infinities, as timestamp_time answers.
func timeOfWallClock(t time.Time) any {
	if isInfiniteTime(t) {
		return nil
	}
	h, m, s := t.Clock()
	return (int64(h)*60+int64(m))*usecPerMinute + int64(s)*usecPerSec + int64(t.Nanosecond()/1000)
}

// timePlusInterval is time_pl_interval (sign 1) and time_mi_interval (-1):
// only the interval's time part counts, and the result wraps around
// midnight.
func timePlusInterval(t int64, iv pgtype.Interval, sign int64) int64 {
	return floorMod(t+sign*(iv.Microseconds%usecPerDay), usecPerDay)
}

// floorMod is x modulo m in [0, m).
func floorMod(x, m int64) int64 {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}

// dateAtTime is date + time, a timestamp; an infinite date stays infinite.
func dateAtTime(d time.Time, us int64) (any, error) {
	if isInfiniteTime(d) {
		return d, nil
	}
	return checkTimestamp(d.Add(time.Duration(us) * time.Microsecond))
}

// parseTime is time_in: DecodeTimeOnly's reading of the literal, the date
// and the zone checked and dropped, then the typmod's rounding.
func parseTime(env *Env, t Type, s string) (any, error) {
	_, us, err := decodeTimeOnly(env, s, "time")
	if err != nil {
		return nil, err
	}
	return roundTime(t, us), nil
}

// decodeTimeOnly is DecodeTimeOnly for the input of time and timetz
// (typeName in errors): the decoded fields and the time of day they give.
// A field of up to four bare digits (a year alone), which DecodeNumber
// reads in ways fickle does not follow, is refused with 0A000.
func decodeTimeOnly(env *Env, s, typeName string) (*dtDecoder, int64, error) {
	fields, e := splitDateTime(s)
	if e != 0 {
		return nil, 0, dtError(e, typeName, s)
	}
	for _, f := range fields {
		// Of the special words, time takes only now and allballs.
		if f.kind == dtkString || f.kind == dtkSpecial {
			if tok, ok := lookupDateToken(strings.ToLower(f.text)); ok && tok.typ == tokReserved &&
				tok.val != resNow && tok.val != resZulu {
				return nil, 0, dtError(dtBadFormat, typeName, s)
			}
		}
	}
	d := &dtDecoder{timeOnly: true, relative: func() (time.Time, *time.Location, bool) {
		if env == nil || env.TxnTime.IsZero() {
			return time.Time{}, nil, false
		}
		return env.TxnTime, env.location(), true
	}}
	if env != nil {
		d.order = env.DateStyle.Order
	}
	if e := d.decode(fields); e != 0 {
		if e == dtShortNumber {
			return nil, 0, pgerror.Unsupported(typeName + " input with a field of up to four bare digits")
		}
		if e == dtUnknownZone {
			return nil, 0, pgerror.Newf(pgerror.InvalidParameterValue, "time zone \"%s\" not recognized", zoneFieldOf(fields))
		}
		return nil, 0, dtError(e, typeName, s)
	}
	hasDate := d.fmask&maskDate == maskDate
	switch {
	case d.fmask&maskDate != 0 && !hasDate:
		e = dtBadFormat
	case timeOverflows(d.hour, d.min, d.sec, d.usec) ||
		((int64(d.hour)*60+int64(d.min))*60+int64(d.sec))*usecPerSec+d.usec > usecPerDay:
		e = dtFieldOverflow
	case d.fmask&maskTime != maskTime:
		e = dtBadFormat
	case d.named != nil && !hasDate:
		// A zone whose offset ever changed needs the date to resolve.
		if _, fixed := constantOffset(d.named); !fixed {
			e = dtBadFormat
		}
	}
	if e != 0 {
		return nil, 0, dtError(e, typeName, s)
	}
	return d, ((int64(d.hour)*60+int64(d.min))*60+int64(d.sec))*usecPerSec + d.usec, nil
}

// roundTime is AdjustTimeForTypmod: time(p) rounds half up to p fractional
// digits, possibly to 24:00:00.
func roundTime(t Type, us int64) int64 {
	if t.Typmod < 0 || t.Typmod >= 6 {
		return us
	}
	unit := int64(math.Pow10(6 - int(t.Typmod)))
	return (us + unit/2) / unit * unit
}

// formatTime is time_out: HH:MM:SS and the fraction without trailing
// zeros.
func formatTime(us int64) string {
	sec := us / usecPerSec
	b := fmt.Appendf(nil, "%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	if frac := us % usecPerSec; frac != 0 {
		b = append(b, strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")...)
	}
	return string(b)
}

// extractTime is extract(field FROM time): seconds with six decimals,
// milliseconds with three, epoch as seconds since midnight.
func extractTime(field string, us int64) (any, error) {
	unit, ok := lookupUnit(field)
	if !ok {
		return nil, unitError(field, Time, false)
	}
	if v, ok := extractClock(unit, us); ok {
		return v, nil
	}
	if unit == "epoch" {
		return decimalScaled(us, 6), nil
	}
	return nil, unitError(field, Time, true)
}

// makeTime is make_time(hour, min, sec), checked as float_time_overflows
// does.
func makeTime(h, m int64, sec float64) (any, error) {
	us := math.RoundToEven(sec * 1e6)
	if h < 0 || h > 24 || m < 0 || m > 59 || math.IsNaN(sec) || us < 0 || us > 60e6 ||
		(h*60+m)*usecPerMinute+int64(us) > usecPerDay {
		return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s",
			h, m, formatSecondsG(sec))
	}
	return (h*60+m)*usecPerMinute + int64(us), nil
}

// formatSecondsG prints seconds as C's %02g does.
func formatSecondsG(sec float64) string {
	s := strconv.FormatFloat(sec, 'g', 6, 64)
	if strings.ContainsAny(s, "e") {
		// C prints at least two exponent digits, as Go does, and no
		// trailing zeros of the mantissa.
		mant, exp, _ := strings.Cut(s, "e")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		return mant + "e" + exp
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}
