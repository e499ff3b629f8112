package types

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// dtDecoder decodes the fields of a date or timestamp literal in order,
// each in the context of those before it (PostgreSQL's DecodeDateTime):
// fmask holds the fields seen so far, and a field that repeats one is a
// syntax error.
type dtDecoder struct {
	order DateOrder

	fmask         int
	year, mon     int
	mday, yday    int
	hour, min     int
	sec           int
	usec          int64
	is2digits     bool
	haveTextMonth bool
	isJulian      bool
	bc            bool
	meridian      int
	reserved      int // the special value named (epoch, infinity), 0 for a date

	// The zone: an offset in seconds west of UTC (tzWest, when the TZ bit
	// of fmask is set), a zone name, or a dynamic abbreviation.
	tzWest  int
	named   *time.Location
	dynamic *time.Location
	abbrev  string
	// relative is the instant now, today, tomorrow and yesterday read.
	relative func() (time.Time, *time.Location, bool)
	// timeOnly reads the input of time, which needs no date.
	timeOnly bool
}

// decodeDateTime decodes the fields of a date or timestamp literal.
func (d *dtDecoder) decode(fields []dtField) dtErr {
	ptype := 0 // the unit a prefix (y, m, d, j, t) gave the next field
	for i, f := range fields {
		var tmask int
		switch f.kind {
		case dtkDate:
			switch {
			case ptype == unitJulian:
				// An integral julian day with an attached zone.
				n := leadingDigits(f.text)
				v, err := strconv.ParseInt(f.text[:n], 10, 32)
				if err != nil {
					return dtFieldOverflow
				}
				d.setJulian(int(v))
				tz, e := decodeTimezone(f.text[n:])
				if e != 0 {
					return e
				}
				d.tzWest = tz
				tmask = maskDate | maskTime | fieldBit(tokTZ)
				ptype = 0
			case ptype != 0 || d.zoneOrTimeField(fields, i):
				// A zone name (america/new_york) or a run-together
				// time with its zone (hhmmss-zz).
				if isDigit(f.text[0]) || ptype != 0 {
					if ptype != 0 && ptype != unitTime {
						return dtBadFormat
					}
					ptype = 0
					if d.fmask&maskTime == maskTime {
						return dtBadFormat
					}
					dash := strings.IndexByte(f.text, '-')
					if dash < 0 {
						return dtBadFormat
					}
					tz, e := decodeTimezone(f.text[dash:])
					if e != 0 {
						return e
					}
					d.tzWest = tz
					mask := d.fmask
					if d.timeOnly {
						mask |= maskDate
					}
					m, e := d.numberField(f.text[:dash], mask)
					if e != 0 {
						return e
					}
					tmask = m | fieldBit(tokTZ)
				} else {
					loc, err := zoneByName(f.text)
					if err != nil {
						return dtUnknownZone
					}
					d.named = loc
					tmask = fieldBit(tokTZ)
				}
			default:
				m, e := d.decodeDate(f.text)
				if e != 0 {
					return e
				}
				tmask = m
			}
		case dtkTime:
			if ptype != 0 {
				if ptype != unitTime {
					return dtBadFormat
				}
				ptype = 0
			}
			if e := d.decodeTime(f.text); e != 0 {
				return e
			}
			tmask = maskTime
			if timeOverflows(d.hour, d.min, d.sec, d.usec) {
				return dtFieldOverflow
			}
		case dtkTZ:
			tz, e := decodeTimezone(f.text)
			if e != 0 {
				return e
			}
			d.tzWest = tz
			tmask = fieldBit(tokTZ)
		case dtkNumber:
			var e dtErr
			switch {
			case ptype != 0:
				tmask, e = d.prefixedNumber(ptype, f.text)
				ptype = 0
			case d.timeOnly:
				tmask, e = d.timeOnlyNumber(fields, i)
			default:
				tmask, e = d.plainNumber(f.text)
			}
			if e != 0 {
				return e
			}
		case dtkString, dtkSpecial:
			m, skip, p, e := d.word(fields, i)
			if e != 0 {
				return e
			}
			if skip {
				continue
			}
			if p != 0 {
				ptype = p
			}
			tmask = m
		default:
			return dtBadFormat
		}
		if tmask&d.fmask != 0 {
			return dtBadFormat
		}
		d.fmask |= tmask
	}
	if e := d.validateDate(); e != 0 {
		return e
	}
	if d.meridian != 0 && d.hour > 12 {
		return dtFieldOverflow
	}
	if d.meridian == meridianAM && d.hour == 12 {
		d.hour = 0
	} else if d.meridian == meridianPM && d.hour != 12 {
		d.hour += 12
	}
	if d.reserved == 0 && d.fmask&maskDate != maskDate && !d.timeOnly {
		return dtBadFormat
	}
	if (d.named != nil || d.dynamic != nil) && d.fmask&fieldBit(tokDTZMod) != 0 {
		return dtBadFormat
	}
	if d.fmask&fieldBit(tokTZ) == 0 && d.fmask&fieldBit(tokDTZMod) != 0 {
		return dtBadFormat
	}
	return 0
}

