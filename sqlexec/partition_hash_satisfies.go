package sqlexec

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// satisfiesHashPartition compiles satisfies_hash_partition(parent, modulus,
// remainder, VARIADIC "any"), the function a hash partition's constraint
// calls, as PostgreSQL 15's partbounds.c runs it: the key values are
// hashed with the parent's key's hash functions (a user class's support
// function 2 included) and combined as routing combines them.
func (b *binder) satisfiesHashPartition(sc *scope, fc *pg_query.FuncCall) (*scalar, error) {
	if len(fc.Args) < 3 {
		return nil, b.errAt(pgerror.Unsupported("satisfies_hash_partition() with fewer than four arguments"), fc.Location)
	}
	args := make([]*scalar, len(fc.Args))
	var refs uint64
	volatile := false
	for i, a := range fc.Args {
		e, err := b.expr(sc, a)
		if err != nil {
			return nil, err
		}
		want := []types.Type{types.OidType, types.Int4, types.Int4}
		if i < 3 {
			if e, err = b.coerce(e, want[i], types.CastImplicit); err != nil {
				return nil, b.withPos(err, fc.Location)
			}
		} else if unresolved(e) {
			if e, err = b.fix(e, types.Text); err != nil {
				return nil, err
			}
		}
		args[i], refs, volatile = e, refs|e.refs, volatile || e.volatile
	}
	variadic := fc.FuncVariadic
	if variadic && (len(args) != 4 || !args[3].typ.IsArray()) {
		return nil, b.errAt(pgerror.New(pgerror.DatatypeMismatch, "VARIADIC argument must be an array"), fc.Location)
	}
	return &scalar{typ: types.Bool, slot: -1, refs: refs, volatile: volatile, name: "satisfies_hash_partition",
		eval: func(x *execCtx) (any, error) {
			vals := make([]any, len(args))
			for i, a := range args {
				v, err := a.eval(x)
				if err != nil {
					return nil, err
				}
				vals[i] = v
			}
			if vals[0] == nil || vals[1] == nil || vals[2] == nil {
				return false, nil
			}
			modulus, remainder := vals[1].(int64), vals[2].(int64)
			switch {
			case modulus <= 0:
				return nil, pgerror.New(pgerror.InvalidParameterValue, "modulus for hash partition must be an integer value greater than zero")
			case remainder < 0:
				return nil, pgerror.New(pgerror.InvalidParameterValue, "remainder for hash partition must be an integer value greater than or equal to zero")
			case remainder >= modulus:
				return nil, pgerror.New(pgerror.InvalidParameterValue, "remainder for hash partition must be less than modulus")
			}
			c, _ := x.s.catalog()
			oid := uint32(vals[0].(int64))
			t := c.tables[oid]
			if t == nil || t.part == nil || t.part.strategy != 'h' {
				_, name, ok := relationByOid(c, int64(oid))
				if !ok {
					return nil, pgerror.Newf(pgerror.InternalError, "could not open relation with OID %d", oid)
				}
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "\"%s\" is not a hash partitioned table", name)
			}
			k := t.part
			keys := vals[3:]
			if variadic {
				elem, _ := args[3].typ.Elem()
				for j, kt := range k.typs {
					if kt.Oid != elem.Oid {
						return nil, pgerror.Newf(pgerror.InvalidParameterValue, "column %d of the partition key has type \"%s\", but supplied value is of type \"%s\"",
							j+1, types.FormatTypeBe(kt), types.FormatTypeBe(elem))
					}
				}
				if vals[3] == nil {
					return nil, nil
				}
				keys, _ = pgarray.Elems(vals[3])
			} else {
				if len(keys) != len(k.typs) {
					return nil, partitionKeyCountError(len(k.typs), len(keys))
				}
				for j, kt := range k.typs {
					at := args[3+j].typ
					if at.Oid != kt.Oid && !(kt.Oid == types.OidText && at.Oid == types.OidVarchar) {
						return nil, pgerror.Newf(pgerror.InvalidParameterValue, "column %d of the partition key has type %s, but supplied value is of type %s",
							j+1, types.FormatTypeBe(kt), types.FormatTypeBe(at))
					}
				}
			}
			if len(keys) != len(k.typs) {
				return nil, partitionKeyCountError(len(k.typs), len(keys))
			}
			h, err := k.rowHash(x, keys)
			if err != nil {
				return nil, err
			}
			return h%uint64(modulus) == uint64(remainder), nil
		}}, nil
}

// partitionKeyCountError is satisfies_hash_partition's error for a number
// of key values other than the key's columns.
func partitionKeyCountError(columns, values int) error {
	return pgerror.New(pgerror.InvalidParameterValue, fmt.Sprintf("number of partitioning columns (%d) does not match number of partition keys provided (%d)", columns, values))
}
