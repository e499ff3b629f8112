package types

import (
	"math"
	"strings"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// This file is the parsing direction of PostgreSQL 15's formatting.c:
// DCH_from_char reads a string through a template parsed by
// parseDCHFormat into the fields of a tmFromChar, and doToTimestamp
// (do_to_timestamp) turns them into a date and time, for to_timestamp,
// to_date and jsonpath's .datetime().

func init() {
	addFunc("to_timestamp", Stable, Timestamptz, func(env *Env, a []any) (any, error) {
		return toTimestamp(env, a[0].(string), a[1].(string))
	}, Text, Text)
	addFunc("to_date", Stable, Date, func(_ *Env, a []any) (any, error) {
		return toDate(a[0].(string), a[1].(string))
	}, Text, Text)
}

// tmFromChar is formatting.c's TmFromChar: each field as read, zero when
// absent. The fields are C ints, and PostgreSQL's arithmetic on them wraps
// as int32 arithmetic does.
type tmFromChar struct {
	mode                                 fromCharMode
	hh, pm, mi, ss, ssss, d, dd, ddd, mm int32
	ms, year, bc, ww, w, cc, j, us, yysz int32
	tzsign, tzh, tzm, ff                 int32
	clock12                              bool

	// The reading state: the template, the input and the position in it,
	// standard (jsonpath) and FX mode, and the characters skipped beyond
	// what the template asked for.
	nodes     []fmtNode
	in        string
	s         int
	std, fx   bool
	extraSkip int
}

// Month and day names as from_char reads them, case-insensitively.
var (
	monthsFull   = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	monthsAbbrev = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	daysFull     = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	daysAbbrev   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	ampmShort    = []string{"am", "pm", "AM", "PM"}
	ampmLong     = []string{"a.m.", "p.m.", "A.M.", "P.M."}
	adbcShort    = []string{"ad", "bc", "AD", "BC"}
	adbcLong     = []string{"a.d.", "b.c.", "A.D.", "B.C."}
	rmMonthsLow  = []string{"xii", "xi", "x", "ix", "viii", "vii", "vi", "v", "iv", "iii", "ii", "i"}
)

// invalidFormat is a 22007 invalid_datetime_format error.
func invalidFormat(format string, args ...any) *pgerror.Error {
	return pgerror.Newf(pgerror.InvalidDatetimeFormat, format, args...)
}

// setMode is from_char_set_mode: Gregorian and ISO week patterns do not mix.
func (t *tmFromChar) setMode(m fromCharMode) error {
	if m == modeNone {
		return nil
	}
	if t.mode == modeNone {
		t.mode = m
	} else if t.mode != m {
		return invalidFormat("invalid combination of date conventions").
			WithHint("Do not mix Gregorian and ISO week date conventions in a formatting template.")
	}
	return nil
}

// setInt is from_char_set_int: a field read twice must read the same.
func setInt(dest *int32, value int32, n *fmtNode) error {
	if *dest != 0 && *dest != value {
		return invalidFormat("conflicting values for \"%s\" field in formatting string", n.key.name).
			WithDetail("This value contradicts a previous setting for the same field type.")
	}
	*dest = value
	return nil
}

// isNextSeparator is is_next_separator: whether what follows node i
// cannot be a digit, so that the number at i may be read to its end.
func isNextSeparator(nodes []fmtNode, i int) bool {
	if nodes[i].kind == nodeAction && nodes[i].suffix&(sufTH|sufth) != 0 {
		return true
	}
	if i+1 >= len(nodes) {
		return true
	}
	next := nodes[i+1]
	if next.kind == nodeAction {
		return !next.key.isDigit
	}
	return !(len(next.text) == 1 && isDigit(next.text[0]))
}

// cStrtol is strtol(s, &end, 10): leading white space, a sign, digits.
// It returns the value (clamped on overflow), the bytes consumed (0 when
// there are no digits) and whether it overflowed a 64-bit long.
func cStrtol(s string) (v int64, n int, overflow bool) {
	i := 0
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var u uint64
	for i < len(s) && isDigit(s[i]) {
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
		} else {
			u = u*10 + d
		}
		i++
	}
	if i == start {
		return 0, 0, false
	}
	switch {
	case overflow || !neg && u > math.MaxInt64 || neg && u > 1<<63:
		overflow = true
		if neg {
			return math.MinInt64, i, true
		}
		return math.MaxInt64, i, true
	case neg:
		return -int64(u), i, false
	}
	return int64(u), i, false
}

