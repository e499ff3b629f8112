package types

import "github.com/fickle-db/fickle/internal/pgarray"

// Arrays. An array datum is []any holding the element datums (nil for a NULL
// element) of a one-dimensional array with lower bound 1 or an empty array,
// and *pgarray.Array for every other shape (package internal/pgarray, which
// wire's binary codec shares). An array type says nothing of its
// dimensions: int4[] holds arrays of any shape. An array type's typmod is
// its element's (varchar(10)[] keeps 14), as in PostgreSQL.

// CategoryArray is the category of every array type.
const CategoryArray Category = 'A'

// arrayTypes lists PostgreSQL 15's array type OIDs of the element types
// fickle knows: pg_type.typarray of each element.
var arrayTypes = map[Oid]Oid{
	OidBool:           1000,
	OidBytea:          1001,
	OidChar:           1002,
	OidName:           1003,
	OidInt2:           1005,
	OidInt4:           1007,
	OidText:           1009,
	OidBpchar:         1014,
	OidVarchar:        1015,
	OidInt8:           1016,
	OidFloat4:         1021,
	OidFloat8:         1022,
	OidOid:            1028,
	OidTimestamp:      1115,
	OidDate:           1182,
	OidTime:           1183,
	OidTimestamptz:    1185,
	OidInterval:       1187,
	OidNumeric:        1231,
	OidRegclass:       2210,
	OidRegproc:        1008,
	OidRegprocedure:   2207,
	OidRegoper:        2208,
	OidRegoperator:    2209,
	OidRegtype:        2211,
	OidRegnamespace:   4090,
	OidRegrole:        4097,
	OidUUID:           2951,
	OidJSON:           199,
	OidJSONB:          3807,
	OidJSONPath:       4073,
	OidPoint:          1017,
	OidBox:            1020,
	OidLseg:           1018,
	OidPath:           1019,
	OidPolygon:        1027,
	OidLine:           629,
	OidCircle:         719,
	OidTID:            1010,
	OidXID:            1011,
	OidXID8:           271,
	OidInet:           1041,
	OidCidr:           651,
	OidInt4Range:      3905,
	OidNumRange:       3907,
	OidTsRange:        3909,
	OidTstzRange:      3911,
	OidDateRange:      3913,
	OidInt8Range:      3927,
	OidInt4Multirange: 6150,
	OidNumMultirange:  6151,
	OidTsMultirange:   6152,
	OidTstzMultirange: 6153,
	OidDateMultirange: 6155,
	OidInt8Multirange: 6157,
	OidTSVector:       3643,
	OidBit:            1561,
	OidVarbit:         1563,
	OidMoney:          OidMoneyArray,
	OidRecord:         OidRecordArray,
	OidMacaddr:        OidMacaddrArray,
	OidMacaddr8:       OidMacaddr8Array,
	OidPGLSN:          OidPGLSNArray,
	OidXML:            OidXMLArray,
	OidTimetz:         OidTimetzArray,
	OidTSQuery:        3645,
	OidRegconfig:      3735,
	OidRegdictionary:  3770,
}

// arrayElems maps an array type OID to its element type OID (typelem).
var arrayElems = map[Oid]Oid{}

func init() {
	for elem, arr := range arrayTypes {
		arrayElems[arr] = elem
		ti := typeInfos[elem]
		category := CategoryArray
		if elem == OidRecord {
			category = CategoryPseudo // record[] is a pseudo-type, as record is
		}
		typeInfos[arr] = typeInfo{name: "_" + ti.name, sqlName: ti.sqlName + "[]", size: -1, category: category}
	}
}

// ArrayOf returns the array type whose elements are of type elem (int4 ->
// int4[], varchar(10) -> varchar(10)[]); ok is false when elem has no array
// type (arrays of arrays are arrays of the element).
func ArrayOf(elem Type) (Type, bool) {
	if _, isArray := arrayElems[elem.Oid]; isArray {
		return elem, true
	}
	arr, ok := arrayTypes[elem.Oid]
	if !ok {
		arr, ok = compositeArrayOf(elem.Oid)
	}
	if e, isEnum := enumOf(elem.Oid); !ok && isEnum {
		arr, ok = e.array, true
	}
	if !ok {
		arr, ok = userRangeArray(elem.Oid)
	}
	if !ok {
		arr, ok = citextArray(elem.Oid)
	}
	if !ok {
		arr, ok = hstoreArray(elem.Oid)
	}
	if !ok {
		return Type{}, false
	}
	if elem.Oid == OidRecord && elem.Typmod >= 0 {
		return Type{arr, elem.Typmod &^ recordShapeHidden}, true
	}
	return Type{arr, elem.Typmod}, true
}

// Elem returns the element type of an array type, with the array's typmod;
// ok is false when t is not an array type.
func (t Type) Elem() (Type, bool) {
	e, ok := arrayElems[t.Oid]
	if !ok {
		e, ok = vectorElems[t.Oid]
	}
	if !ok {
		e, ok = compositeElemOf(t.Oid)
	}
	if !ok {
		e, ok = enumElemOf(t.Oid)
	}
	if !ok {
		e, ok = userRangeElem(t.Oid)
	}
	if !ok {
		e, ok = citextElem(t.Oid)
	}
	if !ok {
		e, ok = hstoreElem(t.Oid)
	}
	if !ok {
		return Type{}, false
	}
	if e == OidRecord && t.Typmod >= 0 {
		return Type{e, t.Typmod | recordShapeHidden}, true
	}
	return Type{e, t.Typmod}, true
}

