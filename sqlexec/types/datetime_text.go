package types

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// dtFields collects what ParseDateTime and DecodeDateTime find in a date or
// timestamp literal.
type dtFields struct {
	year, month, day   int
	hasYear, hasDate   bool
	yearDigits         int
	hour, min, sec     int
	usec               int64
	hasTime            bool
	pm, am             bool
	bc                 bool
	zone               *time.Location // explicit zone name
	offset             int            // explicit numeric offset in seconds east of UTC
	hasOffset, hasZone bool
	pending            []string  // numbers not yet assigned (textual dates)
	order              DateOrder // DateStyle's order of numeric dates
}

// dtError is the 22007 syntax error of a date/time input.
func dtError(t Type, s string) error {
	return pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type %s: %q", typeInfoOf(t.Oid).sqlName, s)
}

// dtRangeError is the 22008 error of a field out of range.
func dtRangeError(s string) error {
	return pgerror.Newf(pgerror.DatetimeFieldOverflow, "date/time field value out of range: %q", s)
}

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
	"dec": 12, "december": 12,
}

var dayNames = map[string]bool{
	"sun": true, "sunday": true, "mon": true, "monday": true, "tue": true, "tues": true, "tuesday": true,
	"wed": true, "wednesday": true, "thu": true, "thur": true, "thurs": true, "thursday": true,
	"fri": true, "friday": true, "sat": true, "saturday": true,
}

// zoneAbbrevs are the time zone abbreviations of PostgreSQL's Default set
// that applications commonly write, as offsets in seconds east of UTC.
var zoneAbbrevs = map[string]int{
	"z": 0, "zulu": 0, "utc": 0, "ut": 0, "gmt": 0,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600,
	"wet": 0, "west": 3600, "bst": 3600, "cet": 3600, "cest": 2 * 3600, "met": 3600, "mest": 2 * 3600,
	"eet": 2 * 3600, "eest": 3 * 3600, "msk": 3 * 3600, "ist": 2 * 3600,
	"jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600, "sgt": 8 * 3600, "awst": 8 * 3600,
	"acst": 34200, "aest": 10 * 3600, "aedt": 11 * 3600, "nzst": 12 * 3600, "nzdt": 13 * 3600,
}

// parseDateTime decodes a date, timestamp or timestamptz literal into the
// datum of type t (date at midnight UTC, timestamp as UTC wall clock,
// timestamptz as the UTC instant).
func parseDateTime(env *Env, t Type, s string) (any, error) {
	body := strings.ToLower(trimSpace(s))
	switch body {
	case "infinity", "+infinity":
		return InfinityTime, nil
	case "-infinity":
		return NegInfinityTime, nil
	case "epoch":
		return time.Unix(0, 0).UTC(), nil
	case "now", "today", "tomorrow", "yesterday":
		return relativeDateTime(env, t, body)
	}
	if word, zone, ok := strings.Cut(body, " "); ok && (word == "today" || word == "tomorrow" || word == "yesterday") {
		return relativeDayInZone(env, t, word, strings.TrimSpace(zone), s)
	}
	var f dtFields
	if env != nil {
		f.order = env.DateStyle.Order
	}
	if err := f.decode(t, s, trimSpace(s)); err != nil {
		return nil, err
	}
	return f.datum(env, t, s)
}

// relativeDateTime answers the special inputs that depend on the
// transaction's start time.
func relativeDateTime(env *Env, t Type, word string) (any, error) {
	if env == nil || env.TxnTime.IsZero() {
		return nil, pgerror.Unsupported("'" + word + "' as a date/time input outside a transaction")
	}
	now := env.TxnTime.UTC()
	loc := env.location()
	if word == "now" {
		if t.Oid == OidTimestamptz {
			return now, nil
		}
		return roundTimestamp(t, wallClock(now.In(loc))), nil
	}
	local := now.In(loc)
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	switch word {
	case "tomorrow":
		day = day.AddDate(0, 0, 1)
	case "yesterday":
		day = day.AddDate(0, 0, -1)
	}
	if t.Oid == OidTimestamptz {
		return fromWallClock(day, loc), nil
	}
	return day, nil
}

