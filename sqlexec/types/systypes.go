package types

import (
	"cmp"
	"math"
	"strconv"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The system types tid, xid and xid8 as column types. fickle has no row
// addresses of its own to put in a tid; an xid or xid8 is a transaction's
// id as the system columns and pg_current_xact_id show it, or what is
// written.
const (
	OidTID  Oid = 27
	OidXID  Oid = 28
	OidXID8 Oid = 5069
)

// TID is a tid datum: a block number and an offset in it.
type TID struct {
	Block  uint32
	Offset uint16
}

// XID is an xid datum: a 32-bit transaction id.
type XID uint32

// XID8 is an xid8 datum: a 64-bit transaction id, its epoch in the high
// half. Unlike xid, it is ordered.
type XID8 uint64

// strtoul is C's strtoul(s, &end, base) on a 64-bit platform: leading
// white space, a sign, base 0's 0x and 0 prefixes, as many digits as parse;
// overflow saturates and a minus sign negates modulo 2^64. n is how many
// bytes were read (0 when no digits).
func strtoul(s string, base int) (v uint64, n int) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 0 && i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && hexDigit(s[i+2]) >= 0 && hexDigit(s[i+2]) < 16 {
		base = 16
		i += 2
	} else if base == 0 && i < len(s) && s[i] == '0' {
		base = 8
	} else if base == 0 {
		base = 10
	}
	start := i
	overflow := false
	for i < len(s) {
		d := hexDigit(s[i])
		if d < 0 || d >= base {
			break
		}
		if v > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		}
		v = v*uint64(base) + uint64(d)
		i++
	}
	if i == start {
		return 0, 0
	}
	if overflow {
		return math.MaxUint64, i
	}
	if neg {
		v = -v
	}
	return v, i
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// parseXID is xidin: strtoul(s, NULL, 0) truncated to 32 bits, which
// accepts anything (garbage reads as 0), as PostgreSQL 15 does.
func parseXID(s string) (any, error) {
	v, _ := strtoul(s, 0)
	return XID(uint32(v)), nil
}

// parseXID8 is PostgreSQL 15's xid8in: strtou64(s, NULL, 0), which
// accepts anything (garbage reads as 0), as xidin does.
func parseXID8(s string) (any, error) {
	v, _ := strtoul(s, 0)
	return XID8(v), nil
}

// parseTID is tidin: "(block,offset)", read as tidin's strtoul and strtol
// read them.
func parseTID(t Type, s string) (any, error) {
	var coord []int
	for i := 0; i < len(s) && len(coord) < 2 && s[i] != ')'; i++ {
		if s[i] == '(' || s[i] == ',' && len(coord) > 0 {
			coord = append(coord, i+1)
		}
	}
	if len(coord) < 2 {
		return nil, invalidSyntax(t, s)
	}
	block, n := strtoul(s[coord[0]:], 10)
	if n == 0 || coord[0]+n >= len(s) || s[coord[0]+n] != ',' {
		return nil, invalidSyntax(t, s)
	}
	if block != uint64(uint32(block)) && block != uint64(int64(int32(uint32(block)))) {
		return nil, invalidSyntax(t, s)
	}
	// strtol's negative offsets read here as huge ones: both fail.
	off, n := strtoul(s[coord[1]:], 10)
	if n == 0 || coord[1]+n >= len(s) || s[coord[1]+n] != ')' || off > math.MaxUint16 {
		return nil, invalidSyntax(t, s)
	}
	return TID{Block: uint32(block), Offset: uint16(off)}, nil
}

func formatTID(t TID) string {
	return "(" + strconv.FormatUint(uint64(t.Block), 10) + "," + strconv.FormatUint(uint64(t.Offset), 10) + ")"
}

func compareTID(a, b TID) int {
	if a.Block != b.Block {
		return cmp3(int64(a.Block), int64(b.Block))
	}
	return cmp3(int64(a.Offset), int64(b.Offset))
}

// hasBtree reports whether t (or its element type, for an array) has a
// default btree operator class; the geometric types, json and xid do not,
// so PostgreSQL cannot sort, group or deduplicate them.
// A composite type has one when every field's type has one, as
// PostgreSQL's type cache decides for record ordering.
func hasBtree(t Type) bool {
	oid := elementOrSelf(t.Oid)
	if every, ok := everyField(oid, hasBtree); ok {
		return every
	}
	return !IsGeometric(oid) && oid != OidXID && oid != OidJSON && oid != OidXML
}

// hasEquality reports whether t (or its element type, for an array) has
// a btree or hash equality: a btree, or xid's hash class; a composite type
// when every field's type has one.
func hasEquality(t Type) bool {
	oid := elementOrSelf(t.Oid)
	if every, ok := everyField(oid, hasEquality); ok {
		return every
	}
	return oid == OidXID || hasBtree(Type{Oid: oid})
}

