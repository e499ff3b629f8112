package types

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// int2vector and oidvector are the catalog's fixed arrays (pg_index.indkey,
// pg_proc.proargtypes): one-dimensional arrays without NULLs whose lower
// bound is 0, written as their elements separated by spaces. The datum is
// []any of element datums, as for arrays; subscripts, array_lower,
// array_upper, array_dims and array_position see the lower bound 0. Their
// casts to int2[] and oid[] keep that lower bound, as in PostgreSQL; casts
// to arrays of other element types answer 0A000.
const (
	OidInt2Vector Oid = 22
	OidOidVector  Oid = 30
)

// The vector types.
var (
	Int2Vector = Type{OidInt2Vector, -1}
	OidVector  = Type{OidOidVector, -1}
)

// vectorElems maps a vector type to its element type.
var vectorElems = map[Oid]Oid{OidInt2Vector: OidInt2, OidOidVector: OidOid}

func isVector(oid Oid) bool {
	_, ok := vectorElems[oid]
	return ok
}

// LowerBound returns the subscript of the first element of a value of the
// array type t: 0 for int2vector and oidvector, 1 for every other array.
func (t Type) LowerBound() int64 {
	if isVector(t.Oid) {
		return 0
	}
	return 1
}

// vectorCastPath is the cast of a vector to an array type: PostgreSQL
// coerces int2vector and oidvector as the arrays int2[] and oid[] they are
// (find_coercion_pathway), keeping their lower bound 0.
func vectorCastPath(from, to Oid) (EnvCastFunc, CastContext, bool) {
	elem, ok := vectorElems[from]
	if !ok || isVector(to) {
		return nil, 0, false
	}
	if _, ctx, ok := castPath(arrayTypes[elem], to); ok && arrayElems[to] != 0 {
		if to == arrayTypes[elem] {
			// int2vector::int2[] (psql's and pg_dump's reading of
			// pg_publication_rel.prattrs) and oidvector::oid[]: the same
			// elements from subscript 0.
			return func(_ *Env, v any) (any, error) {
				elems, _ := v.([]any)
				return pgarray.Make([]int{len(elems)}, []int{0}, elems), nil
			}, ctx, true
		}
		return func(*Env, any) (any, error) {
			return nil, pgerror.Unsupported("arrays with a lower bound other than 1 (int2vector and oidvector cast to arrays of another element type)")
		}, ctx, true
	}
	return nil, 0, false
}

// parseVector is int2vectorin and oidvectorin: integers separated by white
// space.
func parseVector(t Type, s string) (any, error) {
	elem := Type{vectorElems[t.Oid], -1}
	out := []any{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < 128 && arrayIsSpace(byte(r)) }) {
		v, err := parseInt(elem, f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// formatVector is int2vectorout and oidvectorout.
func formatVector(elems []any) string {
	var b strings.Builder
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(' ')
		}
		if n, ok := e.(int64); ok {
			b.WriteString(strconv.FormatInt(n, 10))
		}
	}
	return b.String()
}
