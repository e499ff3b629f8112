package types

import (
	"sync"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The type time with time zone (timetz) follows date.c's TimeTzADT: the
// time of day on the zone's clocks in microseconds (0 to 24:00:00) and the
// zone's offset in seconds west of UTC. Values order by the UTC time they
// stand for, then by the zone (timetz_cmp), so 12:00-07 and 19:00+00 are
// not equal. Input reads as DecodeTimeOnly does; a zone that changes its
// offset needs the date written, except that a dynamic abbreviation (MSK)
// and the session TimeZone resolve at the transaction's date.

// OidTimetz and OidTimetzArray are time with time zone and its array.
const (
	OidTimetz      Oid = 1266
	OidTimetzArray Oid = 1270
)

// Timetz is time with time zone without a precision.
var Timetz = Type{OidTimetz, -1}

// TimeTZ is a timetz datum.
type TimeTZ struct {
	// Time is the time of day on the zone's clocks, in microseconds.
	Time int64
	// Zone is the offset in seconds west of UTC (-08 is 28800).
	Zone int32
}

// tzDispLimit is TZDISP_LIMIT: offsets must be less than 16 hours.
const tzDispLimit = 15*3600 + 59*60 + 60

func init() {
	tz, iv, d, tm := Timetz, Interval, Date, Time
	addComparisons(tz, tz, func(_ *Env, a, b any) int { return compareTimetz(a.(TimeTZ), b.(TimeTZ)) })
	addBinary("+", tz, iv, tz, func(_ *Env, a, b any) (any, error) {
		return timetzPlusInterval(a.(TimeTZ), b.(pgtype.Interval), 1), nil
	})
	addBinary("+", iv, tz, tz, func(_ *Env, a, b any) (any, error) {
		return timetzPlusInterval(b.(TimeTZ), a.(pgtype.Interval), 1), nil
	})
	addBinary("-", tz, iv, tz, func(_ *Env, a, b any) (any, error) {
		return timetzPlusInterval(a.(TimeTZ), b.(pgtype.Interval), -1), nil
	})
	addBinary("+", d, tz, Timestamptz, func(_ *Env, a, b any) (any, error) { return dateAtTimetz(a.(time.Time), b.(TimeTZ)) })
	addBinary("+", tz, d, Timestamptz, func(_ *Env, a, b any) (any, error) { return dateAtTimetz(b.(time.Time), a.(TimeTZ)) })

	addCast(OidTime, OidTimetz, CastImplicit, func(env *Env, v any) (any, error) { return timeToTimetz(env, v.(int64)) })
	addCast(OidTimetz, OidTime, CastAssignment, func(_ *Env, v any) (any, error) { return v.(TimeTZ).Time, nil })
	addCast(OidTimestamptz, OidTimetz, CastAssignment, func(env *Env, v any) (any, error) {
		t := v.(time.Time)
		if isInfiniteTime(t) {
			return nil, nil
		}
		return timetzAt(t.In(env.location())), nil
	})

	addFunc("extract", Immutable, NumericAny, func(_ *Env, a []any) (any, error) {
		return extractTimetz(a[0].(string), a[1].(TimeTZ))
	}, Text, tz)
	addFunc("date_part", Immutable, Float8, func(env *Env, a []any) (any, error) {
		v, err := extractTimetz(a[0].(string), a[1].(TimeTZ))
		if err != nil {
			return nil, err
		}
		return numericToFloat(OidFloat8)(env, v)
	}, Text, tz)
	addFunc("timezone", Stable, tz, func(env *Env, a []any) (any, error) {
		west, err := zoneWestNow(env, a[0].(string))
		if err != nil {
			return nil, err
		}
		return timetzInZone(a[1].(TimeTZ), west), nil
	}, Text, tz)
	addFunc("timezone", Immutable, tz, func(_ *Env, a []any) (any, error) {
		z := a[0].(pgtype.Interval)
		if z.Months != 0 || z.Days != 0 {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "interval time zone \"%s\" must not include months or days",
				formatInterval(z))
		}
		return timetzInZone(a[1].(TimeTZ), int32(-(z.Microseconds / usecPerSec))), nil
	}, iv, tz)
	addFunc("timetz_cmp", Immutable, Int4, func(_ *Env, a []any) (any, error) {
		return int64(compareTimetz(a[0].(TimeTZ), a[1].(TimeTZ))), nil
	}, tz, tz)
	addFunc("timetz_larger", Immutable, tz, func(_ *Env, a []any) (any, error) {
		if compareTimetz(a[0].(TimeTZ), a[1].(TimeTZ)) > 0 {
			return a[0], nil
		}
		return a[1], nil
	}, tz, tz)
	addFunc("timetz_smaller", Immutable, tz, func(_ *Env, a []any) (any, error) {
		if compareTimetz(a[0].(TimeTZ), a[1].(TimeTZ)) < 0 {
			return a[0], nil
		}
		return a[1], nil
	}, tz, tz)
	addFunc("current_time", Stable, tz, func(env *Env, _ []any) (any, error) {
		t, err := envTime(env, false)
		if err != nil {
			return nil, err
		}
		return timetzAt(t.(time.Time).In(env.location())), nil
	})
	for _, t := range []Type{tz, tm, Timestamp, Timestamptz} {
		addFuncNullable("overlaps", Immutable, Bool, func(_ *Env, a []any) (any, error) {
			return overlaps(a, func(x, y any) int { return compare(t, x, y) }), nil
		}, t, t, t, t)
	}
	addOverlapsWithIntervals()
	// timetz_scale, the typmod's function: precision p rounds as time(p)
	// with time zone does, other values leave the time alone.
	addFunc("timetz", Immutable, tz, func(_ *Env, a []any) (any, error) {
		x, p := a[0].(TimeTZ), a[1].(int64)
		if p < 0 || p > 6 {
			return x, nil
		}
		return TimeTZ{Time: roundTime(Type{OidTimetz, int32(p)}, x.Time), Zone: x.Zone}, nil
	}, tz, Int4)

	addFunc("timestamptz", Immutable, Timestamptz, func(_ *Env, a []any) (any, error) {
		return dateAtTimetz(a[0].(time.Time), a[1].(TimeTZ))
	}, d, tz)
	addFunc("timestamp", Immutable, Timestamp, func(_ *Env, a []any) (any, error) { return dateAtTime(a[0].(time.Time), a[1].(int64)) }, d, tm)
	addFunc("timestamptz", Stable, Timestamptz, func(env *Env, a []any) (any, error) {
		ts, err := dateAtTime(a[0].(time.Time), a[1].(int64))
		if err != nil {
			return nil, err
		}
		return timestampToTimestamptz(env, ts)
	}, d, tm)
}

