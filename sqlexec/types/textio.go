package types

import (
	"math"
	"strconv"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// parseText dispatches to the input function of t's type. The built-in
// scalar types come first: none is a vector, an array, a composite or an
// enum (user types' OIDs start at 1<<30), and a COPY of a million rows so
// skips four registry look-ups a value.
func parseText(env *Env, t Type, s string) (any, error) {
	switch t.Oid {
	case OidBool:
		return parseBool(s)
	case OidInt2, OidInt4, OidInt8, OidOid:
		return parseInt(t, s)
	case OidRegclass, OidRegproc, OidRegprocedure, OidRegoper, OidRegoperator, OidRegtype, OidRegnamespace, OidRegrole,
		OidRegconfig, OidRegdictionary:
		return parseReg(env, t, s)
	case OidFloat4, OidFloat8:
		return parseFloat(t, s)
	case OidNumeric:
		return parseNumeric(t, s)
	case OidText, OidVarchar, OidBpchar, OidName, OidChar, OidUnknown, OidRefcursor:
		return parseString(t, s)
	case OidBytea:
		return parseBytea(s)
	case OidUUID:
		return parseUUID(s)
	case OidVoid:
		return "", nil // void_in accepts anything and keeps nothing
	case OidDate, OidTimestamp, OidTimestamptz:
		return parseDateTime(env, t, s)
	case OidTime:
		return parseTime(env, t, s)
	case OidInterval:
		iv, err := parseIntervalText(s, intervalRange(t), env != nil && env.IntervalStyle == IntervalSQLStandard)
		if err != nil {
			return nil, err
		}
		return adjustIntervalForTypmod(t, iv), nil
	case OidJSON:
		return parseJSON(s)
	case OidJSONB:
		return parseJSONB(s)
	case OidJSONPath:
		return parseJSONPath(s)
	case OidPoint, OidLseg, OidPath, OidBox, OidPolygon, OidLine, OidCircle:
		return parseGeometric(t, s)
	case OidInet, OidCidr:
		return parseInet(t, s)
	case OidTSVector:
		return ParseTSVector(s)
	case OidTSQuery:
		return parseTSQueryText(s)
	case OidBit, OidVarbit:
		return parseBitText(t, s)
	case OidMoney:
		return parseMoney(s)
	case OidMacaddr:
		return parseMacaddr(s)
	case OidMacaddr8:
		return parseMacaddr8(s)
	case OidPGLSN:
		return parseLSN(s)
	case OidXML:
		return parseXML(env, s)
	case OidTimetz:
		return parseTimetz(env, t, s)
	case OidInt4Range, OidNumRange, OidTsRange, OidTstzRange, OidDateRange, OidInt8Range:
		return parseRange(env, t, s)
	case OidInt4Multirange, OidNumMultirange, OidTsMultirange, OidTstzMultirange, OidDateMultirange, OidInt8Multirange:
		return parseMultirange(env, t, s)
	case OidTID:
		return parseTID(t, s)
	case OidXID:
		return parseXID(s)
	case OidXID8:
		return parseXID8(s)
	}
	if isVector(t.Oid) {
		return parseVector(t, s)
	}
	if t.IsArray() {
		return parseArray(env, t, s)
	}
	if t.IsComposite() {
		return parseRecord(env, t, s)
	}
	if t.Oid == OidRecord {
		return nil, anonymousRecordInput()
	}
	if t.IsEnum() {
		return parseEnum(t, s)
	}
	if t.IsCitext() {
		return parseString(t, s)
	}
	if t.IsHstore() {
		return ParseHstore(s)
	}
	if t.IsRange() {
		return parseRange(env, t, s)
	}
	if t.IsMultirange() {
		return parseMultirange(env, t, s)
	}
	return nil, unsupportedType(t)
}

// formatText dispatches to the output function of t's type. Datums of the
// wrong Go type print as PostgreSQL prints nothing: the empty string; the
// executor never produces them.
func formatText(env *Env, t Type, v any) string {
	switch x := v.(type) {
	case []any:
		if isVector(t.Oid) {
			return formatVector(x)
		}
		if t.IsRecord() {
			return formatRecord(env, t, x)
		}
		return formatArray(env, t, x)
	case *pgarray.Array:
		return formatArray(env, t, x)
	case bool:
		return formatBool(x)
	case int64:
		switch {
		case isRegType(t.Oid):
			return formatReg(env, t, x)
		case t.Oid == OidTime:
			return formatTime(x)
		case t.Oid == OidMoney:
			return formatMoney(x)
		}
		return strconv.FormatInt(x, 10)
	case float64:
		digits := 0
		if env != nil && env.FloatDigits > 0 {
			digits = env.FloatDigits
		}
		if t.Oid == OidFloat4 {
			return formatFloatDigits(x, 32, max(digits-9, 0))
		}
		return formatFloatDigits(x, 64, digits)
	case *apd.Decimal:
		return formatNumeric(x)
	case string:
		switch t.Oid {
		case OidChar:
			return formatChar(x)
		case OidXML:
			return FormatXML(x)
		}
		return x
	case []byte:
		if env != nil && env.ByteaEscape {
			return formatByteaEscape(x)
		}
		return formatBytea(x)
	case [16]byte:
		return formatUUID(x)
	case time.Time:
		var ds DateStyle
		if env != nil {
			ds = env.DateStyle
		}
		switch t.Oid {
		case OidDate:
			return formatDate(x, ds)
		case OidTimestamptz:
			return formatTimestamp(x, env.location(), true, ds)
		}
		return formatTimestamp(x, nil, false, ds)
	case pgtype.Interval:
		if env != nil {
			switch env.IntervalStyle {
			case IntervalISO8601:
				return formatIntervalISO8601(x)
			case IntervalPostgresVerbose:
				return formatIntervalVerbose(x)
			case IntervalSQLStandard:
				return formatIntervalSQLStandard(x)
			}
		}
		return formatInterval(x)
	case TID:
		return formatTID(x)
	case XID:
		return strconv.FormatUint(uint64(x), 10)
	case XID8:
		return strconv.FormatUint(uint64(x), 10)
	case Inet:
		return formatInet(x, t.Oid == OidCidr)
	case MacAddr:
		return formatMacAddr(x)
	case MacAddr8:
		return formatMacAddr8(x)
	case LSN:
		return formatLSN(x)
	case TSVector:
		return FormatTSVector(x)
	case Hstore:
		return FormatHstore(x)
	case TSQuery:
		return FormatTSQuery(x)
	case BitString:
		return FormatBitString(x)
	case TimeTZ:
		return formatTimetz(x)
	case Range:
		return formatRange(env, t, x)
	case Multirange:
		return formatMultirange(env, t, x)
	}
	if s, ok := formatGeometric(env, v); ok {
		return s
	}
	return ""
}

// float4Round rounds f to float32 precision, as real values are stored; it
// fails with 22003 where float4 overflows or underflows.
func float4Round(f float64) (float64, bool) {
	r := float64(float32(f))
	if (math.IsInf(r, 0) && !math.IsInf(f, 0)) || (r == 0 && f != 0) {
		return 0, false
	}
	return r, true
}

// unsupportedType is the error for types outside this package's scope.
func unsupportedType(t Type) error {
	return pgerror.Newf(pgerror.FeatureNotSupported, "type %s is not supported by fickle", formatType(t))
}
