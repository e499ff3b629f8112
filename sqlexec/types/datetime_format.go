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

// formatDate is date_out in DateStyle ds.
func formatDate(v time.Time, ds DateStyle) string {
	switch {
	case v.Equal(InfinityTime):
		return "infinity"
	case v.Equal(NegInfinityTime):
		return "-infinity"
	}
	buf, bc := appendStyledDate(make([]byte, 0, 16), v, ds)
	if bc {
		buf = append(buf, " BC"...)
	}
	return string(buf)
}

// appendStyledDate appends the date of v as DateStyle ds writes dates:
// ISO yyyy-mm-dd, SQL mm/dd/yyyy (dd/mm/yyyy in DMY order), Postgres
// mm-dd-yyyy (dd-mm-yyyy), German dd.mm.yyyy.
func appendStyledDate(buf []byte, v time.Time, ds DateStyle) ([]byte, bool) {
	if ds.Style == DateISO {
		return appendDate(buf, v)
	}
	y, m, d := v.Date()
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	sep := map[DateOutput]byte{DateSQL: '/', DatePostgres: '-', DateGerman: '.'}[ds.Style]
	first, second := int(m), d
	if ds.Style == DateGerman || ds.Order == OrderDMY {
		first, second = d, int(m)
	}
	buf = appendPadded(buf, first, 2)
	buf = append(buf, sep)
	buf = appendPadded(buf, second, 2)
	buf = append(buf, sep)
	return appendPadded(buf, y, 4), bc
}

// formatTimestamp is timestamp_out (loc nil) and timestamptz_out (the
// instant shown in loc) in DateStyle ds: ISO with a +hh[:mm[:ss]] offset,
// the other styles with the zone's abbreviation, Postgres style as
// "Mon Mar 04 05:06:07 2024" (day before month in DMY order).
func formatTimestamp(v time.Time, loc *time.Location, withZone bool, ds DateStyle) string {
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
	h, m, s := v.Clock()
	usec := int64(v.Nanosecond() / 1000)
	var buf []byte
	var bc bool
	if ds.Style == DatePostgres {
		y, mo, d := v.Date()
		bc = y <= 0
		if bc {
			y = 1 - y
		}
		buf = append(make([]byte, 0, 40), v.Weekday().String()[:3]...)
		buf = append(buf, ' ')
		if ds.Order == OrderDMY {
			buf = append(appendPadded(buf, d, 2), ' ')
			buf = append(buf, mo.String()[:3]...)
		} else {
			buf = append(buf, mo.String()[:3]...)
			buf = appendPadded(append(buf, ' '), d, 2)
		}
		buf = appendClock(append(buf, ' '), h, m, s, usec)
		buf = appendPadded(append(buf, ' '), y, 4)
	} else {
		buf, bc = appendStyledDate(make([]byte, 0, 40), v, ds)
		buf = appendClock(append(buf, ' '), h, m, s, usec)
	}
	if withZone {
		if ds.Style == DateISO {
			_, off := v.Zone()
			buf = appendOffset(buf, off)
		} else {
			abbrev, _ := v.Zone()
			buf = append(append(buf, ' '), abbrev...)
		}
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
