package types

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// varHdrSz is PostgreSQL's VARHDRSZ, which typmods of varchar, bpchar and
// numeric are offset by.
const varHdrSz = 4

// maxCharLength is the largest n of varchar(n) and char(n) (MaxAttrSize).
const maxCharLength = 10485760

// maxNumericPrecision is the largest precision of numeric(p,s).
const maxNumericPrecision = 1000

// typeInfo is the pg_type row of a type fickle knows.
type typeInfo struct {
	name      string // typname
	sqlName   string // format_type's name
	size      int    // typlen
	category  Category
	preferred bool
}

var typeInfos = map[Oid]typeInfo{
	OidBool:           {"bool", "boolean", 1, CategoryBool, true},
	OidBytea:          {"bytea", "bytea", -1, CategoryUser, false},
	OidChar:           {"char", `"char"`, 1, CategoryInternal, false},
	OidName:           {"name", "name", 64, CategoryString, false},
	OidInt8:           {"int8", "bigint", 8, CategoryNumeric, false},
	OidInt2:           {"int2", "smallint", 2, CategoryNumeric, false},
	OidInt4:           {"int4", "integer", 4, CategoryNumeric, false},
	OidText:           {"text", "text", -1, CategoryString, true},
	OidOid:            {"oid", "oid", 4, CategoryNumeric, true},
	OidJSON:           {"json", "json", -1, CategoryUser, false},
	OidFloat4:         {"float4", "real", 4, CategoryNumeric, false},
	OidFloat8:         {"float8", "double precision", 8, CategoryNumeric, true},
	OidUnknown:        {"unknown", "unknown", -2, CategoryUnknown, false},
	OidBpchar:         {"bpchar", "character", -1, CategoryString, false},
	OidVarchar:        {"varchar", "character varying", -1, CategoryString, false},
	OidDate:           {"date", "date", 4, CategoryDateTime, false},
	OidTime:           {"time", "time without time zone", 8, CategoryDateTime, false},
	OidTimestamp:      {"timestamp", "timestamp without time zone", 8, CategoryDateTime, false},
	OidTimestamptz:    {"timestamptz", "timestamp with time zone", 8, CategoryDateTime, true},
	OidInterval:       {"interval", "interval", 16, CategoryTimespan, true},
	OidNumeric:        {"numeric", "numeric", -1, CategoryNumeric, false},
	OidRegclass:       {"regclass", "regclass", 4, CategoryNumeric, false},
	OidRegproc:        {"regproc", "regproc", 4, CategoryNumeric, false},
	OidRegprocedure:   {"regprocedure", "regprocedure", 4, CategoryNumeric, false},
	OidRegoper:        {"regoper", "regoper", 4, CategoryNumeric, false},
	OidRegoperator:    {"regoperator", "regoperator", 4, CategoryNumeric, false},
	OidRegtype:        {"regtype", "regtype", 4, CategoryNumeric, false},
	OidRegnamespace:   {"regnamespace", "regnamespace", 4, CategoryNumeric, false},
	OidRegrole:        {"regrole", "regrole", 4, CategoryNumeric, false},
	OidInt2Vector:     {"int2vector", "int2vector", -1, CategoryArray, false},
	OidOidVector:      {"oidvector", "oidvector", -1, CategoryArray, false},
	OidRecord:         {"record", "record", -1, CategoryPseudo, false},
	OidUUID:           {"uuid", "uuid", 16, CategoryUser, false},
	OidJSONB:          {"jsonb", "jsonb", -1, CategoryUser, false},
	OidJSONPath:       {"jsonpath", "jsonpath", -1, CategoryUser, false},
	OidPoint:          {"point", "point", 16, CategoryGeometric, false},
	OidLseg:           {"lseg", "lseg", 32, CategoryGeometric, false},
	OidPath:           {"path", "path", -1, CategoryGeometric, false},
	OidBox:            {"box", "box", 32, CategoryGeometric, false},
	OidPolygon:        {"polygon", "polygon", -1, CategoryGeometric, false},
	OidLine:           {"line", "line", 24, CategoryGeometric, false},
	OidCircle:         {"circle", "circle", 24, CategoryGeometric, false},
	OidTID:            {"tid", "tid", 6, CategoryUser, false},
	OidXID:            {"xid", "xid", 4, CategoryUser, false},
	OidXID8:           {"xid8", "xid8", 8, CategoryUser, false},
	OidInet:           {"inet", "inet", -1, CategoryNetwork, true},
	OidCidr:           {"cidr", "cidr", -1, CategoryNetwork, false},
	OidInt4Range:      {"int4range", "int4range", -1, CategoryRange, false},
	OidNumRange:       {"numrange", "numrange", -1, CategoryRange, false},
	OidTsRange:        {"tsrange", "tsrange", -1, CategoryRange, false},
	OidTstzRange:      {"tstzrange", "tstzrange", -1, CategoryRange, false},
	OidDateRange:      {"daterange", "daterange", -1, CategoryRange, false},
	OidInt8Range:      {"int8range", "int8range", -1, CategoryRange, false},
	OidInt4Multirange: {"int4multirange", "int4multirange", -1, CategoryRange, false},
	OidNumMultirange:  {"nummultirange", "nummultirange", -1, CategoryRange, false},
	OidTsMultirange:   {"tsmultirange", "tsmultirange", -1, CategoryRange, false},
	OidTstzMultirange: {"tstzmultirange", "tstzmultirange", -1, CategoryRange, false},
	OidDateMultirange: {"datemultirange", "datemultirange", -1, CategoryRange, false},
	OidInt8Multirange: {"int8multirange", "int8multirange", -1, CategoryRange, false},
	OidTSVector:       {"tsvector", "tsvector", -1, CategoryUser, false},
	OidTSQuery:        {"tsquery", "tsquery", -1, CategoryUser, false},
	OidRegconfig:      {"regconfig", "regconfig", 4, CategoryNumeric, false},
	OidRegdictionary:  {"regdictionary", "regdictionary", 4, CategoryNumeric, false},
	OidBit:            {"bit", "bit", -1, CategoryBitString, false},
	OidVarbit:         {"varbit", "bit varying", -1, CategoryBitString, true},
	OidMoney:          {"money", "money", 8, CategoryNumeric, false},
	OidTimetz:         {"timetz", "time with time zone", 12, CategoryDateTime, false},
	OidMacaddr:        {"macaddr", "macaddr", 6, CategoryUser, false},
	OidMacaddr8:       {"macaddr8", "macaddr8", 8, CategoryUser, false},
	OidPGLSN:          {"pg_lsn", "pg_lsn", 8, CategoryUser, false},
	OidXML:            {"xml", "xml", -1, CategoryUser, false},
}

