package types

import "github.com/jackc/pgx/v5/pgtype"

// The justify_* functions move whole days into months (30 days each) and
// whole 24-hour spans of time into days, then give the fields one sign. A
// carry that leaves int32 fails with 22008, as in PostgreSQL.

// justifyDays is interval_justify_days.
func justifyDays(iv pgtype.Interval) (any, error) {
	months, ok := addInt32(iv.Months, iv.Days/daysPerMonth)
	if !ok {
		return nil, errIntervalRange()
	}
	iv.Months, iv.Days = months, iv.Days%daysPerMonth
	if iv.Months > 0 && iv.Days < 0 {
		iv.Days += daysPerMonth
		iv.Months--
	} else if iv.Months < 0 && iv.Days > 0 {
		iv.Days -= daysPerMonth
		iv.Months++
	}
	return iv, nil
}

// justifyHours is interval_justify_hours.
func justifyHours(iv pgtype.Interval) (any, error) {
	days := int64(iv.Days) + iv.Microseconds/usecPerDay
	if days != int64(int32(days)) {
		return nil, errIntervalRange()
	}
	iv.Days, iv.Microseconds = int32(days), iv.Microseconds%usecPerDay
	if iv.Days > 0 && iv.Microseconds < 0 {
		iv.Microseconds += usecPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Microseconds > 0 {
		iv.Microseconds -= usecPerDay
		iv.Days++
	}
	return iv, nil
}

// justifyInterval is interval_justify_interval: days into months and time
// into days, with all fields given one sign. Days are moved into months
// first when day and time share a sign, so that the carry of time into
// days cannot overflow where PostgreSQL's does not.
func justifyInterval(iv pgtype.Interval) (any, error) {
	months, days, us := iv.Months, iv.Days, iv.Microseconds
	ok := true
	if (days > 0 && us > 0) || (days < 0 && us < 0) {
		if months, ok = addInt32(months, days/daysPerMonth); !ok {
			return nil, errIntervalRange()
		}
		days %= daysPerMonth
	}
	days += int32(us / usecPerDay)
	us %= usecPerDay
	if months, ok = addInt32(months, days/daysPerMonth); !ok {
		return nil, errIntervalRange()
	}
	days %= daysPerMonth
	if months > 0 && (days < 0 || (days == 0 && us < 0)) {
		days += daysPerMonth
		months--
	} else if months < 0 && (days > 0 || (days == 0 && us > 0)) {
		days -= daysPerMonth
		months++
	}
	if days > 0 && us < 0 {
		us += usecPerDay
		days--
	} else if days < 0 && us > 0 {
		us -= usecPerDay
		days++
	}
	return pgtype.Interval{Months: months, Days: days, Microseconds: us, Valid: true}, nil
}
