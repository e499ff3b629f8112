package types

import (
	"math"
	"strconv"
	"strings"
)

// The numeric fields of date/time input: a number is a year, month, day,
// day of the year or a run-together date or time depending on its length
// and on the fields already decoded (PostgreSQL's DecodeNumber and
// DecodeNumberField).

// prefixedNumber decodes the number after a unit prefix of ISO input
// (y2001m02d04, j2451187, t040506).
func (d *dtDecoder) prefixedNumber(ptype int, text string) (int, dtErr) {
	neg := strings.HasPrefix(text, "-")
	val, rest, overflow := atoiPrefix(strings.TrimPrefix(text, "-"))
	if overflow {
		return 0, dtFieldOverflow
	}
	if neg {
		val = -val
	}
	if strings.HasPrefix(rest, ".") {
		if ptype != unitJulian && ptype != unitTime && ptype != unitSecond {
			return 0, dtBadFormat
		}
	} else if rest != "" {
		return 0, dtBadFormat
	}
	switch ptype {
	case unitYear:
		d.year = val
		return fieldBit(tokYear), 0
	case unitMonth:
		if d.fmask&fieldBit(tokMonth) != 0 && d.fmask&fieldBit(tokHour) != 0 {
			d.min = val
			return fieldBit(tokMinute), 0
		}
		d.mon = val
		return fieldBit(tokMonth), 0
	case unitDay:
		d.mday = val
		return fieldBit(tokDay), 0
	case unitHour:
		d.hour = val
		return fieldBit(tokHour), 0
	case unitMinute:
		d.min = val
		return fieldBit(tokMinute), 0
	case unitSecond:
		d.sec = val
		if strings.HasPrefix(rest, ".") {
			us, e := parseFractionalSecond(rest)
			if e != 0 {
				return 0, e
			}
			d.usec = us
			return maskAllSecs, 0
		}
		return fieldBit(tokSecond), 0
	case unitJulian:
		if val < 0 {
			return 0, dtFieldOverflow
		}
		d.setJulian(val)
		tmask := maskDate
		if strings.HasPrefix(rest, ".") {
			frac, e := parseFraction(rest)
			if e != 0 {
				return 0, e
			}
			us := int64(frac * 86400e6)
			d.hour, us = int(us/3600e6), us%3600e6
			d.min, us = int(us/60e6), us%60e6
			d.sec, d.usec = int(us/1e6), us%1e6
			tmask |= maskTime
		}
		return tmask, 0
	case unitTime:
		m, e := d.numberField(text, d.fmask|maskDate)
		if e != 0 {
			return 0, e
		}
		if m != maskTime {
			return 0, dtBadFormat
		}
		return m, 0
	}
	return 0, dtBadFormat
}

// plainNumber decodes a field of digits: a part of a date, a concatenated
// date or time (20011223, 040506), or a year.
func (d *dtDecoder) plainNumber(text string) (int, dtErr) {
	dot := strings.IndexByte(text, '.')
	switch {
	case dot >= 0 && d.fmask&maskDate == 0:
		return d.decodeDate(text)
	case dot > 2:
		return d.numberField(text, d.fmask)
	case len(text) >= 6 && (d.fmask&maskDate == 0 || d.fmask&maskTime == 0):
		return d.numberField(text, d.fmask)
	}
	return d.number(text, d.fmask)
}

// decodeDate decodes a field of date parts (1999-01-08, 08-jan-99,
// 1999.008): the text month first, as it is unambiguous, then the numbers.
func (d *dtDecoder) decodeDate(text string) (int, dtErr) {
	var parts []string
	s := text
	for s != "" {
		i := 0
		for i < len(s) && !isAlnum(s[i]) {
			i++
		}
		s = s[i:]
		if s == "" {
			return 0, dtBadFormat
		}
		j := 0
		if isDigit(s[0]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		} else {
			for j < len(s) && isAlpha(s[j]) {
				j++
			}
		}
		parts = append(parts, s[:j])
		if j < len(s) {
			j++ // the delimiter, or a character that is neither digit nor letter
		}
		s = s[j:]
	}
	fmask, tmask := d.fmask, 0
	for i, p := range parts {
		if p == "" || !isAlpha(p[0]) {
			continue
		}
		tok, ok := lookupDateToken(p)
		if ok && tok.typ == tokIgnore {
			parts[i] = "-"
			continue
		}
		if !ok || tok.typ != tokMonth {
			return 0, dtBadFormat
		}
		d.mon, d.haveTextMonth = tok.val, true
		if fmask&fieldBit(tokMonth) != 0 {
			return 0, dtBadFormat
		}
		fmask |= fieldBit(tokMonth)
		tmask |= fieldBit(tokMonth)
		parts[i] = "-"
	}
	for _, p := range parts {
		if p == "-" {
			continue
		}
		if p == "" {
			return 0, dtBadFormat
		}
		m, e := d.number(p, fmask)
		if e != 0 {
			return 0, e
		}
		if fmask&m != 0 {
			return 0, dtBadFormat
		}
		fmask |= m
		tmask |= m
	}
	if fmask&^(fieldBit(tokDOY)|fieldBit(tokTZ)) != maskDate {
		return 0, dtBadFormat
	}
	return tmask, 0
}

