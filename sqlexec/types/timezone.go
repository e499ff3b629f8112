package types

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// Time zones as the TimeZone setting and AT TIME ZONE name them: IANA
// zone names (case-insensitive), the abbreviations of PostgreSQL's Default
// set, POSIX offsets ("+03:00" is three hours west of Greenwich, as POSIX
// inverts them, "<+05:30>-05:30" names its offset), and offsets in hours
// east (SET TIME ZONE 3.5) or intervals, which PostgreSQL records as the
// POSIX form with the offset as its name.

// ParseTimeZone reads a time zone name, returning its location and the
// name SHOW TimeZone gives it; 22023 when nothing of that name exists.
// abbrevs admits the abbreviations (PST), which AT TIME ZONE reads and the
// TimeZone setting does not.
func ParseTimeZone(name string, abbrevs bool) (*time.Location, string, error) {
	t := strings.TrimSpace(name)
	lower := strings.ToLower(t)
	switch lower {
	case "utc", "z", "zulu", "gmt", "etc/utc", "universal", "local", "ut":
		return time.UTC, "UTC", nil
	}
	// For the setting (no abbreviations) a number is hours east before it
	// is a POSIX offset (west), as in PostgreSQL's check_timezone: SET
	// TIME ZONE -8 is eight hours west; AT TIME ZONE '+3' stays POSIX.
	h, herr := strconv.ParseFloat(t, 64)
	if herr == nil && !abbrevs && h > -24 && h < 24 {
		return FixedOffsetZone(int(h * 3600)), OffsetZoneName(int(h * 3600)), nil
	}
	if loc, ok := posixZone(t); ok {
		return loc, t, nil
	}
	if herr == nil && h > -24 && h < 24 {
		return FixedOffsetZone(int(h * 3600)), OffsetZoneName(int(h * 3600)), nil
	}
	if z, ok := lookupZoneAbbrev(lower); ok && z.zone == "" && abbrevs {
		return time.FixedZone(strings.ToUpper(t), z.offset), strings.ToUpper(t), nil
	}
	if loc, err := loadLocation(t); err == nil {
		return loc, loc.String(), nil
	}
	if loc, ok := posixRuleZone(t); ok {
		return loc, t, nil
	}
	if posixDSTSpec.MatchString(t) && !strings.Contains(t, ",") {
		// Without its rules (EST5EDT) PostgreSQL takes a POSIX zone's
		// daylight-saving dates from its posixrules file, with their
		// history; fickle does not.
		return nil, "", pgerror.Unsupported("POSIX time zone specifications with daylight-saving time")
	}
	return nil, "", pgerror.Newf(pgerror.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}

// posixDSTSpec matches a POSIX TZ string with a daylight-saving zone:
// std offset dst [offset] [,start[/time],end[/time]].
var posixDSTSpec = regexp.MustCompile(`^(<[^>]+>|[A-Za-z]{3,})[+-]?\d{1,2}(:\d{2}){0,2}(<[^>]+>|[A-Za-z]{3,})([+-]?\d{1,2}(:\d{2}){0,2})?(,[^,]+,[^,]+)?$`)

// FixedOffsetZone is the zone of a fixed offset in seconds east of UTC,
// named as PostgreSQL names it (+05:30).
func FixedOffsetZone(east int) *time.Location {
	return time.FixedZone(string(appendOffset(nil, east)), east)
}

// OffsetZoneName is the TimeZone setting PostgreSQL records for a fixed
// offset east of UTC: the POSIX form <+05:30>-05:30.
func OffsetZoneName(east int) string {
	name := string(appendOffset(nil, east))
	west := string(appendOffset(nil, -east))
	if east == 0 {
		west = "-00"
	}
	return "<" + name + ">" + west
}

// IntervalZoneName is the TimeZone setting of SET TIME ZONE INTERVAL: the
// interval is the offset east of UTC, without months or days.
func IntervalZoneName(iv pgtype.Interval, text string) (string, error) {
	if iv.Months != 0 || iv.Days != 0 {
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"INTERVAL '%s'\"", text).
			WithDetail("Cannot specify days in time zone interval.")
	}
	return OffsetZoneName(int(iv.Microseconds / 1e6)), nil
}

