package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// Interval input is read as PostgreSQL's interval_in reads it: the text is
// split into fields like any date/time literal (splitDateTime), the fields
// are decoded from right to left so that a unit applies to the number before
// it (DecodeInterval), and text that is not in that format is tried as an
// ISO 8601 duration. A field restriction (INTERVAL DAY TO MINUTE) decides
// which field a bare number is, then drops the fields below its last one.

// itmIn is PostgreSQL's pg_itm_in: the fields of an interval being read,
// each checked for overflow as it grows (22015 on overflow).
type itmIn struct {
	year, mon, mday int32
	usec            int64
}

// mulAddInt64 sets *sum to *sum + val*scale, reporting overflow.
func mulAddInt64(val, scale int64, sum *int64) bool {
	if val != 0 {
		p := val * scale
		if p/scale != val {
			return false
		}
		s := *sum + p
		if (p > 0 && s < *sum) || (p < 0 && s > *sum) {
			return false
		}
		*sum = s
	}
	return true
}

// fractMicroseconds adds frac (below one in magnitude) times scale
// microseconds, rounding halves toward zero (AdjustFractMicroseconds).
func (m *itmIn) fractMicroseconds(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	usec := int64(frac)
	frac -= float64(usec)
	if frac > 0.5 {
		usec++
	} else if frac < -0.5 {
		usec--
	}
	return mulAddInt64(usec, 1, &m.usec)
}

// fractDays adds frac times scale days: whole days, then the fraction of a
// day as microseconds.
func (m *itmIn) fractDays(frac float64, scale int32) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int32(frac)
	var ok bool
	if m.mday, ok = addInt32(m.mday, extra); !ok {
		return false
	}
	return m.fractMicroseconds(frac-float64(extra), usecPerDay)
}

// fractYears adds frac times scale years as whole months, rounded.
func (m *itmIn) fractYears(frac float64, scale int32) bool {
	var ok bool
	m.mon, ok = addInt32(m.mon, int32(math.RoundToEven(frac*float64(scale)*monthsPerYear)))
	return ok
}

func (m *itmIn) microseconds(val int64, frac float64, scale int64) bool {
	return mulAddInt64(val, scale, &m.usec) && m.fractMicroseconds(frac, scale)
}

func (m *itmIn) days(val int64, scale int32) bool {
	if val != int64(int32(val)) {
		return false
	}
	d := val * int64(scale)
	if d != int64(int32(d)) {
		return false
	}
	var ok bool
	m.mday, ok = addInt32(m.mday, int32(d))
	return ok
}

func (m *itmIn) months(val int64) bool {
	if val != int64(int32(val)) {
		return false
	}
	var ok bool
	m.mon, ok = addInt32(m.mon, int32(val))
	return ok
}

func (m *itmIn) years(val int64, scale int32) bool {
	if val != int64(int32(val)) {
		return false
	}
	y := val * int64(scale)
	if y != int64(int32(y)) {
		return false
	}
	var ok bool
	m.year, ok = addInt32(m.year, int32(y))
	return ok
}

// negate is "ago"; false when a field is the one int32 or int64 value
// without a negation.
func (m *itmIn) negate() bool {
	if m.usec == math.MinInt64 || m.mday == math.MinInt32 || m.mon == math.MinInt32 || m.year == math.MinInt32 {
		return false
	}
	m.usec, m.mday, m.mon, m.year = -m.usec, -m.mday, -m.mon, -m.year
	return true
}

// interval is itmin2interval: years and months must fit one int32 of
// months (else 22008, interval out of range).
func (m *itmIn) interval() (pgtype.Interval, error) {
	months := int64(m.year)*monthsPerYear + int64(m.mon)
	if months != int64(int32(months)) {
		return pgtype.Interval{}, errIntervalRange()
	}
	return pgtype.Interval{Months: int32(months), Days: m.mday, Microseconds: m.usec, Valid: true}, nil
}

// intervalUnit is the unit a word of interval input names.
type intervalUnit int

const (
	ivNone intervalUnit = iota
	ivMicrosecond
	ivMillisecond
	ivSecond
	ivMinute
	ivHour
	ivDay
	ivWeek
	ivMonth
	ivYear
	ivDecade
	ivCentury
	ivMillennium
	ivOther // a unit interval input does not take (quarter, timezone)
	ivAgo
	ivIgnore // "@"
)

