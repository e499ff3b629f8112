package types

import (
	"math"

	"github.com/jackc/pgx/v5/pgtype"
)

func init() {
	argDefaults["make_interval"] = []any{int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), float64(0)}
	params := []Type{Int4, Int4, Int4, Int4, Int4, Int4, Float8}
	for n := 0; n <= len(params); n++ {
		addFunc("make_interval", Immutable, Interval, func(_ *Env, a []any) (any, error) {
			return makeInterval(withArgDefaults("make_interval", a, len(params)))
		}, params[:n]...)
	}
}

// makeInterval is make_interval(years, months, weeks, days, hours, mins,
// secs). Like PostgreSQL 15 it does not check the integer fields: their
// products wrap around in 32 or 64 bits as they do there.
func makeInterval(a []any) (any, error) {
	years, months, weeks, days := int32(a[0].(int64)), int32(a[1].(int64)), int32(a[2].(int64)), int32(a[3].(int64))
	hours, mins, secs := int64(int32(a[4].(int64))), int64(int32(a[5].(int64))), a[6].(float64)
	if math.IsInf(secs, 0) || math.IsNaN(secs) {
		return nil, errIntervalRange()
	}
	us := math.RoundToEven(secs * 1e6)
	if !fitsInt64(us) {
		return nil, errIntervalRange()
	}
	return pgtype.Interval{
		Months:       years*monthsPerYear + months,
		Days:         weeks*7 + days,
		Microseconds: hours*usecPerHour + mins*usecPerMinute + int64(us),
		Valid:        true,
	}, nil
}
