// Package booking sells the seats of a show. BuggyBook counts the bookings
// and inserts one when a seat is left, at READ COMMITTED: two bookers that
// both count before either commits (or that read an older count) both
// insert, and the show is overbooked (a write skew through a phantom).
// FixedBook does the same at SERIALIZABLE and retries the serialization
// failures: the database lets only one of two such bookings commit.
package booking

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/examples/internal/exampledb"
)

// ErrSoldOut is returned when no seat is left.
var ErrSoldOut = errors.New("sold out")

// Schema creates the shows and their bookings.
const Schema = `CREATE TABLE shows (id int PRIMARY KEY, seats int NOT NULL);
CREATE TABLE bookings (id serial PRIMARY KEY, show_id int NOT NULL, who text NOT NULL)`

// Book books a seat of a show for who.
type Book func(ctx context.Context, conn *pgx.Conn, show int, who string) error

// book runs one booking in a transaction with opts.
func book(ctx context.Context, conn *pgx.Conn, opts pgx.TxOptions, show int, who string) error {
	return pgx.BeginTxFunc(ctx, conn, opts, func(tx pgx.Tx) error {
		var booked, seats int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM bookings WHERE show_id = $1`, show).Scan(&booked); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT seats FROM shows WHERE id = $1`, show).Scan(&seats); err != nil {
			return err
		}
		if booked >= seats {
			return ErrSoldOut
		}
		_, err := tx.Exec(ctx, `INSERT INTO bookings (show_id, who) VALUES ($1, $2)`, show, who)
		return err
	})
}

// BuggyBook checks and books at READ COMMITTED.
func BuggyBook(ctx context.Context, conn *pgx.Conn, show int, who string) error {
	return book(ctx, conn, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, show, who)
}

// FixedBook checks and books at SERIALIZABLE, retrying serialization
// failures.
func FixedBook(ctx context.Context, conn *pgx.Conn, show int, who string) error {
	return exampledb.Retry(func() error {
		return book(ctx, conn, pgx.TxOptions{IsoLevel: pgx.Serializable}, show, who)
	})
}
