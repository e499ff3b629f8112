package types

import (
	"bytes"
	"cmp"
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgarray"
)

// compare is the btree comparison of each type's default operator class.
func compare(t Type, a, b any) int {
	switch x := a.(type) {
	case []any, *pgarray.Array:
		if t.IsRecord() {
			return compareRecords(t, x.([]any), b.([]any))
		}
		return compareArrays(t, x, b)
	case bool:
		return cmpBool(x, b.(bool))
	case int64:
		return cmp3(x, b.(int64))
	case float64:
		return compareFloat(x, b.(float64))
	case *apd.Decimal:
		return compareNumeric(x, b.(*apd.Decimal))
	case string:
		switch t.Oid {
		case OidBpchar:
			return strings.Compare(strings.TrimRight(x, " "), strings.TrimRight(b.(string), " "))
		case OidJSONB:
			return compareJSONB(mustParseJSON(x), mustParseJSON(b.(string)))
		}
		if t.IsEnum() {
			return compareEnums(t, x, b.(string))
		}
		if t.IsCitext() {
			return compareCitext(x, b.(string))
		}
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case [16]byte:
		y := b.([16]byte)
		return bytes.Compare(x[:], y[:])
	case time.Time:
		return x.Compare(b.(time.Time))
	case pgtype.Interval:
		return compareInterval(x, b.(pgtype.Interval))
	case TID:
		return compareTID(x, b.(TID))
	case XID8:
		return cmp.Compare(x, b.(XID8))
	case Inet:
		return compareInet(x, b.(Inet))
	case MacAddr:
		return compareMacAddr(x, b.(MacAddr))
	case MacAddr8:
		return compareMacAddr8(x, b.(MacAddr8))
	case LSN:
		return cmp.Compare(x, b.(LSN))
	case TSVector:
		return compareTSVector(x, b.(TSVector))
	case Hstore:
		return compareHstore(x, b.(Hstore))
	case TSQuery:
		return compareTSQuery(x, b.(TSQuery))
	case BitString:
		return compareBitStrings(x, b.(BitString))
	case TimeTZ:
		return compareTimetz(x, b.(TimeTZ))
	case Range:
		return compareRanges(t, x, b.(Range))
	case Multirange:
		return compareMultiranges(t, x, b.(Multirange))
	}
	return 0
}

// compareFloat is float8_cmp: NaN equals NaN and sorts after everything,
// -0 equals 0.
func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareNumeric is cmp_numerics: NaN equals NaN and sorts after
// +Infinity.
func compareNumeric(a, b *apd.Decimal) int {
	an, bn := a.Form == apd.NaN || a.Form == apd.NaNSignaling, b.Form == apd.NaN || b.Form == apd.NaNSignaling
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return a.Cmp(b)
}
