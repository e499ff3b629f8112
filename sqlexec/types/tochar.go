package types

import (
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

func init() {
	addFunc("to_char", Immutable, Text, func(_ *Env, a []any) (any, error) {
		return formatDateTimePattern(a[0].(time.Time), a[1].(string), nil, 0)
	}, Timestamp, Text)
	addFunc("to_char", Stable, Text, func(env *Env, a []any) (any, error) {
		t := a[0].(time.Time)
		if isInfiniteTime(t) {
			return nil, nil
		}
		loc := t.In(env.location())
		_, off := loc.Zone()
		name, _ := loc.Zone()
		return formatDateTimePattern(wallClock(loc), a[1].(string), &name, off)
	}, Timestamptz, Text)
	addFunc("to_char", Immutable, Text, func(_ *Env, a []any) (any, error) {
		return formatIntervalPattern(a[0].(pgtype.Interval), a[1].(string))
	}, Interval, Text)
	addFunc("to_char", Immutable, Text, func(_ *Env, a []any) (any, error) {
		return numericToChar(a[0].(*apd.Decimal), a[1].(string))
	}, NumericAny, Text)
	for _, t := range []Type{Int4, Int8} {
		oid := t.Oid
		addFunc("to_char", Immutable, Text, func(_ *Env, a []any) (any, error) {
			return intToChar(oid, a[0].(int64), a[1].(string))
		}, t, Text)
	}
	addFunc("to_char", Immutable, Text, func(_ *Env, a []any) (any, error) {
		return floatToChar(a[0].(float64), a[1].(string), 6)
	}, Float4, Text)
	addFunc("to_char", Immutable, Text, func(_ *Env, a []any) (any, error) {
		return floatToChar(a[0].(float64), a[1].(string), 15)
	}, Float8, Text)
}

// walkPattern calls literal with the text of a to_char template: its
// literals as they are, and for every pattern what emit prints for it (with
// its FM flag). The template is read by parseDCHFormat, the scanner the
// parsing direction (to_timestamp) shares. A TH or th after a numeric
// pattern appends the English ordinal suffix (ST, nd) in the case of the
// suffix; after a word (MONTH) or a zone offset (OF, TZH) it is dropped, as
// PostgreSQL drops it.
// The TM prefix prints a month or day name as lc_time names it (fickle's is
// always C: the English name) without padding; SP is read and ignored.
func walkPattern(format string, literal func(string), emit func(k string, fm bool) string) {
	nodes, _ := parseDCHFormat(format, false)
	for _, n := range nodes {
		if n.kind != nodeAction {
			literal(n.text)
			continue
		}
		k := n.key.name
		printed := emit(k, n.suffix&sufFM != 0 || n.suffix&sufTM != 0 && isNamePattern(k))
		if n.suffix&(sufTH|sufth) != 0 && n.key.isDigit && n.key.id != dchTZM {
			printed += ordinalSuffix(printed, n.suffix&sufTH == 0)
		}
		literal(printed)
	}
}

// ordinalSuffix is the English ordinal suffix of the number that printed
// ends in (st, nd, rd, th; the teens take th), upper case unless lower;
// nothing when printed does not end in a digit.
func ordinalSuffix(printed string, lower bool) string {
	n := len(printed)
	if n == 0 || !isDigit(printed[n-1]) {
		return ""
	}
	suffix := "TH"
	if n < 2 || printed[n-2] != '1' {
		switch printed[n-1] {
		case '1':
			suffix = "ST"
		case '2':
			suffix = "ND"
		case '3':
			suffix = "RD"
		}
	}
	if lower {
		return strings.ToLower(suffix)
	}
	return suffix
}

func pad(v int64, width int, fm bool) string {
	s := strconv.FormatInt(abs64(v), 10)
	if !fm {
		for len(s) < width {
			s = "0" + s
		}
	}
	if v < 0 {
		s = "-" + s
	}
	return s
}

// padSigned is printf's %0*d: zeros up to width with the sign counted in
// it, as to_char pads an interval's days.
func padSigned(v int64, width int, fm bool) string {
	if v >= 0 || fm {
		return pad(v, width, fm)
	}
	return pad(v, width-1, false)
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// casedName prints a month or day name in the case of the pattern, padded
// to nine characters unless FM.
func casedName(name, k string, fm bool, width int) string {
	switch {
	case k == strings.ToUpper(k):
		name = strings.ToUpper(name)
	case k == strings.ToLower(k):
		name = strings.ToLower(name)
	}
	if !fm {
		for len(name) < width {
			name += " "
		}
	}
	return name
}

// formatDateTimePattern is to_char(timestamp, text) on the wall clock w;
// zone and offset are set for timestamptz.
func formatDateTimePattern(w time.Time, format string, zone *string, offset int) (any, error) {
	if isInfiniteTime(w) {
		return nil, nil
	}
	var sb strings.Builder
	y, mo, d := w.Date()
	h, mi, s := w.Clock()
	us := int64(w.Nanosecond() / 1000)
	year := int64(y)
	if year <= 0 {
		year = 1 - year
	}
	iy, iw := w.ISOWeek()
	if iy <= 0 {
		iy = 1 - iy // ISO years BC print as years BC do
	}
	var err error
	walkPattern(format, func(l string) { sb.WriteString(l) }, func(k string, fm bool) string {
		var sb strings.Builder
		switch strings.ToUpper(k) {
		case "FX":
		case "HH", "HH12":
			sb.WriteString(pad(int64((h+11)%12+1), 2, fm))
		case "HH24":
			sb.WriteString(pad(int64(h), 2, fm))
		case "MI":
			sb.WriteString(pad(int64(mi), 2, fm))
		case "SS":
			sb.WriteString(pad(int64(s), 2, fm))
		case "SSSS", "SSSSS":
			sb.WriteString(strconv.Itoa(h*3600 + mi*60 + s))
		case "MS", "FF3":
			sb.WriteString(pad(us/1000, 3, false))
		case "US", "FF6":
			sb.WriteString(pad(us, 6, false))
		case "FF1", "FF2", "FF4", "FF5":
			n := int(k[2] - '0')
			sb.WriteString(pad(us/int64(pow10(6-n)), n, false))
		case "AM", "PM", "A.M.", "P.M.":
			word := map[bool]string{false: "AM", true: "PM"}[h >= 12]
			if strings.Contains(k, ".") {
				word = word[:1] + "." + word[1:] + "."
			}
			if k == strings.ToLower(k) {
				word = strings.ToLower(word)
			}
			sb.WriteString(word)
		case "YYYY":
			sb.WriteString(pad(year, 4, fm))
		case "Y,YYY":
			sb.WriteString(strconv.FormatInt(year/1000, 10) + "," + pad(year%1000, 3, false))
		case "YYY":
			sb.WriteString(pad(year%1000, 3, fm))
		case "YY":
			sb.WriteString(pad(year%100, 2, fm))
		case "Y":
			sb.WriteString(pad(year%10, 1, fm))
		case "IYYY":
			sb.WriteString(pad(int64(iy), 4, fm))
		case "IYY":
			sb.WriteString(pad(int64(iy%1000), 3, fm))
		case "IY":
			sb.WriteString(pad(int64(iy%100), 2, fm))
		case "I":
			sb.WriteString(pad(int64(iy%10), 1, fm))
		case "MONTH":
			sb.WriteString(casedName(mo.String(), k, fm, 9))
		case "MON":
			sb.WriteString(casedName(mo.String()[:3], k, true, 0))
		case "MM":
			sb.WriteString(pad(int64(mo), 2, fm))
		case "DAY":
			sb.WriteString(casedName(w.Weekday().String(), k, fm, 9))
		case "DY":
			sb.WriteString(casedName(w.Weekday().String()[:3], k, true, 0))
		case "DDD":
			sb.WriteString(pad(int64(w.YearDay()), 3, fm))
		case "IDDD":
			sb.WriteString(pad(int64((iw-1)*7+(int(w.Weekday())+6)%7+1), 3, fm))
		case "DD":
			sb.WriteString(pad(int64(d), 2, fm))
		case "D":
			sb.WriteString(strconv.Itoa(int(w.Weekday()) + 1))
		case "ID":
			sb.WriteString(strconv.Itoa((int(w.Weekday())+6)%7 + 1))
		case "IW":
			sb.WriteString(pad(int64(iw), 2, fm))
		case "WW":
			sb.WriteString(pad(int64((w.YearDay()-1)/7+1), 2, fm))
		case "W":
			sb.WriteString(strconv.Itoa((d-1)/7 + 1))
		case "Q":
			sb.WriteString(strconv.Itoa((int(mo)-1)/3 + 1))
		case "CC":
			// Centuries BC count down from -1 (the first century BC).
			cc := (int64(y) + 99) / 100
			if y <= 0 {
				cc = -((99 - int64(y-1)) / 100)
			}
			sb.WriteString(pad(cc, 2, fm))
		case "J":
			sb.WriteString(strconv.FormatInt(floorDiv(timeToPG(time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)), usecPerDay)+2451545, 10))
		case "TZ":
			z := ""
			if zone != nil {
				z = *zone
			}
			if k == "tz" {
				z = strings.ToLower(z)
			}
			sb.WriteString(z)
		// A timestamp without time zone has offset 0 here, as in PostgreSQL.
		case "OF":
			sb.WriteString(offsetSign(offset) + pad(int64(abs(offset)/3600), 2, fm))
			if m := abs(offset) % 3600 / 60; m != 0 {
				sb.WriteString(":" + pad(int64(m), 2, false))
			}
		case "TZH":
			sb.WriteString(offsetSign(offset) + pad(int64(abs(offset)/3600), 2, false))
		case "TZM":
			sb.WriteString(pad(int64(abs(offset)%3600/60), 2, false))
		case "RM":
			sb.WriteString(casedName(romanMonths[mo-1], k, fm, 4))
		case "AD", "BC", "A.D.", "B.C.":
			era := map[bool]string{true: "AD", false: "BC"}[y > 0]
			if strings.Contains(k, ".") {
				era = era[:1] + "." + era[1:] + "."
			}
			if k == strings.ToLower(k) {
				era = strings.ToLower(era)
			}
			sb.WriteString(era)
		default:
			err = pgerror.Unsupported("to_char pattern " + k)
		}
		return sb.String()
	})
	if err != nil {
		return nil, err
	}
	return sb.String(), nil
}

// romanMonths are the months as the RM pattern writes them.
var romanMonths = [12]string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}

