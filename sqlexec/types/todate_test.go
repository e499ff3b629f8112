package types

import (
	"errors"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestToTimestamp pins to_timestamp's answers and errors, with their
// details and hints, as PostgreSQL 15 gives them (session zone UTC).
func TestToTimestamp(t *testing.T) {
	const hintFM = `If your source string is not fixed-width, try using the "FM" modifier.`
	for _, c := range []struct {
		input, format string
		want          string // the timestamptz printed, or the error's code: message | detail | hint
	}{
		{"2024-03-05 14:22", "YYYY-MM-DD HH24:MI", "2024-03-05 14:22:00+00"},
		{"12:34:56.1234", "HH24:MI:SS.FF3", "0001-01-01 12:34:56.123+00 BC"},
		{"2000 -03:30", "YYYY TZH:TZM", "2000-01-01 03:30:00+00"},
		{"2011-12-18 11:38 +05", "YYYY-MM-DD HH12:MI TZH", "2011-12-18 06:38:00+00"},
		{"2000 12 18", "FXYYYY MM  DD", "2000-12-08 00:00:00+00"},
		{" 5 ", " MS", "0001-01-01 00:00:00.5+00 BC"},
		{"19971", "YYYYMMDD", `22007: source string too short for "MM" formatting field | Field requires 2 characters, but only 1 remain. | ` + hintFM},
		{"19971)24", "YYYYMMDD", `22007: invalid value "1)" for "MM" | Field requires 2 characters, but only 1 could be parsed. | ` + hintFM},
		{"x", "YYYY", `22007: invalid value "x" for "YYYY" | Value must be an integer. | `},
		{"2000x", "YYYY,MM", `22007: invalid value "x" for "MM" | Value must be an integer. | `},
		{"Frx", "DY", `22007: invalid value "Frx" for "DY" | The given value did not match any of the allowed values for this field. | `},
		{"2000 2001", "YYYY YYYY", `22007: conflicting values for "YYYY" field in formatting string | This value contradicts a previous setting for the same field type. | `},
		{"2005527", "YYYYIWID", `22007: invalid combination of date conventions |  | Do not mix Gregorian and ISO week date conventions in a formatting template.`},
		{"10000000000", "FMYYYY", `22008: value for "YYYY" in source string is out of range | Value must be in the range -2147483648 to 2147483647. | `},
		{"13:00 PM", "HH12:MI PM", `22007: hour "13" is invalid for the 12-hour clock |  | Use the 24-hour clock, or give an hour between 1 and 12.`},
		{"2016-02-30", "YYYY-MM-DD", `22008: date/time field value out of range: "2016-02-30" |  | `},
		{"2000 +16", "YYYY TZH", `22009: time zone displacement out of range: "2000 +16" |  | `},
		{"1 2", "DDD", `22007: cannot calculate day of year without year information |  | `},
		{"2000 EST", "YYYY TZ", `0A000: formatting field "TZ" is only supported in to_char |  | `},
	} {
		v, err := toTimestamp(nil, c.input, c.format)
		got := ""
		var pe *pgerror.Error
		switch {
		case errors.As(err, &pe):
			got = string(pe.Code) + ": " + pe.Message + " | " + pe.Detail + " | " + pe.Hint
		case err != nil:
			got = err.Error()
		default:
			got = FormatText(Timestamptz, v, time.UTC)
		}
		if got != c.want {
			t.Errorf("to_timestamp(%q, %q) = %s, want %s", c.input, c.format, got, c.want)
		}
	}
}

// TestParseDCHFormat pins the scanner's reading of templates: patterns
// matched case-sensitively, modifiers, quoted text and separators.
func TestParseDCHFormat(t *testing.T) {
	for _, c := range []struct {
		format string
		want   []string // pattern names with their modifiers, or the literal text
	}{
		{"YYYY-MM-DD", []string{"YYYY", "sep -", "MM", "sep -", "DD"}},
		{"FMHH24thSP", []string{"FM HH24 th", "char S", "char P"}},
		{"DDSP", []string{"DD"}},
		{"Hh24", []string{"char H", "char h", "char 2", "char 4"}},
		{`"a\"b" x`, []string{"char a", `char "`, "char b", "space  ", "char x"}},
		{`\"Mon`, []string{`sep "`, "Mon"}},
		{"Dd dAY", []string{"D", "d", "space  ", "d", "char A", "Y"}},
		{"TMMonth FX tz", []string{"TM Month", "space  ", "FX", "space  ", "tz"}},
	} {
		nodes, err := parseDCHFormat(c.format, false)
		if err != nil {
			t.Fatalf("%q: %v", c.format, err)
		}
		var got []string
		for _, n := range nodes {
			switch n.kind {
			case nodeAction:
				s := n.key.name
				switch {
				case n.suffix&sufFM != 0:
					s = "FM " + s
				case n.suffix&sufTM != 0:
					s = "TM " + s
				}
				switch {
				case n.suffix&sufTH != 0:
					s += " TH"
				case n.suffix&sufth != 0:
					s += " th"
				}
				got = append(got, s)
			case nodeSeparator:
				got = append(got, "sep "+n.text)
			case nodeSpace:
				got = append(got, "space "+n.text)
			default:
				got = append(got, "char "+n.text)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: %q, want %q", c.format, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: %q, want %q", c.format, got, c.want)
				break
			}
		}
	}
	if _, err := parseDCHFormat("YYYY#MM", true); err == nil || err.Error() != `invalid datetime format separator: "#"` {
		t.Errorf("standard mode accepted '#': %v", err)
	}
}

// FuzzDateTimeTemplates runs to_timestamp, to_date and to_char on any
// template and input: they answer a value or a PostgreSQL error, never a
// panic.
func FuzzDateTimeTemplates(f *testing.F) {
	for _, seed := range []struct{ format, input string }{
		{"YYYY-MM-DD HH24:MI:SS.FF3 TZH:TZM", "2018-11-02 12:34:56.123 +05:30"},
		{"Y,YYYth FMRM DD", "1,582nd VIII 21"}, {"IYYYIWID", "2005527"}, {"FXYY/Mon/DD", "97/Feb/16"},
		{`HH24 "\"text\"" YY MI SS`, `15 "text" 98 54 45`}, {"W MM CC YY", "3 4 21 01"}, {"J", "2458872"},
		{"YYYY BC MM DD", "1997 BC 11 16"}, {"SSSSS", "86399"}, {"DDD", "366"}, {"", "x"},
	} {
		f.Add(seed.format, seed.input)
	}
	f.Fuzz(func(t *testing.T, format, input string) {
		_, _ = toTimestamp(nil, input, format)
		_, _ = toDate(input, format)
		_, _ = doToTimestamp(input, format, true)
		_, _, _ = parseDatetime(input, format)
		_, _ = formatDateTimePattern(time.Date(-44, 3, 15, 12, 30, 0, 0, time.UTC), format, nil, 0)
	})
}
