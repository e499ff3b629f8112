package main

import (
	"path/filepath"
	"testing"
)

// The fixture testdata/bank.pg_dump.sql is PostgreSQL 15.18's pg_dump
// output of a schema whose logic lives in the database: a BEFORE UPDATE
// trigger stamping updated_at, an AFTER INSERT OR UPDATE trigger with a
// WHEN condition writing an audit row, LANGUAGE sql functions (a default
// argument, IMMUTABLE STRICT, a BEGIN ATOMIC body, RETURNS TABLE), a
// PL/pgSQL procedure and a comment on a function. pg_dump writes the
// functions before the tables they read, under SET check_function_bodies =
// false, and the BEGIN ATOMIC body with semicolons inside. It was made
// with:
//
//	psql -h DIR -p 57003 -U postgres dumpsrc:
//	  CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL, updated_at timestamptz);
//	  CREATE TABLE audit (n serial PRIMARY KEY, account int, seen int);
//	  INSERT INTO accounts VALUES (1, 100, NULL), (2, 50, NULL);
//	  CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.updated_at := now(); RETURN NEW; END $$;
//	  CREATE TRIGGER accounts_touch BEFORE UPDATE ON accounts FOR EACH ROW EXECUTE FUNCTION touch();
//	  CREATE FUNCTION audit_it() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit (account, seen) VALUES (NEW.id, NEW.balance); RETURN NULL; END $$;
//	  CREATE TRIGGER accounts_audit AFTER INSERT OR UPDATE ON accounts FOR EACH ROW WHEN (NEW.balance > 0) EXECUTE FUNCTION audit_it();
//	  CREATE FUNCTION add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE STRICT AS 'SELECT a + b';
//	  CREATE FUNCTION total() RETURNS bigint LANGUAGE sql STABLE BEGIN ATOMIC SELECT sum(balance) FROM accounts; END;
//	  CREATE PROCEDURE deposit(who int, amt int) LANGUAGE plpgsql AS $$ BEGIN UPDATE accounts SET balance = balance + amt WHERE id = who; END $$;
//	  CREATE FUNCTION rich(min int) RETURNS TABLE (id int, balance int) LANGUAGE sql AS 'SELECT id, balance FROM accounts WHERE balance >= min';
//	  COMMENT ON FUNCTION add(int, int) IS 'adds';
//	pg_dump -h DIR -p 57003 -U postgres dumpsrc

// TestLoadRunsPgDumpOfRoutines loads the bank fixture and uses what it
// defines: the functions answer, the procedure's UPDATE fires both
// triggers, and pg_proc and pg_trigger list the routines and triggers.
func TestLoadRunsPgDumpOfRoutines(t *testing.T) {
	eng, query := loadEngine(t)
	if err := loadSQL(eng, filepath.Join("testdata", "bank.pg_dump.sql")); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		sql, want string
	}{
		{"SELECT public.add(1), public.add(1, 2), public.add(NULL) IS NULL, public.total()", "[2 3 true 150]"},
		{"CALL public.deposit(2, 5)", ""},
		{"SELECT id, balance, updated_at IS NOT NULL FROM public.accounts ORDER BY id", "[1 100 false] [2 55 true]"},
		{"SELECT account, seen FROM public.audit", "[2 55]"},
		{"SELECT * FROM public.rich(60)", "[1 100]"},
		{"SELECT proname, prokind FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY proname", "[add f] [audit_it f] [deposit p] [rich f] [total f] [touch f]"},
		{"SELECT tgname FROM pg_trigger ORDER BY tgname", "[accounts_audit] [accounts_touch]"},
		{"SELECT d.description FROM pg_description d JOIN pg_proc p ON p.oid = d.objoid WHERE p.proname = 'add'", "[adds]"},
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
}
