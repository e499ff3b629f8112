package types

import (
	"math"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// The range errors are made anew each time: the binder sets the position
// of the error it returns, which must not stick to a shared value.
func errTimestampRange() error {
	return pgerror.New(pgerror.DatetimeFieldOverflow, "timestamp out of range")
}

func errDateRange() error { return pgerror.New(pgerror.DatetimeFieldOverflow, "date out of range") }

func errIntervalRange() error {
	return pgerror.New(pgerror.DatetimeFieldOverflow, "interval out of range")
}

func registerDateTimeOperators() {
	ts, tz, iv, d := Timestamp, Timestamptz, Interval, Date
	addBinary("+", d, Int4, d, func(_ *Env, a, b any) (any, error) { return dateAddDays(a.(time.Time), b.(int64)) })
	addBinary("+", Int4, d, d, func(_ *Env, a, b any) (any, error) { return dateAddDays(b.(time.Time), a.(int64)) })
	addBinary("-", d, Int4, d, func(_ *Env, a, b any) (any, error) { return dateAddDays(a.(time.Time), -b.(int64)) })
	addBinary("-", d, d, Int4, func(_ *Env, a, b any) (any, error) { return dateDiff(a.(time.Time), b.(time.Time)) })
	for _, t := range []Type{d, ts} {
		addBinary("+", t, iv, ts, func(_ *Env, a, b any) (any, error) { return addInterval(a.(time.Time), b.(pgtype.Interval), nil) })
		addBinary("+", iv, t, ts, func(_ *Env, a, b any) (any, error) { return addInterval(b.(time.Time), a.(pgtype.Interval), nil) })
		addBinary("-", t, iv, ts, func(_ *Env, a, b any) (any, error) {
			return addInterval(a.(time.Time), negInterval(b.(pgtype.Interval)), nil)
		})
	}
	addBinary("+", tz, iv, tz, func(env *Env, a, b any) (any, error) {
		return addInterval(a.(time.Time), b.(pgtype.Interval), env.location())
	})
	addBinary("+", iv, tz, tz, func(env *Env, a, b any) (any, error) {
		return addInterval(b.(time.Time), a.(pgtype.Interval), env.location())
	})
	addBinary("-", tz, iv, tz, func(env *Env, a, b any) (any, error) {
		return addInterval(a.(time.Time), negInterval(b.(pgtype.Interval)), env.location())
	})
	addBinary("-", ts, ts, iv, func(_ *Env, a, b any) (any, error) { return timestampDiff(a.(time.Time), b.(time.Time)) })
	addBinary("-", tz, tz, iv, func(_ *Env, a, b any) (any, error) { return timestampDiff(a.(time.Time), b.(time.Time)) })
	addBinary("+", iv, iv, iv, func(_ *Env, a, b any) (any, error) {
		return intervalAdd(a.(pgtype.Interval), b.(pgtype.Interval))
	})
	addBinary("-", iv, iv, iv, func(_ *Env, a, b any) (any, error) {
		return intervalAdd(a.(pgtype.Interval), negInterval(b.(pgtype.Interval)))
	})
	addBinary("*", iv, Float8, iv, func(_ *Env, a, b any) (any, error) { return intervalMul(a.(pgtype.Interval), b.(float64)) })
	addBinary("*", Float8, iv, iv, func(_ *Env, a, b any) (any, error) { return intervalMul(b.(pgtype.Interval), a.(float64)) })
	addBinary("/", iv, Float8, iv, func(_ *Env, a, b any) (any, error) {
		if b.(float64) == 0 {
			return nil, errDivisionByZero
		}
		return intervalMul(a.(pgtype.Interval), 1/b.(float64))
	})
	addUnary("-", iv, iv, func(_ *Env, v any) (any, error) { return negIntervalChecked(v.(pgtype.Interval)) })
}

func checkDate(t time.Time) (any, error) {
	if t.Before(minDate) || !t.Before(InfinityTime) {
		return nil, errDateRange()
	}
	return t, nil
}

func checkTimestamp(t time.Time) (any, error) {
	if t.Before(minDate) || !t.Before(InfinityTime) {
		return nil, errTimestampRange()
	}
	return t, nil
}

func dateAddDays(t time.Time, days int64) (any, error) {
	if isInfiniteTime(t) {
		return t, nil
	}
	if days > 1<<31 || days < -(1<<31) {
		return nil, errDateRange()
	}
	return checkDate(t.AddDate(0, 0, int(days)))
}

func dateDiff(a, b time.Time) (any, error) {
	if isInfiniteTime(a) || isInfiniteTime(b) {
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "cannot subtract infinite dates")
	}
	return (timeToPG(a) - timeToPG(b)) / usecPerDay, nil
}

