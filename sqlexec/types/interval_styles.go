package types

import (
	"strconv"

	"github.com/jackc/pgx/v5/pgtype"
)

// intervalFields splits an interval as PostgreSQL's interval2tm does:
// years and months from the months, the days, and hours, minutes, seconds
// and microseconds from the time, each carrying the sign of its source.
func intervalFields(iv pgtype.Interval) (year, mon, mday, hour, min, sec, fsec int64) {
	year, mon = int64(iv.Months/monthsPerYear), int64(iv.Months%monthsPerYear)
	mday = int64(iv.Days)
	us := iv.Microseconds
	hour = us / usecPerHour
	us -= hour * usecPerHour
	min = us / usecPerMinute
	us -= min * usecPerMinute
	sec, fsec = us/usecPerSec, us%usecPerSec
	return
}

// appendSeconds writes |sec| and the fraction |fsec| (microseconds)
// without its trailing zeros; fillZeros pads the seconds to two digits.
func appendSeconds(buf []byte, sec, fsec int64, fillZeros bool) []byte {
	if sec < 0 {
		sec = -sec
	}
	if fsec < 0 {
		fsec = -fsec
	}
	if fillZeros && sec < 10 {
		buf = append(buf, '0')
	}
	buf = strconv.AppendInt(buf, sec, 10)
	if fsec != 0 {
		frac := []byte(strconv.FormatInt(fsec+usecPerSec, 10)[1:])
		for len(frac) > 0 && frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		buf = append(append(buf, '.'), frac...)
	}
	return buf
}

// formatIntervalVerbose is interval_out with IntervalStyle
// postgres_verbose: "@ 1 year 2 mons -3 days ago", every field signed
// relative to the first, which "ago" negates.
func formatIntervalVerbose(iv pgtype.Interval) string {
	year, mon, mday, hour, min, sec, fsec := intervalFields(iv)
	buf := []byte{'@'}
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if isZero {
			isBefore = v < 0
			if v < 0 {
				v = -v
			}
		} else if isBefore {
			v = -v
		}
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(append(buf, ' '), unit...)
		if v != 1 {
			buf = append(buf, 's')
		}
		isZero = false
	}
	part(year, "year")
	part(mon, "mon")
	part(mday, "day")
	part(hour, "hour")
	part(min, "min")
	if sec != 0 || fsec != 0 {
		buf = append(buf, ' ')
		if sec < 0 || sec == 0 && fsec < 0 {
			if isZero {
				isBefore = true
			} else if !isBefore {
				buf = append(buf, '-')
			}
		} else if isBefore {
			buf = append(buf, '-')
		}
		buf = appendSeconds(buf, sec, fsec, false)
		buf = append(buf, " sec"...)
		if (sec != 1 && sec != -1) || fsec != 0 {
			buf = append(buf, 's')
		}
		isZero = false
	}
	if isZero {
		buf = append(buf, " 0"...)
	}
	if isBefore {
		buf = append(buf, " ago"...)
	}
	return string(buf)
}

// formatIntervalSQLStandard is interval_out with IntervalStyle
// sql_standard: "1-2" for years and months, "3 4:05:06" for days and
// time, and every sign written out when the fields mix signs or kinds.
func formatIntervalSQLStandard(iv pgtype.Interval) string {
	year, mon, mday, hour, min, sec, fsec := intervalFields(iv)
	hasNegative := year < 0 || mon < 0 || mday < 0 || hour < 0 || min < 0 || sec < 0 || fsec < 0
	hasPositive := year > 0 || mon > 0 || mday > 0 || hour > 0 || min > 0 || sec > 0 || fsec > 0
	hasYearMonth := year != 0 || mon != 0
	hasDayTime := mday != 0 || hour != 0 || min != 0 || sec != 0 || fsec != 0
	standard := !(hasNegative && hasPositive) && !(hasYearMonth && hasDayTime)
	var buf []byte
	if hasNegative && standard {
		buf = append(buf, '-')
		year, mon, mday, hour, min, sec, fsec = -year, -mon, -mday, -hour, -min, -sec, -fsec
	}
	abs64 := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	sign := func(neg bool) byte {
		if neg {
			return '-'
		}
		return '+'
	}
	clock := func(h int64) {
		buf = strconv.AppendInt(buf, h, 10)
		buf = append(buf, ':')
		if abs64(min) < 10 {
			buf = append(buf, '0')
		}
		buf = strconv.AppendInt(buf, abs64(min), 10)
		buf = append(buf, ':')
		buf = appendSeconds(buf, sec, fsec, true)
	}
	switch {
	case !hasNegative && !hasPositive:
		buf = append(buf, '0')
	case !standard:
		buf = append(buf, sign(year < 0 || mon < 0))
		buf = strconv.AppendInt(buf, abs64(year), 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, abs64(mon), 10)
		buf = append(buf, ' ', sign(mday < 0))
		buf = strconv.AppendInt(buf, abs64(mday), 10)
		buf = append(buf, ' ', sign(hour < 0 || min < 0 || sec < 0 || fsec < 0))
		clock(abs64(hour))
	case hasYearMonth:
		buf = strconv.AppendInt(buf, year, 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, mon, 10)
	case mday != 0:
		buf = strconv.AppendInt(buf, mday, 10)
		buf = append(buf, ' ')
		clock(hour)
	default:
		clock(hour)
	}
	return string(buf)
}
