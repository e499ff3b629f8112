package types

import (
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// InRangeOffsetTypes returns the offset types of PostgreSQL 15's in_range
// support functions for a RANGE window frame ordered by a column of type t
// (a btree opclass's input type), preferred type first; nil when RANGE with
// an offset is not supported for t.
func InRangeOffsetTypes(t Type) []Type {
	switch t.Oid {
	case OidInt2:
		return []Type{Int2, Int4, Int8}
	case OidInt4:
		return []Type{Int4, Int8, Int2}
	case OidInt8:
		return []Type{Int8}
	case OidFloat4, OidFloat8:
		return []Type{Float8}
	case OidNumeric:
		return []Type{NumericAny}
	case OidDate, OidTimestamp, OidTimestamptz, OidTime, OidTimetz, OidInterval:
		return []Type{Interval}
	}
	return nil
}

var errInRangeSize = pgerror.New(pgerror.InvalidPrecedingOrFollowingSize, "invalid preceding or following size in window function")

// InRange is PostgreSQL's in_range support function for RANGE frames: it
// reports whether val lies on the frame's side of base ∓ offset (sub
// subtracts the offset, less asks for val <= the bound instead of >=).
// val and base are non-NULL datums of type t, offset a non-NULL datum of
// one of InRangeOffsetTypes(t). A negative offset fails with 22013.
// Bounds beyond the type's range count as infinite, as in PostgreSQL.
func InRange(env *Env, t Type, val, base, offset any, sub, less bool) (bool, error) {
	switch t.Oid {
	case OidInt2, OidInt4, OidInt8:
		return inRangeInt(val.(int64), base.(int64), offset.(int64), sub, less)
	case OidFloat4, OidFloat8:
		return inRangeFloat(val.(float64), base.(float64), offset.(float64), sub, less)
	case OidNumeric:
		return inRangeNumeric(val.(*apd.Decimal), base.(*apd.Decimal), offset.(*apd.Decimal), sub, less)
	case OidTime, OidTimetz:
		// Like PostgreSQL, only the offset's time part counts, in the
		// test for a negative offset too, and the bound does not wrap
		// around midnight; a timetz bound keeps base's zone.
		iv := offset.(pgtype.Interval)
		if iv.Microseconds < 0 {
			return false, errInRangeSize
		}
		delta := iv.Microseconds
		if sub {
			delta = -delta
		}
		if t.Oid == OidTimetz {
			b := base.(TimeTZ)
			return lessOrGreater(compareTimetz(val.(TimeTZ), TimeTZ{Time: b.Time + delta, Zone: b.Zone}), less), nil
		}
		return lessOrGreater(cmp3(val.(int64), base.(int64)+delta), less), nil
	case OidInterval:
		iv := offset.(pgtype.Interval)
		if compare(Interval, iv, pgtype.Interval{Valid: true}) < 0 {
			return false, errInRangeSize
		}
		op := "+"
		if sub {
			op = "-"
		}
		bound, err := evalBinary(env, op, Interval, Interval, base, iv)
		if err != nil {
			return false, err
		}
		return lessOrGreater(compare(Interval, val, bound), less), nil
	case OidDate, OidTimestamp, OidTimestamptz:
		iv := offset.(pgtype.Interval)
		if compare(Interval, iv, pgtype.Interval{Valid: true}) < 0 {
			return false, errInRangeSize
		}
		if sub {
			iv = pgtype.Interval{Months: -iv.Months, Days: -iv.Days, Microseconds: -iv.Microseconds, Valid: true}
		}
		// A date is compared as the timestamp of its midnight, as
		// in_range_date_interval does.
		bound, err := AddInterval(env, t.Oid == OidTimestamptz, base.(time.Time), iv)
		if err != nil {
			return false, err
		}
		return lessOrGreater(compare(Timestamp, val, bound), less), nil
	}
	return false, pgerror.Newf(pgerror.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", formatType(t))
}

func evalBinary(env *Env, op string, l, r Type, a, b any) (any, error) {
	o, err := resolveBinaryOp(op, l, r)
	if err != nil {
		return nil, err
	}
	return o.EvalEnv(env, a, b)
}

// lessOrGreater turns the comparison c of a value with the bound into the
// answer: value <= bound when less, value >= bound otherwise.
func lessOrGreater(c int, less bool) bool {
	if less {
		return c <= 0
	}
	return c >= 0
}

func inRangeInt(val, base, offset int64, sub, less bool) (bool, error) {
	if offset < 0 {
		return false, errInRangeSize
	}
	if sub {
		offset = -offset
	}
	bound := base + offset
	if (offset > 0 && bound < base) || (offset < 0 && bound > base) {
		// The true bound lies beyond every int8: above every value when
		// adding, below every value when subtracting.
		return sub != less, nil
	}
	return lessOrGreater(cmp3(val, bound), less), nil
}

func inRangeFloat(val, base, offset float64, sub, less bool) (bool, error) {
	if math.IsNaN(offset) || offset < 0 {
		return false, errInRangeSize
	}
	// NaN sorts after every other value and equals itself.
	switch {
	case math.IsNaN(val) && math.IsNaN(base):
		return true, nil
	case math.IsNaN(val):
		return !less, nil
	case math.IsNaN(base):
		return less, nil
	}
	// +inf minus inf and -inf plus inf are taken to bound nothing, as
	// PostgreSQL decides: every value is in such a frame.
	if math.IsInf(offset, 1) && math.IsInf(base, 0) && (sub == (base > 0)) {
		return true, nil
	}
	bound := base + offset
	if sub {
		bound = base - offset
	}
	return lessOrGreater(compareFloat(val, bound), less), nil
}

func inRangeNumeric(val, base, offset *apd.Decimal, sub, less bool) (bool, error) {
	if offset.Form == apd.NaN || offset.Negative && !offset.IsZero() {
		return false, errInRangeSize
	}
	valNaN, baseNaN := val.Form == apd.NaN, base.Form == apd.NaN
	switch {
	case valNaN && baseNaN:
		return true, nil
	case valNaN:
		return !less, nil
	case baseNaN:
		return less, nil
	}
	if offset.Form == apd.Infinite {
		switch {
		case base.Form == apd.Infinite && base.Negative != sub:
			// +inf - inf or -inf + inf: every value is in the frame.
			return true, nil
		case sub:
			// The bound is -inf: only -inf is at or below it.
			return !less || val.Form == apd.Infinite && val.Negative, nil
		default:
			return less || val.Form == apd.Infinite && !val.Negative, nil
		}
	}
	op := "+"
	if sub {
		op = "-"
	}
	bound, err := evalBinary(nil, op, NumericAny, NumericAny, base, offset)
	if err != nil {
		return false, err
	}
	return lessOrGreater(compare(NumericAny, val, bound), less), nil
}
