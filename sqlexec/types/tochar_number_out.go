package types

import (
	"strings"
)

// numOut is the state of NUM_processor writing a number through a
// template (to_char): number is the digit string prepared by the caller
// (sign removed, '#' on overflow), p the next character of it to write.
type numOut struct {
	desc         *numDesc
	number       string
	p            int
	sign         byte // '+', '-', or 0 (Roman numerals)
	signWrote    bool
	numIn        bool
	numCurr      int
	numCount     int
	outPreSpaces int
	lastRelevant int // index into number, -1 for none
	out          []byte
}

// at is the character of number at i, 0 past its end (C's terminator).
func (o *numOut) at(i int) byte {
	if i >= 0 && i < len(o.number) {
		return o.number[i]
	}
	return 0
}

func (o *numOut) relevantIsPoint() bool { return o.lastRelevant >= 0 && o.at(o.lastRelevant) == '.' }

// predecSpace is IS_PREDEC_SPACE: the lone zero before the point of a
// number below one, written as a blank ("9.9" shows 0.1 as " .1").
func (o *numOut) predecSpace() bool {
	return !o.desc.is(numFlagZero) && o.p == 0 && o.at(0) == '0' && o.desc.post != 0
}

func (o *numOut) writeSign() {
	if o.sign == '-' {
		o.out = append(o.out, '-')
	} else {
		o.out = append(o.out, '+')
	}
}

// formatNumber is NUM_processor for to_char: number is the prepared digit
// string, preSpaces the digit positions left of it, sign '+', '-' or 0.
func formatNumber(nodes []numNode, desc *numDesc, number string, preSpaces int, sign byte) (string, error) {
	o := &numOut{desc: desc, number: number, lastRelevant: -1}
	if desc.zeroStart > 0 {
		desc.zeroStart--
	}
	if desc.is(numFlagEEEE) {
		return number, nil
	}
	if desc.is(numFlagRoman) {
		desc.lsign, desc.preLSignCount, desc.post, desc.pre = 0, 0, 0, 0
		preSpaces = 0
		desc.flags &= numFlagFillMode
		desc.flags |= numFlagRoman
	}
	o.sign = sign
	if desc.is(numFlagPlus) || desc.is(numFlagMinus) {
		// MI, PL and SG write the sign themselves.
		o.signWrote = !(desc.is(numFlagPlus) && !desc.is(numFlagMinus))
	} else {
		if o.sign != '-' {
			if desc.is(numFlagBracket) && desc.is(numFlagFillMode) {
				desc.flags &^= numFlagBracket
			}
		}
		o.signWrote = o.sign == '+' && desc.is(numFlagFillMode) && !desc.is(numFlagLSign)
		if desc.lsign == numLSignPre && desc.pre == desc.preLSignCount {
			desc.lsign = numLSignPost
		}
	}
	o.numCount = desc.post + desc.pre - 1
	o.outPreSpaces = preSpaces
	if desc.is(numFlagFillMode) && desc.is(numFlagDecimal) {
		o.lastRelevant = lastRelevantDecimal(number)
		// 0 patterns after the point keep their digits under FM.
		if o.lastRelevant >= 0 && desc.zeroEnd > o.outPreSpaces {
			lastZero := min(len(number)-1, desc.zeroEnd-o.outPreSpaces)
			if o.lastRelevant < lastZero {
				o.lastRelevant = lastZero
			}
		}
	}
	if !o.signWrote && o.outPreSpaces == 0 {
		o.numCount++
	}
	fm := desc.is(numFlagFillMode)
	for _, n := range nodes {
		switch n.key {
		case numLiteral:
			o.out = append(o.out, n.lit...)
		case num9, num0, numDec, numD:
			o.digitPart(n.key)
		case numComma, numG:
			switch {
			case o.numIn:
				o.out = append(o.out, ',')
			case !fm:
				o.out = append(o.out, ' ')
			}
		case numL:
			// The C locale's currency symbol is a blank.
			o.out = append(o.out, ' ')
		case numRN, numRNLower:
			roman := o.number[min(o.p, len(o.number)):]
			if n.key == numRNLower {
				roman = strings.ToLower(roman)
			}
			if !fm && len(roman) < 15 {
				roman = strings.Repeat(" ", 15-len(roman)) + roman
			}
			o.out = append(o.out, roman...)
		case numTH, numTHLower:
			if desc.is(numFlagRoman) || o.at(0) == '#' || o.sign == '-' || desc.is(numFlagDecimal) {
				continue
			}
			suffix, err := ordinalSuffixFor(o.number, n.key == numTHLower)
			if err != nil {
				return "", err
			}
			o.out = append(o.out, suffix...)
		case numMI:
			switch {
			case o.sign == '-':
				o.out = append(o.out, '-')
			case !fm:
				o.out = append(o.out, ' ')
			}
		case numPL:
			switch {
			case o.sign == '+':
				o.out = append(o.out, '+')
			case !fm:
				o.out = append(o.out, ' ')
			}
		case numSG:
			o.out = append(o.out, o.sign)
		}
	}
	// A digit position past the end of number wrote C's terminator, which
	// ends the text there.
	out := string(o.out)
	if i := strings.IndexByte(out, 0); i >= 0 {
		out = out[:i]
	}
	return out, nil
}