// typeInfoOf returns the pg_type row of oid; unknown OIDs get a user-category
// row named after the number, so that methods on Type never panic.
func typeInfoOf(oid Oid) typeInfo {
	if ti, ok := typeInfos[oid]; ok {
		return ti
	}
	if c, ok := compositeOf(oid); ok {
		return typeInfo{name: c.name, sqlName: c.name, size: -1, category: CategoryComposite}
	}
	if e, ok := compositeElemOf(oid); ok {
		c, _ := compositeOf(e)
		return typeInfo{name: "_" + c.name, sqlName: c.name + "[]", size: -1, category: CategoryArray}
	}
	if e, ok := enumOf(oid); ok {
		return typeInfo{name: e.name, sqlName: e.name, size: 4, category: CategoryEnum}
	}
	if el, ok := enumElemOf(oid); ok {
		e, _ := enumOf(el)
		return typeInfo{name: "_" + e.name, sqlName: e.name + "[]", size: -1, category: CategoryArray}
	}
	if ti, ok := userRangeTypeInfo(oid); ok {
		return ti
	}
	if ti, ok := citextTypeInfo(oid); ok {
		return ti
	}
	if ti, ok := hstoreTypeInfo(oid); ok {
		return ti
	}
	n := strconv.FormatUint(uint64(oid), 10)
	return typeInfo{name: n, sqlName: "???", size: -1, category: CategoryUser}
}

