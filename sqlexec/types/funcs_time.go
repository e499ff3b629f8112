package types

import (
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

func init() {
	txnTime := func(env *Env, _ []any) (any, error) { return envTime(env, false) }
	for _, name := range []string{"now", "current_timestamp", "transaction_timestamp"} {
		addFunc(name, Stable, Timestamptz, txnTime)
	}
	addFunc("statement_timestamp", Stable, Timestamptz, func(env *Env, _ []any) (any, error) { return envTime(env, true) })
	clock := func(env *Env, _ []any) (any, error) {
		if env != nil && env.Clock != nil {
			return env.Clock().UTC().Truncate(time.Microsecond), nil
		}
		return envTime(env, true)
	}
	addFunc("clock_timestamp", Volatile, Timestamptz, clock)
	// timeofday() is the clock as text in the session's time zone, as
	// PostgreSQL formats it ("%a %b %d %H:%M:%S.%06d %Y %Z").
	addFunc("timeofday", Volatile, Text, func(env *Env, a []any) (any, error) {
		t, err := clock(env, a)
		if err != nil {
			return nil, err
		}
		local := t.(time.Time).In(env.location())
		zone, _ := local.Zone() // empty for a zone given as an offset, as PostgreSQL prints it
		return local.Format("Mon Jan 02 15:04:05.000000 2006 ") + zone, nil
	})
	addFunc("current_date", Stable, Date, func(env *Env, _ []any) (any, error) {
		t, err := envTime(env, false)
		if err != nil {
			return nil, err
		}
		return timestamptzToDate(env, t)
	})
	addFunc("localtimestamp", Stable, Timestamp, func(env *Env, _ []any) (any, error) {
		t, err := envTime(env, false)
		if err != nil {
			return nil, err
		}
		return timestamptzToTimestamp(env, t)
	})

	addFunc("date_trunc", Immutable, Timestamp, func(_ *Env, a []any) (any, error) {
		return truncTimestamp(a[0].(string), a[1].(time.Time), nil)
	}, Text, Timestamp)
	addFunc("date_trunc", Stable, Timestamptz, func(env *Env, a []any) (any, error) {
		return truncTimestamp(a[0].(string), a[1].(time.Time), env.location())
	}, Text, Timestamptz)
	addFunc("date_trunc", Immutable, Interval, func(_ *Env, a []any) (any, error) {
		return truncInterval(a[0].(string), a[1].(pgtype.Interval))
	}, Text, Interval)

	for _, t := range []Type{Timestamp, Timestamptz, Date, Interval} {
		typ := t
		vol := Immutable
		if t == Timestamptz {
			vol = Stable
		}
		addFunc("extract", vol, NumericAny, func(env *Env, a []any) (any, error) {
			return extractField(env, a[0].(string), typ, a[1])
		}, Text, t)
		// date_part of a date is that of the timestamp at its midnight,
		// not of the timestamptz an implicit cast would pick.
		partType := typ
		if t == Date {
			partType = Timestamp
		}
		addFunc("date_part", vol, Float8, func(env *Env, a []any) (any, error) {
			d, err := extractField(env, a[0].(string), partType, a[1])
			if err != nil || d == nil {
				return d, err
			}
			return numericToFloat(OidFloat8)(env, d)
		}, Text, t)
	}

	addFunc("age", Immutable, Interval, func(_ *Env, a []any) (any, error) {
		return age(a[0].(time.Time), a[1].(time.Time))
	}, Timestamp, Timestamp)
	addFunc("age", Stable, Interval, func(env *Env, a []any) (any, error) {
		l, r := wallClock(a[0].(time.Time).In(env.location())), wallClock(a[1].(time.Time).In(env.location()))
		return age(l, r)
	}, Timestamptz, Timestamptz)
	addFunc("age", Stable, Interval, func(env *Env, a []any) (any, error) {
		now, err := envTime(env, false)
		if err != nil {
			return nil, err
		}
		today, _ := timestamptzToDate(env, now)
		return age(today.(time.Time), a[0].(time.Time))
	}, Timestamp)

	addFunc("make_date", Immutable, Date, func(_ *Env, a []any) (any, error) {
		return makeDate(a[0].(int64), a[1].(int64), a[2].(int64))
	}, Int4, Int4, Int4)
	addFunc("make_timestamp", Immutable, Timestamp, func(_ *Env, a []any) (any, error) {
		return makeTimestamp(a)
	}, Int4, Int4, Int4, Int4, Int4, Float8)
	addFunc("make_timestamptz", Stable, Timestamptz, func(env *Env, a []any) (any, error) {
		ts, err := makeTimestamp(a)
		if err != nil {
			return nil, err
		}
		return fromWallClock(ts.(time.Time), env.location()), nil
	}, Int4, Int4, Int4, Int4, Int4, Float8)
	addFunc("to_timestamp", Immutable, Timestamptz, func(_ *Env, a []any) (any, error) {
		f := a[0].(float64)
		switch {
		case math.IsNaN(f):
			return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "timestamp cannot be NaN")
		case math.IsInf(f, 1):
			return InfinityTime, nil
		case math.IsInf(f, -1):
			return NegInfinityTime, nil
		}
		us := math.RoundToEven(f * 1e6)
		if us > 9.2e18 || us < -9.2e18 {
			return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "timestamp out of range: %q", formatFloat(f, 64))
		}
		return addMicros(time.Unix(0, 0).UTC(), int64(us))
	}, Float8)
	addFunc("justify_days", Immutable, Interval, func(_ *Env, a []any) (any, error) { return justifyDays(a[0].(pgtype.Interval)) }, Interval)
	addFunc("justify_hours", Immutable, Interval, func(_ *Env, a []any) (any, error) { return justifyHours(a[0].(pgtype.Interval)) }, Interval)
	addFunc("justify_interval", Immutable, Interval, func(_ *Env, a []any) (any, error) {
		return justifyInterval(a[0].(pgtype.Interval))
	}, Interval)
	for _, t := range []Type{Date, Timestamp, Timestamptz} {
		addFunc("isfinite", Immutable, Bool, func(_ *Env, a []any) (any, error) { return !isInfiniteTime(a[0].(time.Time)), nil }, t)
	}
}

