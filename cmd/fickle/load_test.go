package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec"
)

// The fixtures testdata/shop.pg_dump.sql and shop.pg_dump-no-owner.sql are
// PostgreSQL 15.18's pg_dump output (plain, with and without --no-owner)
// of a small shop schema: a serial column, a sequence owned by a column,
// primary, unique and foreign keys (one ON DELETE CASCADE), a CHECK, an
// index, and COPY data with a tab, a backslash and a NULL. They were made
// with:
//
//	runuser -u postgres -- initdb -D DIR; pg_ctl -D DIR -o "-p 55461 -k DIR" start
//	psql -h DIR -p 55461 -U postgres: CREATE ROLE shop; CREATE DATABASE shop OWNER shop;
//	  \c shop shop; CREATE TABLE customers (id serial PRIMARY KEY, email text NOT NULL UNIQUE, name text NOT NULL);
//	  CREATE TABLE products (sku text PRIMARY KEY, title text NOT NULL, price numeric(10,2) NOT NULL CHECK (price >= 0), in_stock boolean NOT NULL DEFAULT true);
//	  CREATE SEQUENCE order_numbers START 1000;
//	  CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT nextval('order_numbers'), customer_id integer NOT NULL REFERENCES customers(id), note text);
//	  ALTER SEQUENCE order_numbers OWNED BY orders.id;
//	  CREATE TABLE order_lines (order_id bigint NOT NULL REFERENCES orders(id) ON DELETE CASCADE, sku text NOT NULL REFERENCES products(sku), qty integer NOT NULL, PRIMARY KEY (order_id, sku));
//	  CREATE INDEX orders_customer_idx ON orders (customer_id);
//	  INSERT ... (see the COPY data)
//	pg_dump -p 55461 -h DIR -U postgres [--no-owner] shop

