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

// hashKey returns the value as a key whose Go equality is the SQL equality
// of x's type with the elements' type, and false for types where it is not
// (numeric scales, float zeros, blank-padded strings, ...).
func hashKey(x, elem types.Type, v any) (any, bool) {
	switch {
	case isIntegerType(x) && isIntegerType(elem):
		return v.(int64), true
	case isTextType(x) && isTextType(elem):
		return v.(string), true
	case x.Oid != elem.Oid:
		return nil, false
	}
	switch x.Oid {
	case types.OidBool:
		return v.(bool), true
	case types.OidDate, types.OidTimestamp, types.OidTimestamptz:
		return v.(time.Time).UnixMicro(), true
	case types.OidUUID:
		return v.([16]byte), true
	}
	return nil, false
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
		if _, ok := hashKey(x.typ, e.typ, zeroOf(e.typ)); !ok {
			return nil
		}
	}
	key := new(int) // identifies this list's set in the statement's memo
	build := func(xc *execCtx) (*inSet, error) {
		if s, ok := xc.memo[key].(*inSet); ok {
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
			k, _ := hashKey(x.typ, e.typ, v)
			s.vals[k] = true
		}
		xc.memo[key] = s
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
		k, _ := hashKey(x.typ, elems[0].typ, v)
		switch {
		case s.vals[k]:
			return !neg, nil
		case s.sawNull:
			return nil, nil
		}
		return neg, nil
	}
}

// zeroOf is a value of type t's Go representation, for hashKey's type
// check.
func zeroOf(t types.Type) any {
	switch {
	case isIntegerType(t):
		return int64(0)
	case isTextType(t):
		return ""
	}
	switch t.Oid {
	case types.OidBool:
		return false
	case types.OidDate, types.OidTimestamp, types.OidTimestamptz:
		return time.Time{}
	case types.OidUUID:
		return [16]byte{}
	}
	return nil
}
