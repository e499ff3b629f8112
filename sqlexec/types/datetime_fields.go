package types

import (
	"strings"
)

// Date/time input is read in two passes, as PostgreSQL reads it: the text
// is split into typed fields (splitDateTime), then each field is decoded in
// the context of the fields already seen (dtDecoder, datetime_decode.go).
// The rules, not only the accepted forms, follow PostgreSQL's datetime
// parser, so that an ambiguous or malformed input is read the same way or
// rejected with the same SQLSTATE.

// dtKind is the class of one field of a date/time literal.
type dtKind int

const (
	dtkNumber  dtKind = iota // digits, possibly with a decimal point (also yy.ddd)
	dtkDate                  // digits with two delimiters, digits and text, or a zone name
	dtkTime                  // digits with colons and possibly a decimal point
	dtkString                // letters only: months, days, keywords, zone names
	dtkSpecial               // a sign followed by letters (-infinity)
	dtkTZ                    // a sign followed by digits: a numeric zone offset
)

// dtField is one field of a date/time literal, lower-cased where letters
// are case-insensitive.
type dtField struct {
	text string
	kind dtKind
}

// dtErr is the reason a literal is rejected; err turns it into the error
// PostgreSQL reports.
type dtErr int

const (
	dtBadFormat       dtErr = iota + 1 // 22007 invalid input syntax
	dtFieldOverflow                    // 22008 field value out of range
	dtMDFieldOverflow                  // 22008, with a hint about DateStyle
	dtTZDispOverflow                   // 22009 time zone displacement out of range
)

// maxDateFields and maxDateBuffer bound the literal as PostgreSQL's work
// buffer does: more fields, or longer fields, are a syntax error.
// interval_in's buffer is larger (maxIntervalBuffer).
const (
	maxDateFields     = 25
	maxDateBuffer     = 128 + maxDateFields
	maxIntervalBuffer = 256
)

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isPunct(c byte) bool { return c > ' ' && c < 0x7f && !isAlnum(c) }

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// splitDateTime breaks a date/time literal into typed fields.
func splitDateTime(s string) ([]dtField, dtErr) { return splitFields(s, maxDateBuffer) }

// splitFields is ParseDateTime with a work buffer of bufSize bytes.
func splitFields(s string, bufSize int) ([]dtField, dtErr) {
	var fields []dtField
	used := 0
	i := 0
	for i < len(s) {
		c := s[i]
		if isSpace(c) {
			i++
			continue
		}
		if len(fields) >= maxDateFields {
			return nil, dtBadFormat
		}
		var b strings.Builder
		put := func(c byte) { b.WriteByte(c) }
		var kind dtKind
		switch {
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) {
				put(s[i])
				i++
			}
			switch {
			case i < len(s) && s[i] == ':':
				kind = dtkTime
				put(s[i])
				i++
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					put(s[i])
					i++
				}
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				put(delim)
				i++
				if i < len(s) && isDigit(s[i]) {
					kind = dtkDate
					if delim == '.' {
						kind = dtkNumber
					}
					for i < len(s) && isDigit(s[i]) {
						put(s[i])
						i++
					}
					// Only matching delimiters make a three-part date.
					if i < len(s) && s[i] == delim {
						kind = dtkDate
						put(s[i])
						i++
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							put(s[i])
							i++
						}
					}
				} else {
					kind = dtkDate
					for i < len(s) && (isAlnum(s[i]) || s[i] == delim) {
						put(lowerByte(s[i]))
						i++
					}
				}
			default:
				kind = dtkNumber
			}
		case c == '.':
			put(c)
			i++
			for i < len(s) && isDigit(s[i]) {
				put(s[i])
				i++
			}
			kind = dtkNumber
		case isAlpha(c):
			kind = dtkString
			for i < len(s) && isAlpha(s[i]) {
				put(lowerByte(s[i]))
				i++
			}
			// A date with a text month (jan-08-99) or a zone name
			// (america/new_york, est5edt): letters run on into
			// punctuation, unless the word so far is a keyword (j2451187).
			isDate := false
			if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				isDate = true
			} else if i < len(s) && (s[i] == '+' || isDigit(s[i])) {
				_, known := lookupDateToken(b.String())
				isDate = !known
			}
			if isDate {
				kind = dtkDate
				for {
					put(lowerByte(s[i]))
					i++
					if i >= len(s) || !(s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' ||
						s[i] == '.' || s[i] == ':' || isAlnum(s[i])) {
						break
					}
				}
			}
		case c == '+' || c == '-':
			put(c)
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			switch {
			case i < len(s) && isDigit(s[i]):
				kind = dtkTZ
				put(s[i])
				i++
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					put(s[i])
					i++
				}
			case i < len(s) && isAlpha(s[i]):
				kind = dtkSpecial
				for i < len(s) && isAlpha(s[i]) {
					put(lowerByte(s[i]))
					i++
				}
			default:
				return nil, dtBadFormat
			}
		case isPunct(c):
			i++
			continue
		default:
			return nil, dtBadFormat
		}
		used += b.Len() + 1
		if used >= bufSize {
			return nil, dtBadFormat
		}
		fields = append(fields, dtField{text: b.String(), kind: kind})
	}
	return fields, 0
}

// dtTokenType is the meaning of a keyword of date/time input.
type dtTokenType int

// The token types double as the bit positions of the field mask a decoder
// keeps, so that a literal naming one field twice is rejected.
const (
	tokReserved dtTokenType = iota
	tokMonth
	tokYear
	tokDay
	tokJulian
	tokTZ
	tokDTZ
	tokDynTZ
	tokIgnore
	tokAMPM
	tokHour
	tokMinute
	tokSecond
	tokMillisecond
	tokMicrosecond
	tokDOY
	tokDOW
	tokUnits
	tokADBC
	tokISOTime = 23
	tokDTZMod  = 28
	tokUnknown = 31
)

