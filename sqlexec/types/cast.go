package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// castEntry is a row of pg_cast: the weakest context the cast is allowed in
// and the conversion.
type castEntry struct {
	ctx CastContext
	fn  EnvCastFunc
}

type castKey struct{ from, to Oid }

// casts is pg_cast restricted to fickle's types. I/O conversions to and from
// string types are not listed: castPath adds them as PostgreSQL does.
var casts = map[castKey]castEntry{}

func addCast(from, to Oid, ctx CastContext, fn EnvCastFunc) {
	global.addCast(from, to, ctx, fn)
}

// typmodCasts are the casts whose function takes the target's typmod, as
// PostgreSQL's cast functions with a second argument do (bit(int4, int4)):
// their value has the target's typmod already, so no length coercion
// follows.
var typmodCasts = map[castKey]func(to Type) EnvCastFunc{}

// addTypmodCast registers such a cast; without a typmod it is build's
// function for typmod -1.
func addTypmodCast(from, to Oid, ctx CastContext, build func(to Type) EnvCastFunc) {
	addCast(from, to, ctx, build(Type{to, -1}))
	typmodCasts[castKey{from, to}] = build
}

// typmodCast returns the typmod cast from from to to, or between their
// elements applied to each element.
func typmodCast(from, to Type) (EnvCastFunc, bool) {
	if build, ok := typmodCasts[castKey{from.Oid, to.Oid}]; ok {
		return build(to), true
	}
	fe, fromArray := from.Elem()
	te, toArray := to.Elem()
	if fromArray && toArray {
		if build, ok := typmodCasts[castKey{fe.Oid, te.Oid}]; ok {
			return mapArray(build(te)), true
		}
	}
	return nil, false
}

func init() {
	ints := []Oid{OidInt2, OidInt4, OidInt8}
	for _, from := range ints {
		for _, to := range ints {
			if from == to {
				continue
			}
			ctx := CastImplicit
			if typeInfoOf(to).size < typeInfoOf(from).size {
				ctx = CastAssignment
			}
			addCast(from, to, ctx, intToInt(to))
		}
		addCast(from, OidFloat4, CastImplicit, intToFloat(OidFloat4))
		addCast(from, OidFloat8, CastImplicit, intToFloat(OidFloat8))
		addCast(from, OidNumeric, CastImplicit, intToNumeric)
		addCast(from, OidOid, CastImplicit, intToOid)
	}
	for _, from := range []Oid{OidFloat4, OidFloat8} {
		for _, to := range ints {
			addCast(from, to, CastAssignment, floatToInt(to))
		}
		addCast(from, OidNumeric, CastAssignment, floatToNumeric(from))
	}
	addCast(OidFloat4, OidFloat8, CastImplicit, float4ToFloat8)
	addCast(OidFloat8, OidFloat4, CastAssignment, float8ToFloat4)
	for _, to := range ints {
		addCast(OidNumeric, to, CastAssignment, numericToInt(to))
	}
	addCast(OidNumeric, OidFloat4, CastImplicit, numericToFloat(OidFloat4))
	addCast(OidNumeric, OidFloat8, CastImplicit, numericToFloat(OidFloat8))
	addCast(OidInt4, OidBool, CastExplicit, intToBool)
	addCast(OidBool, OidInt4, CastExplicit, boolToInt)
	for _, to := range []Oid{OidText, OidVarchar, OidBpchar} {
		addCast(OidBool, to, CastAssignment, boolToText)
	}
	addCast(OidOid, OidInt4, CastAssignment, oidToInt4)
	addCast(OidOid, OidInt8, CastAssignment, identity)

	// Strings: text, varchar and bpchar convert implicitly among themselves
	// and to name; name and "char" convert implicitly to text only.
	addCast(OidText, OidBpchar, CastImplicit, identity)
	addCast(OidText, OidVarchar, CastImplicit, identity)
	addCast(OidText, OidName, CastImplicit, textToName)
	addCast(OidText, OidChar, CastAssignment, textToChar)
	addCast(OidVarchar, OidText, CastImplicit, identity)
	addCast(OidVarchar, OidBpchar, CastImplicit, identity)
	addCast(OidVarchar, OidName, CastImplicit, textToName)
	addCast(OidVarchar, OidChar, CastAssignment, textToChar)
	addCast(OidBpchar, OidText, CastImplicit, bpcharToText)
	addCast(OidBpchar, OidVarchar, CastImplicit, bpcharToText)
	addCast(OidBpchar, OidName, CastImplicit, func(env *Env, v any) (any, error) {
		s, _ := bpcharToText(env, v)
		return textToName(env, s)
	})
	addCast(OidBpchar, OidChar, CastAssignment, textToChar)
	addCast(OidName, OidText, CastImplicit, identity)
	addCast(OidName, OidBpchar, CastAssignment, identity)
	addCast(OidName, OidVarchar, CastAssignment, identity)
	charToText := func(_ *Env, v any) (any, error) { return formatChar(v.(string)), nil }
	addCast(OidChar, OidText, CastImplicit, charToText)
	addCast(OidChar, OidBpchar, CastAssignment, charToText)
	addCast(OidChar, OidVarchar, CastAssignment, charToText)
	addCast(OidChar, OidInt4, CastExplicit, charToInt4)
	addCast(OidInt4, OidChar, CastExplicit, int4ToChar)

	// Date and time.
	addCast(OidDate, OidTimestamp, CastImplicit, dateToTimestamp)
	addCast(OidDate, OidTimestamptz, CastImplicit, dateToTimestamptz)
	addCast(OidTimestamp, OidDate, CastAssignment, timestampToDate)
	addCast(OidTimestamp, OidTimestamptz, CastImplicit, timestampToTimestamptz)
	addCast(OidTimestamptz, OidDate, CastAssignment, timestamptzToDate)
	addCast(OidTimestamptz, OidTimestamp, CastAssignment, timestamptzToTimestamp)

	// JSON.
	addCast(OidJSON, OidJSONB, CastAssignment, jsonToJSONB)
	addCast(OidJSONB, OidJSON, CastAssignment, identity)
	for _, to := range []Type{Bool, NumericAny, Int2, Int4, Int8, Float4, Float8} {
		addCast(OidJSONB, to.Oid, CastExplicit, jsonbToScalar(to))
	}
}