// envTime returns the transaction (or statement) start time.
func envTime(env *Env, statement bool) (any, error) {
	if env == nil {
		return nil, pgerror.Unsupported("the current time outside a session")
	}
	t := env.TxnTime
	if statement && !env.StmtTime.IsZero() {
		t = env.StmtTime
	}
	if t.IsZero() {
		return nil, pgerror.Unsupported("the current time outside a transaction")
	}
	return t.UTC().Truncate(time.Microsecond), nil
}

// lookupUnit finds the unit of date_trunc and extract; like PostgreSQL's
// DecodeUnits it compares the first tokenMaxLen letters (timezone_hour is
// timezone_h).
func lookupUnit(field string) (string, bool) {
	field = strings.ToLower(field)
	if len(field) > tokenMaxLen {
		field = field[:tokenMaxLen]
	}
	unit, ok := unitAliases[field]
	return unit, ok
}

// unitAliases maps the spellings date_trunc and extract accept, cut to
// tokenMaxLen letters, to a unit.
var unitAliases = map[string]string{
	"microsecon": "microseconds", "us": "microseconds", "usec": "microseconds", "usecs": "microseconds",
	"useconds": "microseconds", "usecond": "microseconds",
	"millisecon": "milliseconds", "ms": "milliseconds", "msec": "milliseconds", "msecs": "milliseconds",
	"mseconds": "milliseconds", "msecond": "milliseconds",
	"second": "second", "seconds": "second", "s": "second", "sec": "second", "secs": "second",
	"minute": "minute", "minutes": "minute", "m": "minute", "min": "minute", "mins": "minute",
	"hour": "hour", "hours": "hour", "h": "hour", "hr": "hour", "hrs": "hour",
	"day": "day", "days": "day", "d": "day",
	"week": "week", "weeks": "week", "w": "week",
	"month": "month", "months": "month", "mon": "month", "mons": "month",
	"quarter": "quarter", "qtr": "quarter",
	"year": "year", "years": "year", "y": "year", "yr": "year", "yrs": "year",
	"decade": "decade", "decades": "decade", "dec": "decade", "decs": "decade",
	"century": "century", "centuries": "century", "c": "century", "cent": "century",
	"millennium": "millennium", "millennia": "millennium", "mil": "millennium", "mils": "millennium",
	"epoch": "epoch", "dow": "dow", "isodow": "isodow", "doy": "doy", "isoyear": "isoyear",
	"julian": "julian", "j": "julian", "timezone": "timezone", "timezone_h": "timezone_hour",
	"timezone_m": "timezone_minute",
}

