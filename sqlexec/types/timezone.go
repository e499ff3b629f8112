package types

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// timezone(zone, value) is AT TIME ZONE: a timestamptz becomes the wall
// clock of the zone (a timestamp), and a timestamp is read as the zone's
// wall clock (a timestamptz). The zone is a name or an interval east of
// UTC.
func init() {
	addFunc("timezone", Immutable, Timestamp, func(_ *Env, a []any) (any, error) {
		return atZone(a[0], a[1].(time.Time), true)
	}, Text, Timestamptz)
	addFunc("timezone", Immutable, Timestamptz, func(_ *Env, a []any) (any, error) {
		return atZone(a[0], a[1].(time.Time), false)
	}, Text, Timestamp)
	addFunc("timezone", Immutable, Timestamp, func(_ *Env, a []any) (any, error) {
		return atZone(a[0], a[1].(time.Time), true)
	}, Interval, Timestamptz)
	addFunc("timezone", Immutable, Timestamptz, func(_ *Env, a []any) (any, error) {
		return atZone(a[0], a[1].(time.Time), false)
	}, Interval, Timestamp)
}

// atZone converts t: with fromInstant the instant t to the zone's wall
// clock, else the wall clock t to the instant it names in the zone.
func atZone(zone any, t time.Time, fromInstant bool) (any, error) {
	if isInfiniteTime(t) {
		return t, nil
	}
	var loc *time.Location
	switch z := zone.(type) {
	case string:
		l, err := zoneNamed(z)
		if err != nil {
			return nil, err
		}
		loc = l
	case pgtype.Interval:
		if z.Months != 0 || z.Days != 0 {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "interval time zone \"%s\" must not include months or days", formatText(nil, Interval, z))
		}
		loc = time.FixedZone("", int(z.Microseconds/1e6))
	}
	if fromInstant {
		return wallClock(t.In(loc)), nil
	}
	return fromWallClock(t, loc).UTC(), nil
}

// posixZone is a POSIX-style zone: an optional name, then hours west of
// UTC.
var posixZone = regexp.MustCompile(`^([A-Za-z]{3,})?([+-]?)(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?$`)

// zoneNamed resolves a time zone as AT TIME ZONE does: an abbreviation
// (fixed offset), then a zone of the IANA database, then a POSIX offset
// (hours west of UTC, as in 'UTC+3').
func zoneNamed(name string) (*time.Location, error) {
	if off, ok := zoneAbbrevs[strings.ToLower(name)]; ok {
		return time.FixedZone(name, off), nil
	}
	if loc, err := loadLocation(name); err == nil {
		return loc, nil
	}
	if m := posixZone.FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[3])
		mi, _ := strconv.Atoi(m[4] + "0")
		s, _ := strconv.Atoi(m[5] + "0")
		west := h*3600 + mi/10*60 + s/10
		if west <= 15*3600 {
			if m[2] == "-" {
				west = -west
			}
			return time.FixedZone(fmt.Sprintf("%s%d", m[1], -west), -west), nil
		}
	}
	return nil, pgerror.Newf(pgerror.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}