// isStringType reports whether oid is one of the types I/O conversion casts
// go to (PostgreSQL's string category).
func isStringType(oid Oid) bool { return typeInfoOf(oid).category == CategoryString }

// castPath returns the conversion between the base types (no typmod) and
// the weakest context it is allowed in; ok is false when PostgreSQL has no
// such cast.
func castPath(from, to Oid) (fn EnvCastFunc, ctx CastContext, ok bool) {
	if from == to {
		return identity, CastImplicit, true
	}
	if from == OidUnknown {
		return fromText(Type{to, -1}), CastImplicit, true
	}
	if e, found := casts[castKey{from, to}]; found {
		return e.fn, e.ctx, true
	}
	if e, found := userCast(from, to); found {
		return e.fn, e.ctx, true
	}
	if fn, ctx, found := arrayCastPath(from, to); found {
		return fn, ctx, true
	}
	if fn, ctx, found := vectorCastPath(from, to); found {
		return fn, ctx, true
	}
	if !ioConvertible(to) || !ioConvertible(from) {
		return nil, 0, false
	}
	if isStringType(to) {
		// Automatic I/O conversion to a string type: allowed in assignment.
		return toText(Type{from, -1}), CastAssignment, true
	}
	if isStringType(from) {
		// Automatic I/O conversion from a string type: explicit only.
		return fromText(Type{to, -1}), CastExplicit, true
	}
	return nil, 0, false
}

// ioConvertible reports whether a type has the automatic I/O conversion
// casts to and from the string types: every built-in type, enum, user
// range and array type (composites have theirs in recordCastPath).
func ioConvertible(oid Oid) bool {
	_, known := typeInfos[oid]
	t := Type{oid, -1}
	return known || t.IsEnum() || isUserRangeType(oid) || t.IsArray() || t.IsCitext() || t.IsHstore()
}