// intervalUnits are PostgreSQL's deltatktbl, compared on their first
// tokenMaxLen letters.
var intervalUnits = map[string]intervalUnit{
	"@": ivIgnore, "ago": ivAgo,
	"c": ivCentury, "cent": ivCentury, "centuries": ivCentury, "century": ivCentury,
	"d": ivDay, "day": ivDay, "days": ivDay,
	"dec": ivDecade, "decade": ivDecade, "decades": ivDecade, "decs": ivDecade,
	"h": ivHour, "hour": ivHour, "hours": ivHour, "hr": ivHour, "hrs": ivHour,
	"m": ivMinute, "min": ivMinute, "mins": ivMinute, "minute": ivMinute, "minutes": ivMinute,
	"microsecon": ivMicrosecond, "us": ivMicrosecond, "usec": ivMicrosecond, "usecs": ivMicrosecond,
	"useconds": ivMicrosecond,
	"mil":      ivMillennium, "millennia": ivMillennium, "millennium": ivMillennium, "mils": ivMillennium,
	"millisecon": ivMillisecond, "ms": ivMillisecond, "msec": ivMillisecond, "msecs": ivMillisecond,
	"mseconds": ivMillisecond,
	"mon":      ivMonth, "mons": ivMonth, "month": ivMonth, "months": ivMonth,
	"qtr": ivOther, "quarter": ivOther, "timezone": ivOther, "timezone_h": ivOther, "timezone_m": ivOther,
	"s": ivSecond, "sec": ivSecond, "second": ivSecond, "seconds": ivSecond, "secs": ivSecond,
	"w": ivWeek, "week": ivWeek, "weeks": ivWeek,
	"y": ivYear, "year": ivYear, "years": ivYear, "yr": ivYear, "yrs": ivYear,
}

// ivFieldBits are the field-mask bits of each unit (DTK_M of PostgreSQL's
// field numbers), so that a field given twice is a syntax error.
var ivFieldBits = map[intervalUnit]int{
	ivMicrosecond: fieldBit(tokMicrosecond), ivMillisecond: fieldBit(tokMillisecond),
	ivSecond: fieldBit(tokSecond), ivMinute: fieldBit(tokMinute), ivHour: fieldBit(tokHour),
	ivDay: fieldBit(tokDay), ivWeek: 1 << 24, ivMonth: fieldBit(tokMonth), ivYear: fieldBit(tokYear),
	ivDecade: 1 << 25, ivCentury: 1 << 26, ivMillennium: 1 << 27,
}

// bareNumberUnit is the unit of a number without one, by the field
// restriction: its last field.
func bareNumberUnit(rng int) intervalUnit {
	switch rng {
	case rangeYear:
		return ivYear
	case rangeMonth, rangeYear | rangeMonth:
		return ivMonth
	case rangeDay:
		return ivDay
	case rangeHour, rangeDay | rangeHour:
		return ivHour
	case rangeMinute, rangeHour | rangeMinute, rangeDay | rangeHour | rangeMinute:
		return ivMinute
	}
	return ivSecond
}

