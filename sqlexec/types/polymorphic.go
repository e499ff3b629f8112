package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The polymorphic pseudo-types that user routines declare, and
// PostgreSQL's rules for them (parse_coerce.c): which argument lists a
// polymorphic signature accepts (check_generic_type_consistency), the
// actual types a call gives its arguments and result
// (enforce_generic_type_consistency), and the signatures CREATE accepts
// (check_valid_polymorphic_signature). Family 1 (anyelement and its
// kin) takes one element type from its arguments; family 2 (anycompatible
// and its kin) takes their common supertype; anymultirange and
// anycompatiblemultirange stand for the multirange type over the range
// type anyrange and anycompatiblerange stand for.
const (
	OidAnyElement              Oid = 2283
	OidAnyArray                Oid = 2277
	OidAnyNonArray                 = oidAnyNonArray
	OidAnyRange                Oid = 3831
	OidAnyCompatible           Oid = 5077
	OidAnyCompatibleArray      Oid = 5078
	OidAnyCompatibleNonArray   Oid = 5079
	OidAnyCompatibleRange      Oid = 5080
	OidAnyMultirange           Oid = 4537
	OidAnyCompatibleMultirange Oid = 4538
)

// polymorphicNames maps the pseudo-types' names to their OIDs.
var polymorphicNames = map[string]Oid{
	"anyelement": OidAnyElement, "anyarray": OidAnyArray, "anynonarray": OidAnyNonArray, "anyenum": OidAnyEnum,
	"anyrange": OidAnyRange, "anycompatible": OidAnyCompatible, "anycompatiblearray": OidAnyCompatibleArray,
	"anycompatiblenonarray": OidAnyCompatibleNonArray, "anycompatiblerange": OidAnyCompatibleRange,
	"anymultirange": OidAnyMultirange, "anycompatiblemultirange": OidAnyCompatibleMultirange,
}

func init() {
	for name, oid := range polymorphicNames {
		typeInfos[oid] = typeInfo{name, name, 4, CategoryPseudo, false}
	}
	typeInfos[OidAnyArray] = typeInfo{"anyarray", "anyarray", -1, CategoryPseudo, false}
	typeInfos[OidAnyCompatibleArray] = typeInfo{"anycompatiblearray", "anycompatiblearray", -1, CategoryPseudo, false}
	typeInfos[OidAnyRange] = typeInfo{"anyrange", "anyrange", -1, CategoryPseudo, false}
	typeInfos[OidAnyCompatibleRange] = typeInfo{"anycompatiblerange", "anycompatiblerange", -1, CategoryPseudo, false}
	typeInfos[OidAnyMultirange] = typeInfo{"anymultirange", "anymultirange", -1, CategoryPseudo, false}
	typeInfos[OidAnyCompatibleMultirange] = typeInfo{"anycompatiblemultirange", "anycompatiblemultirange", -1, CategoryPseudo, false}
}

// PolymorphicByName returns the polymorphic pseudo-type a name (possibly
// qualified by pg_catalog) names, for the declarations of routines and
// aggregates; ok is false for any other name.
func PolymorphicByName(names []string) (Type, bool) {
	if len(names) > 2 || len(names) == 2 && names[0] != "pg_catalog" {
		return Type{}, false
	}
	oid, ok := polymorphicNames[names[len(names)-1]]
	return Type{oid, -1}, ok
}

// IsPolymorphic reports whether t is a polymorphic pseudo-type.
func (t Type) IsPolymorphic() bool { return isFamily1(t.Oid) || isFamily2(t.Oid) }

func isFamily1(o Oid) bool {
	return o == OidAnyElement || o == OidAnyArray || o == OidAnyNonArray || o == OidAnyEnum || o == OidAnyRange ||
		o == OidAnyMultirange
}

func isFamily2(o Oid) bool {
	return o == OidAnyCompatible || o == OidAnyCompatibleArray || o == OidAnyCompatibleNonArray || o == OidAnyCompatibleRange ||
		o == OidAnyCompatibleMultirange
}