func unitError(unit string, t Type, recognized bool) error {
	if recognized {
		return pgerror.Newf(pgerror.FeatureNotSupported, "unit %q not supported for type %s", unit, formatType(t))
	}
	return pgerror.Newf(pgerror.InvalidParameterValue, "unit %q not recognized for type %s", unit, formatType(t))
}

// truncTimestamp is date_trunc on a timestamp (loc nil) or on a timestamptz
// truncated in loc.
func truncTimestamp(field string, t time.Time, loc *time.Location) (any, error) {
	typ := Timestamp
	if loc != nil {
		typ = Timestamptz
	}
	unit, ok := lookupUnit(field)
	if !ok {
		return nil, unitError(field, typ, false)
	}
	if isInfiniteTime(t) {
		return t, nil
	}
	w := t
	if loc != nil {
		w = wallClock(t.In(loc))
	}
	y, mo, d := w.Date()
	h, mi, s := w.Clock()
	us := w.Nanosecond() / 1000
	switch unit {
	// y counts years astronomically (0 is 1 BC), as PostgreSQL's tm_year
	// does; before year 1 the periods run backwards from 1 BC, 10 BC, ...
	case "millennium":
		if y > 0 {
			y = (y+999)/1000*1000 - 999
		} else {
			y = -((999-(y-1))/1000)*1000 + 1
		}
		mo, d, h, mi, s, us = 1, 1, 0, 0, 0, 0
	case "century":
		if y > 0 {
			y = (y+99)/100*100 - 99
		} else {
			y = -((99-(y-1))/100)*100 + 1
		}
		mo, d, h, mi, s, us = 1, 1, 0, 0, 0, 0
	case "decade":
		if y > 0 {
			y = y / 10 * 10
		} else {
			y = -((8 - (y - 1)) / 10) * 10
		}
		mo, d, h, mi, s, us = 1, 1, 0, 0, 0, 0
	case "year":
		mo, d, h, mi, s, us = 1, 1, 0, 0, 0, 0
	case "quarter":
		mo = (mo-1)/3*3 + 1
		d, h, mi, s, us = 1, 0, 0, 0, 0
	case "month":
		d, h, mi, s, us = 1, 0, 0, 0, 0
	case "week":
		back := (int(w.Weekday()) + 6) % 7
		w2 := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -back)
		y, mo, d = w2.Date()
		h, mi, s, us = 0, 0, 0, 0
	case "day":
		h, mi, s, us = 0, 0, 0, 0
	case "hour":
		mi, s, us = 0, 0, 0
	case "minute":
		s, us = 0, 0
	case "second":
		us = 0
	case "milliseconds":
		us = us / 1000 * 1000
	case "microseconds":
	default:
		return nil, unitError(field, typ, true)
	}
	r := time.Date(y, mo, d, h, mi, s, us*1000, time.UTC)
	if loc != nil {
		return fromWallClock(r, loc), nil
	}
	return r, nil
}

func truncInterval(field string, iv pgtype.Interval) (any, error) {
	unit, ok := lookupUnit(field)
	if !ok {
		return nil, unitError(field, Interval, false)
	}
	months, days, us := int64(iv.Months), int64(iv.Days), iv.Microseconds
	switch unit {
	case "millennium":
		months, days, us = months/12000*12000, 0, 0
	case "century":
		months, days, us = months/1200*1200, 0, 0
	case "decade":
		months, days, us = months/120*120, 0, 0
	case "year":
		months, days, us = months/12*12, 0, 0
	case "quarter":
		months, days, us = months/3*3, 0, 0
	case "month":
		days, us = 0, 0
	case "day":
		us = 0
	case "hour":
		us = us / usecPerHour * usecPerHour
	case "minute":
		us = us / usecPerMinute * usecPerMinute
	case "second":
		us = us / usecPerSec * usecPerSec
	case "milliseconds":
		us = us / 1000 * 1000
	case "microseconds":
	default:
		return nil, unitError(field, Interval, true)
	}
	return pgtype.Interval{Months: int32(months), Days: int32(days), Microseconds: us, Valid: true}, nil
}

// decimalScaled returns v / 10^scale as a numeric with that scale.
func decimalScaled(v int64, scale int) *apd.Decimal { return apd.New(v, int32(-scale)) }

