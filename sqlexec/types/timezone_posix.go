package types

import (
	"encoding/binary"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// posixRuleSpec matches a POSIX TZ string whose daylight-saving rules are
// spelled out: std offset dst [offset],start[/time],end[/time], each date
// Mm.w.d, Jn or n, as PostgreSQL's tzparse reads them. The numeric ranges
// the pattern cannot hold are checked by posixRuleZone.
var posixRuleSpec = regexp.MustCompile(`^(<[A-Za-z0-9+-]{3,}>|[A-Za-z]{3,})([+-]?\d{1,3}(?::\d{1,2}){0,2})(<[A-Za-z0-9+-]{3,}>|[A-Za-z]{3,})([+-]?\d{1,3}(?::\d{1,2}){0,2})?` +
	`,(M(?:1[0-2]|[1-9])\.[1-5]\.[0-6]|J\d{1,3}|\d{1,3})(?:/([+-]?\d{1,3}(?::\d{1,2}){0,2}))?` +
	`,(M(?:1[0-2]|[1-9])\.[1-5]\.[0-6]|J\d{1,3}|\d{1,3})(?:/([+-]?\d{1,3}(?::\d{1,2}){0,2}))?$`)

// posixRuleZone is the location of a POSIX TZ string with daylight-saving
// rules (CST7CDT,M4.1.0,M10.5.0), applied to every year as PostgreSQL
// applies them. Go reads such a string as the extension of a zone file,
// so the location is a zone file with no transitions and the string as
// its extension.
func posixRuleZone(spec string) (*time.Location, bool) {
	m := posixRuleSpec.FindStringSubmatch(spec)
	if m == nil {
		return nil, false
	}
	for _, date := range []string{m[5], m[7]} {
		if date[0] == 'M' {
			continue
		}
		n, _ := strconv.Atoi(date[len(date)-len(trimJulian(date)):])
		if date[0] == 'J' && (n < 1 || n > 365) || date[0] != 'J' && n > 365 {
			return nil, false
		}
	}
	for _, off := range []string{m[2], m[4], m[6], m[8]} {
		if !posixOffsetInRange(off) {
			return nil, false
		}
	}
	std, _ := posixSeconds(trimSign(m[2]))
	if m[2][0] == '-' {
		std = -std
	}
	abbrev := m[1]
	if abbrev[0] == '<' {
		abbrev = abbrev[1 : len(abbrev)-1]
	}
	loc, err := time.LoadLocationFromTZData(spec, zoneFileOf(-std, abbrev, spec))
	return loc, err == nil
}

// trimJulian drops a Julian date's J.
func trimJulian(date string) string {
	if date[0] == 'J' {
		return date[1:]
	}
	return date
}

// trimSign drops a leading sign of an offset or time.
func trimSign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

// posixOffsetInRange reports whether an offset or a rule's time (empty when
// left out) is hh[:mm[:ss]] below the week of hours that PostgreSQL and Go
// allow.
func posixOffsetInRange(off string) bool {
	if off == "" {
		return true
	}
	_, ok := posixSeconds(trimSign(off))
	return ok
}

// posixSeconds reads hh[:mm[:ss]], hours below 168.
func posixSeconds(s string) (int, bool) {
	total := 0
	for i, p := range strings.Split(s, ":") {
		n, err := strconv.Atoi(p)
		if err != nil || i > 0 && n > 59 || i == 0 && n > 167 {
			return 0, false
		}
		total = total*60 + n
	}
	for i := strings.Count(s, ":"); i < 2; i++ {
		total *= 60
	}
	return total, true
}

// zoneFileOf is a version 2 zone file (RFC 8536) with one zone, east
// seconds east of UTC and named abbrev, no transitions, and the POSIX TZ
// string extend for all times.
func zoneFileOf(east int, abbrev, extend string) []byte {
	header := func(b []byte) []byte {
		b = append(b, "TZif2"...)
		b = append(b, make([]byte, 15)...)
		// isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
		for _, n := range []int{0, 0, 0, 0, 1, len(abbrev) + 1} {
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		b = binary.BigEndian.AppendUint32(b, uint32(int32(east)))
		b = append(b, 0, 0) // not daylight-saving time, abbreviation at 0
		b = append(b, abbrev...)
		return append(b, 0)
	}
	b := header(nil) // the version 1 part, which readers of version 2 skip
	b = header(b)
	b = append(b, '\n')
	b = append(b, extend...)
	return append(b, '\n')
}