// IsArray reports whether t is an array type (int2vector and oidvector
// included).
func (t Type) IsArray() bool {
	_, ok := t.Elem()
	return ok
}

// ArrayTypeOid returns pg_type.typarray of oid, the OID of the array type
// over it (0 when it has none), and ElemTypeOid pg_type.typelem (0 for
// non-arrays), for the catalog.
func ArrayTypeOid(oid Oid) Oid { return arrayTypes[oid] }

// ElemTypeOid returns pg_type.typelem of an array type OID, 0 for others.
func ElemTypeOid(oid Oid) Oid { return arrayElems[oid] }

// ArrayTypeOids returns the OIDs of every array type fickle knows.
func ArrayTypeOids() []Oid {
	out := make([]Oid, 0, len(arrayElems))
	for arr := range arrayElems {
		out = append(out, arr)
	}
	return out
}

// compareArrays is btarraycmp: element by element in storage order, NULL
// after every value, then the array with fewer elements first, then fewer
// dimensions, then by the lengths and the lower bounds of the dimensions.
func compareArrays(t Type, a, b any) int {
	elem, _ := t.Elem()
	da, la, ea, _ := pgarray.Shape(a)
	db, lb, eb, _ := pgarray.Shape(b)
	for k := 0; k < len(ea) && k < len(eb); k++ {
		x, y := ea[k], eb[k]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		if c := compare(elem, x, y); c != 0 {
			return c
		}
	}
	if c := cmp3(len(ea), len(eb)); c != 0 {
		return c
	}
	if c := cmp3(len(da), len(db)); c != 0 {
		return c
	}
	for k := range da {
		if c := cmp3(da[k], db[k]); c != 0 {
			return c
		}
	}
	for k := range la {
		if c := cmp3(la[k], lb[k]); c != 0 {
			return c
		}
	}
	return 0
}

// mapArray applies fn to every non-NULL element, keeping the shape.
func mapArray(fn EnvCastFunc) EnvCastFunc {
	return func(env *Env, v any) (any, error) {
		dims, lower, in, _ := pgarray.Shape(v)
		out := make([]any, len(in))
		for k, e := range in {
			if e == nil {
				continue
			}
			x, err := fn(env, e)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return pgarray.Make(dims, lower, out), nil
	}
}

// arrayCastPath is the array coercion between two array types: the
// element cast applied to each element, in the element cast's context.
func arrayCastPath(from, to Oid) (EnvCastFunc, CastContext, bool) {
	fe, fok := Type{from, -1}.Elem()
	te, tok := Type{to, -1}.Elem()
	if !fok || !tok || isVector(from) || isVector(to) {
		return nil, 0, false
	}
	fn, ctx, ok := castPath(fe.Oid, te.Oid)
	if !ok {
		return nil, 0, false
	}
	return mapArray(fn), ctx, true
}

// arrayTypmodCoercion applies the element typmod of an array type to each
// element (varchar(3)[]), or is nil when the element has no typmod.
func arrayTypmodCoercion(t Type, ctx CastContext) EnvCastFunc {
	elem, _ := t.Elem()
	fn := typmodCoercion(elem, ctx)
	if fn == nil {
		return nil
	}
	return mapArray(fn)
}

// Array key encoding: each element is a continuation byte followed by the
// element's key, and the elements end with a terminator that sorts below
// the continuation byte, so that a prefix orders before a longer array.
// The shape follows: the number of dimensions, then each length and each
// lower bound, in the order compareArrays compares them.
const (
	keyArrayEnd  = 0x00
	keyArrayMore = 0x01
)

func appendKeyArray(buf []byte, t Type, v any) []byte {
	elem, _ := t.Elem()
	dims, lower, elems, _ := pgarray.Shape(v)
	for _, e := range elems {
		buf = append(buf, keyArrayMore)
		buf = appendKey(buf, elem, e)
	}
	buf = append(buf, keyArrayEnd, byte(len(dims)))
	for _, d := range dims {
		buf = appendKeyInt(buf, int64(d))
	}
	for _, l := range lower {
		buf = appendKeyInt(buf, int64(l))
	}
	return buf
}

func decodeKeyArray(t Type, buf []byte) (any, []byte, error) {
	elem, _ := t.Elem()
	out := []any{}
	for {
		if len(buf) == 0 {
			return nil, nil, errBadKey
		}
		if buf[0] == keyArrayEnd {
			buf = buf[1:]
			break
		}
		if buf[0] != keyArrayMore {
			return nil, nil, errBadKey
		}
		v, rest, err := decodeKey(elem, buf[1:])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, v)
		buf = rest
	}
	if len(buf) == 0 || buf[0] > pgarray.MaxDims {
		return nil, nil, errBadKey
	}
	n := int(buf[0])
	buf = buf[1:]
	shape := make([]int, 2*n)
	for k := range shape {
		x, rest, err := decodeKeyInt(buf)
		if err != nil {
			return nil, nil, err
		}
		shape[k], buf = int(x.(int64)), rest
	}
	return pgarray.Make(shape[:n], shape[n:], out), buf, nil
}
