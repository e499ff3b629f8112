// Package signup registers users under unique names. BuggySignup checks in
// the application that the name is free and then inserts it, at READ
// COMMITTED: two signups of one name that both check before either
// commits (or that read an older state) both insert it. FixedSignup lets
// the database enforce the uniqueness (a UNIQUE constraint, INSERT ... ON
// CONFLICT DO NOTHING), which it checks against the latest committed state.
package signup

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// ErrTaken is returned when the name is already registered.
var ErrTaken = errors.New("username taken")

// BuggySchema has no constraint on the names: the application checks.
const BuggySchema = `CREATE TABLE users (id serial PRIMARY KEY, username text NOT NULL)`

// FixedSchema makes the names unique.
const FixedSchema = `CREATE TABLE users (id serial PRIMARY KEY, username text NOT NULL UNIQUE)`

// Signup registers username.
type Signup func(ctx context.Context, conn *pgx.Conn, username string) error

// BuggySignup checks that the name is free, then inserts it.
func BuggySignup(ctx context.Context, conn *pgx.Conn, username string) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var taken bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE username = $1)`, username).Scan(&taken); err != nil {
			return err
		}
		if taken {
			return ErrTaken
		}
		_, err := tx.Exec(ctx, `INSERT INTO users (username) VALUES ($1)`, username)
		return err
	})
}

// FixedSignup inserts the name unless the constraint says it exists.
func FixedSignup(ctx context.Context, conn *pgx.Conn, username string) error {
	tag, err := conn.Exec(ctx, `INSERT INTO users (username) VALUES ($1) ON CONFLICT (username) DO NOTHING`, username)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrTaken
	}
	return nil
}