// zoneOrTimeField reports whether the date-like field i is a zone name or
// a time with its zone rather than a date: once month and day are known,
// and in the input of time and timetz (DecodeTimeOnly) unless it is the
// first of several fields and the last is a date too or the second a time.
func (d *dtDecoder) zoneOrTimeField(fields []dtField, i int) bool {
	if d.timeOnly {
		return i != 0 || len(fields) < 2 || fields[len(fields)-1].kind != dtkDate && fields[1].kind != dtkTime
	}
	return d.fmask&(fieldBit(tokMonth)|fieldBit(tokDay)) == fieldBit(tokMonth)|fieldBit(tokDay)
}

// timeOnlyNumber decodes a field of digits without a unit as
// DecodeTimeOnly does: a date when it is the first of several fields and
// the last is a date too, else a concatenated time (040506, 040506.789).
// A short number alone (a year, a day) is dtShortNumber.
func (d *dtDecoder) timeOnlyNumber(fields []dtField, i int) (int, dtErr) {
	text := fields[i].text
	if dot := strings.IndexByte(text, '.'); dot >= 0 {
		switch {
		case i == 0 && len(fields) >= 2 && fields[len(fields)-1].kind == dtkDate:
			return d.decodeDate(text)
		case dot > 2:
			return d.numberField(text, d.fmask|maskDate)
		}
		return 0, dtBadFormat
	}
	if len(text) > 4 {
		return d.numberField(text, d.fmask|maskDate)
	}
	return 0, dtShortNumber
}

// dtShortNumber is a number of up to four digits in the input of time or
// timetz, which DecodeNumber reads in ways fickle does not follow (0A000).
const dtShortNumber dtErr = 102

// dtUnknownZone is a zone name that names no zone (22023).
const dtUnknownZone dtErr = 100

// word decodes a field of letters: a zone abbreviation, a keyword, or a
// zone name. skip reports a word that is ignored (at, on); prefix the unit
// it gives the next field.
func (d *dtDecoder) word(fields []dtField, i int) (tmask int, skip bool, prefix int, e dtErr) {
	text := fields[i].text
	if z, ok := lookupZoneAbbrev(text); ok {
		switch {
		case z.zone != "":
			loc, err := loadLocation(z.zone)
			if err != nil {
				return 0, false, 0, dtBadFormat
			}
			d.dynamic, d.abbrev = loc, text
			return fieldBit(tokDynTZ) | fieldBit(tokTZ), false, 0, 0
		case z.dst:
			d.tzWest = -z.offset
			return fieldBit(tokDTZ) | fieldBit(tokTZ), false, 0, 0
		}
		d.tzWest = -z.offset
		return fieldBit(tokTZ), false, 0, 0
	}
	tok, ok := lookupDateToken(text)
	if !ok {
		loc, err := zoneByName(text)
		if err != nil || fields[i].kind == dtkSpecial {
			return 0, false, 0, dtBadFormat
		}
		d.named = loc
		return fieldBit(tokTZ), false, 0, 0
	}
	tmask = fieldBit(tok.typ)
	switch tok.typ {
	case tokIgnore:
		return 0, true, 0, 0
	case tokReserved:
		return d.reservedWord(tok.val)
	case tokMonth:
		// A numeric month already read becomes the day (1 jan).
		if d.fmask&fieldBit(tokMonth) != 0 && !d.haveTextMonth && d.fmask&fieldBit(tokDay) == 0 &&
			d.mon >= 1 && d.mon <= 31 {
			d.mday = d.mon
			tmask = fieldBit(tokDay)
		}
		d.haveTextMonth = true
		d.mon = tok.val
	case tokDTZMod:
		tmask |= fieldBit(tokDTZ)
		d.tzWest -= tok.val
	case tokAMPM:
		d.meridian = tok.val
	case tokADBC:
		d.bc = tok.val == eraBC
	case tokDOW:
	case tokUnits:
		return 0, false, tok.val, 0
	case tokISOTime:
		// t: the next field is the time of an ISO 8601 timestamp (or
		// of a time, which needs no date before it).
		if d.fmask&maskDate != maskDate && !d.timeOnly || i >= len(fields)-1 {
			return 0, false, 0, dtBadFormat
		}
		if k := fields[i+1].kind; k != dtkNumber && k != dtkTime && k != dtkDate {
			return 0, false, 0, dtBadFormat
		}
		return 0, false, tok.val, 0
	default:
		return 0, false, 0, dtBadFormat
	}
	return tmask, false, 0, 0
}