// loadEngine returns a fresh engine and a session on it.
func loadEngine(t *testing.T) (*sqlexec.Engine, func(sql string) ([][]any, error)) {
	t.Helper()
	eng, err := sqlexec.NewEngine(sqlexec.Config{Store: isolation.NewStore(isolation.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	var s *sqlexec.Session
	query := func(sql string) ([][]any, error) {
		if s == nil {
			s = eng.NewSession(sqlexec.SessionInfo{User: "fickle", Database: "fickle"})
			t.Cleanup(s.Close)
		}
		sts, err := s.Parse(sql)
		if err != nil {
			return nil, err
		}
		p, err := s.Prepare(sts[0], nil)
		if err != nil {
			return nil, err
		}
		res, err := s.Execute(context.Background(), p, nil)
		if err != nil {
			return nil, err
		}
		return res.Rows, nil
	}
	return eng, query
}

func sqlState(err error) string {
	var pe *pgerror.Error
	if errors.As(err, &pe) {
		return string(pe.Code)
	}
	return ""
}

// TestLoadRunsPgDumpOutput loads both pg_dump fixtures and checks what
// they describe: the rows (COPY escapes and NULL included), the sequences
// where setval left them, the serial default, and the keys, which hold
// afterwards.
func TestLoadRunsPgDumpOutput(t *testing.T) {
	for _, fixture := range []string{"shop.pg_dump.sql", "shop.pg_dump-no-owner.sql"} {
		t.Run(fixture, func(t *testing.T) {
			eng, query := loadEngine(t)
			if err := loadSQL(eng, filepath.Join("testdata", fixture)); err != nil {
				t.Fatal(err)
			}
			checks := []struct {
				sql, want string
			}{
				{"SELECT id, email, name FROM public.customers ORDER BY id", "[1 ada@example.com Ada] [2 bob@example.com Bob] [3 cy@example.com Cy\ttab]"},
				{"SELECT id, customer_id, note FROM public.orders ORDER BY id", `[1000 1 first] [1001 2 <nil>] [1002 1 back\slash]`},
				{"SELECT sku, title, price::text, in_stock FROM public.products ORDER BY sku", `[A-1 Anvil 19.99 true] [B-2 Bell 5.00 false] [C-3 Cord "long" 0.50 true]`},
				{"SELECT count(*) FROM public.order_lines", "[4]"},
				{"SELECT nextval('public.order_numbers')", "[1003]"},
				{"INSERT INTO public.customers (email, name) VALUES ('dee@example.com', 'Dee') RETURNING id", "[4]"},
			}
			for _, c := range checks {
				rows, err := query(c.sql)
				if err != nil {
					t.Fatalf("%s: %v", c.sql, err)
				}
				if got := rowsText(rows); got != c.want {
					t.Errorf("%s = %s, want %s", c.sql, got, c.want)
				}
			}
			violations := []struct {
				sql, state string
			}{
				{"INSERT INTO public.customers (email, name) VALUES ('ada@example.com', 'Ada 2')", "23505"},
				{"INSERT INTO public.order_lines VALUES (1001, 'Z-9', 1)", "23503"},
				{"INSERT INTO public.orders (customer_id) VALUES (99)", "23503"},
				{"INSERT INTO public.products VALUES ('D-4', 'Drum', -1, true)", "23514"},
			}
			for _, v := range violations {
				if _, err := query(v.sql); sqlState(err) != v.state {
					t.Errorf("%s: %v, want SQLSTATE %s", v.sql, err, v.state)
				}
			}
			if _, err := query("DELETE FROM public.orders WHERE id = 1000"); err != nil {
				t.Fatal(err)
			}
			if rows, err := query("SELECT count(*) FROM public.order_lines"); err != nil || rowsText(rows) != "[2]" {
				t.Errorf("after deleting order 1000, order_lines has %s (%v), want [2] (ON DELETE CASCADE)", rowsText(rows), err)
			}
			// ALTER SEQUENCE ... OWNED BY ran: the sequence goes with its table.
			for _, sql := range []string{"DROP TABLE public.order_lines", "DROP TABLE public.orders"} {
				if _, err := query(sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			if _, err := query("SELECT nextval('public.order_numbers')"); sqlState(err) != "42P01" {
				t.Errorf("order_numbers after DROP TABLE orders: %v, want 42P01 (owned by orders.id)", err)
			}
		})
	}
}

func rowsText(rows [][]any) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = fmt.Sprint(r)
	}
	return strings.Join(parts, " ")
}

// TestLoadPsqlCommands pins the psql commands --load accepts (\set
// ON_ERROR_STOP, \connect, \i and \ir, \restrict) and the
// errors for the rest, each naming its line, and for an included file the
// \i line and the included file's line.
func TestLoadPsqlCommands(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("sub/schema.sql", "CREATE TABLE t (k int PRIMARY KEY, v text);\n\\ir data.sql\n")
	write("sub/data.sql", "-- data\nCOPY t (k, v) FROM stdin;\n1\tone\n2\ttwo\n\\.\n")
	write("sub/broken.sql", "CREATE TABLE u (k int PRIMARY KEY);\n\nINSERT INTO nope VALUES (1);\n")
	cases := []struct {
		name, text string
		want       string // rows of t, or the error's text
		isErr      bool
	}{
		{"set and connect", "\\set ON_ERROR_STOP on\n\\connect fickle\nSET search_path = public;\n\\ir sub/schema.sql\n\\c fickle\n", "[1 one] [2 two]", false},
		{"connect to a database the file created", "CREATE DATABASE shop;\n\\connect shop\nCREATE TABLE t (k int PRIMARY KEY, v text);\n\\c fickle\nCREATE TABLE t (k int PRIMARY KEY, v text);\nINSERT INTO t VALUES (1, current_database());\n", "[1 fickle]", false},
		{"connect resets settings", "CREATE TABLE t (k int PRIMARY KEY, v text);\nSET statement_timeout = 5;\n\\connect - fickle\nINSERT INTO t SELECT 1, current_setting('statement_timeout');\n", "[1 0]", false},
		{"statement around a command", "CREATE TABLE t (k int PRIMARY KEY, v text);\nINSERT INTO t\n\\set ON_ERROR_STOP 1\nVALUES (1, 'a;b');\n", "[1 a;b]", false},
		{"quotes and comments hide backslashes and semicolons", "CREATE TABLE t (k int PRIMARY KEY, v text);\nINSERT INTO t VALUES (1, E'x\\\\\n\\\\q;'), /* ; \\q */ (2, $f$\n\\q;$f$);\n", "[1 x\\\n\\q;] [2 \n\\q;]", false},
		{"restrict section", "\\restrict abc\nCREATE TABLE t (k int PRIMARY KEY, v text);\n\\unrestrict abc\n", "", false},
		{"unknown command", "CREATE TABLE t (k int);\n\n\\dt\n", "line 3: unsupported psql command \\dt", true},
		{"other set", "\\set AUTOCOMMIT off\n", "line 1: \\set AUTOCOMMIT off: --load accepts only \\set ON_ERROR_STOP", true},
		{"error stop off", "\\set ON_ERROR_STOP off\n", "line 1: \\set ON_ERROR_STOP off: --load always stops", true},
		{"unknown database", "\\connect fickle\n\\connect other\n", "line 2: ERROR 3D000: database \"other\" does not exist", true},
		{"command in restrict section", "\\restrict abc\n\\i x.sql\n", "line 2: \\i inside a \\restrict section", true},
		{"wrong unrestrict key", "\\restrict abc\n\\unrestrict abd\n", "line 2: \\unrestrict without a matching \\restrict", true},
		{"error in included file", "-- top\n\\ir sub/broken.sql\n", "line 2: \\ir " + filepath.Join(dir, "sub/broken.sql") + ": line 3: ERROR 42P01", true},
		{"missing include", "\\i " + filepath.Join(dir, "none.sql") + "\n", "line 1: \\i: open " + filepath.Join(dir, "none.sql"), true},
		{"include loop", "\\ir loop.sql\n", "includes nested more than 32 deep", true},
		{"stray end of data", "SELECT 1;\n\\.\n", `line 2: "\." outside COPY data`, true},
		{"unterminated string", "SELECT 1;\nSELECT 'abc;\n", "line 2: unterminated quoted string", true},
		{"syntax error line", "SELECT 1;\n\nSELEC 2;\n", "line 3: ERROR 42601", true},
		{"unfinished transaction", "BEGIN;\nSELECT 1;\n", "line 3: the file ends inside a transaction block", true},
		{"later pg_dump setting", "SET transaction_timeout = 0;\nSELECT pg_catalog.set_config('transaction_timeout', '0', false);\nCREATE TABLE t (k int PRIMARY KEY, v text);\n", "", false},
		{"unknown setting", "SET check_function_bodies = false;\nSET nosuch = 1;\n", "line 2: ERROR 42704", true},
		{"owner of a missing table", "CREATE TABLE t (k int PRIMARY KEY, v text);\nALTER TABLE public.t OWNER TO shop;\nALTER TABLE public.nope OWNER TO shop;\n", "line 3: ERROR 42P01", true},
		{"identity column as pg_dump writes it", "CREATE TABLE public.t (k integer NOT NULL, v text);\nALTER TABLE public.t ALTER COLUMN k ADD GENERATED ALWAYS AS IDENTITY (\n    SEQUENCE NAME public.t_k_seq\n    START WITH 1\n    INCREMENT BY 1\n    NO MINVALUE\n    NO MAXVALUE\n    CACHE 1\n);\nCOPY public.t (k, v) FROM stdin;\n1\ta\n\\.\nSELECT pg_catalog.setval('public.t_k_seq', 1, true);\nINSERT INTO t (v) VALUES ('b');\n", "[1 a] [2 b]", false},
		{"regclass default", "CREATE SEQUENCE s START 7;\nCREATE TABLE t (k int PRIMARY KEY DEFAULT nextval('public.s'::regclass), v text);\nINSERT INTO t (v) VALUES ('x');\n", "[7 x]", false},
	}
	write("loop.sql", "\\ir loop.sql\n")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng, query := loadEngine(t)
			err := loadSQL(eng, write("main.sql", c.text))
			if c.isErr {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want one containing %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rows, err := query("SELECT k, v FROM t ORDER BY k")
			if err != nil {
				t.Fatal(err)
			}
			if got := rowsText(rows); got != c.want {
				t.Errorf("t holds %s, want %s", got, c.want)
			}
		})
	}
}

// TestLoadCopyDataPlacement pins where COPY data is taken from: the lines
// after the COPY statement's line up to "\.", then the rest of that line
// runs; a second COPY on the line reads the data after the first's.
func TestLoadCopyDataPlacement(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"two copies on one line", "CREATE TABLE a (k int PRIMARY KEY); CREATE TABLE b (k int PRIMARY KEY);\nCOPY a FROM stdin; COPY b FROM stdin;\n1\n\\.\n2\n\\.\nINSERT INTO a VALUES (3);\n", "[1] [3] | [2]"},
		{"statement after copy on its line", "CREATE TABLE a (k int PRIMARY KEY); CREATE TABLE b (k int PRIMARY KEY);\nCOPY a FROM stdin; INSERT INTO b VALUES (9);\n1\n\\.\n", "[1] | [9]"},
		{"data up to the end of the file", "CREATE TABLE a (k int PRIMARY KEY); CREATE TABLE b (k int PRIMARY KEY);\nCOPY a FROM stdin;\n4\n5\n", "[4] [5] | "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng, query := loadEngine(t)
			if err := loadText(eng, c.text); err != nil {
				t.Fatal(err)
			}
			a, err := query("SELECT k FROM a ORDER BY k")
			if err != nil {
				t.Fatal(err)
			}
			b, err := query("SELECT k FROM b ORDER BY k")
			if err != nil {
				t.Fatal(err)
			}
			if got := rowsText(a) + " | " + rowsText(b); got != c.want {
				t.Errorf("a | b = %q, want %q", got, c.want)
			}
		})
	}
}