// addOverlapsWithIntervals registers the OVERLAPS of periods given by a
// start and a length, PostgreSQL's SQL functions over overlaps(t, t, t, t):
// (s1, l1) OVERLAPS (s2, e2) is (s1, s1 + l1) OVERLAPS (s2, e2), with
// s1 + l1 NULL when either is.
func addOverlapsWithIntervals() {
	for _, t := range []Type{Time, Timestamp, Timestamptz} {
		vol := Immutable
		if t == Timestamptz {
			vol = Stable // timestamptz + interval reads the session TimeZone
		}
		plus := sync.OnceValues(func() (*BinaryOp, error) { return resolveBinaryOp("+", t, Interval) })
		end := func(env *Env, start, length any) (any, error) {
			if start == nil || length == nil {
				return nil, nil
			}
			op, err := plus()
			if err != nil {
				return nil, err
			}
			return op.EvalEnv(env, start, length)
		}
		cmp := func(x, y any) int { return compare(t, x, y) }
		for _, shape := range [][2]bool{{true, true}, {false, true}, {true, false}} {
			args := []Type{t, t, t, t}
			if shape[0] {
				args[1] = Interval
			}
			if shape[1] {
				args[3] = Interval
			}
			addFuncNullable("overlaps", vol, Bool, func(env *Env, a []any) (any, error) {
				ends := []any{a[0], a[1], a[2], a[3]}
				for i, isLength := range shape {
					if isLength {
						e, err := end(env, a[2*i], a[2*i+1])
						if err != nil {
							return nil, err
						}
						ends[2*i+1] = e
					}
				}
				return overlaps(ends, cmp), nil
			}, args...)
		}
	}
}