// relativeDayInZone answers 'tomorrow EST': midnight of the session's
// today, tomorrow or yesterday read as a wall clock of the zone (which a
// timestamp without time zone ignores, as PostgreSQL does).
func relativeDayInZone(env *Env, t Type, word, zone, orig string) (any, error) {
	loc, _, err := ParseTimeZone(zone, true)
	if err != nil || t.Oid == OidDate {
		return nil, dtError(t, orig)
	}
	day, err := relativeDateTime(env, Timestamp, word)
	if err != nil || t.Oid != OidTimestamptz {
		return day, err
	}
	return fromWallClock(day.(time.Time), loc), nil
}

// location returns the session time zone, UTC when unset.
func (env *Env) location() *time.Location {
	if env == nil || env.Location == nil {
		return time.UTC
	}
	return env.Location
}

// wallClock returns the wall-clock reading of t as a UTC time.
func wallClock(t time.Time) time.Time {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC)
}

// fromWallClock returns the instant at which loc's clocks show the wall
// clock w (given in UTC), choosing as PostgreSQL's DetermineTimeZoneOffset
// does: in a spring-forward gap or a fall-back overlap, the later instant.
func fromWallClock(w time.Time, loc *time.Location) time.Time {
	if loc == time.UTC {
		return w
	}
	_, before := w.Add(-26 * time.Hour).In(loc).Zone()
	_, after := w.Add(26 * time.Hour).In(loc).Zone()
	tb := w.Add(-time.Duration(before) * time.Second)
	if before == after {
		_, off := tb.In(loc).Zone()
		return w.Add(-time.Duration(off) * time.Second)
	}
	ta := w.Add(-time.Duration(after) * time.Second)
	_, ob := tb.In(loc).Zone()
	_, oa := ta.In(loc).Zone()
	okB, okA := ob == before, oa == after
	switch {
	case okB && !okA:
		return tb
	case okA && !okB:
		return ta
	}
	if tb.After(ta) {
		return tb
	}
	return ta
}

// decode splits the literal into fields and assigns them.
func (f *dtFields) decode(t Type, orig, s string) error {
	var fields []string
	for _, chunk := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' }) {
		// ISO 8601: 2024-01-01T10:00:00, with the T joining date and time.
		if i := strings.IndexAny(chunk, "tT"); i >= 4 && i+1 < len(chunk) && chunk[i-1] >= '0' && chunk[i-1] <= '9' && chunk[i+1] >= '0' && chunk[i+1] <= '9' {
			fields = append(fields, chunk[:i], chunk[i+1:])
			continue
		}
		fields = append(fields, chunk)
	}
	if len(fields) == 0 {
		return dtError(t, orig)
	}
	for _, fld := range fields {
		if err := f.field(t, orig, fld); err != nil {
			return err
		}
	}
	return f.assignPending(t, orig)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// field classifies and decodes one white-space separated field.
func (f *dtFields) field(t Type, orig, fld string) error {
	lower := strings.ToLower(fld)
	switch {
	case isDigit(fld[0]) && strings.IndexByte(fld, ':') > 0 && !strings.ContainsAny(fld[:strings.IndexByte(fld, ':')], "-/"):
		return f.timeField(t, orig, fld)
	case isDigit(fld[0]) && strings.ContainsAny(fld, "-/") || (isDigit(fld[0]) && strings.Count(fld, ".") == 2):
		return f.dateField(t, orig, lower)
	case allDigits(fld):
		return f.numberField(t, orig, fld)
	case (fld[0] == '+' || fld[0] == '-') && len(fld) > 1 && isDigit(fld[1]):
		return f.offsetField(t, orig, fld)
	}
	if strings.ContainsAny(fld, "-") && !strings.Contains(fld, "/") {
		return f.dateField(t, orig, lower)
	}
	switch lower {
	case "am", "a.m.":
		f.am = true
		return nil
	case "pm", "p.m.":
		f.pm = true
		return nil
	case "bc", "b.c.":
		f.bc = true
		return nil
	case "ad", "a.d.", "at":
		return nil
	}
	if m, ok := monthNames[strings.TrimSuffix(lower, ".")]; ok {
		if f.month != 0 {
			return dtError(t, orig)
		}
		f.month, f.hasDate = m, true
		return nil
	}
	if dayNames[strings.TrimSuffix(lower, ".")] {
		return nil
	}
	return f.zoneField(t, orig, fld)
}