// number decodes one number of a date in the context fmask of the fields
// already known, following DateStyle's order where it is ambiguous.
func (d *dtDecoder) number(text string, fmask int) (int, dtErr) {
	flen := len(text)
	val, rest, overflow := atoiPrefix(text)
	if overflow {
		return 0, dtFieldOverflow
	}
	if rest == text {
		return 0, dtBadFormat
	}
	if strings.HasPrefix(rest, ".") {
		// More than two digits before the point: a date or a
		// run-together time (2001.360, 040506.789).
		if len(text)-len(rest) > 2 {
			return d.numberField(text, fmask|maskDate)
		}
		us, e := parseFractionalSecond(rest)
		if e != 0 {
			return 0, e
		}
		d.usec = us
	} else if rest != "" {
		return 0, dtBadFormat
	}
	if flen == 3 && fmask&maskDate == fieldBit(tokYear) && val >= 1 && val <= 366 {
		d.yday = val
		return fieldBit(tokDOY) | fieldBit(tokMonth) | fieldBit(tokDay), 0
	}
	var tmask int
	switch fmask & maskDate {
	case 0:
		switch {
		case flen >= 3 || d.order == OrderYMD:
			tmask, d.year = fieldBit(tokYear), val
		case d.order == OrderDMY:
			tmask, d.mday = fieldBit(tokDay), val
		default:
			tmask, d.mon = fieldBit(tokMonth), val
		}
	case fieldBit(tokYear):
		tmask, d.mon = fieldBit(tokMonth), val
	case fieldBit(tokMonth):
		switch {
		case !d.haveTextMonth:
			tmask, d.mday = fieldBit(tokDay), val
		case flen >= 3 || d.order == OrderYMD:
			tmask, d.year = fieldBit(tokYear), val
		default:
			tmask, d.mday = fieldBit(tokDay), val
		}
	case fieldBit(tokYear) | fieldBit(tokMonth):
		if d.haveTextMonth && flen >= 3 && d.is2digits {
			// DD-MON-YYYY even in YMD order: the first number was the day.
			d.mday, d.year, d.is2digits = d.year, val, false
			return fieldBit(tokDay), 0
		}
		tmask, d.mday = fieldBit(tokDay), val
	case fieldBit(tokDay):
		tmask, d.mon = fieldBit(tokMonth), val
	case fieldBit(tokMonth) | fieldBit(tokDay):
		tmask, d.year = fieldBit(tokYear), val
	case maskDate:
		return d.numberField(text, fmask)
	default:
		return 0, dtBadFormat
	}
	if tmask == fieldBit(tokYear) {
		d.is2digits = flen <= 2
	}
	return tmask, 0
}

// numberField decodes a concatenated date (yyyymmdd, yymmdd) or time
// (hhmmss, hhmm, with a fraction).
func (d *dtDecoder) numberField(text string, fmask int) (int, dtErr) {
	if dot := strings.IndexByte(text, '.'); dot >= 0 {
		frac := text[dot:]
		if len(frac) > 1 {
			n := 1
			for n < len(frac) && isDigit(frac[n]) {
				n++
			}
			v, err := strconv.ParseFloat(frac[:n], 64)
			if err != nil {
				return 0, dtBadFormat
			}
			d.usec = int64(math.RoundToEven(v * 1e6))
		} else {
			d.usec = 0
		}
		text = text[:dot]
	} else if fmask&maskDate != maskDate && len(text) >= 6 {
		n := len(text)
		d.mday, _ = strconv.Atoi(text[n-2:])
		d.mon, _ = strconv.Atoi(text[n-4 : n-2])
		year, err := strconv.Atoi(text[:n-4])
		if err != nil || year > math.MaxInt32 {
			// PostgreSQL's atoi leaves such a year out of range too.
			return 0, dtFieldOverflow
		}
		d.year = year
		if n-4 == 2 {
			d.is2digits = true
		}
		return maskDate, 0
	}
	if fmask&maskTime != maskTime {
		switch len(text) {
		case 6:
			d.hour, _ = strconv.Atoi(text[:2])
			d.min, _ = strconv.Atoi(text[2:4])
			d.sec, _ = strconv.Atoi(text[4:])
			return maskTime, 0
		case 4:
			d.hour, _ = strconv.Atoi(text[:2])
			d.min, _ = strconv.Atoi(text[2:])
			d.sec = 0
			return maskTime, 0
		}
	}
	return 0, dtBadFormat
}