// PolymorphicElem is the element pseudo-type of a polymorphic array
// pseudo-type (anyarray's is anyelement), for a VARIADIC parameter's
// spread arguments; ok is false for other types.
func PolymorphicElem(t Type) (Type, bool) {
	switch t.Oid {
	case OidAnyArray:
		return Type{OidAnyElement, -1}, true
	case OidAnyCompatibleArray:
		return Type{OidAnyCompatible, -1}, true
	}
	return Type{}, false
}

// CheckPolymorphicSignature is check_valid_polymorphic_signature: a
// polymorphic result needs an argument it can be deduced from (42P13).
func CheckPolymorphicSignature(result Type, args []Type) error {
	has := func(ok func(Oid) bool) bool {
		for _, a := range args {
			if ok(a.Oid) {
				return true
			}
		}
		return false
	}
	var detail string
	switch {
	case result.Oid == OidAnyRange || result.Oid == OidAnyMultirange:
		if !has(func(o Oid) bool { return o == OidAnyRange || o == OidAnyMultirange }) {
			detail = "A result of type %s requires at least one input of type anyrange or anymultirange."
		}
	case result.Oid == OidAnyCompatibleRange || result.Oid == OidAnyCompatibleMultirange:
		if !has(func(o Oid) bool { return o == OidAnyCompatibleRange || o == OidAnyCompatibleMultirange }) {
			detail = "A result of type %s requires at least one input of type anycompatiblerange or anycompatiblemultirange."
		}
	case isFamily1(result.Oid):
		if !has(isFamily1) {
			detail = "A result of type %s requires at least one input of type anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange."
		}
	case isFamily2(result.Oid):
		if !has(isFamily2) {
			detail = "A result of type %s requires at least one input of type anycompatible, anycompatiblearray, anycompatiblenonarray, anycompatiblerange, or anycompatiblemultirange."
		}
	}
	if detail == "" {
		return nil
	}
	return pgerror.New(pgerror.InvalidFunctionDefinition, "cannot determine result data type").WithDetail(detail, formatType(result))
}

// polyCoercible is can_coerce_type's test of one input against a
// polymorphic declared type, before the whole list is checked.
func polyCoercible(in, decl Type) bool {
	if in.Oid == OidUnknown {
		return true
	}
	switch decl.Oid {
	case OidAnyArray, OidAnyCompatibleArray:
		return in.IsArray()
	case OidAnyNonArray, OidAnyCompatibleNonArray:
		return !in.IsArray()
	case OidAnyEnum:
		return in.IsEnum()
	case OidAnyRange, OidAnyCompatibleRange:
		return in.IsRange()
	case OidAnyMultirange, OidAnyCompatibleMultirange:
		return in.IsMultirange()
	}
	return true
}

// polyState is what the arguments of a call tell of its polymorphic
// types.
type polyState struct {
	elem, array, rng, multi        Oid
	compatMulti                    Oid
	compatMultiUse                 bool
	nonArray, enum, family1Unknown bool
	family1                        int
	compat                         []Type
	compatRange, compatRangeElem   Oid
	hasCompat, compatArray         bool
	compatNonArray, compatRangeUse bool
}

func mismatch(format string, args ...any) *pgerror.Error {
	return pgerror.Newf(pgerror.DatatypeMismatch, format, args...)
}