// elementOrSelf is an array type's element type, other types themselves.
func elementOrSelf(oid Oid) Oid {
	if elem, ok := arrayElems[oid]; ok {
		return elem
	}
	return oid
}

// everyField reports, for a composite type (ok), whether every field's
// type satisfies has.
func everyField(oid Oid, has func(Type) bool) (every, ok bool) {
	c, ok := compositeOf(oid)
	if !ok {
		return false, false
	}
	for _, f := range c.fields {
		if !has(f.Type) {
			return false, true
		}
	}
	return true, true
}

// hasHash reports whether t (or its element type, for an array) has a
// default hash operator class: not the bit string and text search types
// nor money, which have only btree classes, nor the types without equality (the
// geometric types, json); a composite type when every field's type has
// one.
func hasHash(t Type) bool {
	oid := elementOrSelf(t.Oid)
	if every, ok := everyField(oid, hasHash); ok {
		return every
	}
	switch oid {
	case OidBit, OidVarbit, OidTSVector, OidTSQuery, OidJSON, OidMoney, OidXML:
		return false
	}
	return !IsGeometric(oid)
}

// HasHashClass reports whether t has a default hash operator class, which
// hash partitioning and hashed grouping need.
func HasHashClass(t Type) bool { return hasHash(t) }

// GroupingImplementationError is the planner's 0A000 for grouping,
// DISTINCT or a set operation (construct: "GROUP BY", "DISTINCT",
// "UNION", ...) over keys that PostgreSQL can neither sort (one has no
// btree class, as xid) nor hash (one has no hash class, as bit, or
// hashing is ruled out: canHash false, as for aggregates with ORDER BY or
// DISTINCT), or nil.
func GroupingImplementationError(construct string, keys []Type, canHash bool) *pgerror.Error {
	sortable, hashable := true, canHash
	for _, t := range keys {
		sortable = sortable && hasBtree(t)
		hashable = hashable && hasHash(t)
	}
	if sortable || hashable {
		return nil
	}
	return pgerror.Newf(pgerror.FeatureNotSupported, "could not implement %s", construct).
		WithDetail("Some of the datatypes only support hashing, while others only support sorting.")
}

// OrderingOperatorError is the 42883 of ORDER BY on a type without a
// btree ordering, or nil.
func OrderingOperatorError(t Type) *pgerror.Error {
	if hasBtree(t) {
		return nil
	}
	return pgerror.Newf(pgerror.UndefinedFunction, "could not identify an ordering operator for type %s", formatType(t)).
		WithHint("Use an explicit ordering operator or modify the query.")
}

// EqualityOperatorError is the 42883 of DISTINCT or GROUP BY on a type
// without a btree or hash equality, or nil. xid has a hash class.
func EqualityOperatorError(t Type) *pgerror.Error {
	if hasEquality(t) {
		return nil
	}
	return pgerror.Newf(pgerror.UndefinedFunction, "could not identify an equality operator for type %s", formatType(t))
}

func init() {
	tid := Type{OidTID, -1}
	addComparisons(tid, tid, func(_ *Env, a, b any) int { return compareTID(a.(TID), b.(TID)) })
	addFunc("tidlarger", Immutable, tid, func(_ *Env, a []any) (any, error) {
		if compareTID(a[0].(TID), a[1].(TID)) >= 0 {
			return a[0], nil
		}
		return a[1], nil
	}, tid, tid)
	addFunc("tidsmaller", Immutable, tid, func(_ *Env, a []any) (any, error) {
		if compareTID(a[0].(TID), a[1].(TID)) <= 0 {
			return a[0], nil
		}
		return a[1], nil
	}, tid, tid)
	xid := Type{OidXID, -1}
	addBinary("=", xid, xid, Bool, func(_ *Env, a, b any) (any, error) { return a.(XID) == b.(XID), nil })
	addBinary("<>", xid, xid, Bool, func(_ *Env, a, b any) (any, error) { return a.(XID) != b.(XID), nil })
	// xideqint4 and xidneqint4: the int4's bits as an xid (xmax = 0).
	addBinary("=", xid, Int4, Bool, func(_ *Env, a, b any) (any, error) { return a.(XID) == XID(uint32(b.(int64))), nil })
	addBinary("<>", xid, Int4, Bool, func(_ *Env, a, b any) (any, error) { return a.(XID) != XID(uint32(b.(int64))), nil })
	xid8 := Type{OidXID8, -1}
	addComparisons(xid8, xid8, func(_ *Env, a, b any) int { return cmp.Compare(a.(XID8), b.(XID8)) })
	// xid(xid8): the low 32 bits, the epoch dropped.
	addCast(OidXID8, OidXID, CastExplicit, func(_ *Env, v any) (any, error) { return XID(uint32(v.(XID8))), nil })
}