// compareTimetz is timetz_cmp_internal.
func compareTimetz(a, b TimeTZ) int {
	return cmpTimetz(a.Time, int(a.Zone), b.Time, int(b.Zone))
}

// timetzAt is the time of day and offset of t in its location.
func timetzAt(t time.Time) TimeTZ {
	_, east := t.Zone()
	return TimeTZ{Time: timeOfWallClock(wallClock(t)).(int64), Zone: int32(-east)}
}

// timetzPlusInterval is timetz_pl_interval (sign 1) and timetz_mi_interval
// (-1): the interval's time part wraps around midnight, the zone stays.
func timetzPlusInterval(t TimeTZ, iv pgtype.Interval, sign int64) TimeTZ {
	return TimeTZ{Time: timePlusInterval(t.Time, iv, sign), Zone: t.Zone}
}

// timetzInZone is timetz_zone and timetz_izone: the same instant on the
// clocks of the zone west seconds west of UTC.
func timetzInZone(t TimeTZ, west int32) TimeTZ {
	return TimeTZ{Time: floorMod(t.Time+int64(t.Zone-west)*usecPerSec, usecPerDay), Zone: west}
}

// zoneWestNow is the offset west of UTC of the zone AT TIME ZONE names, as
// timetz_zone finds it: an abbreviation's, else the zone's at the
// transaction's start.
func zoneWestNow(env *Env, name string) (int32, error) {
	rule, err := parseZoneRule(name)
	if err != nil {
		return 0, err
	}
	if fixed, ok := constantOffset(rule.loc); ok && rule.abbrev == "" {
		return int32(-fixed), nil
	}
	now, err := envTime(env, false)
	if err != nil {
		return 0, err
	}
	wall := rule.wallClock(now.(time.Time))
	return int32(now.(time.Time).Sub(wall) / time.Second), nil
}

// dateAtTimetz is datetimetz_timestamptz: date + timetz as an instant.
func dateAtTimetz(d time.Time, t TimeTZ) (any, error) {
	if isInfiniteTime(d) {
		return d, nil
	}
	v := d.Add(time.Duration(t.Time)*time.Microsecond + time.Duration(t.Zone)*time.Second)
	if v.Before(minDate) || !v.Before(InfinityTime) {
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "timestamp out of range")
	}
	return v, nil
}

// timeToTimetz is time_timetz: the time with the session zone's offset on
// the transaction's date.
func timeToTimetz(env *Env, us int64) (any, error) {
	west, err := sessionOffsetAt(env, nil, us)
	if err != nil {
		return nil, err
	}
	return TimeTZ{Time: us, Zone: west}, nil
}

// sessionOffsetAt is DetermineTimeZoneOffset in the session zone for the
// wall clock us on day (the transaction's date when day is nil), in seconds
// west of UTC. A zone of one constant offset needs no date.
func sessionOffsetAt(env *Env, day *time.Time, us int64) (int32, error) {
	loc := env.location()
	if east, ok := constantOffset(loc); ok {
		return int32(-east), nil
	}
	if day == nil {
		now, err := envTime(env, false)
		if err != nil {
			return 0, err
		}
		today := wallClock(now.(time.Time).In(loc)).Truncate(24 * time.Hour)
		day = &today
	}
	wall := day.Add(time.Duration(us) * time.Microsecond)
	return int32(fromWallClock(wall, loc).Sub(wall) / time.Second), nil
}

// constantOffset reports whether loc has had one offset east of UTC
// throughout its history, as pg_get_timezone_offset asks of every offset a
// zone's file lists; Asia/Kolkata, whose mean solar time once differed,
// has not.
func constantOffset(loc *time.Location) (int, bool) {
	t := time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC)
	_, east := t.In(loc).Zone()
	for range 4096 {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() {
			return east, true
		}
		t = end
		if _, off := t.In(loc).Zone(); off != east {
			return 0, false
		}
	}
	return 0, false
}