// addInterval is timestamp_pl_interval (loc nil) and
// timestamptz_pl_interval (months and days added to the wall clock in loc):
// months first, clamping the day to the month's end, then days, then time.
func addInterval(t time.Time, iv pgtype.Interval, loc *time.Location) (any, error) {
	if isInfiniteTime(t) {
		return t, nil
	}
	if iv.Months != 0 || iv.Days != 0 {
		wall := t
		if loc != nil {
			wall = wallClock(t.In(loc))
		}
		if iv.Months != 0 {
			y, m, d := wall.Date()
			total := int64(y)*12 + int64(m-1) + int64(iv.Months)
			ny, nm := int(floorDiv(total, 12)), int(total-floorDiv(total, 12)*12)+1
			d = min(d, daysIn(ny, nm))
			h, mi, s := wall.Clock()
			wall = time.Date(ny, time.Month(nm), d, h, mi, s, wall.Nanosecond(), time.UTC)
		}
		wall = wall.AddDate(0, 0, int(iv.Days))
		if loc != nil {
			t = fromWallClock(wall, loc)
		} else {
			t = wall
		}
	}
	if _, err := checkTimestamp(t); err != nil {
		return nil, err
	}
	return addMicros(t, iv.Microseconds)
}

// addMicros adds us microseconds to t in PostgreSQL's int64 representation:
// time.Duration would overflow beyond 292 years.
func addMicros(t time.Time, us int64) (any, error) {
	base := timeToPG(t)
	sum := base + us
	if (us > 0 && sum < base) || (us < 0 && sum > base) {
		return nil, errTimestampRange()
	}
	return checkTimestamp(pgToTime(sum))
}

// timestampDiff is timestamp_mi: the difference in microseconds, with whole
// days moved to the day field (interval_justify_hours).
func timestampDiff(a, b time.Time) (any, error) {
	if isInfiniteTime(a) || isInfiniteTime(b) {
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	us := timeToPG(a) - timeToPG(b)
	if (us > 0) != (timeToPG(a) > timeToPG(b)) && us != 0 {
		return nil, errIntervalRange()
	}
	days := us / usecPerDay
	us -= days * usecPerDay
	return pgtype.Interval{Days: int32(days), Microseconds: us, Valid: true}, nil
}

func negInterval(iv pgtype.Interval) pgtype.Interval {
	return pgtype.Interval{Months: -iv.Months, Days: -iv.Days, Microseconds: -iv.Microseconds, Valid: true}
}

func negIntervalChecked(iv pgtype.Interval) (any, error) {
	if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Microseconds == math.MinInt64 {
		return nil, errIntervalRange()
	}
	return negInterval(iv), nil
}

func intervalAdd(a, b pgtype.Interval) (any, error) {
	m := int64(a.Months) + int64(b.Months)
	d := int64(a.Days) + int64(b.Days)
	us := a.Microseconds + b.Microseconds
	usOverflow := (a.Microseconds >= 0) == (b.Microseconds >= 0) && (us >= 0) != (a.Microseconds >= 0)
	if m != int64(int32(m)) || d != int64(int32(d)) || usOverflow {
		return nil, errIntervalRange()
	}
	return pgtype.Interval{Months: int32(m), Days: int32(d), Microseconds: us, Valid: true}, nil
}

// tsRound is TSROUND: rounding to microsecond precision.
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

// fitsInt32 and fitsInt64 are FLOAT8_FITS_IN_INT32/64: the float lies in
// the integer type's range (2^31 and 2^63 themselves do not).
func fitsInt32(f float64) bool { return f >= math.MinInt32 && f < -math.MinInt32 }

func fitsInt64(f float64) bool { return f >= math.MinInt64 && f < -math.MinInt64 }

// addInt32 adds two int32 values, reporting overflow.
func addInt32(a, b int32) (int32, bool) {
	s := int64(a) + int64(b)
	return int32(s), s == int64(int32(s))
}

// intervalMul is interval_mul: fractional months spill into days and
// fractional days into time.
func intervalMul(iv pgtype.Interval, factor float64) (any, error) {
	monthsF := float64(iv.Months) * factor
	if math.IsNaN(monthsF) || !fitsInt32(monthsF) {
		return nil, errIntervalRange()
	}
	months := int32(monthsF)
	daysF := float64(iv.Days) * factor
	if math.IsNaN(daysF) || !fitsInt32(daysF) {
		return nil, errIntervalRange()
	}
	days := int32(daysF)
	monthRemDays := tsRound((monthsF - float64(months)) * daysPerMonth)
	secRem := tsRound((daysF - float64(days) + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	ok := true
	if math.Abs(secRem) >= 86400 {
		days, ok = addInt32(days, int32(secRem/86400))
		if !ok {
			return nil, errIntervalRange()
		}
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	if days, ok = addInt32(days, int32(monthRemDays)); !ok {
		return nil, errIntervalRange()
	}
	usF := math.RoundToEven(float64(iv.Microseconds)*factor + secRem*1e6)
	if math.IsNaN(usF) || !fitsInt64(usF) {
		return nil, errIntervalRange()
	}
	return pgtype.Interval{Months: months, Days: days, Microseconds: int64(usF), Valid: true}, nil
}

// AddInterval is timestamp + interval, or timestamptz + interval (tz) with
// months and days counted on the clocks of env's TimeZone; 22008 past the
// timestamp range.
func AddInterval(env *Env, tz bool, v time.Time, iv pgtype.Interval) (time.Time, error) {
	var loc *time.Location
	if tz {
		loc = env.location()
	}
	r, err := addInterval(v, iv, loc)
	if err != nil {
		return time.Time{}, err
	}
	return r.(time.Time), nil
}
