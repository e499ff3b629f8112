package types

import (
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestPOSIXRuleZonesFollowTheirRules pins offsets PostgreSQL 15 gives under
// TimeZone set to POSIX strings with daylight-saving rules.
func TestPOSIXRuleZonesFollowTheirRules(t *testing.T) {
	for _, c := range []struct {
		zone, utc string
		east      int
		abbrev    string
	}{
		{"CST7CDT,M4.1.0,M10.5.0", "2005-04-03T08:59:59Z", -7 * 3600, "CST"},
		{"CST7CDT,M4.1.0,M10.5.0", "2005-04-03T09:00:00Z", -6 * 3600, "CDT"},
		{"CST7CDT,M4.1.0,M10.5.0", "1950-07-01T18:00:00Z", -6 * 3600, "CDT"},
		{"CST7CDT,M4.1.0,M10.5.0", "1800-07-01T06:00:00Z", -6 * 3600, "CDT"},
		{"CST7CDT,M4.1.0,M10.5.0", "2100-12-01T19:00:00Z", -7 * 3600, "CST"},
		{"<+03>-3<+04>,J60/1,300/25:30", "2005-07-01T08:00:00Z", 4 * 3600, "+04"},
		{"<+03>-3<+04>,J60/1,300/25:30", "2005-02-28T21:30:00Z", 3 * 3600, "+03"},
		{"EST5EDT4,M3.2.0/2,M11.1.0/2", "2023-03-12T06:59:00Z", -5 * 3600, "EST"},
		{"EST5EDT4,M3.2.0/2,M11.1.0/2", "2023-03-12T07:00:00Z", -4 * 3600, "EDT"},
	} {
		loc, name, err := ParseTimeZone(c.zone, false)
		if err != nil {
			t.Fatalf("%s: %v", c.zone, err)
		}
		if name != c.zone {
			t.Errorf("%s: named %q", c.zone, name)
		}
		at, _ := time.Parse(time.RFC3339, c.utc)
		abbrev, east := at.In(loc).Zone()
		if east != c.east || abbrev != c.abbrev {
			t.Errorf("%s at %s: %s %d, want %s %d", c.zone, c.utc, abbrev, east, c.abbrev, c.east)
		}
	}
}

// TestPOSIXRuleZonesOutOfRangeAreNotRecognized pins PostgreSQL's 22023 for
// rules it cannot read, and fickle's refusal of daylight-saving zones
// without rules, whose dates PostgreSQL takes from its posixrules file.
func TestPOSIXRuleZonesOutOfRangeAreNotRecognized(t *testing.T) {
	for zone, code := range map[string]pgerror.Code{
		"AAA3BBB,M13.1.0,M10.5.0":    pgerror.InvalidParameterValue,
		"AAA3BBB,J0,M10.5.0":         pgerror.InvalidParameterValue,
		"AAA3BBB,366,M10.5.0":        pgerror.InvalidParameterValue,
		"AAA3BBB,M3.1.0/200,M10.5.0": pgerror.InvalidParameterValue,
		"AAA3BBB,M3.6.0,M10.5.0":     pgerror.InvalidParameterValue,
		"CST7CDT":                    pgerror.FeatureNotSupported,
	} {
		_, _, err := ParseTimeZone(zone, false)
		if pgerror.GetCode(err) != code {
			t.Errorf("%s: %v, want %s", zone, err, code)
		}
	}
}