// parseIntLen is from_char_parse_int_len: the integer of the field at node
// i, at most length characters unless the field is FM or followed by a
// non-digit, stored in dest (when not nil). It returns the characters
// consumed, leading white space included.
func (t *tmFromChar) parseIntLen(dest *int32, length int, i int) (int, error) {
	n := &t.nodes[i]
	init := t.s
	for t.s < len(t.in) && cIsSpace(t.in[t.s]) {
		t.s++
	}
	rest := t.in[t.s:]
	copied := rest
	if len(copied) > length {
		copied = copied[:length]
	}
	var result int64
	overflow := false
	if n.suffix&sufFM != 0 || isNextSeparator(t.nodes, i) {
		v, used, over := cStrtol(t.in[init:])
		result, overflow = v, over
		t.s = init + used
	} else {
		if len(rest) < length {
			return 0, invalidFormat("source string too short for \"%s\" formatting field", n.key.name).
				WithDetail("Field requires %d characters, but only %d remain.", length, len(rest)).
				WithHint("If your source string is not fixed-width, try using the \"FM\" modifier.")
		}
		v, used, _ := cStrtol(copied)
		if used > 0 && used < length {
			return 0, invalidFormat("invalid value \"%s\" for \"%s\"", copied, n.key.name).
				WithDetail("Field requires %d characters, but only %d could be parsed.", length, used).
				WithHint("If your source string is not fixed-width, try using the \"FM\" modifier.")
		}
		result = v
		t.s += used
	}
	if t.s == init {
		return 0, invalidFormat("invalid value \"%s\" for \"%s\"", copied, n.key.name).
			WithDetail("Value must be an integer.")
	}
	if overflow || result < math.MinInt32 || result > math.MaxInt32 {
		return 0, pgerror.Newf(pgerror.DatetimeFieldOverflow, "value for \"%s\" in source string is out of range", n.key.name).
			WithDetail("Value must be in the range %d to %d.", math.MinInt32, math.MaxInt32)
	}
	if dest != nil {
		if err := setInt(dest, int32(result), n); err != nil {
			return 0, err
		}
	}
	return t.s - init, nil
}

// parseInt is from_char_parse_int: a field as long as its pattern.
func (t *tmFromChar) parseInt(dest *int32, i int) (int, error) {
	return t.parseIntLen(dest, len(t.nodes[i].key.name), i)
}

// seqSearch is from_char_seq_search: the index of the first of words that
// the input starts with, case-insensitively.
func (t *tmFromChar) seqSearch(words []string, i int) (int32, error) {
	rest := t.in[t.s:]
	for idx, w := range words {
		if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
			t.s += len(w)
			return int32(idx), nil
		}
	}
	shown := rest
	if j := strings.IndexAny(shown, " \t\n\r\f"); j >= 0 {
		shown = shown[:j]
	}
	return 0, invalidFormat("invalid value \"%s\" for \"%s\"", shown, t.nodes[i].key.name).
		WithDetail("The given value did not match any of the allowed values for this field.")
}

// skipTH is SKIP_THth: a TH or th suffix skips two characters.
func (t *tmFromChar) skipTH(i int) {
	if t.nodes[i].suffix&(sufTH|sufth) != 0 {
		for range 2 {
			t.s += mbLen(t.in[t.s:])
		}
	}
}

// adjustPartialYear is adjust_partial_year_to_2020.
func adjustPartialYear(year int32) int32 {
	switch {
	case year < 70:
		return year + 2000
	case year < 100:
		return year + 1900
	case year < 520:
		return year + 2000
	case year < 1000:
		return year + 1000
	}
	return year
}

