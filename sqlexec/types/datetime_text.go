package types

import (
	"math"
	"strings"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// dtError is the error of a rejected date/time literal; typeName is how
// the type's input function names it (timestamp, not timestamp without
// time zone).
func dtError(e dtErr, typeName, s string) error {
	switch e {
	case dtFieldOverflow:
		return pgerror.Newf(pgerror.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	case dtMDFieldOverflow:
		return pgerror.Newf(pgerror.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s).
			WithHint("Perhaps you need a different \"datestyle\" setting.")
	case dtTZDispOverflow:
		return pgerror.Newf(pgerror.InvalidTimeZoneDisplacementValue, "time zone displacement out of range: \"%s\"", s)
	case dtRelative:
		return pgerror.Unsupported("'now' and 'today' as a date/time input outside a transaction")
	}
	return pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typeName, s)
}

// inputTypeName is the type name the input functions of date, timestamp
// and timestamptz use in their errors.
func inputTypeName(t Type) string {
	switch t.Oid {
	case OidDate:
		return "date"
	case OidTimestamp:
		return "timestamp"
	}
	return "timestamp with time zone"
}

// parseDateTime decodes a date, timestamp or timestamptz literal into the
// datum of type t (date at midnight UTC, timestamp as UTC wall clock,
// timestamptz as the UTC instant).
func parseDateTime(env *Env, t Type, s string) (any, error) {
	name := inputTypeName(t)
	fields, e := splitDateTime(s)
	if e == 0 && t.Oid == OidDate && len(s) > 128 {
		e = dtBadFormat
	}
	if e != 0 {
		return nil, dtError(e, name, s)
	}
	d := dtDecoder{relative: func() (time.Time, *time.Location, bool) {
		if env == nil || env.TxnTime.IsZero() {
			return time.Time{}, nil, false
		}
		return env.TxnTime, env.location(), true
	}}
	if env != nil {
		d.order = env.DateStyle.Order
	}
	if e := d.decode(fields); e != 0 {
		if e == dtUnknownZone {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "time zone \"%s\" not recognized", zoneFieldOf(fields))
		}
		return nil, dtError(e, name, s)
	}
	switch d.reserved {
	case resLate:
		return InfinityTime, nil
	case resEarly:
		return NegInfinityTime, nil
	case resEpoch:
		return time.Unix(0, 0).UTC(), nil
	}
	return d.datum(env, t, s)
}

// zoneFieldOf is the field of a literal that named an unknown zone.
func zoneFieldOf(fields []dtField) string {
	for _, f := range fields {
		if f.kind == dtkDate && isAlpha(f.text[0]) {
			return f.text
		}
	}
	return ""
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
	if loc, err := time.LoadLocation(strings.Join(parts, "/")); err == nil {
		return loc, nil
	}
	if len(parts) > 1 {
		// Etc/GMT+5, Etc/UCT: an area, then a name in capitals.
		if loc, err := time.LoadLocation(parts[0] + "/" + strings.ToUpper(strings.Join(parts[1:], "/"))); err == nil {
			return loc, nil
		}
	}
	return time.LoadLocation(strings.ToUpper(name)) // EST5EDT, PST8PDT
}

// zoneByName finds the zone a date/time literal names: a zone of the
// database (america/new_york, est5edt) or a POSIX offset (gmt+8, which is
// eight hours west of Greenwich).
func zoneByName(name string) (*time.Location, error) {
	loc, err := loadLocation(name)
	if err == nil {
		return loc, nil
	}
	if loc, ok := posixZone(name); ok {
		return loc, nil
	}
	return nil, err
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

// datum builds the value of the decoded fields: a date, a wall clock, or
// the instant of the wall clock in the literal's zone (else the session's).
func (d *dtDecoder) datum(env *Env, t Type, orig string) (any, error) {
	if d.year < -4713 || d.year == -4713 && (d.mon < 11 || d.mon == 11 && d.mday < 24) {
		if t.Oid == OidDate {
			return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "date out of range: \"%s\"", orig)
		}
		return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", orig)
	}
	day := time.Date(d.year, time.Month(d.mon), d.mday, 0, 0, 0, 0, time.UTC)
	if t.Oid == OidDate {
		if !day.Before(InfinityTime) {
			return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "date out of range: \"%s\"", orig)
		}
		return day, nil
	}
	wall := day.Add(time.Duration(d.hour)*time.Hour + time.Duration(d.min)*time.Minute +
		time.Duration(d.sec)*time.Second + time.Duration(d.usec)*time.Microsecond)
	v := wall
	if t.Oid == OidTimestamptz {
		switch {
		case d.named != nil:
			v = fromWallClock(wall, d.named)
		case d.dynamic != nil:
			v = wall.Add(-time.Duration(abbrevOffset(d.dynamic, d.abbrev, fromWallClock(wall, d.dynamic))) * time.Second)
		case d.fmask&fieldBit(tokTZ) != 0:
			v = wall.Add(time.Duration(d.tzWest) * time.Second)
		default:
			v = fromWallClock(wall, env.location())
		}
	}
	if v.Before(minDate) || !v.Before(InfinityTime) {
		return nil, pgerror.Newf(pgerror.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", orig)
	}
	return roundTimestamp(t, v), nil
}

// abbrevOffset is the offset east of UTC that a dynamic zone abbreviation
// (MSK) stands for at the instant probe: the offset of the zone's period
// of that name in force then, else of the latest such period before it,
// else of the first after it; the zone's own offset when it never used the
// name.
func abbrevOffset(loc *time.Location, abbrev string, probe time.Time) int {
	want := strings.ToUpper(abbrev)
	const maxPeriods = 4096
	t := probe
	for i := 0; i < maxPeriods; i++ {
		name, off := t.In(loc).Zone()
		if name == want {
			return off
		}
		start, _ := t.In(loc).ZoneBounds()
		if start.IsZero() {
			break
		}
		t = start.Add(-time.Second)
	}
	t = probe
	for i := 0; i < maxPeriods; i++ {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() {
			break
		}
		t = end
		if name, off := t.In(loc).Zone(); name == want {
			return off
		}
	}
	_, off := probe.In(loc).Zone()
	return off
}

// minDate is 4714-11-24 BC, the first day PostgreSQL accepts.
var minDate = time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// roundTimestamp rounds v to the fractional-second precision of a
// timestamp(p) type as PostgreSQL's AdjustTimestampForTypmod does: half
// away from 2000-01-01, so that a tie before it rounds to the earlier
// instant.
func roundTimestamp(t Type, v time.Time) time.Time {
	if t.Typmod < 0 || t.Typmod >= 6 || isInfiniteTime(v) {
		return v
	}
	unit := int64(math.Pow10(6 - int(t.Typmod)))
	us := timeToPG(v)
	if us >= 0 {
		us = (us + unit/2) / unit * unit
	} else {
		us = -((-us + unit/2) / unit * unit)
	}
	return pgToTime(us)
}

// isInfiniteTime reports whether v is one of the infinity sentinels.
func isInfiniteTime(v time.Time) bool {
	return v.Equal(InfinityTime) || v.Equal(NegInfinityTime)
}