// offsetSign is the sign of a UTC offset in seconds east, + for zero.
func offsetSign(offset int) string {
	if offset < 0 {
		return "-"
	}
	return "+"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}

// formatIntervalPattern is to_char(interval, text): the time fields as
// counts, days and months as the interval holds them.
func formatIntervalPattern(iv pgtype.Interval, format string) (any, error) {
	us := iv.Microseconds
	h := us / usecPerHour
	us -= h * usecPerHour
	mi := us / usecPerMinute
	us -= mi * usecPerMinute
	s := us / usecPerSec
	us -= s * usecPerSec
	var sb strings.Builder
	var err error
	walkPattern(format, func(l string) { sb.WriteString(l) }, func(k string, fm bool) string {
		var sb strings.Builder
		switch strings.ToUpper(k) {
		case "FX":
		case "HH24":
			sb.WriteString(pad(h, 2, fm))
		case "HH", "HH12":
			sb.WriteString(pad((h+11)%12+1, 2, fm))
		case "MI":
			sb.WriteString(pad(mi, 2, fm))
		case "SS":
			sb.WriteString(pad(s, 2, fm))
		case "MS":
			sb.WriteString(pad(us/1000, 3, false))
		case "US":
			sb.WriteString(pad(us, 6, false))
		case "DD":
			sb.WriteString(padSigned(int64(iv.Days), 2, fm))
		case "DDD":
			// PostgreSQL's day of the year of an interval approximates its
			// span: 30 days a month.
			sb.WriteString(padSigned(int64(iv.Months)*30+int64(iv.Days), 3, fm))
		case "MM":
			sb.WriteString(pad(int64(iv.Months%12), 2, fm))
		case "YYYY":
			sb.WriteString(pad(int64(iv.Months/12), 4, fm))
		case "YY":
			sb.WriteString(pad(int64(iv.Months/12%100), 2, fm))
		default:
			err = pgerror.Unsupported("to_char pattern " + k + " for intervals")
		}
		return sb.String()
	})
	if err != nil {
		return nil, err
	}
	return sb.String(), nil
}

// isNamePattern reports whether to_char pattern k prints a month or day
// name, which the TM prefix affects.
func isNamePattern(k string) bool {
	switch strings.ToUpper(k) {
	case "MONTH", "MON", "DAY", "DY":
		return true
	}
	return false
}
