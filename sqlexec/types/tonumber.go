package types

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

func init() {
	addFunc("to_number", Immutable, NumericAny, func(_ *Env, a []any) (any, error) {
		return toNumber(a[0].(string), a[1].(string))
	}, Text, Text)
}

// numIn is the state of NUM_processor reading a number through a template
// (to_number): number collects the sign (its first byte, blank while none
// was read), the digits and the point.
type numIn struct {
	desc     *numDesc
	in       string
	p        int
	number   []byte
	readPre  int
	readPost int
	readDec  bool
}

func (r *numIn) done() bool { return r.p >= len(r.in) }

// fits is AMOUNT_TEST: n more bytes of input remain.
func (r *numIn) fits(n int) bool { return r.p <= len(r.in)-n }

func (r *numIn) char(i int) byte {
	if i < len(r.in) {
		return r.in[i]
	}
	return 0
}

// skipNonData is NUM_eat_non_data_chars: up to n characters that cannot
// belong to the number.
func (r *numIn) skipNonData(n int) {
	for ; n > 0 && !r.done(); n-- {
		if strings.IndexByte("0123456789.,+-", r.in[r.p]) >= 0 {
			return
		}
		r.p += utf8Len(r.in[r.p:])
	}
}

// toNumber is numeric_to_number: the template's digit positions read the
// digits, its sign patterns the sign, and the result gets the scale of the
// digits read after the point.
func toNumber(input, format string) (any, error) {
	if format == "" {
		return nil, nil
	}
	nodes, desc, err := parseNumTemplate(format)
	if err != nil {
		return nil, err
	}
	if desc.is(numFlagEEEE) {
		return nil, pgerror.New(pgerror.FeatureNotSupported, `"EEEE" not supported for input`)
	}
	if desc.is(numFlagRoman) {
		return nil, pgerror.New(pgerror.FeatureNotSupported, `"RN" not supported for input`)
	}
	r := &numIn{desc: desc, in: input, number: []byte{' '}}
	fm := desc.is(numFlagFillMode)
	for _, n := range nodes {
		if r.done() {
			break
		}
		switch n.key {
		case numLiteral:
			// Each literal character of the template skips one input
			// character, whatever it is.
			r.p += utf8Len(r.in[r.p:])
			continue
		case num9, num0, numDec, numD:
			r.digitPart(n.key)
		case numComma, numG:
			if fm || r.in[r.p] != ',' {
				continue
			}
		case numL:
			r.skipNonData(1)
			continue
		case numTH, numTHLower:
			if r.number[0] == '#' || desc.is(numFlagDecimal) {
				continue
			}
			r.skipNonData(2)
			continue
		case numMI, numPL, numSG:
			c := r.in[r.p]
			if (c == '-' && n.key != numPL) || (c == '+' && n.key != numMI) {
				r.number[0] = c
			} else {
				r.skipNonData(1)
				continue
			}
		default:
			continue
		}
		r.p++
	}
	text := string(r.number)
	text = strings.TrimSuffix(text, ".")
	scale := r.readPost
	precision := desc.pre + desc.multi + scale
	v, err := parseNumeric(Numeric(precision, scale), text)
	if err != nil {
		return nil, err
	}
	if desc.is(numFlagMulti) {
		shift, err := numericPow(apd.New(10, 0), apd.New(int64(-desc.multi), 0))
		if err != nil {
			return nil, err
		}
		return numericMul(v.(*apd.Decimal), shift.(*apd.Decimal))
	}
	return v, nil
}

// digitPart is NUM_numpart_from_char: a digit position reads a sign
// before the first digit, a digit or the point, and a sign right after
// the last digit.
func (r *numIn) digitPart(key numKey) {
	d := r.desc
	if r.done() {
		return
	}
	if r.in[r.p] == ' ' {
		r.p++
	}
	if r.done() {
		return
	}
	if r.number[0] == ' ' && (key == num0 || key == num9) && r.readPre+r.readPost == 0 {
		c := r.in[r.p]
		switch {
		case d.is(numFlagLSign) && d.lsign == numLSignPre:
			if c == '-' || c == '+' {
				r.number[0] = c
				r.p++
			}
		case c == '-' || (d.is(numFlagBracket) && c == '<'):
			r.number[0] = '-'
			r.p++
		case c == '+':
			r.number[0] = '+'
			r.p++
		}
	}
	if r.done() {
		return
	}
	read := false
	c := r.in[r.p]
	switch {
	case c >= '0' && c <= '9':
		if r.readDec && r.readPost == d.post {
			return
		}
		r.number = append(r.number, c)
		if r.readDec {
			r.readPost++
		} else {
			r.readPre++
		}
		read = true
	case d.is(numFlagDecimal) && !r.readDec && c == '.':
		r.number = append(r.number, '.')
		r.readDec = true
		read = true
	}
	if r.done() || r.number[0] != ' ' || r.readPre+r.readPost == 0 {
		return
	}
	switch {
	case d.is(numFlagLSign) && read && r.p+1 < len(r.in) && !isDigit(r.in[r.p+1]):
		// S right after the last digit.
		if next := r.char(r.p + 1); next == '-' || next == '+' {
			r.number[0] = next
			r.p++
		}
	case !read && !d.is(numFlagLSign) && (d.is(numFlagPlus) || d.is(numFlagMinus)):
		// MI, PL or SG where the template does not say exactly.
		if c == '-' || c == '+' {
			r.number[0] = c
		}
	}
}