// zoneField decodes a zone abbreviation or an IANA zone name.
func (f *dtFields) zoneField(t Type, orig, fld string) error {
	if f.hasOffset || f.hasZone {
		return dtError(t, orig)
	}
	if off, ok := zoneAbbrevs[strings.ToLower(fld)]; ok {
		f.offset, f.hasOffset = off, true
		return nil
	}
	if !strings.Contains(fld, "/") {
		return dtError(t, orig)
	}
	loc, err := loadLocation(fld)
	if err != nil {
		return pgerror.Newf(pgerror.InvalidParameterValue, "time zone %q not recognized", fld)
	}
	f.zone, f.hasZone = loc, true
	return nil
}

// loadLocation loads an IANA zone, trying the name as written and in the
// usual capitalization (PostgreSQL's zone names are case-insensitive).
func loadLocation(name string) (*time.Location, error) {
	if strings.EqualFold(name, "utc") {
		return time.UTC, nil
	}
	if !strings.Contains(name, "/") && !isZoneFileName(name) {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "unknown zone")
	}
	if loc, err := time.LoadLocation(name); err == nil {
		return loc, nil
	}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j, w := range words {
			if w != "" {
				words[j] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
			}
		}
		parts[i] = strings.Join(words, "_")
	}
	return time.LoadLocation(strings.Join(parts, "/"))
}