// parseTimetz is timetz_in: DecodeTimeOnly's reading, the zone resolved as
// it resolves it, then the typmod's rounding.
func parseTimetz(env *Env, t Type, s string) (any, error) {
	d, us, err := decodeTimeOnly(env, s, "time with time zone")
	if err != nil {
		return nil, err
	}
	var day *time.Time
	if d.fmask&maskDate == maskDate {
		date := time.Date(d.year, time.Month(d.mon), d.mday, 0, 0, 0, 0, time.UTC)
		day = &date
	}
	var west int32
	switch {
	case d.named != nil:
		if east, ok := constantOffset(d.named); ok {
			west = int32(-east)
			break
		}
		// decodeTimeOnly refused a zone with changes but no date.
		wall := day.Add(time.Duration(us) * time.Microsecond)
		west = int32(fromWallClock(wall, d.named).Sub(wall) / time.Second)
	case d.dynamic != nil:
		if day == nil {
			now, err := envTime(env, false)
			if err != nil {
				return nil, err
			}
			today := wallClock(now.(time.Time).In(env.location())).Truncate(24 * time.Hour)
			day = &today
		}
		wall := day.Add(time.Duration(us) * time.Microsecond)
		west = int32(-abbrevOffset(d.dynamic, d.abbrev, fromWallClock(wall, d.dynamic)))
	case d.fmask&fieldBit(tokTZ) != 0:
		west = int32(d.tzWest)
	default:
		if west, err = sessionOffsetAt(env, day, us); err != nil {
			return nil, err
		}
	}
	if west <= -tzDispLimit || west >= tzDispLimit {
		return nil, dtError(dtTZDispOverflow, "time with time zone", s)
	}
	return TimeTZ{Time: roundTime(t, us), Zone: west}, nil
}

// formatTimetz is timetz_out: the time as time_out prints it and the
// offset east of UTC as +hh, +hh:mm or +hh:mm:ss.
func formatTimetz(t TimeTZ) string {
	return string(appendOffset([]byte(formatTime(t.Time)), int(-t.Zone)))
}

// extractTimetz is extract(field FROM timetz), timetz_part_common: the
// clock's fields as time's, the zone's in seconds east of UTC, and epoch
// counting the zone.
func extractTimetz(field string, t TimeTZ) (any, error) {
	unit, ok := lookupUnit(field)
	if !ok {
		return nil, unitError(field, Timetz, false)
	}
	if v, ok := extractClock(unit, t.Time); ok {
		return v, nil
	}
	east := -int64(t.Zone)
	switch unit {
	case "timezone":
		return apd.New(east, 0), nil
	case "timezone_hour":
		return apd.New(east/3600, 0), nil
	case "timezone_minute":
		return apd.New(east/60%60, 0), nil
	case "epoch":
		return decimalScaled(t.Time+int64(t.Zone)*usecPerSec, 6), nil
	}
	return nil, unitError(field, Timetz, true)
}

// overlaps is the SQL OVERLAPS operator over two periods given by their
// ends, either of which may be NULL, as overlaps_timetz and its kin decide
// it.
func overlaps(a []any, cmp func(x, y any) int) any {
	ts1, te1, ts2, te2 := a[0], a[1], a[2], a[3]
	order := func(s, e any) (any, any, bool) {
		switch {
		case s == nil && e == nil:
			return nil, nil, false
		case s == nil:
			return e, nil, true
		case e != nil && cmp(s, e) > 0:
			return e, s, true
		}
		return s, e, true
	}
	var ok bool
	if ts1, te1, ok = order(ts1, te1); !ok {
		return nil
	}
	if ts2, te2, ok = order(ts2, te2); !ok {
		return nil
	}
	switch c := cmp(ts1, ts2); {
	case c > 0:
		if te2 == nil {
			return nil
		}
		if cmp(ts1, te2) < 0 {
			return true
		}
		if te1 == nil {
			return nil
		}
		return false
	case c < 0:
		if te1 == nil {
			return nil
		}
		if cmp(ts2, te1) < 0 {
			return true
		}
		if te2 == nil {
			return nil
		}
		return false
	}
	if te1 == nil || te2 == nil {
		return nil
	}
	return true
}
