package types

import (
	"strings"
	"sync"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Named composite types (CREATE TYPE name AS (...)). A composite type has
// its own OID, given by the catalog, and a datum like an anonymous
// record's: []any of its field datums. The catalog registers each type's
// name and fields here when it creates it, so that output, input, casts,
// comparison and key encoding find the shape from the Type alone. OIDs are
// never reused, so an entry outlives a dropped type harmlessly.

// CategoryComposite is the category of composite types.
const CategoryComposite Category = 'C'

type compositeInfo struct {
	name   string
	fields []Field
	array  Oid
}

var (
	composites      sync.Map // Oid -> compositeInfo
	compositeArrays sync.Map // array type Oid -> element Oid
)

// RegisterComposite records that oid is the composite type name (as
// format_type prints it) with the given fields, and array the OID of the
// array type over it.
func RegisterComposite(oid, array Oid, name string, fields []Field) {
	composites.Store(oid, compositeInfo{name: name, fields: append([]Field(nil), fields...), array: array})
	compositeArrays.Store(array, oid)
}

// compositeArrayOf returns the array type over composite type oid.
func compositeArrayOf(oid Oid) (Oid, bool) {
	c, ok := compositeOf(oid)
	return c.array, ok
}

// compositeElemOf returns the composite element type of an array type.
func compositeElemOf(oid Oid) (Oid, bool) {
	v, ok := compositeArrays.Load(oid)
	if !ok {
		return 0, false
	}
	return v.(Oid), true
}

func compositeOf(oid Oid) (compositeInfo, bool) {
	v, ok := composites.Load(oid)
	if !ok {
		return compositeInfo{}, false
	}
	return v.(compositeInfo), true
}

// IsComposite reports whether t is a named composite type.
func (t Type) IsComposite() bool {
	_, ok := compositeOf(t.Oid)
	return ok
}

// IsRecord reports whether t's datums are records: the pseudo-type record
// or a named composite type.
func (t Type) IsRecord() bool { return t.Oid == OidRecord || t.IsComposite() }

// compareRecords is btrecordcmp: field by field, two NULL fields equal and
// a NULL field after every value, a shorter record first.
func compareRecords(t Type, a, b []any) int {
	fields, _ := t.Fields()
	for k := 0; k < len(a) && k < len(b); k++ {
		x, y := a[k], b[k]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		if c := compare(fieldType(fields, k), x, y); c != 0 {
			return c
		}
	}
	return cmp3(len(a), len(b))
}

// fieldType is the type of field k, text where the shape is unknown.
func fieldType(fields []Field, k int) Type {
	if k < len(fields) {
		return fields[k].Type
	}
	return Text
}

func appendKeyRecord(buf []byte, t Type, vals []any) []byte {
	fields, _ := t.Fields()
	for k, v := range vals {
		buf = appendKey(buf, fieldType(fields, k), v)
	}
	return buf
}

func decodeKeyRecord(t Type, buf []byte) (any, []byte, error) {
	fields, ok := t.Fields()
	if !ok {
		return nil, nil, errBadKey
	}
	out := make([]any, len(fields))
	for k, f := range fields {
		v, rest, err := decodeKey(f.Type, buf)
		if err != nil {
			return nil, nil, err
		}
		out[k], buf = v, rest
	}
	return out, buf, nil
}

// anonymousRecordInput is record_in's error for the pseudo-type record:
// text names no shape to read.
func anonymousRecordInput() error {
	return pgerror.New(pgerror.FeatureNotSupported, "input of anonymous composite types is not implemented")
}

// recordCastPath finds the casts between records and composite types: a
// record of known shape to a composite type field by field (PostgreSQL's
// coerce_record_to_complex, which needs as many fields as the type has),
// a composite type to record as it is, and a composite type to and from
// text through its output and input functions. found is false when
// neither side is a record.
func recordCastPath(from, to Type, ctx CastContext) (fn EnvCastFunc, found bool, err error) {
	if !from.IsRecord() && !to.IsRecord() {
		return nil, false, nil
	}
	switch {
	case from == to || to.Oid == OidRecord && from.IsRecord():
		return identity, true, nil
	case from.Oid == OidUnknown || isStringType(from.Oid) && ctx == CastExplicit:
		if to.Oid == OidRecord {
			return func(*Env, any) (any, error) { return nil, anonymousRecordInput() }, true, nil
		}
		return fromText(to), true, nil
	case isStringType(to.Oid) && ctx >= CastAssignment:
		return toText(from), true, nil
	case from.Oid == OidRecord && to.IsComposite():
		return recordToComposite(from, to, ctx)
	}
	return nil, true, cannotCast(from, to, ctx)
}

// recordToComposite converts a record of known shape to composite type to,
// casting each field to the field type in ctx.
func recordToComposite(from, to Type, ctx CastContext) (EnvCastFunc, bool, error) {
	src, known := from.Fields()
	dst, _ := to.Fields()
	if !known {
		return nil, true, cannotCast(from, to, ctx)
	}
	if len(src) != len(dst) {
		detail := "Input has too few columns."
		if len(src) > len(dst) {
			detail = "Input has too many columns."
		}
		return nil, true, pgerror.Newf(pgerror.CannotCoerce, "cannot cast type %s to %s", formatType(from), formatType(to)).WithDetail("%s", detail)
	}
	casts := make([]EnvCastFunc, len(src))
	for k := range src {
		f, err := lookupCast(src[k].Type, dst[k].Type, ctx)
		if err != nil {
			return nil, true, pgerror.Newf(pgerror.CannotCoerce, "cannot cast type %s to %s", formatType(from), formatType(to)).
				WithDetail("Cannot cast type %s to %s in column %d.", formatType(src[k].Type), formatType(dst[k].Type), k+1)
		}
		casts[k] = f
	}
	return func(env *Env, v any) (any, error) {
		in := v.([]any)
		out := make([]any, len(in))
		for k, x := range in {
			if x == nil {
				continue
			}
			y, err := casts[k](env, x)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	}, true, nil
}

// parseRecord is record_in for composite type t: "(f1,f2,...)" with each
// field's text unquoted (double quotes group, a backslash escapes the next
// character, a doubled quote inside quotes is one quote) and an empty
// unquoted field as NULL. White space around the parentheses is allowed.
func parseRecord(env *Env, t Type, s string) (any, error) {
	fields, _ := t.Fields()
	malformed := func(detail string) error {
		return pgerror.Newf(pgerror.InvalidTextRepresentation, "malformed record literal: \"%s\"", s).WithDetail("%s", detail)
	}
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	if !strings.HasPrefix(p, "(") {
		return nil, malformed("Missing left parenthesis.")
	}
	p = p[1:]
	out := make([]any, len(fields))
	for k, f := range fields {
		var b strings.Builder
		quoted := false
		inQuote := false
		for len(p) > 0 && (inQuote || (p[0] != ',' && p[0] != ')')) {
			c := p[0]
			p = p[1:]
			switch {
			case c == '\\':
				if len(p) == 0 {
					return nil, malformed("Unexpected end of input.")
				}
				b.WriteByte(p[0])
				p = p[1:]
			case c == '"' && inQuote && len(p) > 0 && p[0] == '"':
				b.WriteByte('"')
				p = p[1:]
			case c == '"':
				inQuote, quoted = !inQuote, true
			default:
				b.WriteByte(c)
			}
		}
		if len(p) == 0 {
			return nil, malformed("Unexpected end of input.")
		}
		last := k == len(fields)-1
		if !last && p[0] != ',' {
			return nil, malformed("Too few columns.")
		}
		if last && p[0] != ')' {
			return nil, malformed("Too many columns.")
		}
		p = p[1:]
		if b.Len() == 0 && !quoted {
			continue
		}
		v, err := parseText(env, f.Type, b.String())
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	if len(fields) == 0 {
		if !strings.HasPrefix(p, ")") {
			return nil, malformed("Too many columns.")
		}
		p = p[1:]
	}
	if strings.TrimRight(p, " \t\n\r\v\f") != "" {
		return nil, malformed("Junk after right parenthesis.")
	}
	return out, nil
}

// recordComparison resolves =, <>, <, <=, > and >= between two records of
// the same type (or two records of known shape with as many fields), with
// record_eq's and btrecordcmp's semantics: the fields are compared in
// order up to the first that decides, and only a field reached fails for
// types that differ or that have no equality (= and <>) or ordering; so
// does a difference in the number of fields, when every field compared
// was equal. The image operators *= *<> *< *<= *> *>= compare as
// record_image_cmp does.
func recordComparison(op string, l, r Type) (*BinaryOp, bool, error) {
	if !l.IsRecord() || !r.IsRecord() {
		return nil, false, nil
	}
	test, ok := comparisonTests[op]
	if !ok && !IsRecordImageOp(op) {
		return nil, false, nil
	}
	lf, lok := l.Fields()
	rf, rok := r.Fields()
	if !lok || !rok {
		return nil, true, pgerror.Unsupported("comparison of records of unknown shape")
	}
	if !ok {
		return recordImageComparison(op, lf, rf, l, r), true, nil
	}
	for k := range lf {
		if lf[k].Type.Oid == OidUnknown {
			return nil, true, pgerror.New(pgerror.UndefinedFunction, "could not identify a comparison function for type unknown")
		}
	}
	equality := op == "=" || op == "<>" || op == "!="
	eval := func(_ *Env, a, b any) (any, error) {
		if a == nil || b == nil {
			return nil, nil
		}
		c, err := compareRecordFields(lf, rf, a.([]any), b.([]any), equality)
		if err != nil {
			return nil, err
		}
		return test(c), nil
	}
	return &BinaryOp{Name: op, Left: l, Right: r, Result: Bool,
		Eval:    func(a, b any) (any, error) { return eval(nil, a, b) },
		EvalEnv: eval}, true, nil
}

// compareRecordFields compares two records field by field as record_eq
// (equality) or btrecordcmp does: two NULL fields equal, a NULL field
// after every value, the first unequal field deciding. A field reached
// whose types differ, or whose type has no equality or ordering, fails.
func compareRecordFields(lf, rf []Field, a, b []any, equality bool) (int, error) {
	for k := 0; k < len(lf) && k < len(rf) && k < len(a) && k < len(b); k++ {
		ft := lf[k].Type
		if ft.Oid != rf[k].Type.Oid {
			return 0, pgerror.Newf(pgerror.DatatypeMismatch, "cannot compare dissimilar column types %s and %s at record column %d",
				formatType(ft), formatType(rf[k].Type), k+1)
		}
		if equality && !hasEquality(ft) {
			return 0, pgerror.Newf(pgerror.UndefinedFunction, "could not identify an equality operator for type %s", formatType(ft))
		}
		if !equality && !hasBtree(ft) {
			return 0, pgerror.Newf(pgerror.UndefinedFunction, "could not identify a comparison function for type %s", formatType(ft))
		}
		x, y := a[k], b[k]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1, nil
		case y == nil:
			return -1, nil
		}
		if c := compare(ft, x, y); c != 0 {
			return c, nil
		}
	}
	if len(lf) != len(rf) {
		return 0, errRecordColumnCount
	}
	return cmp3(len(a), len(b)), nil
}
