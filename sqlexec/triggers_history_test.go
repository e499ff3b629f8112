package sqlexec

import (
	"slices"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// TestTriggerKindsWriteInTheCallersTransaction checks that what INSTEAD
// OF, TRUNCATE and deferred constraint triggers write belongs to the
// calling transaction, and that the history names each write after the
// statement that fired the trigger (the deferred triggers' event at COMMIT
// for a deferred one) and the trigger.
func TestTriggerKindsWriteInTheCallersTransaction(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1, Record: true})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "h"})
	for _, sql := range []string{
		"CREATE TABLE acc (id int PRIMARY KEY, bal int)",
		"CREATE TABLE log (n serial PRIMARY KEY, what text)",
		"CREATE VIEW v AS SELECT id, bal FROM acc",
		`CREATE FUNCTION v_write() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN INSERT INTO acc VALUES (NEW.id, NEW.bal); RETURN NEW; END $$`,
		`CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN INSERT INTO log (what) VALUES (TG_NAME); RETURN NULL; END $$`,
		"CREATE TRIGGER v_io INSTEAD OF INSERT ON v FOR EACH ROW EXECUTE FUNCTION v_write()",
		"CREATE CONSTRAINT TRIGGER acc_later AFTER INSERT ON acc INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION note()",
		"CREATE TRIGGER log_truncate BEFORE TRUNCATE ON log EXECUTE FUNCTION note()",
		"BEGIN",
		"TRUNCATE log",
		"INSERT INTO v VALUES (1, 10)",
		"COMMIT",
	} {
		mustRun(t, s, sql)
	}
	want := []string{
		"TRUNCATE log -- in trigger log_truncate on log: INSERT INTO log (what) VALUES (TG_NAME)",
		"INSERT INTO v VALUES (1, 10) -- in trigger v_io on v: INSERT INTO acc VALUES (NEW.id, NEW.bal)",
		"-- deferred constraint triggers -- in trigger acc_later on acc: INSERT INTO log (what) VALUES (TG_NAME)",
	}
	txns := map[history.TxnID]bool{}
	var got []string
	for _, txn := range store.History().Txns {
		for _, op := range txn.Ops {
			if op.Kind != history.OpWrite || int(op.Event) >= len(txn.Statements) {
				continue
			}
			sql := txn.Statements[op.Event].SQL
			if strings.Contains(sql, " -- in trigger ") && !slices.Contains(got, sql) {
				got = append(got, sql)
				txns[txn.ID] = true
				if txn.Outcome != history.Committed {
					t.Errorf("%q is in a transaction with outcome %v", sql, txn.Outcome)
				}
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("trigger writes recorded as\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(txns) != 1 {
		t.Errorf("trigger writes in %d transactions, want the caller's one", len(txns))
	}
}