// gather reads the actual types of the polymorphic arguments; strict
// makes a conflict an error (enforce) rather than a failed match (check).
func gather(actual, declared []Type) (*polyState, error) {
	st := &polyState{}
	for j, d := range declared {
		a := actual[j]
		switch d.Oid {
		case OidAnyElement, OidAnyNonArray, OidAnyEnum:
			st.family1++
			st.nonArray = st.nonArray || d.Oid == OidAnyNonArray
			st.enum = st.enum || d.Oid == OidAnyEnum
			if a.Oid == OidUnknown {
				st.family1Unknown = true
				continue
			}
			if st.elem != 0 && a.Oid != st.elem {
				return nil, mismatch("arguments declared \"%s\" are not all alike", "anyelement").
					WithDetail("%s versus %s", formatType(Type{st.elem, -1}), formatType(a))
			}
			st.elem = a.Oid
		case OidAnyArray, OidAnyRange, OidAnyMultirange:
			st.family1++
			if a.Oid == OidUnknown {
				st.family1Unknown = true
				continue
			}
			at, name := &st.array, "anyarray"
			switch d.Oid {
			case OidAnyRange:
				at, name = &st.rng, "anyrange"
			case OidAnyMultirange:
				at, name = &st.multi, "anymultirange"
			}
			if *at != 0 && a.Oid != *at {
				return nil, mismatch("arguments declared \"%s\" are not all alike", name).
					WithDetail("%s versus %s", formatType(Type{*at, -1}), formatType(a))
			}
			*at = a.Oid
		case OidAnyCompatible, OidAnyCompatibleNonArray:
			st.hasCompat = true
			st.compatNonArray = st.compatNonArray || d.Oid == OidAnyCompatibleNonArray
			if a.Oid != OidUnknown {
				st.compat = append(st.compat, Type{a.Oid, -1})
			}
		case OidAnyCompatibleArray:
			st.hasCompat, st.compatArray = true, true
			if a.Oid == OidUnknown {
				continue
			}
			e, ok := a.Elem()
			if !ok {
				return nil, mismatch("argument declared %s is not an array but type %s", "anycompatiblearray", formatType(a))
			}
			st.compat = append(st.compat, Type{e.Oid, -1})
		case OidAnyCompatibleRange:
			st.hasCompat, st.compatRangeUse = true, true
			if a.Oid == OidUnknown {
				continue
			}
			if st.compatRange != 0 {
				if a.Oid != st.compatRange {
					return nil, mismatch("arguments declared \"%s\" are not all alike", "anycompatiblerange").
						WithDetail("%s versus %s", formatType(Type{st.compatRange, -1}), formatType(a))
				}
				continue
			}
			sub, ok := a.RangeSubtype()
			if !ok {
				return nil, mismatch("argument declared %s is not a range type but type %s", "anycompatiblerange", formatType(a))
			}
			st.compatRange, st.compatRangeElem = a.Oid, sub.Oid
			st.compat = append(st.compat, sub)
		case OidAnyCompatibleMultirange:
			st.hasCompat, st.compatMultiUse = true, true
			if a.Oid == OidUnknown {
				continue
			}
			if st.compatMulti != 0 && a.Oid != st.compatMulti {
				return nil, mismatch("arguments declared \"%s\" are not all alike", "anycompatiblemultirange").
					WithDetail("%s versus %s", formatType(Type{st.compatMulti, -1}), formatType(a))
			}
			st.compatMulti = a.Oid
		}
	}
	if st.compatMulti != 0 {
		rng, ok := Type{st.compatMulti, -1}.MultirangeRange()
		if !ok {
			return nil, mismatch("argument declared %s is not a multirange type but type %s", "anycompatiblemultirange", formatType(Type{st.compatMulti, -1}))
		}
		if st.compatRange == 0 {
			sub, _ := rng.RangeSubtype()
			st.compatRange, st.compatRangeElem = rng.Oid, sub.Oid
			st.compat = append(st.compat, sub)
		} else if rng.Oid != st.compatRange {
			return nil, mismatch("argument declared %s is not consistent with argument declared %s", "anycompatiblemultirange", "anycompatiblerange").
				WithDetail("%s versus %s", formatType(Type{st.compatMulti, -1}), formatType(Type{st.compatRange, -1}))
		}
	}
	if st.array != 0 {
		e, ok := Type{st.array, -1}.Elem()
		if !ok {
			return nil, mismatch("argument declared %s is not an array but type %s", "anyarray", formatType(Type{st.array, -1}))
		}
		if st.elem == 0 {
			st.elem = e.Oid
		} else if e.Oid != st.elem {
			return nil, mismatch("argument declared %s is not consistent with argument declared %s", "anyarray", "anyelement").
				WithDetail("%s versus %s", formatType(Type{st.array, -1}), formatType(Type{st.elem, -1}))
		}
	}
	if st.multi != 0 {
		rng, ok := Type{st.multi, -1}.MultirangeRange()
		if !ok {
			return nil, mismatch("argument declared %s is not a multirange type but type %s", "anymultirange", formatType(Type{st.multi, -1}))
		}
		if st.rng == 0 {
			st.rng = rng.Oid
		} else if rng.Oid != st.rng {
			return nil, mismatch("argument declared %s is not consistent with argument declared %s", "anymultirange", "anyrange").
				WithDetail("%s versus %s", formatType(Type{st.multi, -1}), formatType(Type{st.rng, -1}))
		}
	}
	if st.rng != 0 {
		sub, ok := Type{st.rng, -1}.RangeSubtype()
		if !ok {
			return nil, mismatch("argument declared %s is not a range type but type %s", "anyrange", formatType(Type{st.rng, -1}))
		}
		if st.elem == 0 {
			st.elem = sub.Oid
		} else if sub.Oid != st.elem {
			return nil, mismatch("argument declared %s is not consistent with argument declared %s", "anyrange", "anyelement").
				WithDetail("%s versus %s", formatType(Type{st.rng, -1}), formatType(Type{st.elem, -1}))
		}
	}
	return st, nil
}

