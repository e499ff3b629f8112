package sqlexec

import (
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/jackc/pgx/v5/pgtype"
)

// seriesTimestampType is the type generate_series counts in when its
// bounds are dates or timestamps: timestamp when they are timestamps
// without time zone, else timestamptz (the preferred type of the
// category, which dates reach too); false when no bound is either.
func seriesTimestampType(args []*scalar) (types.Type, bool) {
	typ, found := types.Timestamp, false
	for _, e := range args[:2] {
		if unresolved(e) || e.null {
			continue
		}
		switch e.typ.Oid {
		case types.OidTimestamp:
			found = true
		case types.OidTimestamptz, types.OidDate:
			typ, found = types.Timestamptz, true
		}
	}
	return typ, found
}

// seriesStep is the step argument of generate_series over timestamps as
// the rows see it: the interval, and whether it is added on the clocks of
// the session's TimeZone (timestamptz).
type seriesStep struct {
	iv pgtype.Interval
	tz bool
}

// bindTimestampSeries binds generate_series(start, stop, step interval)
// over timestamp or timestamptz.
func bindTimestampSeries(b *binder, args []*scalar, typ types.Type, loc int32) ([]types.Field, error) {
	if len(args) != 3 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function generate_series(%s, %s) does not exist", args[0].typ, args[1].typ), loc)
	}
	for i, t := range []types.Type{typ, typ, types.Interval} {
		var err error
		if args[i], err = b.coerce(args[i], t, types.CastImplicit); err != nil {
			return nil, b.withPos(err, loc)
		}
	}
	step, interval, tz := *args[2], args[2].eval, typ.Oid == types.OidTimestamptz
	step.eval = func(x *execCtx) (any, error) {
		v, err := interval(x)
		if v == nil || err != nil {
			return nil, err
		}
		return seriesStep{iv: v.(pgtype.Interval), tz: tz}, nil
	}
	args[2] = &step
	return []types.Field{{Name: "generate_series", Type: typ}}, nil
}

// timestampSeriesRows is generate_series_timestamp(tz): start, then each
// value plus step while it has not passed stop.
func timestampSeriesRows(x *execCtx, args []any, yield func(row []any) error) error {
	cur, stop, step := args[0].(time.Time), args[1].(time.Time), args[2].(seriesStep).iv
	tz := args[2].(seriesStep).tz
	sign := types.Compare(types.Interval, step, pgtype.Interval{Valid: true})
	if sign == 0 {
		return pgerror.New(pgerror.InvalidParameterValue, "step size cannot equal zero")
	}
	for n := 0; ; n++ {
		if c := types.Compare(types.Timestamp, cur, stop); sign > 0 && c > 0 || sign < 0 && c < 0 {
			return nil
		}
		if n%1024 == 0 {
			if err := x.checkCancel(); err != nil {
				return err
			}
		}
		if err := yield([]any{cur}); err != nil {
			return err
		}
		next, err := types.AddInterval(x.env, tz, cur, step)
		if err != nil {
			return err
		}
		cur = next
	}
}