// extractField is extract(field FROM v): a numeric, with six decimals for
// seconds and epoch, three for milliseconds.
func extractField(env *Env, field string, t Type, v any) (any, error) {
	unit, ok := lookupUnit(field)
	if !ok {
		return nil, unitError(field, t, false)
	}
	if t == Interval {
		return extractInterval(unit, field, v.(pgtype.Interval))
	}
	tm := v.(time.Time)
	if isInfiniteTime(tm) {
		switch unit {
		case "epoch", "year", "decade", "century", "millennium", "julian", "isoyear":
			return &apd.Decimal{Form: apd.Infinite, Negative: tm.Equal(NegInfinityTime)}, nil
		}
		return nil, nil
	}
	w, offset := tm, 0
	if t == Timestamptz {
		l := tm.In(env.location())
		_, offset = l.Zone()
		w = wallClock(l)
	}
	y, mo, d := w.Date()
	h, mi, s := w.Clock()
	us := int64(w.Nanosecond() / 1000)
	if t == Date {
		switch unit {
		case "microseconds", "milliseconds", "second", "minute", "hour", "timezone", "timezone_hour", "timezone_minute":
			return nil, unitError(field, t, true)
		}
	}
	year := y
	if year <= 0 {
		year-- // 1 BC is year 0 in time.Time, -1 in PostgreSQL
	}
	switch unit {
	case "microseconds":
		return apd.New(int64(s)*1_000_000+us, 0), nil
	case "milliseconds":
		return decimalScaled(int64(s)*1_000_000+us, 3), nil
	case "second":
		return decimalScaled(int64(s)*1_000_000+us, 6), nil
	case "minute":
		return apd.New(int64(mi), 0), nil
	case "hour":
		return apd.New(int64(h), 0), nil
	case "day":
		return apd.New(int64(d), 0), nil
	case "month":
		return apd.New(int64(mo), 0), nil
	case "quarter":
		return apd.New(int64((mo-1)/3+1), 0), nil
	case "year":
		return apd.New(int64(year), 0), nil
	case "decade":
		return apd.New(floorDiv(int64(y), 10), 0), nil
	case "century":
		if year > 0 {
			return apd.New(int64((year+99)/100), 0), nil
		}
		return apd.New(-int64((99-(y-1))/100), 0), nil
	case "millennium":
		if year > 0 {
			return apd.New(int64((year+999)/1000), 0), nil
		}
		return apd.New(-int64((999-(y-1))/1000), 0), nil
	case "dow":
		return apd.New(int64(w.Weekday()), 0), nil
	case "isodow":
		return apd.New(int64((int(w.Weekday())+6)%7+1), 0), nil
	case "doy":
		return apd.New(int64(w.YearDay()), 0), nil
	case "week":
		_, wk := w.ISOWeek()
		return apd.New(int64(wk), 0), nil
	case "isoyear":
		iy, _ := w.ISOWeek()
		if iy <= 0 {
			iy-- // no year 0: the ISO year before 1 is 1 BC, shown as -1
		}
		return apd.New(int64(iy), 0), nil
	case "epoch":
		if t == Date {
			return apd.New(tm.Unix(), 0), nil
		}
		// Near the end of the range the microseconds overflow int64.
		var c apd.BigInt
		c.Mul(apd.NewBigInt(tm.Unix()), apd.NewBigInt(1_000_000))
		c.Add(&c, apd.NewBigInt(int64(tm.Nanosecond()/1000)))
		return apd.NewWithBigInt(&c, -6), nil
	case "julian":
		day := apd.New(floorDiv(timeToPG(time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)), usecPerDay)+2451545, 0)
		if t == Date {
			return day, nil
		}
		// The julian day plus the fraction of it the wall clock has run.
		frac, err := numericDiv(apd.New(int64((h*60+mi)*60+s)*1_000_000+us, 0), apd.New(usecPerDay, 0))
		if err != nil {
			return nil, err
		}
		return numericAdd(day, frac.(*apd.Decimal), false)
	case "timezone", "timezone_hour", "timezone_minute":
		if t != Timestamptz {
			return nil, unitError(field, t, true)
		}
		switch unit {
		case "timezone":
			return apd.New(int64(offset), 0), nil
		case "timezone_hour":
			return apd.New(int64(offset/3600), 0), nil
		}
		return apd.New(int64(offset%3600/60), 0), nil
	}
	return nil, unitError(field, t, true)
}

// extractClock is extract of the fields that a time and an interval take
// from their microseconds alike; ok is false for the other fields.
func extractClock(unit string, us int64) (v any, ok bool) {
	switch unit {
	case "microseconds":
		return apd.New(us%usecPerMinute, 0), true
	case "milliseconds":
		return decimalScaled(us%usecPerMinute, 3), true
	case "second":
		return decimalScaled(us%usecPerMinute, 6), true
	case "minute":
		return apd.New(us/usecPerMinute%60, 0), true
	case "hour":
		return apd.New(us/usecPerHour, 0), true
	}
	return nil, false
}