// fromChar is DCH_from_char: it reads t.in through t.nodes.
func (t *tmFromChar) fromChar() error {
	t.fx = t.std
	i := 0
	for ; i < len(t.nodes) && t.s < len(t.in); i++ {
		n := &t.nodes[i]
		if !t.fx && (n.kind != nodeAction || n.key.id != dchFX) && (n.kind == nodeAction || i == 0) {
			for t.s < len(t.in) && cIsSpace(t.in[t.s]) {
				t.s++
				t.extraSkip++
			}
		}
		if n.kind == nodeSpace || n.kind == nodeSeparator {
			switch {
			case t.std:
				if t.s < len(t.in) && t.in[t.s] == n.text[0] {
					t.s++
				} else {
					return invalidFormat("unmatched format separator \"%c\"", n.text[0])
				}
			case !t.fx:
				t.extraSkip--
				if t.s < len(t.in) && (cIsSpace(t.in[t.s]) || isSeparatorChar(t.in[t.s])) {
					t.s++
					t.extraSkip++
				}
			default:
				t.s += mbLen(t.in[t.s:])
			}
			continue
		}
		if n.kind != nodeAction {
			if !t.fx {
				if t.extraSkip > 0 {
					t.extraSkip--
				} else {
					t.s += mbLen(t.in[t.s:])
				}
			} else {
				l := mbLen(t.in[t.s:])
				if t.std && n.kind == nodeChar && t.in[t.s:t.s+l] != n.text {
					return invalidFormat("unmatched format character \"%s\"", n.text)
				}
				t.s += l
			}
			continue
		}
		if err := t.setMode(n.key.mode); err != nil {
			return err
		}
		if err := t.field(i); err != nil {
			return err
		}
		if !t.fx {
			t.extraSkip = 0
			for t.s < len(t.in) && cIsSpace(t.in[t.s]) {
				t.s++
				t.extraSkip++
			}
		}
	}
	if t.std {
		if i < len(t.nodes) {
			return invalidFormat("input string is too short for datetime format")
		}
		for t.s < len(t.in) && cIsSpace(t.in[t.s]) {
			t.s++
		}
		if t.s < len(t.in) {
			return invalidFormat("trailing characters remain in input string after datetime format")
		}
	}
	return nil
}

