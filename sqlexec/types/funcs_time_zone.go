package types

import (
	"math"
	"strings"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// date_bin, and the functions that take a time zone as an argument:
// make_timestamptz(..., zone) and date_trunc(unit, timestamptz, zone).
func init() {
	for _, t := range []Type{Timestamp, Timestamptz} {
		addFunc("date_bin", Immutable, t, func(_ *Env, a []any) (any, error) {
			return dateBin(a[0].(pgtype.Interval), a[1].(time.Time), a[2].(time.Time))
		}, Interval, t, t)
	}
	addFunc("make_timestamptz", Stable, Timestamptz, func(env *Env, a []any) (any, error) {
		ts, err := makeTimestamp(a[:6])
		if err != nil {
			return nil, err
		}
		zone, err := saneZone(a[6].(string))
		if err != nil {
			return nil, err
		}
		return checkTimestamp(zone.instant(ts.(time.Time)))
	}, Int4, Int4, Int4, Int4, Int4, Float8, Text)
	addFunc("date_trunc", Stable, Timestamptz, func(env *Env, a []any) (any, error) {
		loc, err := truncZone(a[2].(string))
		if err != nil {
			return nil, err
		}
		return truncTimestamp(a[0].(string), a[1].(time.Time), loc)
	}, Text, Timestamptz, Text)
}

// dateBin is timestamp_bin and timestamptz_bin: the start of the stride
// (days and time, no months) counted from origin that t falls in.
func dateBin(stride pgtype.Interval, t, origin time.Time) (any, error) {
	if isInfiniteTime(t) {
		return t, nil
	}
	if isInfiniteTime(origin) {
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "origin out of range")
	}
	if stride.Months != 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	strideUsec := stride.Microseconds
	if !mulAddInt64(int64(stride.Days), usecPerDay, &strideUsec) {
		return nil, errIntervalRange()
	}
	if strideUsec <= 0 {
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "stride must be greater than zero")
	}
	ts, org := timeToPG(t), timeToPG(origin)
	diff := ts - org
	if (org < 0 && diff < ts) || (org > 0 && diff > ts) {
		return nil, errIntervalRange()
	}
	modulo := diff % strideUsec
	result := org + (diff - modulo)
	if modulo < 0 {
		if result < math.MinInt64+strideUsec {
			return nil, errTimestampRange()
		}
		return checkTimestamp(pgToTime(result - strideUsec))
	}
	return pgToTime(result), nil
}

// saneZone is parse_sane_timezone, the zone argument of make_timestamptz:
// a numeric offset with a sign (+2 is two hours east), an abbreviation, or
// a zone name.
func saneZone(name string) (zoneRule, error) {
	if name != "" && isDigit(name[0]) {
		return zoneRule{}, pgerror.Newf(pgerror.InvalidParameterValue, "invalid input syntax for type numeric time zone: \"%s\"", name).
			WithHint("Numeric time zones must have \"-\" or \"+\" as first character.")
	}
	switch west, e := decodeTimezone(name); e {
	case 0:
		return zoneRule{loc: FixedOffsetZone(-west)}, nil
	case dtTZDispOverflow:
		return zoneRule{}, pgerror.Newf(pgerror.InvalidParameterValue, "numeric time zone \"%s\" out of range", name)
	}
	return parseZoneRule(name)
}

// truncZone is the zone date_trunc truncates in: a fixed abbreviation's
// offset, a dynamic abbreviation's zone, or a zone name.
func truncZone(name string) (*time.Location, error) {
	if z, ok := lookupZoneAbbrev(strings.ToLower(name)); ok {
		if z.zone == "" {
			return FixedOffsetZone(z.offset), nil
		}
		return loadLocation(z.zone)
	}
	loc, _, err := ParseTimeZone(name, false)
	return loc, err
}
