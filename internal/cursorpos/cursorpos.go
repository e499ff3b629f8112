// Package cursorpos moves a cursor over materialized rows as PostgreSQL's
// FETCH and MOVE do (pquery.c's DoPortalRunFetch). It is shared by SQL
// cursors (sqlexec) and the protocol's portals (server), which SQL's
// FETCH, MOVE and CLOSE reach by name too.
package cursorpos

import "github.com/fickle-db/fickle/internal/pgerror"

// Direction is a FETCH or MOVE direction.
type Direction uint8

// The directions, as PostgreSQL's parser reduces every form to them: NEXT
// and FORWARD n are Forward, PRIOR and BACKWARD n Backward, FIRST and LAST
// Absolute 1 and -1, ALL is a count of math.MaxInt64.
const (
	Forward Direction = iota
	Backward
	Absolute
	Relative
)

// Move moves a cursor at pos over n rows (0 is before the first row, i on
// row i counted from 1, n+1 after the last) and returns the indexes (from
// 0) of the rows a FETCH returns, in order, and the new position. A cursor
// that cannot scroll refuses to go backwards (55000).
func Move(n, pos int, scroll bool, dir Direction, count int64) (rows []int, newPos int, err error) {
	if count < 0 {
		// FORWARD -n is BACKWARD n and the other way round (FETCH -2).
		switch dir {
		case Forward:
			dir, count = Backward, -count
		case Backward:
			dir, count = Forward, -count
		}
	}
	switch dir {
	case Absolute, Relative:
		target := count
		if dir == Relative {
			target = int64(pos) + count
		} else if count < 0 {
			target = int64(n) + count + 1
		}
		if !scroll && needsBackwardScan(dir, count, target, pos) {
			return nil, pos, errNoScroll()
		}
		switch {
		case target <= 0:
			return nil, 0, nil
		case target > int64(n):
			return nil, n + 1, nil
		}
		return []int{int(target) - 1}, int(target), nil
	case Backward:
		if count == 0 {
			return Move(n, pos, scroll, Relative, 0)
		}
		if !scroll {
			return nil, pos, errNoScroll()
		}
		for pos = min(pos, n+1); count > 0 && pos > 1; count-- {
			pos--
			rows = append(rows, pos-1)
		}
		if count > 0 {
			pos = 0
		}
		return rows, pos, nil
	}
	if count == 0 {
		return Move(n, pos, scroll, Relative, 0)
	}
	for ; count > 0 && pos < n; count-- {
		pos++
		rows = append(rows, pos-1)
	}
	if count > 0 {
		pos = n + 1
	}
	return rows, pos, nil
}

// needsBackwardScan reports whether PostgreSQL reaches target (an ABSOLUTE
// or RELATIVE count from pos) by scanning backwards or rewinding, which a
// NO SCROLL cursor refuses: ABSOLUTE -n runs to the end and back, ABSOLUTE n
// steps back to re-read a row at or before pos (unless the cursor has not
// moved yet), and RELATIVE goes back to any earlier row.
func needsBackwardScan(dir Direction, count, target int64, pos int) bool {
	switch {
	case dir == Absolute && count < 0:
		return true
	case dir == Absolute:
		return pos > 0 && target <= int64(pos)
	}
	return target < int64(pos)
}

func errNoScroll() error {
	return pgerror.New(pgerror.ObjectNotInPrerequisiteState, "cursor can only scan forward").
		WithHint("Declare it with SCROLL option to enable backward scan.")
}