// field reads the pattern at node i.
func (t *tmFromChar) field(i int) error {
	n := &t.nodes[i]
	var err error
	var v int32
	var l int
	switch n.key.id {
	case dchFX:
		t.fx = true
	case dchA_M, dchP_M, dcha_m, dchp_m, dchAM, dchPM, dcham, dchpm:
		words := ampmShort
		if strings.Contains(n.key.name, ".") {
			words = ampmLong
		}
		if v, err = t.seqSearch(words, i); err != nil {
			return err
		}
		if err = setInt(&t.pm, v%2, n); err != nil {
			return err
		}
		t.clock12 = true
	case dchHH, dchHH12:
		if _, err = t.parseIntLen(&t.hh, 2, i); err != nil {
			return err
		}
		t.clock12 = true
		t.skipTH(i)
	case dchHH24:
		if _, err = t.parseIntLen(&t.hh, 2, i); err != nil {
			return err
		}
		t.skipTH(i)
	case dchMI:
		_, err = t.parseInt(&t.mi, i)
		t.skipTH(i)
	case dchSS:
		_, err = t.parseInt(&t.ss, i)
		t.skipTH(i)
	case dchMS:
		if l, err = t.parseIntLen(&t.ms, 3, i); err != nil {
			return err
		}
		switch l {
		case 1:
			t.ms *= 100
		case 2:
			t.ms *= 10
		}
		t.skipTH(i)
	case dchFF1, dchFF2, dchFF3, dchFF4, dchFF5, dchFF6, dchUS:
		length := 6
		if n.key.id != dchUS {
			t.ff = int32(n.key.id-dchFF1) + 1
			length = int(t.ff)
		}
		if l, err = t.parseIntLen(&t.us, length, i); err != nil {
			return err
		}
		if l >= 1 && l <= 5 {
			t.us *= int32(pow10(6 - l))
		}
		t.skipTH(i)
	case dchSSSS:
		_, err = t.parseInt(&t.ssss, i)
		t.skipTH(i)
	case dchTZ, dchtz, dchOF:
		return pgerror.Newf(pgerror.FeatureNotSupported, "formatting field \"%s\" is only supported in to_char", n.key.name)
	case dchTZH:
		// A minus that the loose matching took for a separator is the
		// sign of TZH.
		if t.s < len(t.in) && (t.in[t.s] == '+' || t.in[t.s] == '-' || t.in[t.s] == ' ') {
			t.tzsign = 1
			if t.in[t.s] == '-' {
				t.tzsign = -1
			}
			t.s++
		} else if t.extraSkip > 0 && t.s > 0 && t.in[t.s-1] == '-' {
			t.tzsign = -1
		} else {
			t.tzsign = 1
		}
		_, err = t.parseIntLen(&t.tzh, 2, i)
	case dchTZM:
		if t.tzsign == 0 {
			t.tzsign = 1
		}
		_, err = t.parseIntLen(&t.tzm, 2, i)
	case dchA_D, dchB_C, dcha_d, dchb_c, dchAD, dchBC, dchad, dchbc:
		words := adbcShort
		if strings.Contains(n.key.name, ".") {
			words = adbcLong
		}
		if v, err = t.seqSearch(words, i); err != nil {
			return err
		}
		err = setInt(&t.bc, v%2, n)
	case dchMONTH, dchMonth, dchmonth:
		if v, err = t.seqSearch(monthsFull, i); err != nil {
			return err
		}
		err = setInt(&t.mm, v+1, n)
	case dchMON, dchMon, dchmon:
		if v, err = t.seqSearch(monthsAbbrev, i); err != nil {
			return err
		}
		err = setInt(&t.mm, v+1, n)
	case dchMM:
		_, err = t.parseInt(&t.mm, i)
		t.skipTH(i)
	case dchDAY, dchDay, dchday:
		if v, err = t.seqSearch(daysFull, i); err != nil {
			return err
		}
		if err = setInt(&t.d, v, n); err != nil {
			return err
		}
		t.d++
	case dchDY, dchDy, dchdy:
		if v, err = t.seqSearch(daysAbbrev, i); err != nil {
			return err
		}
		if err = setInt(&t.d, v, n); err != nil {
			return err
		}
		t.d++
	case dchDDD:
		_, err = t.parseInt(&t.ddd, i)
		t.skipTH(i)
	case dchIDDD:
		_, err = t.parseIntLen(&t.ddd, 3, i)
		t.skipTH(i)
	case dchDD:
		_, err = t.parseInt(&t.dd, i)
		t.skipTH(i)
	case dchD:
		_, err = t.parseInt(&t.d, i)
		t.skipTH(i)
	case dchID:
		if _, err = t.parseIntLen(&t.d, 1, i); err != nil {
			return err
		}
		// Sunday is 1 in Gregorian numbering, 7 in ISO's.
		if t.d++; t.d > 7 {
			t.d = 1
		}
		t.skipTH(i)
	case dchWW, dchIW:
		_, err = t.parseInt(&t.ww, i)
		t.skipTH(i)
	case dchQ:
		// Q is read but not used, as PostgreSQL does.
		_, err = t.parseInt(nil, i)
		t.skipTH(i)
	case dchCC:
		_, err = t.parseInt(&t.cc, i)
		t.skipTH(i)
	case dchY_YYY:
		millennia, years, used, ok := scanYCommaYYY(t.in[t.s:])
		if !ok {
			return invalidFormat("invalid input string for \"Y,YYY\"")
		}
		if err = setInt(&t.year, years+millennia*1000, n); err != nil {
			return err
		}
		t.yysz = 4
		t.s += used
		t.skipTH(i)
	case dchYYYY, dchIYYY:
		if _, err = t.parseInt(&t.year, i); err != nil {
			return err
		}
		t.yysz = 4
		t.skipTH(i)
	case dchYYY, dchIYY, dchYY, dchIY, dchY, dchI:
		if l, err = t.parseInt(&t.year, i); err != nil {
			return err
		}
		if l < 4 {
			t.year = adjustPartialYear(t.year)
		}
		t.yysz = int32(len(n.key.name))
		t.skipTH(i)
	case dchRM, dchrm:
		if v, err = t.seqSearch(rmMonthsLow, i); err != nil {
			return err
		}
		err = setInt(&t.mm, 12-v, n)
	case dchW:
		_, err = t.parseInt(&t.w, i)
		t.skipTH(i)
	case dchJ:
		_, err = t.parseInt(&t.j, i)
		t.skipTH(i)
	}
	return err
}

