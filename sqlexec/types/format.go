package types

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func init() {
	// format(formatstr, any...) as PostgreSQL's text_format: %s, %I and
	// %L with optional argument positions (n$), the - flag and widths,
	// direct or taken from an argument (* or *n$).
	builders["format"] = func(args []Type) (*Func, bool, error) {
		if len(args) == 0 || !canCoerce(args[0], Text, CastImplicit) {
			return nil, false, nil
		}
		fmtCast, err := lookupCast(args[0], Text, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		return &Func{Args: args, Result: Text, Volatility: Stable, Eval: func(env *Env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			f, err := fmtCast(env, a[0])
			if err != nil {
				return nil, err
			}
			return expandFormat(env, f.(string), args[1:], a[1:])
		}}, true, nil
	}
}

func errUnterminatedFormat() error {
	return pgerror.New(pgerror.InvalidParameterValue, "unterminated format() type specifier").
		WithHint(`For a single "%%" use "%%%%".`)
}

// formatSpec is one parsed % specifier: argPos and widthPos are 1-based
// argument positions, 0 when not given (widthPos -1: no * width).
type formatSpec struct {
	argPos, widthPos, width int
	minus                   bool
}

// expandFormat expands f with the values vals of types ts.
func expandFormat(env *Env, f string, ts []Type, vals []any) (string, error) {
	var sb strings.Builder
	next := 0 // the next argument, 0-based
	take := func(pos int) (Type, any, error) {
		if pos > 0 {
			next = pos - 1
		}
		if next >= len(vals) {
			return Type{}, nil, pgerror.New(pgerror.InvalidParameterValue, "too few arguments for format()")
		}
		t, v := ts[next], vals[next]
		next++
		return t, v, nil
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			sb.WriteByte(f[i])
			continue
		}
		if i++; i >= len(f) {
			return "", errUnterminatedFormat()
		}
		if f[i] == '%' {
			sb.WriteByte('%')
			continue
		}
		spec, j, err := parseFormatSpec(f, i)
		if err != nil {
			return "", err
		}
		i = j
		conv := f[i]
		if conv != 's' && conv != 'I' && conv != 'L' {
			r, _ := utf8.DecodeRuneInString(f[i:])
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized format() type specifier \"%c\"", r).
				WithHint(`For a single "%%" use "%%%%".`)
		}
		width := spec.width
		if spec.widthPos >= 0 {
			t, v, err := take(spec.widthPos)
			if err != nil {
				return "", err
			}
			if width, err = formatWidth(env, t, v); err != nil {
				return "", err
			}
		}
		t, v, err := take(spec.argPos)
		if err != nil {
			return "", err
		}
		var s string
		switch {
		case v == nil && conv == 'I':
			return "", pgerror.New(pgerror.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
		case v == nil && conv == 'L':
			s = "NULL"
		case v == nil:
		case conv == 'I':
			s = QuoteIdent(outputText(env, t, v))
		case conv == 'L':
			s = quoteLiteral(outputText(env, t, v))
		default:
			s = outputText(env, t, v)
		}
		if err := padFormatted(&sb, s, width, spec.minus); err != nil {
			return "", err
		}
	}
	return sb.String(), nil
}

// parseFormatSpec reads [n$][-...][width|*[n$]] from f at i, returning the
// spec and the index of the conversion character.
func parseFormatSpec(f string, i int) (formatSpec, int, error) {
	spec := formatSpec{widthPos: -1}
	advance := func() error {
		if i++; i >= len(f) {
			return errUnterminatedFormat()
		}
		return nil
	}
	n, found, j, err := formatDigits(f, i)
	if err != nil {
		return spec, 0, err
	}
	if found {
		i = j
		if i >= len(f) {
			return spec, 0, errUnterminatedFormat()
		}
		if f[i] != '$' {
			spec.width = n
			return spec, i, nil
		}
		if n == 0 {
			return spec, 0, errArgumentZero()
		}
		spec.argPos = n
		if err := advance(); err != nil {
			return spec, 0, err
		}
	}
	for f[i] == '-' {
		spec.minus = true
		if err := advance(); err != nil {
			return spec, 0, err
		}
	}
	if f[i] == '*' {
		if err := advance(); err != nil {
			return spec, 0, err
		}
		n, found, j, err := formatDigits(f, i)
		if err != nil {
			return spec, 0, err
		}
		spec.widthPos = 0
		if found {
			i = j
			if i >= len(f) {
				return spec, 0, errUnterminatedFormat()
			}
			if f[i] != '$' {
				return spec, 0, pgerror.New(pgerror.InvalidParameterValue, "width argument position must be ended by \"$\"")
			}
			if n == 0 {
				return spec, 0, errArgumentZero()
			}
			spec.widthPos = n
			if err := advance(); err != nil {
				return spec, 0, err
			}
		}
		return spec, i, nil
	}
	n, found, j, err = formatDigits(f, i)
	if err != nil {
		return spec, 0, err
	}
	if found {
		i = j
		if i >= len(f) {
			return spec, 0, errUnterminatedFormat()
		}
		spec.width = n
	}
	return spec, i, nil
}

func errArgumentZero() error {
	return pgerror.New(pgerror.InvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
}

// formatDigits reads a run of decimal digits at i.
func formatDigits(f string, i int) (n int, found bool, end int, err error) {
	for end = i; end < len(f) && f[end] >= '0' && f[end] <= '9'; end++ {
		n = n*10 + int(f[end]-'0')
		if n > math.MaxInt32 {
			return 0, false, 0, pgerror.New(pgerror.NumericValueOutOfRange, "number is out of range")
		}
	}
	return n, end > i, end, nil
}

// formatWidth is the width a * specifier takes from an argument: NULL is
// zero, other values are read as an integer.
func formatWidth(env *Env, t Type, v any) (int, error) {
	if v == nil {
		return 0, nil
	}
	if n, ok := v.(int64); ok && (t.Oid == OidInt4 || t.Oid == OidInt2) {
		return int(n), nil
	}
	s := outputText(env, t, v)
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		return 0, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type integer: \"%s\"", s)
	}
	return int(n), nil
}

// padFormatted appends s padded with spaces to width characters, on the
// right when left-aligned (the - flag or a negative width).
func padFormatted(sb *strings.Builder, s string, width int, left bool) error {
	if width < 0 {
		if width <= math.MinInt32 {
			return pgerror.New(pgerror.ProgramLimitExceeded, "number is out of range")
		}
		left, width = true, -width
	}
	pad := width - utf8.RuneCountInString(s)
	if left {
		sb.WriteString(s)
	}
	if pad > 0 {
		sb.WriteString(strings.Repeat(" ", pad))
	}
	if !left {
		sb.WriteString(s)
	}
	return nil
}
