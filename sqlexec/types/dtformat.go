package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// This file is the format-picture scanner of PostgreSQL's formatting.c
// (parse_format with DCH_keywords and DCH_suff), shared by to_char and by
// the parsing direction (to_timestamp, to_date, jsonpath's .datetime()).

// dchKey identifies a date/time template pattern (formatting.c's DCH_poz).
// Spellings that behave alike share an id (ddd is DDD), those that print
// differently (Month, month) have their own.
type dchKey int

const (
	dchA_D dchKey = iota
	dchA_M
	dchAD
	dchAM
	dchB_C
	dchBC
	dchCC
	dchDAY
	dchDDD
	dchDD
	dchDY
	dchDay
	dchDy
	dchD
	dchFF1
	dchFF2
	dchFF3
	dchFF4
	dchFF5
	dchFF6
	dchFX
	dchHH24
	dchHH12
	dchHH
	dchIDDD
	dchID
	dchIW
	dchIYYY
	dchIYY
	dchIY
	dchI
	dchJ
	dchMI
	dchMM
	dchMONTH
	dchMON
	dchMS
	dchMonth
	dchMon
	dchOF
	dchP_M
	dchPM
	dchQ
	dchRM
	dchSSSS
	dchSS
	dchTZH
	dchTZM
	dchTZ
	dchUS
	dchWW
	dchW
	dchY_YYY
	dchYYYY
	dchYYY
	dchYY
	dchY
	dcha_d
	dcha_m
	dchad
	dcham
	dchb_c
	dchbc
	dchday
	dchdy
	dchmonth
	dchmon
	dchp_m
	dchpm
	dchrm
	dchtz
)

// fromCharMode is the date convention a pattern belongs to
// (FromCharDateMode): Gregorian and ISO week patterns do not mix.
type fromCharMode int

const (
	modeNone fromCharMode = iota
	modeGregorian
	modeISOWeek
)

// dchKeyword is one entry of the pattern table: its spelling, id, whether
// it reads digits, and its date convention.
type dchKeyword struct {
	name    string
	id      dchKey
	isDigit bool
	mode    fromCharMode
}