// lastRelevantDecimal is get_last_relevant_decnum: the index of the last
// non-zero digit after the point (or of the point), -1 without a point.
func lastRelevantDecimal(num string) int {
	p := strings.IndexByte(num, '.')
	if p < 0 {
		return -1
	}
	result := p
	for i := p + 1; i < len(num); i++ {
		if num[i] != '0' {
			result = i
		}
	}
	return result
}

// digitPart is NUM_numpart_to_char: a 9, 0, D or . position writes a
// blank, a zero, the point or the next digit, and the sign or bracket
// around the number where it starts or ends.
func (o *numOut) digitPart(key numKey) {
	d := o.desc
	if d.is(numFlagRoman) {
		return
	}
	fm := d.is(numFlagFillMode)
	o.numIn = false
	if !o.signWrote &&
		(o.numCurr >= o.outPreSpaces || (d.is(numFlagZero) && d.zeroStart == o.numCurr)) &&
		(!o.predecSpace() || o.relevantIsPoint()) {
		switch {
		case d.is(numFlagLSign):
			if d.lsign == numLSignPre {
				o.writeSign()
				o.signWrote = true
			}
		case d.is(numFlagBracket):
			if o.sign == '+' {
				o.out = append(o.out, ' ')
			} else {
				o.out = append(o.out, '<')
			}
			o.signWrote = true
		case o.sign == '+':
			if !fm {
				o.out = append(o.out, ' ')
			}
			o.signWrote = true
		case o.sign == '-':
			o.out = append(o.out, '-')
			o.signWrote = true
		}
	}
	switch {
	case o.numCurr < o.outPreSpaces && (d.zeroStart > o.numCurr || !d.is(numFlagZero)):
		if !fm {
			o.out = append(o.out, ' ')
		}
	case d.is(numFlagZero) && o.numCurr < o.outPreSpaces && d.zeroStart <= o.numCurr:
		o.out = append(o.out, '0')
		o.numIn = true
	default:
		if o.at(o.p) == '.' {
			if !o.relevantIsPoint() || fm {
				o.out = append(o.out, '.')
			}
		} else {
			switch {
			case o.lastRelevant >= 0 && o.p > o.lastRelevant && key != num0:
			case o.predecSpace():
				if !fm {
					o.out = append(o.out, ' ')
				} else if o.relevantIsPoint() {
					o.out = append(o.out, '0')
				}
			default:
				o.out = append(o.out, o.at(o.p))
				o.numIn = true
			}
		}
		if o.at(o.p) != 0 {
			o.p++
		}
	}
	end := o.numCount
	if o.outPreSpaces > 0 {
		end++
	}
	if d.is(numFlagDecimal) {
		end++
	}
	if o.lastRelevant >= 0 && o.lastRelevant == o.p {
		end = o.numCurr
	}
	if o.numCurr+1 == end {
		switch {
		case o.signWrote && d.is(numFlagBracket):
			if o.sign == '+' {
				o.out = append(o.out, ' ')
			} else {
				o.out = append(o.out, '>')
			}
		case d.is(numFlagLSign) && d.lsign == numLSignPost:
			o.writeSign()
		}
	}
	o.numCurr++
}