// reservedWord decodes epoch, infinity, now, today and their kin.
func (d *dtDecoder) reservedWord(val int) (int, bool, int, dtErr) {
	switch val {
	case resNow, resToday, resTomorrow, resYesterday:
		if d.relative == nil {
			return 0, false, 0, dtRelative
		}
		now, loc, ok := d.relative()
		if !ok {
			return 0, false, 0, dtRelative
		}
		local := now.In(loc)
		if val == resNow {
			_, east := local.Zone()
			d.setWall(local)
			d.tzWest = -east
			return maskDate | maskTime | fieldBit(tokTZ), false, 0, 0
		}
		day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
		switch val {
		case resTomorrow:
			day = day.AddDate(0, 0, 1)
		case resYesterday:
			day = day.AddDate(0, 0, -1)
		}
		d.year, d.mon, d.mday = day.Year(), int(day.Month()), day.Day()
		return maskDate, false, 0, 0
	case resZulu:
		d.hour, d.min, d.sec, d.tzWest = 0, 0, 0, 0
		return maskTime | fieldBit(tokTZ), false, 0, 0
	}
	d.reserved = val
	return fieldBit(tokReserved), false, 0, 0
}

// dtRelative is now or today read where no transaction time is known.
const dtRelative dtErr = 101

// setWall sets the date and time fields from a wall clock.
func (d *dtDecoder) setWall(t time.Time) {
	d.year, d.mon, d.mday = t.Year(), int(t.Month()), t.Day()
	d.hour, d.min, d.sec = t.Clock()
	d.usec = int64(t.Nanosecond() / 1000)
}

// setJulian sets the date of a julian day number.
func (d *dtDecoder) setJulian(jd int) {
	t := julianEpoch.AddDate(0, 0, jd)
	d.year, d.mon, d.mday = t.Year(), int(t.Month()), t.Day()
	d.isJulian = true
}

// julianEpoch is julian day 0, 4714-11-24 BC in the proleptic Gregorian
// calendar.
var julianEpoch = time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// atoiPrefix reads the leading digits of s as strtol does, reporting
// overflow of a 32-bit integer; rest is what follows them.
func atoiPrefix(s string) (v int, rest string, overflow bool) {
	n := leadingDigits(s)
	if n == 0 {
		return 0, s, false
	}
	x, err := strconv.ParseInt(s[:n], 10, 32)
	return int(x), s[n:], err != nil
}

// decodeTime decodes hh:mm[:ss[.frac]], or mm:ss.frac.
func (d *dtDecoder) decodeTime(text string) dtErr {
	h, m, s, us, e := decodeClock(text)
	if e != 0 {
		return e
	}
	if h > math.MaxInt32 {
		return dtFieldOverflow
	}
	d.hour, d.min, d.sec, d.usec = int(h), m, s, us
	return 0
}

