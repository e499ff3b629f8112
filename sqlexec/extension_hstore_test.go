package sqlexec

import (
	"context"
	"testing"

	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// A client may declare a parameter of type hstore or hstore[] by OID
// (Parse, PREPARE): the statement binds, and the parameter reads as the
// type.
func TestHstoreParameterDeclaredByOid(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "hstore"})
	ctx := context.Background()
	run := func(sql string, oids []uint32, params ...any) [][]any {
		t.Helper()
		sts, err := s.Parse(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		p, err := s.Prepare(sts[0], oids)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		res, err := s.Execute(ctx, p, params)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res.Rows
	}
	run("CREATE EXTENSION hstore", nil)
	oids := run("SELECT 'hstore'::regtype::oid, 'hstore[]'::regtype::oid", nil)[0]
	h, err := types.ParseHstore("a=>42, b=>NULL")
	if err != nil {
		t.Fatal(err)
	}
	if got := run("SELECT $1 -> 'a'", []uint32{uint32(oids[0].(int64))}, h)[0][0]; got != "42" {
		t.Errorf("$1::hstore -> 'a' = %v, want 42", got)
	}
	if got := run("SELECT $1[1] ? 'b'", []uint32{uint32(oids[1].(int64))}, []any{h})[0][0]; got != true {
		t.Errorf("$1::hstore[] [1] ? 'b' = %v, want true", got)
	}
}