// scanYCommaYYY is sscanf(s, "%d,%03d%n"): an integer, a comma and up to
// three more characters of an integer, and the bytes they took.
func scanYCommaYYY(s string) (millennia, years int32, used int, ok bool) {
	v, n, _ := cStrtol(s)
	if n == 0 || n >= len(s) || s[n] != ',' {
		return 0, 0, 0, false
	}
	millennia = int32(v)
	rest := s[n+1:]
	i := 0
	for i < len(rest) && cIsSpace(rest[i]) {
		i++
	}
	field := rest[i:]
	if len(field) > 3 {
		field = field[:3]
	}
	w, m, _ := cStrtol(field)
	if m == 0 {
		return 0, 0, 0, false
	}
	return millennia, int32(w), n + 1 + i + m, true
}

// dtParsed is what doToTimestamp makes of an input: PostgreSQL's pg_tm
// fields (the year astronomical, 0 being 1 BC), the fraction in
// microseconds, the precision of an FFn pattern (0 when none), and the
// zone that TZH and TZM gave, in seconds east.
type dtParsed struct {
	year, mon, mday, hour, min, sec, fsec int32
	fprec                                 int
	hasTZ                                 bool
	tzEast                                int
}

// The date fields ValidateDate checks (DTK_M(YEAR) and so on).
const (
	vdYear = 1 << iota
	vdMonth
	vdDay
	vdDate = vdYear | vdMonth | vdDay
)

// doToTimestamp is do_to_timestamp: input read through format, std for
// jsonpath's standard mode.
func doToTimestamp(input, format string, std bool) (dtParsed, error) {
	nodes, err := parseDCHFormat(format, std)
	if err != nil {
		return dtParsed{}, err
	}
	return readTemplate(input, nodes, format != "", std)
}

