package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// Interval arithmetic constants, as in PostgreSQL's datatype/timestamp.h.
const (
	usecPerSec    = int64(1_000_000)
	usecPerMinute = 60 * usecPerSec
	usecPerHour   = 60 * usecPerMinute
	usecPerDay    = 24 * usecPerHour
	daysPerMonth  = 30
	monthsPerYear = 12
)

// intervalUnits maps every unit spelling DecodeInterval accepts to the unit.
var intervalUnits = map[string]string{
	"microsecond": "us", "microseconds": "us", "us": "us", "usec": "us", "usecs": "us", "useconds": "us", "usecond": "us",
	"millisecond": "ms", "milliseconds": "ms", "ms": "ms", "msec": "ms", "msecs": "ms", "mseconds": "ms", "msecond": "ms",
	"second": "s", "seconds": "s", "s": "s", "sec": "s", "secs": "s",
	"minute": "m", "minutes": "m", "m": "m", "min": "m", "mins": "m",
	"hour": "h", "hours": "h", "h": "h", "hr": "h", "hrs": "h",
	"day": "d", "days": "d", "d": "d",
	"week": "w", "weeks": "w", "w": "w",
	"month": "mon", "months": "mon", "mon": "mon", "mons": "mon",
	"year": "y", "years": "y", "y": "y", "yr": "y", "yrs": "y",
	"decade": "dec", "decades": "dec", "dec": "dec", "decs": "dec",
	"century": "c", "centuries": "c", "c": "c", "cent": "c",
	"millennium": "mil", "millennia": "mil", "mil": "mil", "mils": "mil", "millenniums": "mil",
}

// intervalAcc accumulates an interval in wide fields so that overflow is
// detected once, at the end.
type intervalAcc struct {
	months, days float64
	// usec is exact, as PostgreSQL's int64 tm_usec: a float would lose
	// microseconds beyond 2^53 (about 285 years of them).
	usec     int64
	overflow bool // usec left int64's range
}

func intervalSyntax(s string) error {
	return pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", s)
}

func intervalOverflow(s string) error {
	return pgerror.Newf(pgerror.IntervalFieldOverflow, "interval field value out of range: %q", s)
}

// parseInterval is interval_in with IntervalStyle postgres: postgres-style
// and verbose ("@ 1 hour ago") quantities with units, SQL-standard
// "y-m" and "d h:m:s", a bare number of seconds, and ISO 8601 "P1Y2M3DT4H".
func parseInterval(s string) (any, error) {
	body := strings.ToLower(trimSpace(s))
	if body == "" {
		return nil, intervalSyntax(s)
	}
	var acc intervalAcc
	var err error
	if body[0] == 'p' {
		err = acc.iso(body[1:])
	} else {
		err = acc.postgres(body)
	}
	if err != nil {
		if pe, ok := err.(*pgerror.Error); ok && pe.Code == pgerror.DatetimeFieldOverflow {
			return nil, intervalOverflow(s)
		}
		return nil, intervalSyntax(s)
	}
	return acc.interval(s)
}

// interval rounds the accumulated fields into a pgtype.Interval.
func (a *intervalAcc) interval(s string) (any, error) {
	months := math.Trunc(a.months)
	days := math.Trunc(a.days)
	if math.Abs(months) > math.MaxInt32 || math.Abs(days) > math.MaxInt32 || a.overflow {
		return nil, intervalOverflow(s)
	}
	return pgtype.Interval{Months: int32(months), Days: int32(days), Microseconds: a.usec, Valid: true}, nil
}

var errIntervalSyntax = pgerror.New(pgerror.InvalidDatetimeFormat, "invalid interval")

// ivNumber is a number of interval input split as PostgreSQL's
// DecodeInterval splits it: the integer part exactly, the fraction (with
// the number's sign) as a float.
type ivNumber struct {
	whole int64
	frac  float64
}

// parseIvNumber reads [+-]digits[.digits]; an integer part beyond int64 is
// a field overflow (22015).
func parseIvNumber(s string) (ivNumber, error) {
	intPart, fracPart, hasFrac := strings.Cut(s, ".")
	var n ivNumber
	if digits := strings.TrimLeft(intPart, "+-"); digits != "" {
		v, err := strconv.ParseInt(intPart, 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return n, pgerror.New(pgerror.DatetimeFieldOverflow, "interval field")
			}
			return n, errIntervalSyntax
		}
		n.whole = v
	} else if !hasFrac {
		return n, errIntervalSyntax
	}
	if hasFrac && fracPart != "" {
		f, err := strconv.ParseFloat("0."+fracPart, 64)
		if err != nil || !allDigits(fracPart) {
			return n, errIntervalSyntax
		}
		if strings.HasPrefix(s, "-") {
			f = -f
		}
		n.frac = f
	}
	return n, nil
}

