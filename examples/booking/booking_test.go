package booking_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/examples/booking"
	"github.com/fickle-db/fickle/examples/internal/exampledb"
)

// TestAShowIsNeverOverbooked has three bookers, each on its own
// connection, take turns trying to book a seat, twice each, for a show of
// four seats: at most four bookings exist at the end, and exactly the ones
// the bookers were told succeeded. On PostgreSQL the buggy version passes
// this test (each booker sees the bookings made before); READ COMMITTED
// does not promise it, and fickle serves older counts, as concurrent
// bookers would see.
func TestAShowIsNeverOverbooked(t *testing.T) {
	ctx := context.Background()
	book := booking.Book(booking.FixedBook)
	if exampledb.Buggy(t) {
		book = booking.BuggyBook
	}
	dsn := exampledb.DSN(t)
	setup := exampledb.Connect(t, dsn, "setup")
	exampledb.Exec(t, setup, `DROP TABLE IF EXISTS shows, bookings`, booking.Schema, `INSERT INTO shows VALUES (1, 4)`)
	exampledb.Checkpoint(t, setup)
	bookers := make([]*pgx.Conn, 3)
	for i := range bookers {
		bookers[i] = exampledb.Connect(t, dsn, exampledb.Worker(i+1))
	}
	booked := 0
	for round := range 2 {
		for i, conn := range bookers {
			err := book(ctx, conn, 1, fmt.Sprintf("guest %d.%d", i+1, round+1))
			switch {
			case err == nil:
				booked++
			case !errors.Is(err, booking.ErrSoldOut):
				t.Fatal(err)
			}
		}
	}
	rows, err := setup.Query(ctx, `SELECT who FROM bookings WHERE show_id = 1 FOR SHARE`)
	if err != nil {
		t.Fatal(err)
	}
	who, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(who) > 4 || len(who) != booked {
		t.Fatalf("the show of 4 seats has %d bookings (%v); the bookers were told of %d", len(who), who, booked)
	}
}
