package sqlexec

import (
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// A long IN list of constants is looked up in a hash set built once per
// statement, as PostgreSQL's hashed ScalarArrayOpExpr does, instead of
// comparing the value with every element for every row.

// minHashedInList is the length from which an IN list of constants is
// hashed (PostgreSQL's MIN_ARRAY_SIZE_FOR_HASHED_SAOP).
const minHashedInList = 9

// inSet is a hashed IN list: its elements' values, and whether one is NULL.
type inSet struct {
	vals    map[any]bool
	sawNull bool
}

// constantElement reports whether an IN list element has one value for the
// whole statement: a literal or a parameter, cast or not.
func constantElement(n *pg_query.Node) bool {
	switch v := n.Node.(type) {
	case *pg_query.Node_AConst, *pg_query.Node_ParamRef:
		return true
	case *pg_query.Node_TypeCast:
		return constantElement(v.TypeCast.Arg)
	}
	return false
}

// hashable reports whether values of x and elem compare equal exactly
// when their Go values (hashKey) are equal: not for numeric scales, float
// zeros, blank-padded strings or types of different kinds.
func hashable(x, elem types.Type) bool {
	switch {
	case isIntegerType(x) && isIntegerType(elem), isTextType(x) && isTextType(elem):
		return true
	case x.Oid != elem.Oid:
		return false
	}
	switch x.Oid {
	case types.OidBool, types.OidDate, types.OidTime, types.OidTimestamp, types.OidTimestamptz, types.OidUUID:
		return true
	}
	return false
}

// hashKey is a hashable value as a map key (int64, string, bool, [16]byte
// as they are; times by their microseconds).
func hashKey(v any) any {
	if t, ok := v.(time.Time); ok {
		return t.UnixMicro()
	}
	return v
}

func isIntegerType(t types.Type) bool {
	return t.Oid == types.OidInt2 || t.Oid == types.OidInt4 || t.Oid == types.OidInt8
}

// isTextType: the string types whose equality is byte equality (the C
// collation); bpchar ignores trailing blanks and is not one.
func isTextType(t types.Type) bool {
	return t.Oid == types.OidText || t.Oid == types.OidVarchar || t.Oid == types.OidName
}

// hashedInList returns the evaluation of x IN (elems) through a hash set,
// or nil when the list is short, not constant or of types whose values
// cannot be hashed.
func hashedInList(x *scalar, elems []*scalar, nodes []*pg_query.Node, neg bool) evalFn {
	if elems == nil || len(elems) < minHashedInList {
		return nil
	}
	for i, e := range elems {
		if e.volatile || !constantElement(nodes[i]) {
			return nil
		}
		if !hashable(x.typ, e.typ) {
			return nil
		}
	}
	key := new(int) // identifies this list's set in the statement's memo
	build := func(xc *execCtx) (*inSet, error) {
		kept, _ := xc.memoGet(key)
		if s, ok := kept.(*inSet); ok {
			return s, nil
		}
		s := &inSet{vals: make(map[any]bool, len(elems))}
		for _, e := range elems {
			v, err := e.eval(xc)
			if err != nil {
				return nil, err
			}
			if v == nil {
				s.sawNull = true
				continue
			}
			s.vals[hashKey(v)] = true
		}
		xc.memoSet(key, s)
		return s, nil
	}
	return func(xc *execCtx) (any, error) {
		s, err := build(xc)
		if err != nil {
			return nil, err
		}
		v, err := x.eval(xc)
		if err != nil || v == nil {
			return nil, err
		}
		switch {
		case s.vals[hashKey(v)]:
			return !neg, nil
		case s.sawNull:
			return nil, nil
		}
		return neg, nil
	}
}
