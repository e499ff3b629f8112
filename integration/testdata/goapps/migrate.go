package main

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// migrateFiles are golang-migrate's migrations: tables, an index, a foreign key and a column change, each with its
// down migration.
var migrateFiles = fstest.MapFS{
	"1_users.up.sql":   {Data: []byte("CREATE TABLE users (id serial PRIMARY KEY, name text NOT NULL, email varchar(100));\n")},
	"1_users.down.sql": {Data: []byte("DROP TABLE users;\n")},
	"2_posts.up.sql": {Data: []byte(`CREATE TABLE posts (
	id serial PRIMARY KEY,
	user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	title text NOT NULL
);
CREATE INDEX posts_user_id_idx ON posts (user_id);
`)},
	"2_posts.down.sql": {Data: []byte("DROP INDEX posts_user_id_idx;\nDROP TABLE posts;\n")},
	"3_alter.up.sql": {Data: []byte(`ALTER TABLE users ALTER COLUMN email TYPE text;
ALTER TABLE users ADD COLUMN age integer NOT NULL DEFAULT 0;
ALTER TABLE posts RENAME COLUMN title TO headline;
`)},
	"3_alter.down.sql": {Data: []byte(`ALTER TABLE posts RENAME COLUMN headline TO title;
ALTER TABLE users DROP COLUMN age;
ALTER TABLE users ALTER COLUMN email TYPE varchar(100);
`)},
}

// withBroken adds a fourth migration that fails after its first statement.
func withBroken() fstest.MapFS {
	fs := fstest.MapFS{}
	for k, v := range migrateFiles {
		fs[k] = v
	}
	fs["4_broken.up.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE audit (id integer);\nINSERT INTO no_such_table VALUES (1);\n")}
	fs["4_broken.down.sql"] = &fstest.MapFile{Data: []byte("DROP TABLE audit;\n")}
	return fs
}

func runMigrate(url string) {
	db, err := sql.Open("pgx", url)
	must(err)
	defer db.Close()
	dbURL := "pgx5://" + strings.TrimPrefix(url, "postgres://")
	open := func(fs fstest.MapFS) *migrate.Migrate {
		src, err := iofs.New(fs, ".")
		must(err)
		m, err := migrate.NewWithSourceInstance("iofs", src, dbURL)
		must(err)
		return m
	}
	version := func(label string, m *migrate.Migrate) {
		v, dirty, err := m.Version()
		if errors.Is(err, migrate.ErrNilVersion) {
			fmt.Println(label, "version: none")
			return
		}
		must(err)
		fmt.Printf("%s version: %d dirty=%v\n", label, v, dirty)
	}
	result := func(label string, err error) {
		if err == nil {
			fmt.Println(label, "ok")
		} else {
			fmt.Println(label, "error:", err)
		}
	}
	m := open(migrateFiles)
	result("up", m.Up())
	version("after up", m)
	migrateSchema(db)
	result("up again", m.Up())
	result("steps -1", m.Steps(-1))
	version("after steps -1", m)
	migrateSchema(db)
	result("up", m.Up())
	version("after up", m)
	_, err = db.Exec("INSERT INTO users (name, email, age) VALUES ('ann', 'ann@example.com', 30)")
	must(err)
	_, err = db.Exec("INSERT INTO posts (user_id, headline) VALUES (1, 'hello'), (1, 'again')")
	must(err)
	_, err = db.Exec("INSERT INTO posts (user_id, headline) VALUES (2, 'orphan')")
	fmt.Println("orphan post:", err)
	_, err = db.Exec("DELETE FROM users WHERE name = 'ann'")
	must(err)
	var posts int
	must(db.QueryRow("SELECT count(*) FROM posts").Scan(&posts))
	fmt.Println("posts after cascading delete:", posts)
	srcErr, dbErr := m.Close()
	must(srcErr)
	must(dbErr)

	m = open(withBroken())
	result("up with a broken migration", m.Up())
	version("after the failure", m)
	result("up while dirty", m.Up())
	var audit sql.NullString
	must(db.QueryRow("SELECT to_regclass('audit')::text").Scan(&audit))
	fmt.Println("audit table:", audit.String, audit.Valid)
	result("force 3", m.Force(3))
	version("after force", m)
	result("down", m.Down())
	version("after down", m)
	migrateSchema(db)
	srcErr, dbErr = m.Close()
	must(srcErr)
	must(dbErr)
}

// migrateSchema prints the tables, columns, indexes and foreign keys in the public schema.
func migrateSchema(db *sql.DB) {
	rows, err := db.Query(`SELECT table_name, column_name, data_type, coalesce(character_maximum_length, -1), is_nullable, coalesce(column_default, '')
		FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`)
	must(err)
	for rows.Next() {
		var table, column, typ, nullable, def string
		var length int
		must(rows.Scan(&table, &column, &typ, &length, &nullable, &def))
		fmt.Printf("  column %s.%s %s %d nullable=%s default=%q\n", table, column, typ, length, nullable, def)
	}
	must(rows.Err())
	rows, err = db.Query(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`)
	must(err)
	for rows.Next() {
		var table, name, def string
		must(rows.Scan(&table, &name, &def))
		fmt.Printf("  index %s on %s: %s\n", name, table, def)
	}
	must(rows.Err())
	rows, err = db.Query(`SELECT conname, conrelid::regclass::text, pg_get_constraintdef(oid) FROM pg_constraint
		WHERE connamespace = 'public'::regnamespace AND contype = 'f' ORDER BY conname`)
	must(err)
	for rows.Next() {
		var name, table, def string
		must(rows.Scan(&name, &table, &def))
		fmt.Printf("  foreign key %s on %s: %s\n", name, table, def)
	}
	must(rows.Err())
}
