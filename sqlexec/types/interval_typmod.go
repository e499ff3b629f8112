package types

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// An interval's typmod is PostgreSQL's INTERVAL_TYPMOD: the field
// restriction (a mask of the fields YEAR TO SECOND allows) in the high 16
// bits and the fractional-second precision in the low 16, 0xFFFF for none.

// The field bits of a restriction (INTERVAL_MASK of PostgreSQL's field
// numbers), and the mask of no restriction.
const (
	rangeMonth  = 1 << tokMonth
	rangeYear   = 1 << tokYear
	rangeDay    = 1 << tokDay
	rangeHour   = 1 << tokHour
	rangeMinute = 1 << tokMinute
	rangeSecond = 1 << tokSecond
	// intervalFullRange is INTERVAL_FULL_RANGE, the field mask pg_query
	// gives for interval(p).
	intervalFullRange = 0x7fff

	intervalFullPrecision = 0xffff
	maxIntervalPrecision  = 6
)

// intervalRangeNames are the restrictions the grammar allows, as
// intervaltypmodout prints them.
var intervalRangeNames = map[int]string{
	rangeYear: " year", rangeMonth: " month", rangeDay: " day", rangeHour: " hour", rangeMinute: " minute",
	rangeSecond: " second", rangeYear | rangeMonth: " year to month", rangeDay | rangeHour: " day to hour",
	rangeDay | rangeHour | rangeMinute: " day to minute", rangeDay | rangeHour | rangeMinute | rangeSecond: " day to second",
	rangeHour | rangeMinute: " hour to minute", rangeHour | rangeMinute | rangeSecond: " hour to second",
	rangeMinute | rangeSecond: " minute to second", intervalFullRange: "",
}

// intervalTypmod is intervaltypmodin: mods are the field mask and the
// optional precision (more than 6 is reduced to 6, as PostgreSQL does with
// a warning).
func intervalTypmod(mods []int32) (Type, error) {
	if _, ok := intervalRangeNames[int(mods[0])]; !ok || len(mods) > 2 {
		return Type{}, pgerror.New(pgerror.InvalidParameterValue, "invalid INTERVAL type modifier")
	}
	rng := mods[0]
	if len(mods) == 1 {
		if rng == intervalFullRange {
			return Interval, nil
		}
		return Type{OidInterval, rng<<16 | intervalFullPrecision}, nil
	}
	p := mods[1]
	if p < 0 {
		return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "INTERVAL(%d) precision must not be negative", p)
	}
	return Type{OidInterval, rng<<16 | min(p, maxIntervalPrecision)}, nil
}

// intervalRange and intervalPrecision split an interval typmod; an
// unrestricted type has the full range and no precision.
func intervalRange(t Type) int {
	if t.Typmod < 0 {
		return intervalFullRange
	}
	return int(t.Typmod>>16) & intervalFullRange
}

func intervalPrecision(t Type) int {
	if t.Typmod < 0 {
		return intervalFullPrecision
	}
	return int(t.Typmod) & intervalFullPrecision
}

// formatIntervalType is format_type of an interval: "interval", "interval
// day to second(3)", "interval(2)".
func formatIntervalType(t Type) string {
	if t.Typmod < 0 {
		return "interval"
	}
	s := "interval" + intervalRangeNames[intervalRange(t)]
	if p := intervalPrecision(t); p != intervalFullPrecision {
		s += "(" + strconv.Itoa(p) + ")"
	}
	return s
}

// adjustIntervalForTypmod is AdjustIntervalForTypmod: the fields below the
// restriction's last are zeroed (higher fields stay), and the time is
// rounded to the precision, halves away from zero.
func adjustIntervalForTypmod(t Type, iv pgtype.Interval) pgtype.Interval {
	if t.Typmod < 0 {
		return iv
	}
	switch intervalRange(t) {
	case rangeYear:
		iv.Months = iv.Months / monthsPerYear * monthsPerYear
		iv.Days, iv.Microseconds = 0, 0
	case rangeMonth, rangeYear | rangeMonth:
		iv.Days, iv.Microseconds = 0, 0
	case rangeDay:
		iv.Microseconds = 0
	case rangeHour, rangeDay | rangeHour:
		iv.Microseconds = iv.Microseconds / usecPerHour * usecPerHour
	case rangeMinute, rangeDay | rangeHour | rangeMinute, rangeHour | rangeMinute:
		iv.Microseconds = iv.Microseconds / usecPerMinute * usecPerMinute
	}
	if p := intervalPrecision(t); p < maxIntervalPrecision {
		scale := int64(1)
		for i := p; i < maxIntervalPrecision; i++ {
			scale *= 10
		}
		if us := iv.Microseconds; us >= 0 {
			iv.Microseconds = (us + scale/2) / scale * scale
		} else {
			iv.Microseconds = -((-us + scale/2) / scale * scale)
		}
	}
	return iv
}

// IntervalFields is the field restriction of an interval type as
// information_schema's interval_type shows it ("DAY TO SECOND(3)"), empty
// for none.
func IntervalFields(t Type) string {
	if intervalRange(t) == intervalFullRange {
		return ""
	}
	return strings.ToUpper(strings.TrimPrefix(formatIntervalType(t), "interval "))
}

// IntervalPrecision is the fractional-second precision of an interval
// type, or -1 when it has none.
func IntervalPrecision(t Type) int {
	if p := intervalPrecision(t); p != intervalFullPrecision {
		return p
	}
	return -1
}
