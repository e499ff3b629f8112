// Package bank moves money between accounts. BuggyTransfer reads both
// balances, computes the new ones in Go and writes them back: two
// transfers that read the same balance lose one of the updates (a lost
// update), which READ COMMITTED allows. FixedTransfer reads the balances
// with SELECT ... FOR UPDATE: a locking read sees the latest committed
// version, and no other transfer changes the rows before this one commits.
package bank

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// ErrInsufficientFunds is returned when the source account cannot pay.
var ErrInsufficientFunds = errors.New("insufficient funds")

// Schema creates the accounts table.
const Schema = `CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)`

// Transfer moves amount from one account to another in one transaction.
type Transfer func(ctx context.Context, conn *pgx.Conn, from, to, amount int) error

// BuggyTransfer reads the balances and writes back what it computed from
// them.
func BuggyTransfer(ctx context.Context, conn *pgx.Conn, from, to, amount int) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var fromBalance, toBalance int
		if err := tx.QueryRow(ctx, `SELECT balance FROM accounts WHERE id = $1`, from).Scan(&fromBalance); err != nil {
			return err
		}
		if fromBalance < amount {
			return ErrInsufficientFunds
		}
		if err := tx.QueryRow(ctx, `SELECT balance FROM accounts WHERE id = $1`, to).Scan(&toBalance); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET balance = $1 WHERE id = $2`, fromBalance-amount, from); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE accounts SET balance = $1 WHERE id = $2`, toBalance+amount, to)
		return err
	})
}

// FixedTransfer locks both rows, in id order so that two transfers cannot
// deadlock, before it reads them.
func FixedTransfer(ctx context.Context, conn *pgx.Conn, from, to, amount int) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, balance FROM accounts WHERE id IN ($1, $2) ORDER BY id FOR UPDATE`, from, to)
		if err != nil {
			return err
		}
		balance := map[int]int{}
		var id, b int
		if _, err := pgx.ForEachRow(rows, []any{&id, &b}, func() error { balance[id] = b; return nil }); err != nil {
			return err
		}
		if balance[from] < amount {
			return ErrInsufficientFunds
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET balance = $1 WHERE id = $2`, balance[from]-amount, from); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE accounts SET balance = $1 WHERE id = $2`, balance[to]+amount, to)
		return err
	})
}

// Balances returns every account's balance, read with FOR SHARE: a locking
// read sees the latest committed version of each row.
func Balances(ctx context.Context, conn *pgx.Conn) (map[int]int, error) {
	rows, err := conn.Query(ctx, `SELECT id, balance FROM accounts FOR SHARE`)
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	var id, balance int
	_, err = pgx.ForEachRow(rows, []any{&id, &balance}, func() error {
		out[id] = balance
		return nil
	})
	return out, err
}
