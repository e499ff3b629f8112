package types

import (
	"time"

	"github.com/fickle-db/fickle/internal/jsonpath"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// jsonpath's .datetime(): the string read through the template scanner and
// do_to_timestamp in standard mode (parse_datetime), its items compared as
// jsonpath_exec.c's compareDatetime compares them, and printed as
// JsonEncodeDateTime prints them.

// pathDTKind is the SQL type of a datetime item.
type pathDTKind int

const (
	pdDate pathDTKind = iota
	pdTime
	pdTimetz
	pdTimestamp
	pdTimestamptz
)

var pathDTNames = [...]string{"date", "time without time zone", "time with time zone",
	"timestamp without time zone", "timestamp with time zone"}

// pathDatetime is a datetime item: days from 2000-01-01 for a date,
// otherwise microseconds (of the day for time and timetz, from 2000-01-01
// for timestamp, from 2000-01-01 UTC for timestamptz), and the zone of
// timetz and timestamptz in seconds west of UTC.
type pathDatetime struct {
	kind pathDTKind
	days int64
	us   int64
	zone int
}

// isoDatetimeFormats are the templates .datetime() without one tries, in
// order: date, timetz, time, timestamptz, timestamp.
var isoDatetimeFormats = []string{
	"yyyy-mm-dd",
	"HH24:MI:SS.USTZH:TZM", "HH24:MI:SS.USTZH", "HH24:MI:SSTZH:TZM", "HH24:MI:SSTZH",
	"HH24:MI:SS.US", "HH24:MI:SS",
	"yyyy-mm-dd HH24:MI:SS.USTZH:TZM", "yyyy-mm-dd HH24:MI:SS.USTZH",
	"yyyy-mm-dd HH24:MI:SSTZH:TZM", "yyyy-mm-dd HH24:MI:SSTZH",
	`yyyy-mm-dd"T"HH24:MI:SS.USTZH:TZM`, `yyyy-mm-dd"T"HH24:MI:SS.USTZH`,
	`yyyy-mm-dd"T"HH24:MI:SSTZH:TZM`, `yyyy-mm-dd"T"HH24:MI:SSTZH`,
	"yyyy-mm-dd HH24:MI:SS.US", "yyyy-mm-dd HH24:MI:SS",
	`yyyy-mm-dd"T"HH24:MI:SS.US`, `yyyy-mm-dd"T"HH24:MI:SS`,
}

// pathDatetimeItem is the jsonpath host's Datetime.
func pathDatetimeItem(s string, template *string) (*jsonpath.Value, bool, error) {
	if template != nil {
		dt, hard, err := parseDatetime(s, *template)
		if err != nil {
			return nil, hard, err
		}
		return dt.value(), false, nil
	}
	for _, f := range isoDatetimeFormats {
		if dt, _, err := parseDatetime(s, f); err == nil {
			return dt.value(), false, nil
		}
	}
	return nil, false, pgerror.Newf(pgerror.InvalidArgumentForSqlJsonDatetimeFunction, "datetime format is not recognized: \"%s\"", s).
		WithHint("Use a datetime template argument to specify the input data format.")
}

func (dt *pathDatetime) value() *jsonpath.Value {
	return &jsonpath.Value{Kind: jsonpath.Datetime, TypeName: pathDTNames[dt.kind], Datum: dt}
}

// datetimeFlags is DCH_datetime_type: whether a template has date, time
// and zone patterns.
func datetimeFlags(nodes []fmtNode) (dated, timed, zoned bool) {
	for _, n := range nodes {
		if n.kind != nodeAction {
			continue
		}
		switch n.key.id {
		case dchFX, dchIW:
		case dchA_M, dchP_M, dcha_m, dchp_m, dchAM, dchPM, dcham, dchpm, dchHH, dchHH12, dchHH24, dchMI, dchSS,
			dchMS, dchUS, dchFF1, dchFF2, dchFF3, dchFF4, dchFF5, dchFF6, dchSSSS:
			timed = true
		case dchTZ, dchtz, dchOF, dchTZH, dchTZM:
			zoned = true
		default:
			dated = true
		}
	}
	return dated, timed, zoned
}

// parseDatetime is parse_datetime in standard mode: the type is the one
// the template's patterns call for. hard is set for a template that does
// not parse, an error that silent mode does not hide.
func parseDatetime(s, template string) (*pathDatetime, bool, error) {
	nodes, err := parseDCHFormat(template, true)
	if err != nil {
		return nil, true, err
	}
	tm, err := readTemplate(s, nodes, template != "", true)
	if err != nil {
		return nil, false, err
	}
	dated, timed, zoned := datetimeFlags(nodes)
	clock := ((int64(tm.hour)*60+int64(tm.min))*60+int64(tm.sec))*1_000_000 + int64(tm.fsec)
	switch {
	case dated && timed:
		local, ok := tm.localMicros()
		kind, name := pdTimestamp, "timestamp"
		if zoned {
			kind, name = pdTimestamptz, "timestamptz"
			if !tm.hasTZ {
				return nil, false, invalidFormat("missing time zone in input string for type timestamptz")
			}
			local -= int64(tm.tzEast) * 1_000_000
		}
		if !ok || local < minTimestampPG || local >= endTimestampPG {
			return nil, false, pgerror.Newf(pgerror.DatetimeFieldOverflow, "%s out of range", name)
		}
		if tm.fprec > 0 {
			local = timeToPG(roundTimestamp(Type{OidTimestamp, int32(tm.fprec)}, pgToTime(local)))
		}
		return &pathDatetime{kind: kind, us: local, zone: -tm.tzEast}, false, nil
	case dated && zoned:
		return nil, false, invalidFormat("datetime format is zoned but not timed")
	case dated:
		days, err := julianDays(tm, s)
		if err != nil {
			return nil, false, err
		}
		return &pathDatetime{kind: pdDate, days: days}, false, nil
	case timed:
		if tm.fprec > 0 {
			clock = roundTime(Type{OidTime, int32(tm.fprec)}, clock)
		}
		if zoned {
			if !tm.hasTZ {
				return nil, false, invalidFormat("missing time zone in input string for type timetz")
			}
			return &pathDatetime{kind: pdTimetz, us: clock, zone: -tm.tzEast}, false, nil
		}
		return &pathDatetime{kind: pdTime, us: clock}, false, nil
	}
	return nil, false, invalidFormat("datetime format is not dated and not timed")
}

// tzRequired is checkTimezoneIsUsedForCast's error.
func tzRequired(from, to string) error {
	return pgerror.Newf(pgerror.FeatureNotSupported, "cannot convert value from %s to %s without time zone usage", from, to).
		WithHint("Use *_tz() function for time zone support.")
}

// Days from 2000-01-01 from which a date is past every timestamp
// (TIMESTAMP_END_JULIAN).
const timestampEndDays = 109203528 - pgEpochJulian

// comparePathDatetimes is compareDatetime: a date, timestamp and
// timestamptz compare with each other, a time and timetz with each other;
// conversions that need the session time zone fail unless useTz.
func comparePathDatetimes(env *Env, a, b *pathDatetime, useTz bool) (int, bool, error) {
	if a.kind > b.kind {
		c, comparable, err := comparePathDatetimes(env, b, a, useTz)
		return -c, comparable, err
	}
	dateOnly := func(k pathDTKind) bool { return k == pdDate || k == pdTimestamp || k == pdTimestamptz }
	timeOnly := func(k pathDTKind) bool { return k == pdTime || k == pdTimetz }
	if dateOnly(a.kind) != dateOnly(b.kind) || timeOnly(a.kind) != timeOnly(b.kind) {
		return 0, false, nil
	}
	loc := env.location()
	switch {
	case a.kind == b.kind && a.kind == pdDate:
		return cmp3(a.days, b.days), true, nil
	case a.kind == b.kind && a.kind != pdTimetz:
		return cmp3(a.us, b.us), true, nil
	case a.kind == pdDate && b.kind == pdTimestamp:
		if a.days >= timestampEndDays {
			return 1, true, nil
		}
		return cmp3(a.days*usecPerDay, b.us), true, nil
	case a.kind == pdDate:
		if !useTz {
			return 0, false, tzRequired("date", "timestamptz")
		}
		if a.days >= timestampEndDays {
			return 1, true, nil
		}
		return cmpZoned(a.days*usecPerDay, loc, b.us), true, nil
	case a.kind == pdTimestamp:
		if !useTz {
			return 0, false, tzRequired("timestamp", "timestamptz")
		}
		return cmpZoned(a.us, loc, b.us), true, nil
	case a.kind == pdTime:
		if !useTz {
			return 0, false, tzRequired("time", "timetz")
		}
		if env == nil || env.TxnTime.IsZero() {
			return 0, false, pgerror.Unsupported("a time compared with a timetz outside a transaction")
		}
		day := wallClock(env.TxnTime.In(loc)).Truncate(24 * time.Hour)
		wall := day.Add(time.Duration(a.us) * time.Microsecond)
		east := int(wall.Sub(fromWallClock(wall, loc)) / time.Second)
		return cmpTimetz(a.us, -east, b.us, b.zone), true, nil
	}
	return cmpTimetz(a.us, a.zone, b.us, b.zone), true, nil
}

// cmpZoned compares the wall clock local read in loc (as
// timestamp2timestamptz does, past the timestamp range counting as beyond
// every timestamptz) with the instant tz.
func cmpZoned(local int64, loc *time.Location, tz int64) int {
	v := timeToPG(fromWallClock(pgToTime(local), loc))
	switch {
	case v < minTimestampPG:
		return -1
	case v >= endTimestampPG:
		return 1
	}
	return cmp3(v, tz)
}

// cmpTimetz is timetz_cmp: by the UTC time, then by the zone.
func cmpTimetz(us1 int64, zone1 int, us2 int64, zone2 int) int {
	if c := cmp3(us1+int64(zone1)*1_000_000, us2+int64(zone2)*1_000_000); c != 0 {
		return c
	}
	return cmp3(int64(zone1), int64(zone2))
}

// encode is JsonEncodeDateTime: the ISO 8601 (XSD) text of the item.
func (dt *pathDatetime) encode() string {
	var buf []byte
	switch dt.kind {
	case pdDate:
		y, m, d := j2date(int32(dt.days + pgEpochJulian))
		buf = appendXSDDate(buf, y, m, d)
		if y <= 0 {
			buf = append(buf, " BC"...)
		}
	case pdTime, pdTimetz:
		buf = appendXSDClock(buf, dt.us)
		if dt.kind == pdTimetz {
			buf = appendXSDZone(buf, dt.zone)
		}
	case pdTimestamp, pdTimestamptz:
		local := dt.us
		if dt.kind == pdTimestamptz {
			local -= int64(dt.zone) * 1_000_000
		}
		days := floorDiv(local, usecPerDay)
		y, m, d := j2date(int32(days + pgEpochJulian))
		buf = appendXSDDate(buf, y, m, d)
		buf = append(buf, 'T')
		buf = appendXSDClock(buf, local-days*usecPerDay)
		if dt.kind == pdTimestamptz {
			buf = appendXSDZone(buf, dt.zone)
		}
		if y <= 0 {
			buf = append(buf, " BC"...)
		}
	}
	return string(buf)
}

func appendXSDDate(buf []byte, y, m, d int32) []byte {
	if y <= 0 {
		y = 1 - y
	}
	buf = appendPadded(buf, int(y), 4)
	buf = append(buf, '-')
	buf = appendPadded(buf, int(m), 2)
	buf = append(buf, '-')
	return appendPadded(buf, int(d), 2)
}

// appendXSDClock prints hh:mm:ss and the fraction without trailing zeros.
func appendXSDClock(buf []byte, us int64) []byte {
	sec := us / 1_000_000
	return appendClock(buf, int(sec/3600), int(sec/60%60), int(sec%60), us%1_000_000)
}

// appendXSDZone is EncodeTimezone in XSD style: +hh:mm, with :ss when the
// zone has seconds.
func appendXSDZone(buf []byte, west int) []byte {
	sign := byte('+')
	if west > 0 {
		sign = '-'
	}
	s := abs(west)
	buf = append(buf, sign)
	buf = appendPadded(buf, s/3600, 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, s/60%60, 2)
	if s%60 != 0 {
		buf = append(buf, ':')
		buf = appendPadded(buf, s%60, 2)
	}
	return buf
}