// add adds n units to the accumulator, spilling fractions down as
// PostgreSQL's DecodeInterval does (fractional months become days and
// seconds, fractional days seconds).
func (a *intervalAcc) add(n ivNumber, unit string) error {
	switch unit {
	case "us":
		a.addUsec(n, 1)
	case "ms":
		a.addUsec(n, 1000)
	case "s":
		a.addUsec(n, usecPerSec)
	case "m":
		a.addUsec(n, usecPerMinute)
	case "h":
		a.addUsec(n, usecPerHour)
	case "d":
		a.days += float64(n.whole)
		a.addFractDays(n.frac, 1)
	case "w":
		a.days += float64(n.whole) * 7
		a.addFractDays(n.frac, 7)
	case "mon":
		a.months += float64(n.whole)
		a.addFractDays(n.frac, daysPerMonth)
	case "y", "dec", "c", "mil":
		scale := map[string]float64{"y": 1, "dec": 10, "c": 100, "mil": 1000}[unit]
		a.months += float64(n.whole)*scale*monthsPerYear + math.RoundToEven(n.frac*scale*monthsPerYear)
	default:
		return errIntervalSyntax
	}
	return nil
}

// addFractDays adds frac times scale days: the whole days, then the
// fraction of a day as microseconds.
func (a *intervalAcc) addFractDays(frac float64, scale float64) {
	f := frac * scale
	whole := math.Trunc(f)
	a.days += whole
	a.addFractUsec(f-whole, usecPerDay)
}

// addUsec adds n units of scale microseconds: the whole units exactly, the
// fraction rounded to a microsecond.
func (a *intervalAcc) addUsec(n ivNumber, scale int64) {
	if n.whole > math.MaxInt64/scale || n.whole < math.MinInt64/scale {
		a.overflow = true
		return
	}
	a.addExact(n.whole * scale)
	a.addFractUsec(n.frac, scale)
}

// addFractUsec adds frac (below one in magnitude) times scale
// microseconds, rounded as PostgreSQL's AdjustFractMicroseconds rounds
// (halves toward zero).
func (a *intervalAcc) addFractUsec(frac float64, scale int64) {
	f := frac * float64(scale)
	u := int64(f)
	switch rest := f - float64(u); {
	case rest > 0.5:
		u++
	case rest < -0.5:
		u--
	}
	a.addExact(u)
}

// addExact adds n microseconds, noting an overflow of int64.
func (a *intervalAcc) addExact(n int64) {
	sum := a.usec + n
	if (n > 0 && sum < a.usec) || (n < 0 && sum > a.usec) {
		a.overflow = true
	}
	a.usec = sum
}

// postgres decodes the postgres and SQL-standard styles.
func (a *intervalAcc) postgres(body string) error {
	body = strings.TrimPrefix(body, "@")
	tokens := splitIntervalTokens(body)
	if len(tokens) == 0 {
		return errIntervalSyntax
	}
	ago := false
	pending := ""
	// Each field may be given once, as DecodeInterval's field mask demands:
	// "1 second 2 seconds" and "1 hour 10:00" are errors.
	used := map[string]bool{}
	claim := func(units ...string) error {
		for _, u := range units {
			if used[u] {
				return errIntervalSyntax
			}
		}
		for _, u := range units {
			used[u] = true
		}
		return nil
	}
	flush := func(unit string) error {
		v, err := parseIvNumber(pending)
		if err != nil {
			return err
		}
		units := []string{unit}
		if unit == "s" && strings.Contains(pending, ".") {
			units = append(units, "ms", "us")
		}
		if err := claim(units...); err != nil {
			return err
		}
		pending = ""
		return a.add(v, unit)
	}
	for i, tok := range tokens {
		switch {
		case tok == "ago":
			if i != len(tokens)-1 {
				return errIntervalSyntax
			}
			ago = true
		case strings.Contains(tok, ":"):
			if pending != "" {
				if err := flush("d"); err != nil {
					return err
				}
			}
			if err := claim("h", "m", "s", "ms", "us"); err != nil {
				return err
			}
			if err := a.clock(tok); err != nil {
				return err
			}
		case isYearMonth(tok):
			if pending != "" {
				return errIntervalSyntax
			}
			if err := claim("y", "mon"); err != nil {
				return err
			}
			neg := tok[0] == '-'
			y, m, _ := strings.Cut(strings.TrimLeft(tok, "+-"), "-")
			yv, _ := strconv.ParseFloat(y, 64)
			mv, _ := strconv.ParseFloat(m, 64)
			if mv > 11 {
				return pgerror.New(pgerror.DatetimeFieldOverflow, "month")
			}
			total := yv*monthsPerYear + mv
			if neg {
				total = -total
			}
			a.months += total
		case isSignedNumber(tok):
			if pending != "" {
				return errIntervalSyntax
			}
			pending = tok
		default:
			unit, ok := intervalUnits[tok]
			if !ok || pending == "" {
				return errIntervalSyntax
			}
			if err := flush(unit); err != nil {
				return err
			}
		}
	}
	if pending != "" {
		if err := flush("s"); err != nil {
			return err
		}
	}
	if ago {
		if a.usec == math.MinInt64 {
			a.overflow = true // its negation is past int64
		}
		a.months, a.days, a.usec = -a.months, -a.days, -a.usec
	}
	return nil
}

