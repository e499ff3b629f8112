package types

import (
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// numKey is one keyword of a number template (formatting.c's NUM_keywords).
type numKey int

const (
	numLiteral numKey = iota
	numComma
	numDec
	num0
	num9
	numB
	numC
	numD
	numE
	numFM
	numG
	numL
	numMI
	numPL
	numPR
	numRN
	numRNLower
	numSG
	numSP
	numS
	numTH
	numTHLower
	numV
)

// numKeywords are the number template keywords, in the order PostgreSQL
// tries them: the first that the template continues with wins, and case
// matters (FM and fm are keywords, Fm is not).
var numKeywords = []struct {
	text string
	key  numKey
}{
	{",", numComma}, {".", numDec}, {"0", num0}, {"9", num9},
	{"B", numB}, {"C", numC}, {"D", numD}, {"EEEE", numE}, {"FM", numFM}, {"G", numG}, {"L", numL},
	{"MI", numMI}, {"PL", numPL}, {"PR", numPR}, {"RN", numRN}, {"SG", numSG}, {"SP", numSP}, {"S", numS},
	{"TH", numTH}, {"V", numV},
	{"b", numB}, {"c", numC}, {"d", numD}, {"eeee", numE}, {"fm", numFM}, {"g", numG}, {"l", numL},
	{"mi", numMI}, {"pl", numPL}, {"pr", numPR}, {"rn", numRNLower}, {"sg", numSG}, {"sp", numSP}, {"s", numS},
	{"th", numTHLower}, {"v", numV},
}

// numNode is one element of a parsed number template: a keyword, or a
// literal character copied to the output (skipped in the input).
type numNode struct {
	key numKey
	lit string
}

// Flags of a number template (NUMDesc's flag bits).
const (
	numFlagDecimal = 1 << iota
	numFlagLDecimal
	numFlagZero
	numFlagBlank
	numFlagFillMode
	numFlagLSign
	numFlagBracket
	numFlagMinus
	numFlagPlus
	numFlagRoman
	numFlagMulti
	numFlagPlusPost
	numFlagMinusPost
	numFlagEEEE
)

// Where the S pattern puts the sign.
const (
	numLSignNone = iota
	numLSignPre
	numLSignPost
)

// numDesc is what a number template asks for: digit positions before
// (pre) and after (post) the point, V's shift, where 0 patterns start and
// end, and the flags.
type numDesc struct {
	pre, post, multi     int
	zeroStart, zeroEnd   int
	lsign, preLSignCount int
	flags                int
}

func (n *numDesc) is(flag int) bool { return n.flags&flag != 0 }

func numSyntaxError(msg string) error { return pgerror.New(pgerror.SyntaxError, msg) }

// parseNumTemplate is parse_format for numbers with NUMDesc_prepare: the
// nodes of the template and what they ask for, or PostgreSQL's 42601 for
// templates that contradict themselves.
func parseNumTemplate(format string) ([]numNode, *numDesc, error) {
	var nodes []numNode
	desc := &numDesc{}
	for i := 0; i < len(format); {
		key, size := matchNumKeyword(format[i:])
		if size > 0 {
			if err := desc.prepare(key); err != nil {
				return nil, nil, err
			}
			nodes = append(nodes, numNode{key: key})
			i += size
			continue
		}
		if format[i] == '"' {
			// A double-quoted literal; a backslash quotes the next character.
			for i++; i < len(format); {
				if format[i] == '"' {
					i++
					break
				}
				if format[i] == '\\' && i+1 < len(format) {
					i++
				}
				n := utf8Len(format[i:])
				nodes = append(nodes, numNode{key: numLiteral, lit: format[i : i+n]})
				i += n
			}
			continue
		}
		// Outside quotes a backslash only escapes a double quote.
		if format[i] == '\\' && i+1 < len(format) && format[i+1] == '"' {
			i++
		}
		n := utf8Len(format[i:])
		nodes = append(nodes, numNode{key: numLiteral, lit: format[i : i+n]})
		i += n
	}
	return nodes, desc, nil
}

func matchNumKeyword(s string) (numKey, int) {
	for _, kw := range numKeywords {
		if strings.HasPrefix(s, kw.text) {
			return kw.key, len(kw.text)
		}
	}
	return numLiteral, 0
}

// utf8Len is the byte length of the character s starts with.
func utf8Len(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 {
			return i
		}
	}
	return len(s)
}

