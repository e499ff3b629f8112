// Package wiki edits pages. Both versions load a page, compute the edit in
// Go and save it, in one transaction. BuggySave writes the new body
// whatever happened since the load: an editor that loaded an older version
// (READ COMMITTED allows it, and two editors that loaded the same version
// race) overwrites the other's edit, a lost update. FixedSave is
// optimistic locking on PostgreSQL's system column xmin, the transaction
// that wrote the version loaded: the save updates only that version, and
// an editor whose save finds the page changed starts over.
package wiki

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Schema creates the pages table.
const Schema = `CREATE TABLE pages (id int PRIMARY KEY, body text NOT NULL)`

// ErrChanged is returned by a save that found the page changed since it
// was loaded.
var ErrChanged = errors.New("the page changed since it was loaded")

// Page is a page as loaded: its body and the version (xmin) it was read at.
type Page struct {
	ID      int
	Body    string
	Version string
}

// Load reads a page and the version it read.
func Load(ctx context.Context, tx pgx.Tx, id int) (Page, error) {
	p := Page{ID: id}
	err := tx.QueryRow(ctx, `SELECT body, xmin::text FROM pages WHERE id = $1`, id).Scan(&p.Body, &p.Version)
	return p, err
}

// Save writes a page's new body.
type Save func(ctx context.Context, tx pgx.Tx, p Page, body string) error

// BuggySave writes the body whatever version the page is at now.
func BuggySave(ctx context.Context, tx pgx.Tx, p Page, body string) error {
	_, err := tx.Exec(ctx, `UPDATE pages SET body = $1 WHERE id = $2`, body, p.ID)
	return err
}

// FixedSave writes the body only over the version p was loaded at: an
// UPDATE re-checks its WHERE clause on the row's latest version, so a
// page another editor saved since matches no row.
func FixedSave(ctx context.Context, tx pgx.Tx, p Page, body string) error {
	tag, err := tx.Exec(ctx, `UPDATE pages SET body = $1 WHERE id = $2 AND xmin = $3::xid`, body, p.ID, p.Version)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrChanged
	}
	return err
}

// Edit loads page id, applies edit to its body and saves it with save in
// one transaction, and starts over as long as the page changed under it.
func Edit(ctx context.Context, conn *pgx.Conn, save Save, id int, edit func(string) string) error {
	for {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			p, err := Load(ctx, tx, id)
			if err != nil {
				return err
			}
			return save(ctx, tx, p, edit(p.Body))
		})
		if !errors.Is(err, ErrChanged) {
			return err
		}
	}
}