// splitIntervalTokens splits on white space and between a number and the
// unit written against it ("1day", "-2h").
func splitIntervalTokens(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if strings.Contains(f, ":") || isYearMonth(f) {
			out = append(out, f)
			continue
		}
		i := 0
		for i < len(f) && (isDigit(f[i]) || f[i] == '.' || ((f[i] == '-' || f[i] == '+') && i == 0)) {
			i++
		}
		if i > 0 && i < len(f) {
			out = append(out, f[:i], f[i:])
		} else {
			out = append(out, f)
		}
	}
	return out
}

func isSignedNumber(s string) bool {
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 || t == "" || t == "." {
		return false
	}
	dot := false
	for i := 0; i < len(t); i++ {
		switch {
		case isDigit(t[i]):
		case t[i] == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return true
}

func isYearMonth(s string) bool {
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 {
		return false
	}
	y, m, ok := strings.Cut(t, "-")
	return ok && allDigits(y) && allDigits(m)
}

// clock decodes [-]h:m[:s[.f]] into microseconds.
func (a *intervalAcc) clock(tok string) error {
	neg := strings.HasPrefix(tok, "-")
	t := strings.TrimLeft(tok, "+-")
	if len(tok)-len(t) > 1 {
		return errIntervalSyntax
	}
	parts := strings.Split(t, ":")
	if len(parts) > 3 {
		return errIntervalSyntax
	}
	var clock intervalAcc
	for i, p := range parts {
		if i < len(parts)-1 || len(parts) < 3 {
			if !allDigits(p) {
				return errIntervalSyntax
			}
		} else if !isSignedNumber(p) || strings.ContainsAny(p, "+-") {
			return errIntervalSyntax
		}
		v, err := parseIvNumber(p)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			clock.addUsec(v, usecPerHour)
		case 1:
			if v.whole > 59 {
				return pgerror.New(pgerror.DatetimeFieldOverflow, "minute")
			}
			clock.addUsec(v, usecPerMinute)
		case 2:
			if v.whole >= 60 {
				return pgerror.New(pgerror.DatetimeFieldOverflow, "second")
			}
			clock.addUsec(v, usecPerSec)
		}
	}
	if neg {
		clock.usec = -clock.usec
	}
	a.addExact(clock.usec)
	a.overflow = a.overflow || clock.overflow
	return nil
}

// iso decodes the part of an ISO 8601 duration after the P.
func (a *intervalAcc) iso(s string) error {
	inTime := false
	if s == "" {
		return errIntervalSyntax
	}
	for s != "" {
		if s[0] == 't' {
			if inTime {
				return errIntervalSyntax
			}
			inTime = true
			s = s[1:]
			continue
		}
		i := 0
		for i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '+') {
			i++
		}
		if i == 0 || i == len(s) || !isSignedNumber(s[:i]) {
			return errIntervalSyntax
		}
		v, err := parseIvNumber(s[:i])
		if err != nil {
			return err
		}
		var unit string
		switch s[i] {
		case 'y':
			unit = "y"
		case 'm':
			unit = "mon"
			if inTime {
				unit = "m"
			}
		case 'w':
			unit = "w"
		case 'd':
			unit = "d"
		case 'h':
			unit = "h"
		case 's':
			unit = "s"
		default:
			return errIntervalSyntax
		}
		if inTime != (unit == "h" || unit == "m" || unit == "s") {
			return errIntervalSyntax
		}
		if err := a.add(v, unit); err != nil {
			return err
		}
		s = s[i+1:]
	}
	return nil
}