func fieldBit(t dtTokenType) int { return 1 << t }

const (
	maskDate    = 1<<tokYear | 1<<tokMonth | 1<<tokDay
	maskTime    = 1<<tokHour | 1<<tokMinute | 1<<tokSecond | 1<<tokMillisecond | 1<<tokMicrosecond
	maskAllSecs = 1<<tokSecond | 1<<tokMillisecond | 1<<tokMicrosecond
)

// Values of the reserved words and of the unit prefixes of ISO input.
const (
	resEarly = iota + 1
	resLate
	resEpoch
	resNow
	resToday
	resTomorrow
	resYesterday
	resZulu
	unitYear
	unitMonth
	unitDay
	unitHour
	unitMinute
	unitSecond
	unitJulian
	unitTime
	unitOther
	meridianAM
	meridianPM
	eraAD
	eraBC
)

// dtToken is a keyword's type and value.
type dtToken struct {
	typ dtTokenType
	val int
}

// dateTokens are the keywords date/time input recognizes besides zone
// abbreviations.
var dateTokens = map[string]dtToken{
	"-infinity": {tokReserved, resEarly}, "infinity": {tokReserved, resLate}, "epoch": {tokReserved, resEpoch},
	"now": {tokReserved, resNow}, "today": {tokReserved, resToday}, "tomorrow": {tokReserved, resTomorrow},
	"yesterday": {tokReserved, resYesterday}, "allballs": {tokReserved, resZulu},
	"ad": {tokADBC, eraAD}, "bc": {tokADBC, eraBC}, "am": {tokAMPM, meridianAM}, "pm": {tokAMPM, meridianPM},
	"at": {tokIgnore, 0}, "on": {tokIgnore, 0}, "dst": {tokDTZMod, 3600}, "t": {tokISOTime, unitTime},
	"y": {tokUnits, unitYear}, "m": {tokUnits, unitMonth}, "d": {tokUnits, unitDay}, "h": {tokUnits, unitHour},
	"mm": {tokUnits, unitMinute}, "s": {tokUnits, unitSecond}, "j": {tokUnits, unitJulian},
	"jd": {tokUnits, unitJulian}, "julian": {tokUnits, unitJulian}, "dow": {tokUnits, unitOther},
	"doy": {tokUnits, unitOther}, "isodow": {tokUnits, unitOther}, "isoyear": {tokUnits, unitOther},
	"jan": {tokMonth, 1}, "january": {tokMonth, 1}, "feb": {tokMonth, 2}, "february": {tokMonth, 2},
	"mar": {tokMonth, 3}, "march": {tokMonth, 3}, "apr": {tokMonth, 4}, "april": {tokMonth, 4},
	"may": {tokMonth, 5}, "jun": {tokMonth, 6}, "june": {tokMonth, 6}, "jul": {tokMonth, 7},
	"july": {tokMonth, 7}, "aug": {tokMonth, 8}, "august": {tokMonth, 8}, "sep": {tokMonth, 9},
	"sept": {tokMonth, 9}, "september": {tokMonth, 9}, "oct": {tokMonth, 10}, "october": {tokMonth, 10},
	"nov": {tokMonth, 11}, "november": {tokMonth, 11}, "dec": {tokMonth, 12}, "december": {tokMonth, 12},
	"sun": {tokDOW, 0}, "sunday": {tokDOW, 0}, "mon": {tokDOW, 1}, "monday": {tokDOW, 1},
	"tue": {tokDOW, 2}, "tues": {tokDOW, 2}, "tuesday": {tokDOW, 2}, "wed": {tokDOW, 3},
	"weds": {tokDOW, 3}, "wednesday": {tokDOW, 3}, "thu": {tokDOW, 4}, "thur": {tokDOW, 4},
	"thurs": {tokDOW, 4}, "thursday": {tokDOW, 4}, "fri": {tokDOW, 5}, "friday": {tokDOW, 5},
	"sat": {tokDOW, 6}, "saturday": {tokDOW, 6},
}

// tokenMaxLen is the length to which keywords are compared: a longer word
// matches a keyword on its first tokenMaxLen letters.
const tokenMaxLen = 10

// lookupDateToken finds a keyword.
func lookupDateToken(word string) (dtToken, bool) {
	if len(word) > tokenMaxLen {
		word = word[:tokenMaxLen]
	}
	tok, ok := dateTokens[word]
	return tok, ok
}

// lookupZoneAbbrev finds a time zone abbreviation.
func lookupZoneAbbrev(word string) (zoneAbbrev, bool) {
	if len(word) > tokenMaxLen {
		word = word[:tokenMaxLen]
	}
	z, ok := zoneAbbrevs[word]
	return z, ok
}

// ReadsTransactionTime reports whether the literal s, read as type t,
// depends on the transaction's start time: a date or timestamp naming now,
// today, tomorrow or yesterday.
func ReadsTransactionTime(t Type, s string) bool {
	switch t.Oid {
	case OidDate, OidTimestamp, OidTimestamptz:
	default:
		return false
	}
	fields, e := splitDateTime(s)
	if e != 0 {
		return false
	}
	for _, f := range fields {
		if f.kind != dtkString {
			continue
		}
		if tok, ok := lookupDateToken(f.text); ok && tok.typ == tokReserved {
			switch tok.val {
			case resNow, resToday, resTomorrow, resYesterday:
				return true
			}
		}
	}
	return false
}