func extractInterval(unit, field string, iv pgtype.Interval) (any, error) {
	us := iv.Microseconds
	if v, ok := extractClock(unit, us); ok {
		return v, nil
	}
	switch unit {
	case "day":
		return apd.New(int64(iv.Days), 0), nil
	case "month":
		return apd.New(int64(iv.Months%12), 0), nil
	case "quarter":
		return apd.New(int64(iv.Months%12/3+1), 0), nil
	case "year":
		return apd.New(int64(iv.Months/12), 0), nil
	case "decade":
		return apd.New(int64(iv.Months/120), 0), nil
	case "century":
		return apd.New(int64(iv.Months/1200), 0), nil
	case "millennium":
		return apd.New(int64(iv.Months/12000), 0), nil
	case "epoch":
		// Years of 365.25 days, months of 30 days; the sum can exceed int64
		// microseconds, so it is added in decimal.
		years := int64(iv.Months / 12)
		days := int64(iv.Months%12)*30 + int64(iv.Days)
		total := new(apd.Decimal)
		parts := []*apd.Decimal{apd.New(years*31557600, 0), apd.New(days*86400, 0), apd.New(us, -6)}
		for _, p := range parts {
			if _, err := exactContext.Add(total, total, p); err != nil {
				return nil, errIntervalRange()
			}
		}
		return total, nil
	}
	return nil, unitError(field, Interval, true)
}

// age is timestamp_age: the symbolic difference, field by field with
// borrows, so that age('2024-03-01', '2023-01-31') is 1 year 1 mon 1 day.
func age(a, b time.Time) (any, error) {
	if isInfiniteTime(a) || isInfiniteTime(b) {
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "interval out of range")
	}
	y1, m1, d1 := a.Date()
	h1, mi1, s1 := a.Clock()
	y2, m2, d2 := b.Date()
	h2, mi2, s2 := b.Clock()
	fsec := int64(a.Nanosecond()/1000 - b.Nanosecond()/1000)
	sec, mn, hr := int64(s1-s2), int64(mi1-mi2), int64(h1-h2)
	day, mon, yr := int64(d1-d2), int64(m1-m2), int64(y1-y2)
	neg := a.Before(b)
	flip := func() {
		fsec, sec, mn, hr, day, mon, yr = -fsec, -sec, -mn, -hr, -day, -mon, -yr
	}
	if neg {
		flip()
	}
	for fsec < 0 {
		fsec += 1_000_000
		sec--
	}
	for sec < 0 {
		sec += 60
		mn--
	}
	for mn < 0 {
		mn += 60
		hr--
	}
	for hr < 0 {
		hr += 24
		day--
	}
	for day < 0 {
		if neg {
			day += int64(daysIn(y1, int(m1)))
		} else {
			day += int64(daysIn(y2, int(m2)))
		}
		mon--
	}
	for mon < 0 {
		mon += 12
		yr--
	}
	if neg {
		flip()
	}
	months := yr*12 + mon
	if months != int64(int32(months)) {
		return nil, errIntervalRange()
	}
	return pgtype.Interval{Months: int32(months), Days: int32(day),
		Microseconds: ((hr*60+mn)*60+sec)*1_000_000 + fsec, Valid: true}, nil
}

func makeDate(y, m, d int64) (any, error) {
	if y == 0 {
		return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	year := y
	if year < 0 {
		year++ // BC
	}
	if m < 1 || m > 12 || d < 1 || year > 5874897 || year < -4713 || d > int64(daysIn(int(year), int(m))) {
		return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	return checkDate(time.Date(int(year), time.Month(m), int(d), 0, 0, 0, 0, time.UTC))
}

func makeTimestamp(a []any) (any, error) {
	dv, err := makeDate(a[0].(int64), a[1].(int64), a[2].(int64))
	if err != nil {
		return nil, err
	}
	h, mi, sec := a[3].(int64), a[4].(int64), a[5].(float64)
	us := math.RoundToEven(sec * 1e6)
	if h < 0 || h > 24 || mi < 0 || mi > 59 || math.IsNaN(sec) || us < 0 || us > 60e6 || (h == 24 && (mi > 0 || us > 0)) {
		return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, mi, formatSecondsG(sec))
	}
	t := dv.(time.Time).Add(time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(int64(us))*time.Microsecond)
	return checkTimestamp(t)
}