func lookupCast(from, to Type, ctx CastContext) (EnvCastFunc, error) {
	if fn, found, err := recordCastPath(from, to, ctx); found {
		return fn, err
	}
	fn, need, ok := castPath(from.Oid, to.Oid)
	if !ok || need > ctx {
		return nil, cannotCast(from, to, ctx)
	}
	if from.Oid == to.Oid && (to.Typmod < 0 || from.Typmod == to.Typmod) {
		return identity, nil
	}
	if fn, ok := typmodCast(from, to); ok {
		return fn, nil
	}
	if from.Oid == OidUnknown && to.Oid == OidInterval {
		// interval_in reads a literal under the type's field restriction:
		// '1 2' as INTERVAL DAY TO HOUR is a day and two hours.
		fn = func(env *Env, v any) (any, error) { return parseText(env, to, v.(string)) }
	}
	mod := typmodCoercion(to, ctx)
	if from.Oid == OidUnknown && mod != nil && ctx != CastExplicit {
		// An untyped literal goes through the input function with the
		// typmod, as in INSERT ... VALUES ('abcd') into varchar(3): 22001.
		base := fn
		fn = func(env *Env, v any) (any, error) {
			x, err := base(env, v)
			if err != nil {
				return nil, err
			}
			return mod(env, x)
		}
		return fn, nil
	}
	if mod == nil {
		return fn, nil
	}
	if from.Oid == to.Oid {
		return mod, nil
	}
	return func(env *Env, v any) (any, error) {
		x, err := fn(env, v)
		if err != nil {
			return nil, err
		}
		return mod(env, x)
	}, nil
}

// cannotCast is the error of a cast PostgreSQL does not allow in ctx.
func cannotCast(from, to Type, ctx CastContext) error {
	if ctx == CastExplicit {
		return pgerror.Newf(pgerror.CannotCoerce, "cannot cast type %s to %s", formatType(from), formatType(to))
	}
	return pgerror.Newf(pgerror.DatatypeMismatch, "expression of type %s cannot be coerced to type %s", formatType(from), formatType(to))
}

func canCoerce(from, to Type, ctx CastContext) bool {
	if _, found, err := recordCastPath(from, to, ctx); found {
		return err == nil
	}
	_, need, ok := castPath(from.Oid, to.Oid)
	return ok && need <= ctx
}

// commonType is select_common_type plus select_common_typmod.
func commonType(context string, ts []Type) (Type, error) {
	if len(ts) == 0 {
		return Text, nil
	}
	ptype := ts[0]
	same := true
	for _, t := range ts[1:] {
		if t.Oid != ptype.Oid {
			same = false
		}
	}
	if !same {
		pcat, ppref := ptype.Category(), ptype.Preferred()
		for _, n := range ts[1:] {
			if n.Oid == OidUnknown || n.Oid == ptype.Oid {
				continue
			}
			ncat, npref := n.Category(), n.Preferred()
			switch {
			case ptype.Oid == OidUnknown:
				ptype, pcat, ppref = n, ncat, npref
			case ncat != pcat:
				return Type{}, pgerror.Newf(pgerror.DatatypeMismatch, "%s types %s and %s cannot be matched", context, formatType(ptype), formatType(n))
			case !ppref && canCoerce(ptype, n, CastImplicit) && !canCoerce(n, ptype, CastImplicit):
				ptype, pcat, ppref = n, ncat, npref
			}
		}
	}
	if ptype.Oid == OidUnknown {
		return Text, nil
	}
	for _, t := range ts {
		if !canCoerce(t, ptype, CastImplicit) {
			return Type{}, pgerror.Newf(pgerror.CannotCoerce, "%s could not convert type %s to %s", context, formatType(t), formatType(ptype))
		}
	}
	// select_common_typmod: keep the typmod only if every input has it.
	typmod := ts[0].Typmod
	for _, t := range ts {
		if t.Oid != ptype.Oid || t.Typmod != typmod {
			typmod = -1
			break
		}
	}
	return Type{ptype.Oid, typmod}, nil
}