// decodeInterval is DecodeInterval: fields are read from the right, a unit
// naming the number before it, a time (h:m:s) making the number before it
// days. sqlStandard applies a leading minus to every field when no other
// field has a sign (IntervalStyle sql_standard).
func decodeInterval(fields []dtField, rng int, sqlStandard bool) (itmIn, dtErr) {
	var m itmIn
	forceNegative := false
	if sqlStandard && len(fields) > 0 && fields[0].text[0] == '-' {
		forceNegative = true
		for _, f := range fields[1:] {
			if f.text[0] == '-' || f.text[0] == '+' {
				forceNegative = false
				break
			}
		}
	}
	fmask, isBefore := 0, false
	unit := ivNone
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		tmask := 0
		switch f.kind {
		case dtkTime:
			usec, e := decodeIntervalTime(f.text, rng)
			if e != 0 {
				return m, e
			}
			m.usec = usec
			if forceNegative && m.usec > 0 {
				m.usec = -m.usec
			}
			tmask, unit = maskTime, ivDay
		case dtkTZ, dtkDate, dtkNumber:
			if f.kind == dtkTZ && strings.Contains(f.text[1:], ":") {
				if usec, e := decodeIntervalTime(f.text[1:], rng); e == 0 {
					if f.text[0] == '-' {
						if usec == math.MinInt64 {
							return m, dtFieldOverflow
						}
						usec = -usec
					}
					m.usec = usec
					if forceNegative && m.usec > 0 {
						m.usec = -m.usec
					}
					tmask, unit = maskTime, ivDay
					break
				}
			}
			if unit == ivNone {
				unit = bareNumberUnit(rng)
			}
			var e dtErr
			if tmask, unit, e = m.number(f.text, unit, forceNegative); e != 0 {
				return m, e
			}
		case dtkString, dtkSpecial:
			word := f.text
			if len(word) > tokenMaxLen {
				word = word[:tokenMaxLen]
			}
			u, ok := intervalUnits[word]
			switch {
			case !ok:
				return m, dtBadFormat
			case u == ivIgnore:
				continue
			case u == ivAgo:
				isBefore = true
			}
			unit = u
		default:
			return m, dtBadFormat
		}
		if tmask&fmask != 0 {
			return m, dtBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 {
		return m, dtBadFormat
	}
	if isBefore && !m.negate() {
		return m, dtFieldOverflow
	}
	return m, 0
}

// number adds one number field in unit to m, returning its field mask and
// the unit of a bare number to its left (days after hours, else the same).
func (m *itmIn) number(text string, unit intervalUnit, forceNegative bool) (int, intervalUnit, dtErr) {
	j := 0
	if j < len(text) && (text[j] == '-' || text[j] == '+') {
		j++
	}
	j += leadingDigits(text[j:])
	var val int64
	if j > 0 && text[:j] != "-" && text[:j] != "+" {
		v, err := strconv.ParseInt(text[:j], 10, 64)
		if err != nil {
			return 0, ivNone, dtFieldOverflow
		}
		val = v
	} else {
		j = 0
	}
	rest := text[j:]
	var frac float64
	switch {
	case strings.HasPrefix(rest, "-"):
		// SQL "years-months"
		mon, after, overflow := atoiPrefix(rest[1:])
		if overflow || mon >= monthsPerYear {
			return 0, ivNone, dtFieldOverflow
		}
		if after != "" {
			return 0, ivNone, dtBadFormat
		}
		unit = ivMonth
		if text[0] == '-' {
			mon = -mon
		}
		total := int64(0)
		if !mulAddInt64(val, monthsPerYear, &total) || !mulAddInt64(int64(mon), 1, &total) {
			return 0, ivNone, dtFieldOverflow
		}
		val = total
	case strings.HasPrefix(rest, "."):
		var e dtErr
		if frac, e = parseFraction(rest); e != 0 {
			return 0, ivNone, e
		}
		if text[0] == '-' {
			frac = -frac
		}
	case rest != "":
		return 0, ivNone, dtBadFormat
	}
	if forceNegative {
		if val > 0 {
			val = -val
		}
		if frac > 0 {
			frac = -frac
		}
	}
	if !m.addUnit(val, frac, unit) {
		return 0, ivNone, dtFieldOverflow
	}
	tmask := ivFieldBits[unit]
	switch unit {
	case ivSecond:
		if frac != 0 {
			tmask = maskAllSecs
		}
	case ivHour:
		unit = ivDay
	case ivOther, ivAgo:
		return 0, ivNone, dtBadFormat
	}
	return tmask, unit, 0
}

// addUnit adds val and frac of a unit, as the units of DecodeInterval and
// DecodeISO8601Interval add them; false on overflow.
func (m *itmIn) addUnit(val int64, frac float64, unit intervalUnit) bool {
	switch unit {
	case ivMicrosecond:
		return m.microseconds(val, frac, 1)
	case ivMillisecond:
		return m.microseconds(val, frac, 1000)
	case ivSecond:
		return m.microseconds(val, frac, usecPerSec)
	case ivMinute:
		return m.microseconds(val, frac, usecPerMinute)
	case ivHour:
		return m.microseconds(val, frac, usecPerHour)
	case ivDay:
		return m.days(val, 1) && m.fractMicroseconds(frac, usecPerDay)
	case ivWeek:
		return m.days(val, 7) && m.fractDays(frac, 7)
	case ivMonth:
		return m.months(val) && m.fractDays(frac, daysPerMonth)
	case ivYear:
		return m.years(val, 1) && m.fractYears(frac, 1)
	case ivDecade:
		return m.years(val, 10) && m.fractYears(frac, 10)
	case ivCentury:
		return m.years(val, 100) && m.fractYears(frac, 100)
	case ivMillennium:
		return m.years(val, 1000) && m.fractYears(frac, 1000)
	}
	return true
}

// decodeIntervalTime is DecodeTimeForInterval: h:m[:s[.f]] as
// microseconds, m:s.f with a fraction, and m:s under MINUTE TO SECOND.
func decodeIntervalTime(text string, rng int) (int64, dtErr) {
	if !isDigit(text[0]) {
		return 0, dtBadFormat
	}
	hour, min, sec, usec, e := decodeClock(text)
	if e != 0 {
		return 0, e
	}
	if rng == rangeMinute|rangeSecond && strings.Count(text, ":") == 1 && !strings.Contains(text, ".") {
		if hour > math.MaxInt32 {
			return 0, dtFieldOverflow
		}
		hour, min, sec = 0, int(hour), min
	}
	total := usec
	if !mulAddInt64(hour, usecPerHour, &total) || !mulAddInt64(int64(min), usecPerMinute, &total) ||
		!mulAddInt64(int64(sec), usecPerSec, &total) {
		return 0, dtFieldOverflow
	}
	return total, 0
}

// parseIntervalText is interval_in: s under the field restriction rng of
// the type's typmod (rangeFull for none).
func parseIntervalText(s string, rng int, sqlStandard bool) (pgtype.Interval, error) {
	fields, e := splitFields(s, maxIntervalBuffer)
	var m itmIn
	if e == 0 {
		m, e = decodeInterval(fields, rng, sqlStandard)
	}
	if e == dtBadFormat {
		m, e = decodeISO8601Interval(s)
	}
	switch e {
	case 0:
	case dtBadFormat:
		return pgtype.Interval{}, pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", s)
	default:
		return pgtype.Interval{}, pgerror.Newf(pgerror.IntervalFieldOverflow, "interval field value out of range: %q", s)
	}
	return m.interval()
}
