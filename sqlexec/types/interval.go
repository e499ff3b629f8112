package types

import (
	"strconv"
	"strings"

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
