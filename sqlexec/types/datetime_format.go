package types

import (
	"strconv"
	"time"
)

// appendDate appends the ISO date of v, the year without sign; bc reports
// whether the caller must add " BC".
func appendDate(buf []byte, v time.Time) ([]byte, bool) {
	y, m, d := v.Date()
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	buf = appendPadded(buf, y, 4)
	buf = append(buf, '-')
	buf = appendPadded(buf, int(m), 2)
	buf = append(buf, '-')
	buf = appendPadded(buf, d, 2)
	return buf, bc
}

func appendPadded(buf []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// appendClock appends hh:mm:ss[.ffffff] without trailing zeros.
func appendClock(buf []byte, h, m, s int, usec int64) []byte {
	buf = appendPadded(buf, h, 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, m, 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, s, 2)
	if usec != 0 {
		frac := []byte(strconv.FormatInt(usec+1e6, 10))[1:]
		for len(frac) > 0 && frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		buf = append(buf, '.')
		buf = append(buf, frac...)
	}
	return buf
}

// formatDate is date_out with DateStyle ISO.
func formatDate(v time.Time) string {
	switch {
	case v.Equal(InfinityTime):
		return "infinity"
	case v.Equal(NegInfinityTime):
		return "-infinity"
	}
	buf, bc := appendDate(make([]byte, 0, 16), v)
	if bc {
		buf = append(buf, " BC"...)
	}
	return string(buf)
}

// formatTimestamp is timestamp_out (loc nil) and timestamptz_out (the
// instant shown in loc with a +hh[:mm[:ss]] offset) with DateStyle ISO.
func formatTimestamp(v time.Time, loc *time.Location, withZone bool) string {
	switch {
	case v.Equal(InfinityTime):
		return "infinity"
	case v.Equal(NegInfinityTime):
		return "-infinity"
	}
	if withZone {
		if loc == nil {
			loc = time.UTC
		}
		v = v.In(loc)
	}
	buf, bc := appendDate(make([]byte, 0, 40), v)
	buf = append(buf, ' ')
	h, m, s := v.Clock()
	buf = appendClock(buf, h, m, s, int64(v.Nanosecond()/1000))
	if withZone {
		_, off := v.Zone()
		buf = appendOffset(buf, off)
	}
	if bc {
		buf = append(buf, " BC"...)
	}
	return string(buf)
}

// appendOffset appends +hh, +hh:mm or +hh:mm:ss.
func appendOffset(buf []byte, off int) []byte {
	if off < 0 {
		buf = append(buf, '-')
		off = -off
	} else {
		buf = append(buf, '+')
	}
	buf = appendPadded(buf, off/3600, 2)
	if rem := off % 3600; rem != 0 {
		buf = append(buf, ':')
		buf = appendPadded(buf, rem/60, 2)
		if rem%60 != 0 {
			buf = append(buf, ':')
			buf = appendPadded(buf, rem%60, 2)
		}
	}
	return buf
}