// PolymorphicMatch is check_generic_type_consistency: whether a call
// with the actual argument types (Unknown for untyped literals) can call
// a routine declaring the declared ones.
func PolymorphicMatch(actual, declared []Type) bool {
	poly := false
	for j, d := range declared {
		if d.IsPolymorphic() {
			if !polyCoercible(actual[j], d) {
				return false
			}
			poly = true
		}
	}
	if !poly {
		return true
	}
	st, err := gather(actual, declared)
	if err != nil {
		return false
	}
	if st.elem != 0 {
		e := Type{st.elem, -1}
		if st.nonArray && e.IsArray() || st.enum && !e.IsEnum() {
			return false
		}
	}
	if len(st.compat) > 0 {
		c, err := commonType("argument", st.compat)
		if err != nil {
			return false
		}
		if st.compatNonArray && c.IsArray() || st.compatRangeElem != 0 && st.compatRangeElem != c.Oid {
			return false
		}
	}
	return true
}

// ResolvePolymorphic is enforce_generic_type_consistency: the types a
// call's arguments are coerced to (the declared ones with every
// polymorphic type replaced by the actual type it stands for), and
// resolve, which gives the type a declared type (the result's, an OUT
// parameter's) stands for in the call; or the 42804 (42704) error
// PostgreSQL gives when the types cannot be deduced.
func ResolvePolymorphic(actual, declared []Type) (args []Type, resolve func(Type) (Type, error), err error) {
	st, err := gather(actual, declared)
	if err != nil {
		return nil, nil, err
	}
	out := append([]Type(nil), declared...)
	if st.family1 > 0 {
		if st.elem == 0 {
			return nil, nil, mismatch("could not determine polymorphic type because input has type %s", "unknown")
		}
		e := Type{st.elem, -1}
		if st.nonArray && e.IsArray() {
			return nil, nil, mismatch("type matched to anynonarray is an array type: %s", formatType(e))
		}
		if st.enum && !e.IsEnum() {
			return nil, nil, mismatch("type matched to anyenum is not an enum type: %s", formatType(e))
		}
	}
	var compat, compatArray Type
	if st.hasCompat {
		if len(st.compat) > 0 {
			c, err := commonType("argument", st.compat)
			if err != nil {
				return nil, nil, mismatch("arguments of anycompatible family cannot be cast to a common type")
			}
			compat = Type{c.Oid, -1}
			a, ok := ArrayOf(compat)
			if st.compatArray && !ok {
				return nil, nil, pgerror.Newf(pgerror.UndefinedObject, "could not find array type for data type %s", formatType(compat))
			}
			compatArray = Type{a.Oid, -1}
			if st.compatRangeUse || st.compatMultiUse {
				if st.compatRange == 0 {
					return nil, nil, mismatch("could not determine polymorphic type %s because input has type %s", "anycompatiblerange", "unknown")
				}
				if st.compatRangeElem != compat.Oid {
					return nil, nil, mismatch("anycompatiblerange type %s does not match anycompatible type %s",
						formatType(Type{st.compatRange, -1}), formatType(compat))
				}
			}
			if st.compatNonArray && compat.IsArray() {
				return nil, nil, mismatch("type matched to anycompatiblenonarray is an array type: %s", formatType(compat))
			}
		} else {
			compat, compatArray = Text, Type{arrayTypes[OidText], -1}
			if st.compatRangeUse || st.compatMultiUse {
				return nil, nil, mismatch("could not determine polymorphic type %s because input has type %s", "anycompatiblerange", "unknown")
			}
		}
	}
	arrayOf := func() (Type, error) {
		if st.array != 0 {
			return Type{st.array, -1}, nil
		}
		a, ok := ArrayOf(Type{st.elem, -1})
		if !ok {
			return Type{}, pgerror.Newf(pgerror.UndefinedObject, "could not find array type for data type %s", formatType(Type{st.elem, -1}))
		}
		return Type{a.Oid, -1}, nil
	}
	resolveAt := func(t Type, unknownInput bool) (Type, error) {
		switch t.Oid {
		case OidAnyElement, OidAnyNonArray, OidAnyEnum:
			return Type{st.elem, -1}, nil
		case OidAnyArray:
			return arrayOf()
		case OidAnyRange:
			if st.rng == 0 {
				if unknownInput {
					return Type{}, mismatch("could not determine polymorphic type %s because input has type %s", "anyrange", "unknown")
				}
				return Type{}, pgerror.Newf(pgerror.InternalError, "could not determine polymorphic type %s because input has type %s", "anyrange", "unknown")
			}
			return Type{st.rng, -1}, nil
		case OidAnyMultirange:
			if st.multi != 0 {
				return Type{st.multi, -1}, nil
			}
			if mr, ok := (Type{st.rng, -1}).RangeMultirange(); ok {
				return mr, nil
			}
			if unknownInput {
				return Type{}, mismatch("could not determine polymorphic type %s because input has type %s", "anymultirange", "unknown")
			}
			return Type{}, pgerror.Newf(pgerror.InternalError, "could not determine polymorphic type %s because input has type %s", "anymultirange", "unknown")
		case OidAnyCompatibleMultirange:
			mr, _ := Type{st.compatRange, -1}.RangeMultirange()
			return mr, nil
		case OidAnyCompatible, OidAnyCompatibleNonArray:
			return compat, nil
		case OidAnyCompatibleArray:
			if compatArray.Oid == 0 {
				return Type{}, pgerror.Newf(pgerror.UndefinedObject, "could not find array type for data type %s", formatType(compat))
			}
			return compatArray, nil
		case OidAnyCompatibleRange:
			return Type{st.compatRange, -1}, nil
		}
		return t, nil
	}
	for j, d := range declared {
		if !d.IsPolymorphic() {
			continue
		}
		if isFamily1(d.Oid) && actual[j].Oid != OidUnknown {
			out[j] = Type{actual[j].Oid, -1}
			continue
		}
		if out[j], err = resolveAt(d, true); err != nil {
			return nil, nil, err
		}
	}
	return out, func(t Type) (Type, error) { return resolveAt(t, false) }, nil
}

// ResolveValidatorType is the type PL/pgSQL's validator compiles a
// polymorphic parameter or result as (integer, integer[], int4range), t
// itself for any other type.
func ResolveValidatorType(t Type) Type {
	switch t.Oid {
	case OidAnyElement, OidAnyNonArray, OidAnyEnum, OidAnyCompatible, OidAnyCompatibleNonArray:
		return Int4
	case OidAnyArray, OidAnyCompatibleArray:
		return Type{arrayTypes[OidInt4], -1}
	case OidAnyRange, OidAnyCompatibleRange:
		return Type{OidInt4Range, -1}
	case OidAnyMultirange, OidAnyCompatibleMultirange:
		return Type{OidInt4Multirange, -1}
	}
	return t
}
