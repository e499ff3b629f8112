package main

import (
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	_ "github.com/golang-migrate/migrate/v4/database/postgres"
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
	"4_state.up.sql": {Data: []byte(`-- an enum, a trigger function and a check; a semicolon in a comment; and a 'string;'
BEGIN;
CREATE TYPE post_state AS ENUM ('draft', 'published');
ALTER TABLE posts ADD COLUMN state post_state NOT NULL DEFAULT 'draft';
CREATE FUNCTION posts_trim() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.headline := trim(NEW.headline);
	RETURN NEW;
END $$;
CREATE TRIGGER posts_trim BEFORE INSERT OR UPDATE ON posts FOR EACH ROW EXECUTE FUNCTION posts_trim();
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'post_state') THEN
		RAISE EXCEPTION 'post_state is missing';
	END IF;
END $$;
COMMENT ON COLUMN posts.state IS 'draft; or published';
COMMIT;
`)},
	"4_state.down.sql": {Data: []byte(`DROP TRIGGER posts_trim ON posts;
DROP FUNCTION posts_trim();
ALTER TABLE posts DROP COLUMN state;
DROP TYPE post_state;
`)},
}

// withBroken adds a fourth migration that fails after its first statement.
func withBroken() fstest.MapFS {
	fs := fstest.MapFS{}
	for k, v := range migrateFiles {
		fs[k] = v
	}
	fs["5_broken.up.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE audit (id integer);\nINSERT INTO no_such_table VALUES (1);\n")}
	fs["5_broken.down.sql"] = &fstest.MapFile{Data: []byte("DROP TABLE audit;\n")}
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
	_, err = db.Exec("INSERT INTO posts (user_id, headline) VALUES (1, '  hello '), (1, 'again')")
	must(err)
	_, err = db.Exec("UPDATE posts SET state = 'published' WHERE headline = 'hello'")
	must(err)
	var attnum int
	var comment string
	must(db.QueryRow("SELECT attnum, col_description(attrelid, attnum) FROM pg_attribute WHERE attrelid = 'posts'::regclass AND attname = 'state'").Scan(&attnum, &comment))
	fmt.Printf("posts.state is column %d: %s\n", attnum, comment)
	rows, err := db.Query("SELECT headline, state::text FROM posts ORDER BY id")
	must(err)
	for rows.Next() {
		var headline, state string
		must(rows.Scan(&headline, &state))
		fmt.Printf("post %q %s\n", headline, state)
	}
	must(rows.Err())
	_, err = db.Exec("UPDATE posts SET state = 'archived'")
	fmt.Println("bad state:", err)
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
	result("force 4", m.Force(4))
	version("after force", m)
	result("down", m.Down())
	version("after down", m)
	migrateSchema(db)
	srcErr, dbErr = m.Close()
	must(srcErr)
	must(dbErr)

	// lib/pq through the postgres driver, with a migrations table of its own
	src, err := iofs.New(migrateFiles, ".")
	must(err)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	m, err = migrate.NewWithSourceInstance("iofs", src, url+sep+"x-migrations-table=app_versions")
	must(err)
	result("lib/pq up", m.Up())
	version("lib/pq after up", m)
	result("lib/pq steps -2", m.Steps(-2))
	version("lib/pq after steps -2", m)
	result("lib/pq steps 1", m.Steps(1))
	version("lib/pq after steps 1", m)
	migrateSchema(db)
	result("lib/pq migrate 1", m.Migrate(1))
	version("lib/pq after migrate 1", m)
	result("lib/pq drop", m.Drop())
	migrateSchema(db)
	srcErr, dbErr = m.Close()
	must(srcErr)
	must(dbErr)

	// pgx with search_path as a startup parameter and a quoted, schema-qualified migrations table
	_, err = db.Exec("CREATE SCHEMA ops")
	must(err)
	src, err = iofs.New(migrateFiles, ".")
	must(err)
	m, err = migrate.NewWithSourceInstance("iofs", src, dbURL+sep+`search_path=ops&x-migrations-table="ops"."versions"&x-migrations-table-quoted=1`)
	must(err)
	result("ops up", m.Up())
	version("ops after up", m)
	rows, err = db.Query(`SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('public', 'ops') ORDER BY 1, 2`)
	must(err)
	for rows.Next() {
		var schema, table string
		must(rows.Scan(&schema, &table))
		fmt.Println("  table", schema+"."+table)
	}
	must(rows.Err())
	var enumSchema string
	must(db.QueryRow("SELECT typnamespace::regnamespace::text FROM pg_type WHERE typname = 'post_state'").Scan(&enumSchema))
	fmt.Println("enum in", enumSchema)
	result("ops down", m.Down())
	version("ops after down", m)
	srcErr, dbErr = m.Close()
	must(srcErr)
	must(dbErr)

	// two migrators at once: pg_advisory_lock makes one wait, and it then finds nothing to do
	var wg sync.WaitGroup
	outcomes := make([]string, 2)
	for i := range outcomes {
		src, err := iofs.New(migrateFiles, ".")
		must(err)
		m, err := migrate.NewWithSourceInstance("iofs", src, dbURL+sep+"x-migrations-table=conc_versions")
		must(err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Up(); err != nil {
				outcomes[i] = err.Error()
			} else {
				outcomes[i] = "ok"
			}
			srcErr, dbErr := m.Close()
			must(srcErr)
			must(dbErr)
		}()
	}
	wg.Wait()
	sort.Strings(outcomes)
	fmt.Println("concurrent ups:", outcomes)
	var applied int
	must(db.QueryRow("SELECT count(*) FROM conc_versions WHERE NOT dirty").Scan(&applied))
	fmt.Println("concurrent versions:", applied)

	// x-statement-timeout: pgx cancels a statement that outlives it (a CancelRequest), and the migration fails
	slow := fstest.MapFS{"1_slow.up.sql": {Data: []byte("SELECT pg_sleep(30);\n")}, "1_slow.down.sql": {Data: []byte("SELECT 1;\n")}}
	src, err = iofs.New(slow, ".")
	must(err)
	m, err = migrate.NewWithSourceInstance("iofs", src, dbURL+sep+"x-migrations-table=slow_versions&x-statement-timeout=300")
	must(err)
	start := time.Now()
	err = m.Up()
	fmt.Println("slow migration:", err, time.Since(start) < 10*time.Second)
	_, _ = m.Close() // its connection is gone
	// the server stopped the statement (a cancel request) or at least its session
	for wait := 0; ; wait++ {
		var running int
		must(db.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30);\n' AND state = 'active'").Scan(&running))
		if running == 0 || wait == 50 {
			fmt.Println("slow statements still running:", running)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var slowVersion int
	var slowDirty bool
	must(db.QueryRow("SELECT version, dirty FROM slow_versions").Scan(&slowVersion, &slowDirty))
	fmt.Println("slow_versions:", slowVersion, slowDirty)
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
