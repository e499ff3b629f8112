package types

import "github.com/fickle-db/fickle/internal/pgerror"

// The SQL-callable hash support functions of the built-in hash operator
// classes (hashint4, hashint4extended, uuid_hash, ...). Each standard hash
// is the low half of its extended hash under seed 0, as PostgreSQL
// guarantees (hash_func.sql checks it), so both come from HashExtended.

// hashFuncs names, per type, the standard and extended hash functions.
var hashFuncs = []struct {
	t             Type
	name, extName string
}{
	{Int2, "hashint2", "hashint2extended"},
	{Int4, "hashint4", "hashint4extended"},
	{Int8, "hashint8", "hashint8extended"},
	{OidType, "hashoid", "hashoidextended"},
	{Float4, "hashfloat4", "hashfloat4extended"},
	{Float8, "hashfloat8", "hashfloat8extended"},
	{Char, "hashchar", "hashcharextended"},
	{Name, "hashname", "hashnameextended"},
	{BpcharAny, "hashbpchar", "hashbpcharextended"},
	{Time, "time_hash", "time_hash_extended"},
	{Type{OidTimetz, -1}, "timetz_hash", "timetz_hash_extended"},
	{Timestamp, "timestamp_hash", "timestamp_hash_extended"},
	{Interval, "interval_hash", "interval_hash_extended"},
	{UUID, "uuid_hash", "uuid_hash_extended"},
	{PGLSNType, "pg_lsn_hash", "pg_lsn_hash_extended"},
	{MacaddrType, "hashmacaddr", "hashmacaddrextended"},
	{Macaddr8Type, "hashmacaddr8", "hashmacaddr8extended"},
	{NumericAny, "hash_numeric", "hash_numeric_extended"},
	{InetType, "hashinet", "hashinetextended"},
	{OidVector, "hashoidvector", "hashoidvectorextended"},
}

func init() {
	builders["hash_array"] = arrayUnary(Int4, func(t Type, a any) (any, error) {
		if err := arrayHashable(t, false); err != nil {
			return nil, err
		}
		return int64(int32(uint32(HashExtended(t, a, 0)))), nil
	}, true)
	for _, ext := range []bool{false, true} {
		name := map[bool]string{false: "", true: "_extended"}[ext]
		builders["hash_range"+name] = valueHashFunc(ext, func(t Type) (Type, bool) {
			sub, ok := t.RangeSubtype()
			return sub, ok
		})
		builders["hash_multirange"+name] = valueHashFunc(ext, func(t Type) (Type, bool) {
			rt, ok := t.MultirangeRange()
			if !ok {
				return Type{}, false
			}
			return rt.RangeSubtype()
		})
	}
	builders["hash_record"] = recordHashFunc(false)
	builders["hash_record_extended"] = recordHashFunc(true)
	builders["hash_array_extended"] = func(args []Type) (*Func, bool, error) {
		if len(args) != 2 || !canCoerce(args[1], Int8, CastImplicit) {
			return nil, false, nil
		}
		t, err := arrayArgType(args[0])
		if err != nil || t.Oid == 0 {
			return nil, false, err
		}
		seed, err := lookupCast(args[1], Int8, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		return &Func{Args: []Type{t, Int8}, Result: Int8, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			s, err := seed(env, a[1])
			if err != nil {
				return nil, err
			}
			if err := arrayHashable(t, true); err != nil {
				return nil, err
			}
			return int64(HashExtended(t, a[0], uint64(s.(int64)))), nil
		}}, true, nil
	}
	for _, h := range hashFuncs {
		t := h.t
		addFunc(h.name, Immutable, Int4, func(_ *Env, a []any) (any, error) {
			return int64(int32(uint32(HashExtended(t, a[0], 0)))), nil
		}, t)
		addFunc(h.extName, Immutable, Int8, func(_ *Env, a []any) (any, error) {
			return int64(HashExtended(t, a[0], uint64(a[1].(int64)))), nil
		}, t, Int8)
	}
}

// valueHashFunc builds the standard (extended false) or extended hash
// function of the types whose element type inner reports, as hash_range
// and hash_multirange are over their subtype's hash.
func valueHashFunc(extended bool, inner func(Type) (Type, bool)) funcBuilder {
	return func(args []Type) (*Func, bool, error) {
		if len(args) != 1+boolInt(extended) || extended && !canCoerce(args[1], Int8, CastImplicit) {
			return nil, false, nil
		}
		t := args[0]
		elem, ok := inner(t)
		if !ok {
			return nil, false, nil
		}
		return hashFunc(t, extended, func() error { return typeHashable(elem, extended) }, args)
	}
}

// hashFunc is the Func of a standard or extended hash of values of t,
// check failing before a value is hashed.
func hashFunc(t Type, extended bool, check func() error, args []Type) (*Func, bool, error) {
	argTypes, result := []Type{t}, Int4
	seed := func(*Env, any) (any, error) { return int64(0), nil }
	if extended {
		c, err := lookupCast(args[1], Int8, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		argTypes, result, seed = []Type{t, Int8}, Int8, c
	}
	return &Func{Args: argTypes, Result: result, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
		for _, v := range a {
			if v == nil {
				return nil, nil
			}
		}
		s, err := seed(env, append(a, int64(0))[1])
		if err != nil {
			return nil, err
		}
		if err := check(); err != nil {
			return nil, err
		}
		h := HashExtended(t, a[0], uint64(s.(int64)))
		if !extended {
			return int64(int32(uint32(h))), nil
		}
		return int64(h), nil
	}}, true, nil
}

// recordHashFunc builds hash_record (extended false) and
// hash_record_extended over a record of known shape.
func recordHashFunc(extended bool) funcBuilder {
	return func(args []Type) (*Func, bool, error) {
		if len(args) != 1+boolInt(extended) || !args[0].IsRecord() || extended && !canCoerce(args[1], Int8, CastImplicit) {
			return nil, false, nil
		}
		t := args[0]
		fields, ok := t.Fields()
		if !ok {
			return nil, false, nil
		}
		return hashFunc(t, extended, func() error {
			for _, f := range fields {
				if err := typeHashable(f.Type, extended); err != nil {
					return err
				}
			}
			return nil
		}, args)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// arrayHashable is hash_array's check of its element type: 42883 for a
// type without a hash operator class, as PostgreSQL reports it, 0A000 for
// one whose hash fickle does not compute.
func arrayHashable(t Type, extended bool) error {
	elem, _ := t.Elem()
	return typeHashable(elem, extended)
}

// typeHashable is the check hash_array and hash_record make of an element
// or field type.
func typeHashable(elem Type, extended bool) error {
	if !hasHash(elem) || elem.Oid == OidUnknown {
		kind := "a hash"
		if extended {
			kind = "an extended hash"
		}
		return pgerror.Newf(pgerror.UndefinedFunction, "could not identify %s function for type %s", kind, formatType(elem))
	}
	if !HashExtendedSupported(elem) {
		return pgerror.Unsupported("hashing a value of type " + formatType(elem))
	}
	return nil
}