// prepare is NUMDesc_prepare: it counts digit positions and records flags,
// rejecting the combinations PostgreSQL rejects.
func (n *numDesc) prepare(key numKey) error {
	if n.is(numFlagEEEE) && key != numE {
		return numSyntaxError(`"EEEE" must be the last pattern used`)
	}
	switch key {
	case num9:
		if n.is(numFlagBracket) {
			return numSyntaxError(`"9" must be ahead of "PR"`)
		}
		switch {
		case n.is(numFlagMulti):
			n.multi++
		case n.is(numFlagDecimal):
			n.post++
		default:
			n.pre++
		}
	case num0:
		if n.is(numFlagBracket) {
			return numSyntaxError(`"0" must be ahead of "PR"`)
		}
		if !n.is(numFlagZero) && !n.is(numFlagDecimal) {
			n.flags |= numFlagZero
			n.zeroStart = n.pre + 1
		}
		if n.is(numFlagDecimal) {
			n.post++
		} else {
			n.pre++
		}
		n.zeroEnd = n.pre + n.post
	case numB:
		if n.pre == 0 && n.post == 0 && !n.is(numFlagZero) {
			n.flags |= numFlagBlank
		}
	case numD, numDec:
		if key == numD {
			n.flags |= numFlagLDecimal
		}
		if n.is(numFlagDecimal) {
			return numSyntaxError("multiple decimal points")
		}
		if n.is(numFlagMulti) {
			return numSyntaxError(`cannot use "V" and decimal point together`)
		}
		n.flags |= numFlagDecimal
	case numFM:
		n.flags |= numFlagFillMode
	case numS:
		if n.is(numFlagLSign) {
			return numSyntaxError(`cannot use "S" twice`)
		}
		if n.is(numFlagPlus) || n.is(numFlagMinus) || n.is(numFlagBracket) {
			return numSyntaxError(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
		}
		if !n.is(numFlagDecimal) {
			n.lsign = numLSignPre
			n.preLSignCount = n.pre
			n.flags |= numFlagLSign
		} else if n.lsign == numLSignNone {
			n.lsign = numLSignPost
			n.flags |= numFlagLSign
		}
	case numMI:
		if n.is(numFlagLSign) {
			return numSyntaxError(`cannot use "S" and "MI" together`)
		}
		n.flags |= numFlagMinus
		if n.is(numFlagDecimal) {
			n.flags |= numFlagMinusPost
		}
	case numPL:
		if n.is(numFlagLSign) {
			return numSyntaxError(`cannot use "S" and "PL" together`)
		}
		n.flags |= numFlagPlus
		if n.is(numFlagDecimal) {
			n.flags |= numFlagPlusPost
		}
	case numSG:
		if n.is(numFlagLSign) {
			return numSyntaxError(`cannot use "S" and "SG" together`)
		}
		n.flags |= numFlagMinus | numFlagPlus
	case numPR:
		if n.is(numFlagLSign) || n.is(numFlagPlus) || n.is(numFlagMinus) {
			return numSyntaxError(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		n.flags |= numFlagBracket
	case numRN, numRNLower:
		n.flags |= numFlagRoman
	case numV:
		if n.is(numFlagDecimal) {
			return numSyntaxError(`cannot use "V" and decimal point together`)
		}
		n.flags |= numFlagMulti
	case numE:
		if n.is(numFlagEEEE) {
			return numSyntaxError(`cannot use "EEEE" twice`)
		}
		if n.is(numFlagBlank) || n.is(numFlagFillMode) || n.is(numFlagLSign) || n.is(numFlagBracket) ||
			n.is(numFlagMinus) || n.is(numFlagPlus) || n.is(numFlagRoman) || n.is(numFlagMulti) {
			return pgerror.New(pgerror.SyntaxError, `"EEEE" is incompatible with other formats`).
				WithDetail(`"EEEE" may only be used together with digit and decimal point patterns.`)
		}
		n.flags |= numFlagEEEE
	}
	return nil
}

// intToRoman is int_to_roman: 1 to 3999 in Roman numerals, fifteen # beyond.
func intToRoman(v int64) string {
	if v < 1 || v > 3999 {
		return strings.Repeat("#", 15)
	}
	ones := []string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	tens := []string{"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"}
	hundreds := []string{"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"}
	return strings.Repeat("M", int(v/1000)) + hundreds[v/100%10] + tens[v/10%10] + ones[v%10]
}

// ordinalSuffixFor is get_th: the suffix TH writes after the digits of num,
// an error when num does not end in a digit.
func ordinalSuffixFor(num string, lower bool) (string, error) {
	if num == "" || !isDigit(num[len(num)-1]) {
		return "", pgerror.Newf(pgerror.InvalidTextRepresentation, "\"%s\" is not a number", num)
	}
	return ordinalSuffix(num, lower), nil
}
