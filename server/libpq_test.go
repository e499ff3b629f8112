package server

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/lib/pq"
)

// TestLibPQThroughDatabaseSQL runs lib/pq (text protocol with unnamed
// statements, its own startup and SCRAM client) through database/sql.
func TestLibPQThroughDatabaseSQL(t *testing.T) {
	srv := startSQLServer(t, Config{Password: "secret"})
	db, err := sql.Open("postgres", srv.DSN("tester", "fickle"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE pq (id integer PRIMARY KEY, note text)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO pq VALUES ($1, $2), ($3, NULL)", 1, "one", 2); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE pq SET note = 'uno' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec("INSERT INTO pq VALUES (1, 'dup')")
	var pe *pq.Error
	if !errors.As(err, &pe) || pe.Code != "23505" {
		t.Fatalf("duplicate: %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT id, note FROM pq ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id int
		var note sql.NullString
		if err := rows.Scan(&id, &note); err != nil {
			t.Fatal(err)
		}
		got = append(got, note.String)
	}
	if len(got) != 2 || got[0] != "one" || got[1] != "" {
		t.Fatalf("rows %q", got)
	}
	bad, _ := sql.Open("postgres", "postgres://tester:wrong@"+srv.Addr().String()+"/fickle?sslmode=disable")
	defer bad.Close()
	if err := bad.Ping(); !errors.As(err, &pe) || pe.Code != "28P01" {
		t.Fatalf("wrong password: %v", err)
	}
}