// decodeClock reads the fields of a time with colons; mm:ss.frac is
// minutes and seconds.
func decodeClock(text string) (hour int64, min, sec int, usec int64, e dtErr) {
	n := leadingDigits(text)
	hour, err := strconv.ParseInt(text[:n], 10, 64)
	if err != nil {
		return 0, 0, 0, 0, dtFieldOverflow
	}
	rest := text[n:]
	if !strings.HasPrefix(rest, ":") {
		return 0, 0, 0, 0, dtBadFormat
	}
	var overflow bool
	if min, rest, overflow = atoiPrefix(rest[1:]); overflow {
		return 0, 0, 0, 0, dtFieldOverflow
	}
	switch {
	case rest == "":
	case rest[0] == '.':
		if usec, e = parseFractionalSecond(rest); e != 0 {
			return 0, 0, 0, 0, e
		}
		if hour > math.MaxInt32 {
			return 0, 0, 0, 0, dtFieldOverflow
		}
		hour, min, sec = 0, int(hour), min
	case rest[0] == ':':
		if sec, rest, overflow = atoiPrefix(rest[1:]); overflow {
			return 0, 0, 0, 0, dtFieldOverflow
		}
		if strings.HasPrefix(rest, ".") {
			if usec, e = parseFractionalSecond(rest); e != 0 {
				return 0, 0, 0, 0, e
			}
		} else if rest != "" {
			return 0, 0, 0, 0, dtBadFormat
		}
	default:
		return 0, 0, 0, 0, dtBadFormat
	}
	if min > 59 || sec > 60 || usec > 1e6 {
		return 0, 0, 0, 0, dtFieldOverflow
	}
	return hour, min, sec, usec, 0
}

// parseFraction reads ".ddd" (a lone "." is zero).
func parseFraction(s string) (float64, dtErr) {
	if s == "." {
		return 0, 0
	}
	for i := 1; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, dtBadFormat
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, dtBadFormat
	}
	return v, 0
}

// parseFractionalSecond reads ".ddd" as microseconds, rounded.
func parseFractionalSecond(s string) (int64, dtErr) {
	v, e := parseFraction(s)
	return int64(math.RoundToEven(v * 1e6)), e
}

// timeOverflows reports a time of day past 24:00:00.
func timeOverflows(hour, min, sec int, usec int64) bool {
	return hour < 0 || hour > 24 || min < 0 || min > 59 || sec < 0 || sec > 60 || usec < 0 || usec > 1e6 ||
		hour == 24 && (min > 0 || sec > 0 || usec > 0)
}

// decodeTimezone reads a numeric zone +hh, +hhmm, +hh:mm or +hh:mm:ss,
// returning the offset in seconds west of UTC.
func decodeTimezone(s string) (int, dtErr) {
	if s == "" || s[0] != '+' && s[0] != '-' {
		return 0, dtBadFormat
	}
	hr, rest, overflow := atoiPrefix(s[1:])
	if overflow {
		return 0, dtTZDispOverflow
	}
	min, sec := 0, 0
	switch {
	case strings.HasPrefix(rest, ":"):
		if min, rest, overflow = atoiPrefix(rest[1:]); overflow {
			return 0, dtTZDispOverflow
		}
		if strings.HasPrefix(rest, ":") {
			if sec, rest, overflow = atoiPrefix(rest[1:]); overflow {
				return 0, dtTZDispOverflow
			}
		}
	case rest == "" && len(s) > 3:
		hr, min = hr/100, hr%100
	}
	if hr > 15 || min >= 60 || sec >= 60 {
		return 0, dtTZDispOverflow
	}
	tz := (hr*60+min)*60 + sec
	if s[0] == '-' {
		tz = -tz
	}
	if rest != "" {
		return 0, dtBadFormat
	}
	return -tz, 0
}

// validateDate checks the year, month and day and applies BC, two-digit
// years and the day of the year.
func (d *dtDecoder) validateDate() dtErr {
	if d.fmask&fieldBit(tokYear) != 0 {
		switch {
		case d.isJulian:
		case d.bc:
			if d.year <= 0 {
				return dtFieldOverflow
			}
			d.year = -(d.year - 1)
		case d.is2digits:
			if d.year < 0 {
				return dtFieldOverflow
			}
			if d.year < 70 {
				d.year += 2000
			} else if d.year < 100 {
				d.year += 1900
			}
		case d.year <= 0:
			return dtFieldOverflow
		}
	}
	if d.fmask&fieldBit(tokDOY) != 0 {
		t := time.Date(d.year, 1, d.yday, 0, 0, 0, 0, time.UTC)
		d.year, d.mon, d.mday = t.Year(), int(t.Month()), t.Day()
	}
	if d.fmask&fieldBit(tokMonth) != 0 && (d.mon < 1 || d.mon > 12) {
		return dtMDFieldOverflow
	}
	if d.fmask&fieldBit(tokDay) != 0 && (d.mday < 1 || d.mday > 31) {
		return dtMDFieldOverflow
	}
	if d.fmask&maskDate == maskDate && d.mday > daysIn(d.year, d.mon) {
		return dtFieldOverflow
	}
	return 0
}