// readTemplate is do_to_timestamp after the template is parsed: an empty
// template (hasFormat false) reads nothing.
func readTemplate(input string, nodes []fmtNode, hasFormat, std bool) (dtParsed, error) {
	tm := dtParsed{mon: 1, mday: 1}
	t := &tmFromChar{in: input, std: std, nodes: nodes}
	if hasFormat {
		if err := t.fromChar(); err != nil {
			return tm, err
		}
	}
	fieldOverflow := func() (dtParsed, error) {
		return tm, dtError(dtFieldOverflow, "timestamp", input)
	}
	if t.ssss != 0 {
		x := t.ssss
		tm.hour = x / 3600
		x %= 3600
		tm.min = x / 60
		tm.sec = x % 60
	}
	if t.ss != 0 {
		tm.sec = t.ss
	}
	if t.mi != 0 {
		tm.min = t.mi
	}
	if t.hh != 0 {
		tm.hour = t.hh
	}
	if t.clock12 {
		if tm.hour < 1 || tm.hour > 12 {
			return tm, invalidFormat("hour \"%d\" is invalid for the 12-hour clock", tm.hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		if t.pm != 0 && tm.hour < 12 {
			tm.hour += 12
		} else if t.pm == 0 && tm.hour == 12 {
			tm.hour = 0
		}
	}
	fmask := 0
	switch {
	case t.year != 0:
		if t.cc != 0 && t.yysz <= 2 {
			// YY in century CC: the 21st century runs from 2001 to 2100,
			// the 6th century BC from 600 BC to 501 BC.
			if t.bc != 0 {
				t.cc = -t.cc
			}
			tm.year = t.year % 100
			switch {
			case tm.year != 0 && t.cc >= 0:
				tm.year += (t.cc - 1) * 100
			case tm.year != 0:
				tm.year = (t.cc+1)*100 - tm.year + 1
			case t.cc >= 0:
				tm.year = t.cc * 100
			default:
				tm.year = t.cc*100 + 1
			}
		} else {
			tm.year = t.year
			if t.bc != 0 {
				tm.year = -tm.year
			}
			if tm.year < 0 {
				tm.year++
			}
		}
		fmask |= vdYear
	case t.cc != 0:
		// The first year of the century.
		if t.bc != 0 {
			t.cc = -t.cc
		}
		if t.cc >= 0 {
			tm.year = (t.cc-1)*100 + 1
		} else {
			tm.year = t.cc*100 + 1
		}
		fmask |= vdYear
	}
	if t.j != 0 {
		tm.year, tm.mon, tm.mday = j2date(t.j)
		fmask |= vdDate
	}
	if t.ww != 0 {
		if t.mode == modeISOWeek {
			// Without a day of the week, the Monday of the ISO week.
			jd := isoWeekToJulian(tm.year, t.ww)
			if t.d > 1 {
				jd += t.d - 2
			} else if t.d != 0 {
				jd += 6
			}
			tm.year, tm.mon, tm.mday = j2date(jd)
			fmask |= vdDate
		} else {
			t.ddd = (t.ww-1)*7 + 1
		}
	}
	if t.w != 0 {
		t.dd = (t.w-1)*7 + 1
	}
	if t.dd != 0 {
		tm.mday = t.dd
		fmask |= vdDay
	}
	if t.mm != 0 {
		tm.mon = t.mm
		fmask |= vdMonth
	}
	if t.ddd != 0 && (tm.mon <= 1 || tm.mday <= 1) {
		if tm.year == 0 && t.bc == 0 {
			return tm, invalidFormat("cannot calculate day of year without year information")
		}
		if t.mode == modeISOWeek {
			tm.year, tm.mon, tm.mday = j2date(isoWeekToJulian(tm.year, 1) - 1 + t.ddd)
			fmask |= vdDate
		} else {
			ysum := [13]int32{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365}
			if isLeap(tm.year) {
				ysum = [13]int32{0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}
			}
			i := 1
			for ; i <= 12 && t.ddd > ysum[i]; i++ {
			}
			if tm.mon <= 1 {
				tm.mon = int32(i)
			}
			if tm.mday <= 1 {
				tm.mday = t.ddd - ysum[i-1]
			}
			fmask |= vdMonth | vdDay
		}
	}
	if t.ms != 0 {
		tm.fsec += t.ms * 1000
	}
	if t.us != 0 {
		tm.fsec += t.us
	}
	tm.fprec = int(t.ff)
	// ValidateDate, the year already made astronomical.
	if fmask&vdMonth != 0 && (tm.mon < 1 || tm.mon > 12) ||
		fmask&vdDay != 0 && (tm.mday < 1 || tm.mday > 31) ||
		fmask&vdDate == vdDate && tm.mday > daysInMonth(tm.year, tm.mon) {
		return fieldOverflow()
	}
	if tm.hour < 0 || tm.hour >= 24 || tm.min < 0 || tm.min >= 60 || tm.sec < 0 || tm.sec >= 60 ||
		tm.fsec < 0 || tm.fsec >= 1_000_000 {
		return fieldOverflow()
	}
	if t.tzsign != 0 {
		if t.tzh < 0 || t.tzh > 15 || t.tzm < 0 || t.tzm >= 60 {
			return tm, dtError(dtTZDispOverflow, "timestamp", input)
		}
		tm.hasTZ = true
		tm.tzEast = int(t.tzh*60+t.tzm) * 60
		if t.tzsign < 0 {
			tm.tzEast = -tm.tzEast
		}
	}
	return tm, nil
}

func isLeap(y int32) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// daysInMonth is day_tab for a month from 1 to 12.
func daysInMonth(y, m int32) int32 {
	days := [12]int32{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	if m == 2 && isLeap(y) {
		return 29
	}
	return days[m-1]
}

// date2j is PostgreSQL's date2j: the julian day of a proleptic Gregorian
// date, in int32 arithmetic as PostgreSQL computes it.
func date2j(year, month, day int32) int32 {
	if month > 2 {
		month++
		year += 4800
	} else {
		month += 13
		year += 4799
	}
	century := year / 100
	julian := year*365 - 32167
	julian += year/4 - century + century/4
	julian += 7834*month/256 + day
	return julian
}

// j2date is PostgreSQL's j2date, in its unsigned arithmetic.
func j2date(jd int32) (year, month, day int32) {
	julian := uint32(jd)
	julian += 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := int32(julian * 4 / 1461)
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += int32(quad * 4)
	year = y - 4800
	quad = julian * 2141 / 65536
	day = int32(julian - 7834*quad/256)
	month = int32((quad+10)%12 + 1)
	return year, month, day
}

// isoWeekToJulian is isoweek2j: the julian day of the Monday of ISO week
// week of ISO year year.
func isoWeekToJulian(year, week int32) int32 {
	day4 := date2j(year, 1, 4)
	day0 := (day4 - 1 + 1) % 7
	if day0 < 0 {
		day0 += 7
	}
	return (week-1)*7 + (day4 - day0)
}

// isValidJulian is IS_VALID_JULIAN: from 4714-11-01 BC to 5874898-06 AD.
func isValidJulian(y, m int32) bool {
	return (y > -4713 || y == -4713 && m >= 11) && (y < 5874898 || y == 5874898 && m < 6)
}

// Timestamp limits in microseconds from 2000-01-01 (MIN_TIMESTAMP and
// END_TIMESTAMP), and the julian day of 2000-01-01.
const (
	minTimestampPG = -211813488000000000
	endTimestampPG = 9223371331200000000
	pgEpochJulian  = 2451545
)

// localMicros is tm2timestamp without a zone: the wall clock in
// microseconds from 2000-01-01, false when out of range.
func (tm dtParsed) localMicros() (int64, bool) {
	if !isValidJulian(tm.year, tm.mon) {
		return 0, false
	}
	date := int64(date2j(tm.year, tm.mon, tm.mday) - pgEpochJulian)
	clock := ((int64(tm.hour)*60+int64(tm.min))*60+int64(tm.sec))*1_000_000 + int64(tm.fsec)
	v := date*usecPerDay + clock
	if (v-clock)/usecPerDay != date || v < 0 && date > 0 || v > 0 && date < -1 {
		return 0, false
	}
	return v, true
}

// toTimestamp is to_timestamp(text, text): the wall clock read is in the
// zone TZH and TZM gave, else in the session's.
func toTimestamp(env *Env, input, format string) (any, error) {
	tm, err := doToTimestamp(input, format, false)
	if err != nil {
		return nil, err
	}
	local, ok := tm.localMicros()
	if !ok {
		return nil, errTimestampRange()
	}
	var v int64
	if tm.hasTZ {
		v = local - int64(tm.tzEast)*1_000_000
	} else {
		v = timeToPG(fromWallClock(pgToTime(local), env.location()))
	}
	if v < minTimestampPG || v >= endTimestampPG {
		return nil, errTimestampRange()
	}
	if tm.fprec == 0 {
		return pgToTime(v), nil
	}
	return roundTimestamp(Type{OidTimestamptz, int32(tm.fprec)}, pgToTime(v)), nil
}

// toDate is to_date(text, text).
func toDate(input, format string) (any, error) {
	tm, err := doToTimestamp(input, format, false)
	if err != nil {
		return nil, err
	}
	days, err := julianDays(tm, input)
	if err != nil {
		return nil, err
	}
	d := time.Unix(days*86400+pgEpochUnix, 0).UTC()
	if !d.Before(InfinityTime) {
		return nil, pgerror.Unsupported("a date after 294276 AD")
	}
	return d, nil
}

// julianDays is the date of tm's year, month and day in days from
// 2000-01-01, with to_date's range errors.
func julianDays(tm dtParsed, input string) (int64, error) {
	outOfRange := pgerror.Newf(pgerror.DatetimeFieldOverflow, "date out of range: \"%s\"", input)
	if !isValidJulian(tm.year, tm.mon) {
		return 0, outOfRange
	}
	days := date2j(tm.year, tm.mon, tm.mday) - pgEpochJulian
	if days < -pgEpochJulian || days >= 2147483494-pgEpochJulian {
		return 0, outOfRange
	}
	return int64(days), nil
}