// typeNames maps every name PostgreSQL's grammar and catalog accept for a type
// (typname, SQL-standard spellings, the aliases in gram.y) to its OID.
var typeNames = map[string]Oid{
	"bool": OidBool, "boolean": OidBool,
	"bytea": OidBytea,
	"char":  OidChar, // only when quoted or schema-qualified; see typeByName
	"name":  OidName,
	"int8":  OidInt8, "bigint": OidInt8,
	"int2": OidInt2, "smallint": OidInt2,
	"int4": OidInt4, "integer": OidInt4, "int": OidInt4,
	"text":   OidText,
	"oid":    OidOid,
	"json":   OidJSON,
	"float4": OidFloat4, "real": OidFloat4,
	"float8": OidFloat8, "double precision": OidFloat8, "float": OidFloat8,
	"unknown": OidUnknown,
	"bpchar":  OidBpchar, "character": OidBpchar,
	"varchar": OidVarchar, "character varying": OidVarchar,
	"date": OidDate,
	"time": OidTime, "time without time zone": OidTime,
	"timestamp": OidTimestamp, "timestamp without time zone": OidTimestamp,
	"timestamptz": OidTimestamptz, "timestamp with time zone": OidTimestamptz,
	"interval": OidInterval,
	"numeric":  OidNumeric, "decimal": OidNumeric, "dec": OidNumeric,
	"regclass": OidRegclass, "regproc": OidRegproc, "regprocedure": OidRegprocedure, "regoper": OidRegoper,
	"regoperator": OidRegoperator, "regtype": OidRegtype, "regnamespace": OidRegnamespace, "regrole": OidRegrole,
	"regconfig": OidRegconfig, "regdictionary": OidRegdictionary,
	"int2vector": OidInt2Vector, "oidvector": OidOidVector, "record": OidRecord,
	"uuid":     OidUUID,
	"jsonb":    OidJSONB,
	"jsonpath": OidJSONPath,
	"point":    OidPoint, "lseg": OidLseg, "path": OidPath, "box": OidBox, "polygon": OidPolygon, "line": OidLine,
	"circle": OidCircle, "tid": OidTID, "xid": OidXID, "xid8": OidXID8,
	"inet": OidInet, "cidr": OidCidr,
	"int4range": OidInt4Range, "int8range": OidInt8Range, "numrange": OidNumRange, "tsrange": OidTsRange,
	"tstzrange": OidTstzRange, "daterange": OidDateRange,
	"int4multirange": OidInt4Multirange, "int8multirange": OidInt8Multirange, "nummultirange": OidNumMultirange,
	"tsmultirange": OidTsMultirange, "tstzmultirange": OidTstzMultirange, "datemultirange": OidDateMultirange,
	"tsvector": OidTSVector, "tsquery": OidTSQuery,
	"bit": OidBit, "varbit": OidVarbit, "bit varying": OidVarbit,
	"money": OidMoney, "macaddr": OidMacaddr, "macaddr8": OidMacaddr8, "pg_lsn": OidPGLSN, "xml": OidXML, "timetz": OidTimetz, "time with time zone": OidTimetz,
}

// unsupportedTypeNames are PostgreSQL types fickle does not implement: they
// answer 0A000 rather than "does not exist".
var unsupportedTypeNames = map[string]bool{
	"anyrange": true, "anymultirange": true, "txid_snapshot": true, "cstring": true,
}

func typeByOid(oid Oid) (Type, bool) {
	if _, ok := typeInfos[oid]; !ok {
		return Type{}, false
	}
	return Type{oid, -1}, true
}

// typeByName resolves a possibly schema-qualified type name. pg_query gives
// the grammar's types already translated ("pg_catalog"."int4",
// "pg_catalog"."bpchar" for CHARACTER, "pg_catalog"."float8" for FLOAT(30)),
// and user-written names unqualified ("varchar", "timestamptz", "char"
// for the quoted one-byte "char").
func typeByName(names []string, mods []int32) (Type, error) {
	if len(names) == 0 || len(names) > 3 {
		return Type{}, pgerror.New(pgerror.SyntaxError, "improper qualified name (too many dotted names)")
	}
	name := strings.ToLower(names[len(names)-1])
	full := strings.Join(names, ".")
	if len(names) > 1 {
		schema := strings.ToLower(names[len(names)-2])
		if schema != "pg_catalog" {
			return Type{}, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", full)
		}
	}
	oid, ok := typeNames[name]
	if !ok && strings.HasPrefix(name, "_") {
		// The catalog names of array types: _int4.
		if elem, found := typeNames[name[1:]]; found && typeInfos[elem].name == name[1:] {
			oid, ok = arrayTypes[elem]
		}
	}
	if !ok {
		if unsupportedTypeNames[name] {
			return Type{}, pgerror.Unsupported("type " + name)
		}
		return Type{}, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", full)
	}
	if oid == OidInterval && len(mods) > 0 {
		// pg_query gives interval(p) as (INTERVAL_FULL_RANGE, p) and
		// INTERVAL DAY TO SECOND(p) as (field mask, p).
		return intervalTypmod(mods)
	}
	return applyTypmod(Type{oid, -1}, mods)
}