// dchKeywords is formatting.c's DCH_keywords in its order: patterns are
// matched case-sensitively, and among those starting with the same
// character the first that the text starts with wins (HH24 before HH).
var dchKeywords = []dchKeyword{
	{"A.D.", dchA_D, false, modeNone},
	{"A.M.", dchA_M, false, modeNone},
	{"AD", dchAD, false, modeNone},
	{"AM", dchAM, false, modeNone},
	{"B.C.", dchB_C, false, modeNone},
	{"BC", dchBC, false, modeNone},
	{"CC", dchCC, true, modeNone},
	{"DAY", dchDAY, false, modeNone},
	{"DDD", dchDDD, true, modeGregorian},
	{"DD", dchDD, true, modeGregorian},
	{"DY", dchDY, false, modeNone},
	{"Day", dchDay, false, modeNone},
	{"Dy", dchDy, false, modeNone},
	{"D", dchD, true, modeGregorian},
	{"FF1", dchFF1, true, modeNone},
	{"FF2", dchFF2, true, modeNone},
	{"FF3", dchFF3, true, modeNone},
	{"FF4", dchFF4, true, modeNone},
	{"FF5", dchFF5, true, modeNone},
	{"FF6", dchFF6, true, modeNone},
	{"FX", dchFX, false, modeNone},
	{"HH24", dchHH24, true, modeNone},
	{"HH12", dchHH12, true, modeNone},
	{"HH", dchHH, true, modeNone},
	{"IDDD", dchIDDD, true, modeISOWeek},
	{"ID", dchID, true, modeISOWeek},
	{"IW", dchIW, true, modeISOWeek},
	{"IYYY", dchIYYY, true, modeISOWeek},
	{"IYY", dchIYY, true, modeISOWeek},
	{"IY", dchIY, true, modeISOWeek},
	{"I", dchI, true, modeISOWeek},
	{"J", dchJ, true, modeNone},
	{"MI", dchMI, true, modeNone},
	{"MM", dchMM, true, modeGregorian},
	{"MONTH", dchMONTH, false, modeGregorian},
	{"MON", dchMON, false, modeGregorian},
	{"MS", dchMS, true, modeNone},
	{"Month", dchMonth, false, modeGregorian},
	{"Mon", dchMon, false, modeGregorian},
	{"OF", dchOF, false, modeNone},
	{"P.M.", dchP_M, false, modeNone},
	{"PM", dchPM, false, modeNone},
	{"Q", dchQ, true, modeNone},
	{"RM", dchRM, false, modeGregorian},
	{"SSSSS", dchSSSS, true, modeNone},
	{"SSSS", dchSSSS, true, modeNone},
	{"SS", dchSS, true, modeNone},
	{"TZH", dchTZH, false, modeNone},
	{"TZM", dchTZM, true, modeNone},
	{"TZ", dchTZ, false, modeNone},
	{"US", dchUS, true, modeNone},
	{"WW", dchWW, true, modeGregorian},
	{"W", dchW, true, modeGregorian},
	{"Y,YYY", dchY_YYY, true, modeGregorian},
	{"YYYY", dchYYYY, true, modeGregorian},
	{"YYY", dchYYY, true, modeGregorian},
	{"YY", dchYY, true, modeGregorian},
	{"Y", dchY, true, modeGregorian},
	{"a.d.", dcha_d, false, modeNone},
	{"a.m.", dcha_m, false, modeNone},
	{"ad", dchad, false, modeNone},
	{"am", dcham, false, modeNone},
	{"b.c.", dchb_c, false, modeNone},
	{"bc", dchbc, false, modeNone},
	{"cc", dchCC, true, modeNone},
	{"day", dchday, false, modeNone},
	{"ddd", dchDDD, true, modeGregorian},
	{"dd", dchDD, true, modeGregorian},
	{"dy", dchdy, false, modeNone},
	{"d", dchD, true, modeGregorian},
	{"ff1", dchFF1, true, modeNone},
	{"ff2", dchFF2, true, modeNone},
	{"ff3", dchFF3, true, modeNone},
	{"ff4", dchFF4, true, modeNone},
	{"ff5", dchFF5, true, modeNone},
	{"ff6", dchFF6, true, modeNone},
	{"fx", dchFX, false, modeNone},
	{"hh24", dchHH24, true, modeNone},
	{"hh12", dchHH12, true, modeNone},
	{"hh", dchHH, true, modeNone},
	{"iddd", dchIDDD, true, modeISOWeek},
	{"id", dchID, true, modeISOWeek},
	{"iw", dchIW, true, modeISOWeek},
	{"iyyy", dchIYYY, true, modeISOWeek},
	{"iyy", dchIYY, true, modeISOWeek},
	{"iy", dchIY, true, modeISOWeek},
	{"i", dchI, true, modeISOWeek},
	{"j", dchJ, true, modeNone},
	{"mi", dchMI, true, modeNone},
	{"mm", dchMM, true, modeGregorian},
	{"month", dchmonth, false, modeGregorian},
	{"mon", dchmon, false, modeGregorian},
	{"ms", dchMS, true, modeNone},
	{"of", dchOF, false, modeNone},
	{"p.m.", dchp_m, false, modeNone},
	{"pm", dchpm, false, modeNone},
	{"q", dchQ, true, modeNone},
	{"rm", dchrm, false, modeGregorian},
	{"sssss", dchSSSS, true, modeNone},
	{"ssss", dchSSSS, true, modeNone},
	{"ss", dchSS, true, modeNone},
	{"tzh", dchTZH, false, modeNone},
	{"tzm", dchTZM, true, modeNone},
	{"tz", dchtz, false, modeNone},
	{"us", dchUS, true, modeNone},
	{"ww", dchWW, true, modeGregorian},
	{"w", dchW, true, modeGregorian},
	{"y,yyy", dchY_YYY, true, modeGregorian},
	{"yyyy", dchYYYY, true, modeGregorian},
	{"yyy", dchYYY, true, modeGregorian},
	{"yy", dchYY, true, modeGregorian},
	{"y", dchY, true, modeGregorian},
}

// dchIndex is the position in dchKeywords of the first pattern starting
// with each byte, -1 for none (DCH_index).
var dchIndex = func() (idx [256]int) {
	for i := range idx {
		idx[i] = -1
	}
	for i := len(dchKeywords) - 1; i >= 0; i-- {
		idx[dchKeywords[i].name[0]] = i
	}
	return idx
}()