// The fixture testdata/notes.pg_dump-clean.sql is PostgreSQL 15.18's
// pg_dump --clean --if-exists output of a schema with a comment on every
// kind of object pg_dump comments (schema, tables, columns, an index, a
// sequence), a serial column and a sequence only OWNED BY a column. It was
// made with:
//
//	psql -h DIR -p 55465 -U postgres: CREATE DATABASE notes; \c notes
//	  CREATE SCHEMA archive; COMMENT ON SCHEMA archive IS 'old notes, kept for reference';
//	  CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL, body text);
//	  COMMENT ON TABLE notes IS 'one row per note';
//	  COMMENT ON COLUMN notes.title IS 'what the note is about';
//	  COMMENT ON COLUMN notes.body IS 'the text; NULL for a title-only note';
//	  CREATE INDEX notes_title_idx ON notes (title); COMMENT ON INDEX notes_title_idx IS 'finds notes by title';
//	  CREATE SEQUENCE ticket_numbers START 500; COMMENT ON SEQUENCE ticket_numbers IS 'numbers handed out on paper tickets';
//	  CREATE TABLE archive.old_notes (id integer PRIMARY KEY, title text); COMMENT ON TABLE archive.old_notes IS 'notes before 2020';
//	  CREATE SEQUENCE archive.old_ids OWNED BY archive.old_notes.id;
//	  INSERT INTO notes (title, body) VALUES ('groceries', 'milk, eggs'), ('it''s a quote', NULL);
//	  INSERT INTO archive.old_notes VALUES (1, 'first');
//	  SELECT nextval('ticket_numbers'); SELECT setval('archive.old_ids', 7);
//	pg_dump -h DIR -p 55465 -U postgres --clean --if-exists notes

