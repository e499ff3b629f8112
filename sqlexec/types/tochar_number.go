package types

import (
	"bytes"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// numToken is one element of a to_char number template.
type numToken struct {
	kind string // "9", "0", ".", ",", "S", "MI", "PL", "SG", "PR", or "lit"
	lit  string
}

// parseNumberPattern splits a template; fm reports FM anywhere in it.
func parseNumberPattern(format string) (toks []numToken, fm bool, err error) {
	up := strings.ToUpper(format)
	for i := 0; i < len(format); {
		switch {
		case strings.HasPrefix(up[i:], "FM"):
			fm = true
			i += 2
		case up[i] == 'D':
			toks = append(toks, numToken{kind: "."})
			i++
		case up[i] == 'G':
			toks = append(toks, numToken{kind: ","})
			i++
		case strings.HasPrefix(up[i:], "MI"), strings.HasPrefix(up[i:], "PL"), strings.HasPrefix(up[i:], "SG"), strings.HasPrefix(up[i:], "PR"):
			toks = append(toks, numToken{kind: up[i : i+2]})
			i += 2
		case up[i] == '9' || up[i] == '0' || up[i] == '.' || up[i] == ',' || up[i] == 'S':
			toks = append(toks, numToken{kind: up[i : i+1]})
			i++
		case strings.HasPrefix(up[i:], "EEEE"), up[i] == 'V', up[i] == 'L', up[i] == 'B', strings.HasPrefix(up[i:], "RN"), strings.HasPrefix(up[i:], "TH"):
			return nil, false, pgerror.Unsupported("to_char number pattern " + format[i:i+1])
		default:
			lit, next := formatLiteral(format, i)
			toks = append(toks, numToken{kind: "lit", lit: lit})
			i = next
		}
	}
	return toks, fm, nil
}

// formatNumberPattern is to_char(number, text) for the 9, 0, D, G, S, MI,
// PL, SG, PR and FM patterns; num is the number's decimal text.
func formatNumberPattern(num, format string) (any, error) {
	toks, fm, err := parseNumberPattern(format)
	if err != nil {
		return nil, err
	}
	intPos, fracPos, firstZero, seenPoint := 0, 0, -1, false
	explicitSign := false
	for _, t := range toks {
		switch t.kind {
		case "9", "0":
			if seenPoint {
				fracPos++
			} else {
				if t.kind == "0" && firstZero < 0 {
					firstZero = intPos
				}
				intPos++
			}
		case ".":
			seenPoint = true
		case "S", "MI", "SG":
			explicitSign = true
		}
	}
	neg := strings.HasPrefix(num, "-")
	num = strings.TrimPrefix(num, "-")
	intDigits, fracDigits, overflow := "", strings.Repeat("0", fracPos), false
	if d, _, perr := apd.NewFromString(num); perr == nil && d.Form == apd.Finite {
		r, rerr := roundToScale(d, fracPos)
		if rerr != nil {
			return nil, rerr
		}
		text := r.Text('f')
		ip, fp, _ := strings.Cut(text, ".")
		intDigits = strings.TrimLeft(ip, "0")
		fracDigits = (fp + strings.Repeat("0", fracPos))[:fracPos]
		if r.IsZero() {
			neg = false
		}
	} else {
		overflow = true
	}
	if len(intDigits) > intPos {
		overflow = true
	}
	if intDigits == "" && fracPos == 0 && intPos > 0 {
		intDigits = "0"
	}
	// Integer positions: right-aligned digits, zeros from the first 0
	// pattern on, blanks before.
	slots := make([]byte, intPos)
	for i := range slots {
		k := i - (intPos - len(intDigits))
		switch {
		case overflow:
			slots[i] = '#'
		case k >= 0:
			slots[i] = intDigits[k]
		case firstZero >= 0 && i >= firstZero:
			slots[i] = '0'
		default:
			slots[i] = ' '
		}
	}
	var body []byte
	ii, fi, started, afterPoint, leadingS := 0, 0, false, false, false
	var fracNines []int // body offsets of fraction digits written by 9
	signChar := func(kind string) string {
		switch kind {
		case "MI":
			return map[bool]string{true: "-", false: " "}[neg]
		case "PL":
			return map[bool]string{true: " ", false: "+"}[neg]
		}
		return map[bool]string{true: "-", false: "+"}[neg]
	}
	for _, t := range toks {
		switch t.kind {
		case "9", "0":
			if !afterPoint {
				c := slots[ii]
				ii++
				started = started || c != ' '
				body = append(body, c)
				continue
			}
			c := byte('#')
			if !overflow {
				c = fracDigits[fi]
			}
			fi++
			if t.kind == "9" {
				fracNines = append(fracNines, len(body))
			} else {
				fracNines = nil // a 0 keeps every digit before it
			}
			body = append(body, c)
		case ".":
			afterPoint = true
			// A point with no digit position after it is not printed.
			if fracPos > 0 || overflow {
				body = append(body, '.')
			}
		case ",":
			if started {
				body = append(body, ',')
			} else {
				body = append(body, ' ')
			}
		case "S":
			if !started && ii == 0 {
				leadingS = true
				continue
			}
			body = append(body, signChar("S")...)
		case "MI", "PL", "SG":
			body = append(body, signChar(t.kind)...)
		case "lit":
			body = append(body, t.lit...)
		}
	}
	if fm {
		// FM drops the trailing zeros that 9 patterns after the point wrote.
		for k := len(fracNines) - 1; k >= 0 && body[fracNines[k]] == '0'; k-- {
			body = append(body[:fracNines[k]], body[fracNines[k]+1:]...)
		}
		// A value that left no digit at all shows a zero before the
		// point: to_char(0, 'FM999.99') is "0.", not ".".
		if point := bytes.IndexByte(body, '.'); point >= 0 && !bytes.ContainsAny(body, "0123456789#") {
			body = append(body[:point], append([]byte{'0'}, body[point:]...)...)
		}
	}
	out := string(body)
	// The sign goes right before the number's first digit or point.
	first := strings.IndexAny(out, "0123456789.#")
	if first < 0 {
		first = len(out)
	}
	sign := ""
	switch {
	case leadingS:
		sign = signChar("S")
	case hasToken(toks, "PR"):
		sign = map[bool]string{true: "<", false: " "}[neg]
	case !explicitSign && neg:
		sign = "-"
	case !explicitSign && !fm:
		sign = " "
	}
	out = out[:first] + sign + out[first:]
	if hasToken(toks, "PR") && (neg || !fm) {
		out += map[bool]string{true: ">", false: " "}[neg]
	}
	if fm {
		out = strings.TrimLeft(out, " ")
	}
	return out, nil
}

func hasToken(toks []numToken, kind string) bool {
	for _, t := range toks {
		if t.kind == kind {
			return true
		}
	}
	return false
}