// posixZone reads the POSIX forms PostgreSQL accepts without a zone
// database: [<name>]±hh[:mm[:ss]] or name[±]hh[:mm[:ss]] (seconds west of
// UTC).
func posixZone(s string) (*time.Location, bool) {
	name := ""
	rest := s
	if strings.HasPrefix(s, "<") {
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return nil, false
		}
		name, rest = s[1:end], s[end+1:]
	} else if n := len(s) - len(strings.TrimLeftFunc(s, isASCIILetter)); n >= 3 {
		// UTC+3, EST5: a bare name of three letters or more, then the
		// offset, whose sign is optional.
		name, rest = s[:n], s[n:]
		if rest != "" && rest[0] != '+' && rest[0] != '-' {
			rest = "+" + rest
		}
	}
	if name == "" && strings.Contains(rest, ":") && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		rest = "+" + rest // 00:00, 05:30: hh:mm west, the sign left out
	}
	if len(rest) < 2 || rest[0] != '+' && rest[0] != '-' {
		return nil, false
	}
	west, ok := clockSeconds(rest[1:])
	if !ok {
		return nil, false
	}
	if rest[0] == '-' {
		west = -west
	}
	return time.FixedZone(name, -west), true
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// clockSeconds reads hh[:mm[:ss]] as seconds, each a number of any digits
// as tzcode's getnum reads them (0045 is 45 hours).
func clockSeconds(s string) (int, bool) {
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return 0, false
	}
	total := 0
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || i > 0 && n > 59 {
			return 0, false
		}
		total = total*60 + n
	}
	for i := len(parts); i < 3; i++ {
		total *= 60
	}
	return total, total < 168*3600 // tzcode's limit: hours up to 24*7-1
}

// LeapSecondsZone is the error of the TimeZone setting for a zone whose
// clocks read other than :00 seconds at midnight UTC (a POSIX offset with
// seconds), which PostgreSQL's check_timezone takes for leap seconds.
func LeapSecondsZone(loc *time.Location, name string) error {
	if _, east := time.Unix(0, 0).In(loc).Zone(); east%60 == 0 {
		return nil
	}
	return pgerror.Newf(pgerror.InvalidParameterValue, "time zone \"%s\" appears to use leap seconds", name).
		WithDetail("PostgreSQL does not support leap seconds.")
}

// zoneRule is the zone of AT TIME ZONE: a location, or a dynamic
// abbreviation (MSK) whose offset is the one its zone gave it at the
// instant converted.
type zoneRule struct {
	loc    *time.Location
	abbrev string
}

// parseZoneRule reads the zone of AT TIME ZONE: abbreviations first, then
// zone names, as PostgreSQL looks them up.
func parseZoneRule(name string) (zoneRule, error) {
	lower := strings.ToLower(strings.TrimSpace(name))
	if z, ok := lookupZoneAbbrev(lower); ok && z.zone != "" {
		if loc, err := loadLocation(z.zone); err == nil {
			return zoneRule{loc: loc, abbrev: lower}, nil
		}
	}
	loc, _, err := ParseTimeZone(name, true)
	return zoneRule{loc: loc}, err
}

// wallClock is the reading of the zone's clocks at an instant.
func (z zoneRule) wallClock(instant time.Time) time.Time {
	if z.abbrev == "" {
		return wallClock(instant.In(z.loc))
	}
	east := abbrevOffset(z.loc, z.abbrev, instant)
	return wallClock(instant.Add(time.Duration(east) * time.Second).UTC())
}

// instant is the instant at which the zone's clocks read wall.
func (z zoneRule) instant(wall time.Time) time.Time {
	if z.abbrev == "" {
		return fromWallClock(wall, z.loc)
	}
	east := abbrevOffset(z.loc, z.abbrev, fromWallClock(wall, z.loc))
	return wall.Add(-time.Duration(east) * time.Second)
}

// timezone is AT TIME ZONE: a timestamptz seen on the clocks of zone (a
// timestamp), or a timestamp on those clocks as an instant (timestamptz).
func init() {
	zoneOf := func(v any) (zoneRule, error) {
		switch z := v.(type) {
		case string:
			return parseZoneRule(z)
		case pgtype.Interval:
			if z.Months != 0 || z.Days != 0 {
				return zoneRule{}, pgerror.Newf(pgerror.InvalidParameterValue, "interval time zone \"%s\" must not include months or days",
					formatInterval(z))
			}
			return zoneRule{loc: FixedOffsetZone(int(z.Microseconds / 1e6))}, nil
		}
		return zoneRule{}, pgerror.New(pgerror.InternalError, "time zone of an unexpected type")
	}
	for _, zt := range []Type{Text, Interval} {
		addFunc("timezone", Immutable, Timestamp, func(_ *Env, a []any) (any, error) {
			zone, err := zoneOf(a[0])
			if err != nil || isInfiniteTime(a[1].(time.Time)) {
				return a[1], err
			}
			return zone.wallClock(a[1].(time.Time)), nil
		}, zt, Timestamptz)
		addFunc("timezone", Immutable, Timestamptz, func(_ *Env, a []any) (any, error) {
			zone, err := zoneOf(a[0])
			if err != nil || isInfiniteTime(a[1].(time.Time)) {
				return a[1], err
			}
			return zone.instant(a[1].(time.Time)), nil
		}, zt, Timestamp)
	}
}