// TestLoadPgDumpCommentsAndClean loads a pg_dump --clean file twice into
// one server: the first load creates the objects and their comments, the
// second drops them first as pg_dump --clean does (the serial's sequence
// after its default, a sequence only OWNED BY a column) and recreates
// them. After each load the data, the sequences and the comments, read as
// psql's \d+ and \dn+ read them, are what PostgreSQL had.
func TestLoadPgDumpCommentsAndClean(t *testing.T) {
	eng, query := loadEngine(t)
	checks := []struct {
		sql, want string
	}{
		{"SELECT id, title, body FROM public.notes ORDER BY id", "[1 groceries milk, eggs] [2 it's a quote <nil>]"},
		{"SELECT id, title FROM archive.old_notes", "[1 first]"},
		{"SELECT pg_catalog.obj_description('public.notes'::regclass, 'pg_class')", "[one row per note]"},
		{"SELECT a.attname, pg_catalog.col_description(a.attrelid, a.attnum) FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'public.notes'::regclass AND a.attnum > 0 ORDER BY a.attnum",
			"[id <nil>] [title what the note is about] [body the text; NULL for a title-only note]"},
		{"SELECT obj_description('public.notes_title_idx'::regclass, 'pg_class'), obj_description('public.ticket_numbers'::regclass, 'pg_class'), obj_description('archive.old_notes'::regclass, 'pg_class')",
			"[finds notes by title numbers handed out on paper tickets notes before 2020]"},
		{"SELECT n.nspname, pg_catalog.obj_description(n.oid, 'pg_namespace') FROM pg_catalog.pg_namespace n WHERE n.nspname = 'archive'", "[archive old notes, kept for reference]"},
		// The dump's comments, once each (built-in objects, below
		// FirstNormalObjectId, have their own, as in PostgreSQL).
		{"SELECT count(*) FROM pg_catalog.pg_description WHERE objoid >= 16384", "[7]"},
	}
	for load := 1; load <= 2; load++ {
		if err := loadSQL(eng, filepath.Join("testdata", "notes.pg_dump-clean.sql")); err != nil {
			t.Fatalf("load %d: %v", load, err)
		}
		for _, c := range checks {
			rows, err := query(c.sql)
			if err != nil {
				t.Fatalf("load %d: %s: %v", load, c.sql, err)
			}
			if got := rowsText(rows); got != c.want {
				t.Errorf("load %d: %s = %s, want %s", load, c.sql, got, c.want)
			}
		}
	}
	sequences := []struct {
		sql, want string
	}{
		{"INSERT INTO public.notes (title) VALUES ('third') RETURNING id", "[3]"},
		{"SELECT nextval('public.ticket_numbers')", "[501]"},
		{"SELECT nextval('archive.old_ids')", "[8]"},
	}
	for _, c := range sequences {
		rows, err := query(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := rowsText(rows); got != c.want {
			t.Errorf("%s = %s, want %s", c.sql, got, c.want)
		}
	}
}
