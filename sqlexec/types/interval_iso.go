package types

import (
	"math"
	"strconv"
	"strings"
)

// decodeISO8601Interval is DecodeISO8601Interval: an ISO 8601 duration
// with designators (P1Y2M3DT4H5M6S, P2W) or in the alternative format
// (P0001-02-03T04:05:06, P00010203T040506). Designators are upper case.
func decodeISO8601Interval(s string) (itmIn, dtErr) {
	var m itmIn
	if len(s) < 2 || s[0] != 'P' {
		return m, dtBadFormat
	}
	str := s[1:]
	datePart, haveField := true, false
	for str != "" {
		if str[0] == 'T' {
			datePart, haveField = false, false
			str = str[1:]
			continue
		}
		fieldStart := str
		val, frac, rest, e := parseISO8601Number(str)
		if e != 0 {
			return m, e
		}
		str = rest
		var unit byte
		if str != "" {
			unit, str = str[0], str[1:]
		}
		if datePart {
			switch unit {
			case 'Y':
				if !m.addUnit(val, frac, ivYear) {
					return m, dtFieldOverflow
				}
			case 'M':
				if !m.addUnit(val, frac, ivMonth) {
					return m, dtFieldOverflow
				}
			case 'W':
				if !m.addUnit(val, frac, ivWeek) {
					return m, dtFieldOverflow
				}
			case 'D':
				if !m.addUnit(val, frac, ivDay) {
					return m, dtFieldOverflow
				}
			case 'T', 0, '-':
				if unit != '-' && iso8601IntegerWidth(fieldStart) == 8 && !haveField {
					if !m.years(val/10000, 1) || !m.months((val/100)%100) || !m.days(val%100, 1) ||
						!m.fractMicroseconds(frac, usecPerDay) {
						return m, dtFieldOverflow
					}
					if unit == 0 {
						return m, 0
					}
					datePart, haveField = false, false
					continue
				}
				done, e := m.isoAlternativeDate(val, frac, unit, &str, haveField)
				if e != 0 || done {
					return m, e
				}
				datePart, haveField = false, false
				continue
			default:
				return m, dtBadFormat
			}
		} else {
			switch unit {
			case 'H':
				if !m.microseconds(val, frac, usecPerHour) {
					return m, dtFieldOverflow
				}
			case 'M':
				if !m.microseconds(val, frac, usecPerMinute) {
					return m, dtFieldOverflow
				}
			case 'S':
				if !m.microseconds(val, frac, usecPerSec) {
					return m, dtFieldOverflow
				}
			case 0, ':':
				if unit == 0 && iso8601IntegerWidth(fieldStart) == 6 && !haveField {
					if !m.microseconds(val/10000, 0, usecPerHour) || !m.microseconds((val/100)%100, 0, usecPerMinute) ||
						!m.microseconds(val%100, 0, usecPerSec) || !m.fractMicroseconds(frac, 1) {
						return m, dtFieldOverflow
					}
					return m, 0
				}
				return m, m.isoAlternativeTime(val, frac, unit, str, haveField)
			default:
				return m, dtBadFormat
			}
		}
		haveField = true
	}
	return m, 0
}

// isoAlternativeDate reads the extended alternative date Y-M-D after its
// year; done reports the end of the text, else a T follows.
func (m *itmIn) isoAlternativeDate(val int64, frac float64, unit byte, str *string, haveField bool) (done bool, e dtErr) {
	if haveField {
		return false, dtBadFormat
	}
	if !m.addUnit(val, frac, ivYear) {
		return false, dtFieldOverflow
	}
	if unit == 0 {
		return true, 0
	}
	if unit == 'T' {
		return false, 0
	}
	for _, u := range []intervalUnit{ivMonth, ivDay} {
		var rest string
		if val, frac, rest, e = parseISO8601Number(*str); e != 0 {
			return false, e
		}
		*str = rest
		if !m.addUnit(val, frac, u) {
			return false, dtFieldOverflow
		}
		switch {
		case *str == "":
			return true, 0
		case (*str)[0] == 'T':
			*str = (*str)[1:]
			return false, 0
		case u == ivMonth && (*str)[0] == '-':
			*str = (*str)[1:]
		default:
			return false, dtBadFormat
		}
	}
	return false, dtBadFormat
}

// isoAlternativeTime reads the extended alternative time H:M:S after its
// hours; it ends the text.
func (m *itmIn) isoAlternativeTime(val int64, frac float64, unit byte, str string, haveField bool) dtErr {
	if haveField {
		return dtBadFormat
	}
	if !m.microseconds(val, frac, usecPerHour) {
		return dtFieldOverflow
	}
	if unit == 0 {
		return 0
	}
	for _, scale := range []int64{usecPerMinute, usecPerSec} {
		var e dtErr
		if val, frac, str, e = parseISO8601Number(str); e != 0 {
			return e
		}
		if !m.microseconds(val, frac, scale) {
			return dtFieldOverflow
		}
		switch {
		case str == "":
			return 0
		case scale == usecPerMinute && str[0] == ':':
			str = str[1:]
		default:
			return dtBadFormat
		}
	}
	return dtBadFormat
}

func iso8601IntegerWidth(s string) int {
	s = strings.TrimPrefix(s, "-")
	return leadingDigits(s)
}

// parseISO8601Number reads a number as strtod does (exponents included)
// and splits it into its integer part and fraction; beyond 1e15 in
// magnitude is a field overflow.
func parseISO8601Number(s string) (ipart int64, fpart float64, rest string, e dtErr) {
	if s == "" || !(isDigit(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, dtBadFormat
	}
	n := strtodPrefix(s)
	if n == 0 {
		return 0, 0, s, dtBadFormat
	}
	val, err := strconv.ParseFloat(s[:n], 64)
	if err != nil && !math.IsInf(val, 0) {
		return 0, 0, s, dtBadFormat
	}
	if math.IsNaN(val) || val < -1e15 || val > 1e15 {
		return 0, 0, s, dtFieldOverflow
	}
	ipart = int64(math.Trunc(val))
	return ipart, val - float64(ipart), s[n:], 0
}

// strtodPrefix is the length of the decimal number strtod would read at
// the start of s: [+-]digits[.digits][e[+-]digits].
func strtodPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := leadingDigits(s[i:])
	i += digits
	if i < len(s) && s[i] == '.' {
		frac := leadingDigits(s[i+1:])
		digits += frac
		i += 1 + frac
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if exp := leadingDigits(s[j:]); exp > 0 {
			i = j + exp
		}
	}
	return i
}