// isZoneFileName reports whether a name without a slash may name a zone of
// the database (localtime, PST8PDT, EST5EDT, Japan): letters, digits, and
// + - _, beginning with a letter. Go's own "Local" is not a zone name.
func isZoneFileName(name string) bool {
	if name == "" || !isASCIILetter(rune(name[0])) || strings.EqualFold(name, "local") {
		return false
	}
	for _, c := range name {
		if !isASCIILetter(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// timeField decodes hh:mm[:ss[.ffffff]] with an optional zone suffix.
func (f *dtFields) timeField(t Type, orig, fld string) error {
	if f.hasTime {
		return dtError(t, orig)
	}
	clock := fld
	if i := strings.IndexAny(fld, "+-zZ"); i > 0 {
		clock = fld[:i]
		suffix := fld[i:]
		var err error
		if suffix[0] == 'z' || suffix[0] == 'Z' {
			err = f.zoneField(t, orig, suffix)
		} else {
			err = f.offsetField(t, orig, suffix)
		}
		if err != nil {
			return err
		}
	}
	parts := strings.Split(clock, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return dtError(t, orig)
	}
	var err error
	if f.hour, err = smallNumber(parts[0]); err != nil {
		return dtError(t, orig)
	}
	if f.min, err = smallNumber(parts[1]); err != nil {
		return dtError(t, orig)
	}
	if len(parts) == 3 {
		secText, frac, hasFrac := strings.Cut(parts[2], ".")
		if f.sec, err = smallNumber(secText); err != nil {
			return dtError(t, orig)
		}
		if hasFrac {
			if frac != "" && !allDigits(frac) {
				return dtError(t, orig)
			}
			v, _ := strconv.ParseFloat("0."+frac+"0", 64)
			f.usec = int64(math.RoundToEven(v * 1e6))
		}
	}
	f.hasTime = true
	return nil
}

func smallNumber(s string) (int, error) {
	if !allDigits(s) || len(s) > 9 {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(s)
}

// offsetField decodes +hh, +hhmm, +hh:mm or +hh:mm:ss.
func (f *dtFields) offsetField(t Type, orig, fld string) error {
	if f.hasOffset || f.hasZone {
		return dtError(t, orig)
	}
	sign := 1
	if fld[0] == '-' {
		sign = -1
	}
	body := fld[1:]
	var h, m, sec int
	var err error
	switch parts := strings.Split(body, ":"); {
	case len(parts) > 1:
		if h, err = smallNumber(parts[0]); err != nil {
			return dtError(t, orig)
		}
		if m, err = smallNumber(parts[1]); err != nil {
			return dtError(t, orig)
		}
		if len(parts) == 3 {
			if sec, err = smallNumber(parts[2]); err != nil {
				return dtError(t, orig)
			}
		} else if len(parts) > 3 {
			return dtError(t, orig)
		}
	case allDigits(body) && len(body) <= 2:
		h, _ = strconv.Atoi(body)
	case allDigits(body) && len(body) == 4:
		h, _ = strconv.Atoi(body[:2])
		m, _ = strconv.Atoi(body[2:])
	case allDigits(body) && len(body) == 6:
		h, _ = strconv.Atoi(body[:2])
		m, _ = strconv.Atoi(body[2:4])
		sec, _ = strconv.Atoi(body[4:])
	default:
		return dtError(t, orig)
	}
	if h > 15 || m > 59 || sec > 59 {
		return pgerror.Newf(pgerror.InvalidTimeZoneDisplacementValue, "time zone displacement out of range: %q", orig)
	}
	f.offset, f.hasOffset = sign*(h*3600+m*60+sec), true
	return nil
}

// dateField decodes y-m-d, m/d/y, d-mon-y and their variants.
func (f *dtFields) dateField(t Type, orig, fld string) error {
	if f.hasYear || f.day != 0 {
		return dtError(t, orig)
	}
	parts := strings.FieldsFunc(fld, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	if len(parts) != 3 {
		return dtError(t, orig)
	}
	monthAt := -1
	for i, p := range parts {
		if m, ok := monthNames[p]; ok {
			if monthAt >= 0 || f.month != 0 {
				return dtError(t, orig)
			}
			monthAt, f.month = i, m
		} else if !allDigits(p) {
			return dtError(t, orig)
		}
	}
	f.hasDate = true
	if monthAt >= 0 {
		var nums []string
		for i, p := range parts {
			if i != monthAt {
				nums = append(nums, p)
			}
		}
		if len(nums[0]) >= 3 {
			return f.setYearDay(t, orig, nums[0], nums[1])
		}
		return f.setYearDay(t, orig, nums[1], nums[0])
	}
	if len(parts[0]) >= 3 {
		f.month, _ = strconv.Atoi(parts[1])
		return f.setYearDay(t, orig, parts[0], parts[2])
	}
	switch f.order {
	case OrderDMY:
		f.month, _ = strconv.Atoi(parts[1])
		return f.setYearDay(t, orig, parts[2], parts[0])
	case OrderYMD:
		f.month, _ = strconv.Atoi(parts[1])
		return f.setYearDay(t, orig, parts[0], parts[2])
	}
	f.month, _ = strconv.Atoi(parts[0])
	return f.setYearDay(t, orig, parts[2], parts[1])
}

func (f *dtFields) setYearDay(t Type, orig, year, day string) error {
	var err error
	if f.year, err = smallNumber(year); err != nil {
		return dtRangeError(orig)
	}
	if f.day, err = smallNumber(day); err != nil {
		return dtRangeError(orig)
	}
	f.yearDigits, f.hasYear = len(year), true
	return nil
}

// numberField decodes a field of digits: a concatenated date (yyyymmdd,
// yymmdd) or a day or year of a textual date.
func (f *dtFields) numberField(t Type, orig, fld string) error {
	if !f.hasYear && f.month == 0 && len(f.pending) == 0 && (len(fld) == 8 || len(fld) == 6) {
		yl := len(fld) - 4
		f.month, _ = strconv.Atoi(fld[yl : yl+2])
		f.hasDate = true
		return f.setYearDay(t, orig, fld[:yl], fld[yl+2:])
	}
	if f.hasYear && f.day != 0 {
		return dtError(t, orig)
	}
	f.pending = append(f.pending, fld)
	return nil
}

// assignPending assigns the numbers of a textual date: with the month named,
// a number of three or more digits is the year, the other the day; two short
// numbers are day then year.
func (f *dtFields) assignPending(t Type, orig string) error {
	switch len(f.pending) {
	case 0:
		if !f.hasYear {
			return dtError(t, orig)
		}
		return nil
	case 2:
		if f.month == 0 || f.hasYear {
			return dtError(t, orig)
		}
		a, b := f.pending[0], f.pending[1]
		if len(a) >= 3 {
			return f.setYearDay(t, orig, a, b)
		}
		return f.setYearDay(t, orig, b, a)
	}
	return dtError(t, orig)
}

// datum validates the fields and builds the value.
func (f *dtFields) datum(env *Env, t Type, orig string) (any, error) {
	year := f.year
	if f.yearDigits <= 2 && !f.bc {
		if year < 70 {
			year += 2000
		} else {
			year += 1900
		}
	}
	if year == 0 {
		return nil, dtRangeError(orig)
	}
	if f.bc {
		year = 1 - year
	}
	if f.month < 1 || f.month > 12 || f.day < 1 || f.day > daysIn(year, f.month) {
		return nil, dtRangeError(orig)
	}
	hour := f.hour
	if f.am || f.pm {
		if hour < 1 || hour > 12 || !f.hasTime {
			return nil, dtRangeError(orig)
		}
		if f.am && hour == 12 {
			hour = 0
		} else if f.pm && hour != 12 {
			hour += 12
		}
	}
	if hour > 24 || f.min > 59 || f.sec > 60 || f.usec > 1e6 ||
		(hour == 24 && (f.min > 0 || f.sec > 0 || f.usec > 0)) {
		return nil, dtRangeError(orig)
	}
	day := time.Date(year, time.Month(f.month), f.day, 0, 0, 0, 0, time.UTC)
	if t.Oid == OidDate {
		if day.Before(minDate) || !day.Before(InfinityTime) {
			return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "date out of range: %q", orig)
		}
		return day, nil
	}
	wall := day.Add(time.Duration(hour)*time.Hour + time.Duration(f.min)*time.Minute +
		time.Duration(f.sec)*time.Second + time.Duration(f.usec)*time.Microsecond)
	var v time.Time
	switch {
	case t.Oid == OidTimestamp:
		v = wall
	case f.hasOffset:
		v = wall.Add(-time.Duration(f.offset) * time.Second)
	case f.hasZone:
		v = fromWallClock(wall, f.zone)
	default:
		v = fromWallClock(wall, env.location())
	}
	if v.Before(minDate) || !v.Before(InfinityTime) {
		return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "timestamp out of range: %q", orig)
	}
	return roundTimestamp(t, v), nil
}

// minDate is 4714-11-24 BC, the first day PostgreSQL accepts.
var minDate = time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// roundTimestamp rounds v to the fractional-second precision of a
// timestamp(p) type, half away from zero as PostgreSQL's AdjustTimestampForTypmod.
func roundTimestamp(t Type, v time.Time) time.Time {
	if t.Typmod < 0 || t.Typmod >= 6 || isInfiniteTime(v) {
		return v
	}
	unit := time.Duration(math.Pow10(6-int(t.Typmod))) * time.Microsecond
	return v.Add(unit / 2).Truncate(unit)
}

// isInfiniteTime reports whether v is one of the infinity sentinels.
func isInfiniteTime(v time.Time) bool {
	return v.Equal(InfinityTime) || v.Equal(NegInfinityTime)
}