// applyTypmod checks the modifiers of a type name and computes the typmod as
// the type's typmodin function does.
func applyTypmod(t Type, mods []int32) (Type, error) {
	if len(mods) == 0 {
		return t, nil
	}
	name := typeInfoOf(t.Oid).name
	switch t.Oid {
	case OidVarchar, OidBpchar:
		if len(mods) != 1 {
			return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "invalid type modifier")
		}
		n := mods[0]
		if n < 1 {
			return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "length for type %s must be at least 1", name)
		}
		if n > maxCharLength {
			return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "length for type %s cannot exceed %d", name, maxCharLength)
		}
		return Type{t.Oid, n + varHdrSz}, nil
	case OidNumeric:
		if len(mods) > 2 {
			return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "invalid NUMERIC type modifier")
		}
		p := mods[0]
		var s int32
		if len(mods) == 2 {
			s = mods[1]
		}
		if p < 1 || p > maxNumericPrecision {
			return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "NUMERIC precision %d must be between 1 and %d", p, maxNumericPrecision)
		}
		if s < -1000 || s > 1000 {
			return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "NUMERIC scale %d must be between -1000 and 1000", s)
		}
		return Numeric(int(p), int(s)), nil
	case OidBit, OidVarbit:
		return bitTypmod(t, mods)
	case OidTime, OidTimetz, OidTimestamp, OidTimestamptz:
		// Fractional-second precision; like PostgreSQL, more than 6 is
		// reduced to 6 (PostgreSQL also warns).
		if len(mods) != 1 {
			return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "invalid type modifier")
		}
		if mods[0] < 0 {
			return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "%s(%d) precision must not be negative", strings.ToUpper(name), mods[0])
		}
		return Type{t.Oid, min(mods[0], 6)}, nil
	}
	return Type{}, pgerror.Newf(pgerror.SyntaxError, "type modifier is not allowed for type %q", name)
}

func formatType(t Type) string {
	ti, ok := typeInfos[t.Oid]
	if !ok {
		if c, ok := compositeOf(t.Oid); ok {
			return QuoteIdent(c.name)
		}
		if e, ok := compositeElemOf(t.Oid); ok {
			return formatType(Type{e, -1}) + "[]"
		}
		if e, ok := enumOf(t.Oid); ok {
			return QuoteIdent(e.name)
		}
		if e, ok := enumElemOf(t.Oid); ok {
			return formatType(Type{e, -1}) + "[]"
		}
		if ti, ok := userRangeTypeInfo(t.Oid); ok {
			return ti.sqlName
		}
		if ti, ok := citextTypeInfo(t.Oid); ok {
			return ti.sqlName
		}
		if ti, ok := hstoreTypeInfo(t.Oid); ok {
			return ti.sqlName
		}
		return "???"
	}
	if elem, isArray := t.Elem(); isArray && !isVector(t.Oid) {
		return formatType(elem) + "[]"
	}
	switch t.Oid {
	case OidVarchar, OidBpchar:
		if n := t.Length(); n >= 0 {
			return ti.sqlName + "(" + strconv.Itoa(n) + ")"
		}
		if t.Oid == OidBpchar {
			return "bpchar"
		}
	case OidNumeric:
		if p, s, ok := t.PrecisionScale(); ok {
			return "numeric(" + strconv.Itoa(p) + "," + strconv.Itoa(s) + ")"
		}
	case OidTime, OidTimetz, OidTimestamp, OidTimestamptz:
		if t.Typmod >= 0 {
			base, zone, _ := strings.Cut(ti.sqlName, " ")
			return base + "(" + strconv.Itoa(int(t.Typmod)) + ") " + zone
		}
	case OidInterval:
		return formatIntervalType(t)
	case OidBit, OidVarbit:
		return formatBitType(t)
	}
	return ti.sqlName
}
