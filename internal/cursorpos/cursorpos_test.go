package cursorpos

import (
	"fmt"
	"math"
	"testing"
)

// TestMoveFollowsPostgres pins the positions and rows of FETCH on five
// rows, each case starting where the previous one left the cursor, as the
// same statements do on PostgreSQL 15 (see sqlexec's cursors script).
func TestMoveFollowsPostgres(t *testing.T) {
	const n = 5
	steps := []struct {
		dir     Direction
		count   int64
		rows    string
		pos     int
		noRoll  bool // on a NO SCROLL cursor
		wantErr bool
	}{
		{Forward, 2, "[0 1]", 2, false, false},
		{Forward, 1, "[2]", 3, false, false},
		{Backward, 1, "[1]", 2, false, false},
		{Absolute, -1, "[4]", 5, false, false},
		{Forward, 1, "[]", 6, false, false},
		{Backward, 2, "[4 3]", 4, false, false},
		{Absolute, 1, "[0]", 1, false, false},
		{Relative, 0, "[0]", 1, false, false},
		{Forward, math.MaxInt64, "[1 2 3 4]", 6, false, false},
		{Backward, math.MaxInt64, "[4 3 2 1 0]", 0, false, false},
		{Forward, 0, "[]", 0, false, false},
		{Forward, 3, "[0 1 2]", 3, false, false},
		{Forward, -2, "[1 0]", 1, false, false},
		{Backward, -1, "[1]", 2, false, false},
		{Absolute, 9, "[]", 6, false, false},
		{Relative, -9, "[]", 0, false, false},
		{Forward, 2, "[0 1]", 2, true, false},
		{Backward, 1, "[]", 2, true, true},
		{Absolute, 1, "[]", 2, true, true},
		{Absolute, 4, "[3]", 4, true, false},
		{Absolute, 4, "[]", 4, true, true},
		{Absolute, -1, "[]", 4, true, true},
		{Absolute, 5, "[4]", 5, true, false},
	}
	pos := 0
	for i, s := range steps {
		rows, next, err := Move(n, pos, !s.noRoll, s.dir, s.count)
		if (err != nil) != s.wantErr || fmt.Sprint(rows) != s.rows && !(len(rows) == 0 && s.rows == "[]") || next != s.pos {
			t.Fatalf("step %d (%v %d from %d): rows %v pos %d err %v, want rows %s pos %d error %v", i, s.dir, s.count, pos, rows, next, err, s.rows, s.pos, s.wantErr)
		}
		pos = next
	}
}