// formatInterval is interval_out with IntervalStyle postgres.
func formatInterval(iv pgtype.Interval) string {
	buf := make([]byte, 0, 32)
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !isZero {
			buf = append(buf, ' ')
		}
		if isBefore && v > 0 {
			buf = append(buf, '+')
		}
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if v != 1 {
			buf = append(buf, 's')
		}
		isBefore, isZero = v < 0, false
	}
	part(int64(iv.Months/monthsPerYear), "year")
	part(int64(iv.Months%monthsPerYear), "mon")
	part(int64(iv.Days), "day")
	us := iv.Microseconds
	if isZero || us != 0 {
		if !isZero {
			buf = append(buf, ' ')
		}
		if us < 0 {
			buf = append(buf, '-')
		} else if isBefore {
			buf = append(buf, '+')
		}
		u := uint64(us)
		if us < 0 {
			u = -u
		}
		hours := u / uint64(usecPerHour)
		u -= hours * uint64(usecPerHour)
		buf = appendPadded(buf, int(hours), 2)
		buf = append(buf, ':')
		buf = appendPadded(buf, int(u/uint64(usecPerMinute)), 2)
		u %= uint64(usecPerMinute)
		buf = append(buf, ':')
		buf = appendPadded(buf, int(u/uint64(usecPerSec)), 2)
		if frac := u % uint64(usecPerSec); frac != 0 {
			f := strconv.FormatUint(frac+uint64(usecPerSec), 10)[1:]
			buf = append(buf, '.')
			buf = append(buf, strings.TrimRight(f, "0")...)
		}
	}
	return string(buf)
}

// formatIntervalISO8601 is interval_out with IntervalStyle iso_8601
// (EncodeInterval's INTSTYLE_ISO_8601): P1Y2M3DT4H5M6.5S, each field with
// its own sign, PT0S for zero.
func formatIntervalISO8601(iv pgtype.Interval) string {
	years, months, days := int64(iv.Months/monthsPerYear), int64(iv.Months%monthsPerYear), int64(iv.Days)
	us := iv.Microseconds
	hours := us / usecPerHour
	us -= hours * usecPerHour
	minutes := us / usecPerMinute
	us -= minutes * usecPerMinute
	if years == 0 && months == 0 && days == 0 && hours == 0 && minutes == 0 && us == 0 {
		return "PT0S"
	}
	buf := []byte{'P'}
	part := func(v int64, unit byte) {
		if v != 0 {
			buf = strconv.AppendInt(buf, v, 10)
			buf = append(buf, unit)
		}
	}
	part(years, 'Y')
	part(months, 'M')
	part(days, 'D')
	if hours != 0 || minutes != 0 || us != 0 {
		buf = append(buf, 'T')
	}
	part(hours, 'H')
	part(minutes, 'M')
	if us != 0 {
		if us < 0 {
			buf = append(buf, '-')
			us = -us
		}
		buf = strconv.AppendInt(buf, us/usecPerSec, 10)
		if frac := us % usecPerSec; frac != 0 {
			f := strconv.FormatInt(frac+usecPerSec, 10)[1:]
			buf = append(buf, '.')
			buf = append(buf, strings.TrimRight(f, "0")...)
		}
		buf = append(buf, 'S')
	}
	return string(buf)
}

// intervalSpan is the interval's length with months of 30 days and days of
// 24 hours, as interval_cmp orders intervals: whole days, and microseconds in
// [0, usecPerDay). The pair orders lexicographically like the span itself,
// which does not fit in 64 bits of microseconds.
func intervalSpan(iv pgtype.Interval) (days, usec int64) {
	days = int64(iv.Months)*daysPerMonth + int64(iv.Days) + iv.Microseconds/usecPerDay
	usec = iv.Microseconds % usecPerDay
	if usec < 0 {
		days--
		usec += usecPerDay
	}
	return days, usec
}

func compareInterval(a, b pgtype.Interval) int {
	ad, au := intervalSpan(a)
	bd, bu := intervalSpan(b)
	switch {
	case ad < bd:
		return -1
	case ad > bd:
		return 1
	case au < bu:
		return -1
	case au > bu:
		return 1
	}
	return 0
}