// matchDCHKeyword is index_seq_search: the pattern s starts with, or nil.
func matchDCHKeyword(s string) *dchKeyword {
	if s == "" || s[0] <= ' ' || s[0] >= '~' {
		return nil
	}
	i := dchIndex[s[0]]
	if i < 0 {
		return nil
	}
	for ; i < len(dchKeywords) && dchKeywords[i].name[0] == s[0]; i++ {
		k := &dchKeywords[i]
		if len(s) >= len(k.name) && s[:len(k.name)] == k.name {
			return k
		}
	}
	return nil
}

// Pattern modifiers (DCH_suff): FM and TM before a pattern, TH, th and SP
// after it.
const (
	sufFM = 1 << iota
	sufTH
	sufth
	sufSP
	sufTM
)

// fmtNodeKind is a FormatNode's type.
type fmtNodeKind int

const (
	nodeAction fmtNodeKind = iota
	nodeChar
	nodeSeparator
	nodeSpace
)

// fmtNode is one element of a parsed template: a pattern with its
// modifiers, or one character of literal text (a separator, a space, or
// any other character, quoted text included).
type fmtNode struct {
	kind   fmtNodeKind
	key    *dchKeyword
	text   string
	suffix int
}

// isSeparatorChar is is_separator_char: printable ASCII that is neither a
// letter nor a digit.
func isSeparatorChar(c byte) bool {
	return c > 0x20 && c < 0x7f && !isAlnum(c)
}

// cIsSpace is isspace in the C locale.
func cIsSpace(c byte) bool {
	return c == ' ' || c >= '\t' && c <= '\r'
}

// mbLen is pg_mblen for UTF-8: the length its lead byte announces, at
// most what remains of s.
func mbLen(s string) int {
	if s == "" {
		return 0
	}
	n := 1
	switch c := s[0]; {
	case c&0xe0 == 0xc0:
		n = 2
	case c&0xf0 == 0xe0:
		n = 3
	case c&0xf8 == 0xf0:
		n = 4
	}
	return min(n, len(s))
}

// parseDCHFormat is parse_format for date/time templates. std is the
// standard mode of jsonpath's .datetime(template), where the only
// separators outside double quotes are - . / , ' : ; and space.
func parseDCHFormat(format string, std bool) ([]fmtNode, error) {
	var nodes []fmtNode
	for s := format; s != ""; {
		suffix := 0
		switch {
		case len(s) >= 2 && (s[:2] == "FM" || s[:2] == "fm"):
			suffix = sufFM
			s = s[2:]
		case len(s) >= 2 && (s[:2] == "TM" || s[:2] == "tm"):
			suffix = sufTM
			s = s[2:]
		}
		if k := matchDCHKeyword(s); k != nil {
			s = s[len(k.name):]
			if len(s) >= 2 {
				switch s[:2] {
				case "TH":
					suffix |= sufTH
					s = s[2:]
				case "th":
					suffix |= sufth
					s = s[2:]
				case "SP":
					suffix |= sufSP
					s = s[2:]
				}
			}
			nodes = append(nodes, fmtNode{kind: nodeAction, key: k, suffix: suffix})
			continue
		}
		if s == "" {
			break
		}
		switch {
		case std && s[0] != '"':
			switch s[0] {
			case '-', '.', '/', ',', '\'', ':', ';':
				nodes = append(nodes, fmtNode{kind: nodeSeparator, text: s[:1]})
			case ' ':
				nodes = append(nodes, fmtNode{kind: nodeSpace, text: s[:1]})
			default:
				return nil, pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid datetime format separator: \"%s\"", s[:mbLen(s)])
			}
			s = s[1:]
		case s[0] == '"':
			s = s[1:]
			for s != "" {
				if s[0] == '"' {
					s = s[1:]
					break
				}
				if s[0] == '\\' && len(s) > 1 {
					s = s[1:]
				}
				n := mbLen(s)
				nodes = append(nodes, fmtNode{kind: nodeChar, text: s[:n]})
				s = s[n:]
			}
		default:
			if s[0] == '\\' && len(s) > 1 && s[1] == '"' {
				s = s[1:]
			}
			n := mbLen(s)
			kind := nodeChar
			switch {
			case isSeparatorChar(s[0]):
				kind = nodeSeparator
			case cIsSpace(s[0]):
				kind = nodeSpace
			}
			nodes = append(nodes, fmtNode{kind: kind, text: s[:n]})
			s = s[n:]
		}
	}
	return nodes, nil
}
