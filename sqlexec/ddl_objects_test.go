package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestDropSequenceListsEveryDefaultThatUsesIt pins the DETAIL of DROP
// SEQUENCE's 2BP01 and of the NOTICE of DROP SEQUENCE ... CASCADE: one
// line per column whose DEFAULT calls nextval of the sequence, in table
// and column order, worded as PostgreSQL 15 words them.
func TestDropSequenceListsEveryDefaultThatUsesIt(t *testing.T) {
	tests := []struct {
		name       string
		setup      []string
		drop       string
		seq        string // the sequence dropped
		wantErr    string // DETAIL of the 2BP01; "" when the drop succeeds
		wantNotice string // message and DETAIL of the NOTICE
	}{
		{
			name:    "one default blocks",
			setup:   []string{"CREATE TABLE t (id serial)"},
			drop:    "DROP SEQUENCE t_id_seq",
			seq:     "t_id_seq",
			wantErr: "default value for column id of table t depends on sequence t_id_seq",
		},
		{
			name: "defaults of two tables block",
			setup: []string{"CREATE SEQUENCE s", "CREATE TABLE t5 (a bigint DEFAULT nextval('s'), b bigint DEFAULT nextval('public.s'::regclass))",
				"CREATE TABLE t6 (a bigint DEFAULT nextval('s') + 1)"},
			drop: "DROP SEQUENCE s",
			seq:  "s",
			wantErr: "default value for column a of table t5 depends on sequence s\n" +
				"default value for column b of table t5 depends on sequence s\n" +
				"default value for column a of table t6 depends on sequence s",
		},
		{
			name:       "cascade drops one default",
			setup:      []string{"CREATE TABLE t (id serial)"},
			drop:       "DROP SEQUENCE t_id_seq CASCADE",
			seq:        "t_id_seq",
			wantNotice: "drop cascades to default value for column id of table t",
		},
		{
			name:  "cascade drops several defaults",
			setup: []string{"CREATE SEQUENCE s", "CREATE TABLE t5 (a bigint DEFAULT nextval('s'), b bigint DEFAULT nextval('s'))"},
			drop:  "DROP SEQUENCE s CASCADE",
			seq:   "s",
			wantNotice: "drop cascades to 2 other objects: drop cascades to default value for column a of table t5\n" +
				"drop cascades to default value for column b of table t5",
		},
		{
			name:  "owned by alone does not block",
			setup: []string{"CREATE TABLE t (id integer)", "CREATE SEQUENCE s OWNED BY t.id"},
			drop:  "DROP SEQUENCE s",
			seq:   "s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sessionAfter(t, tt.setup...)
			res, err := execOne(s, tt.drop)
			if tt.wantErr != "" {
				pe := pgerror.Flatten(err)
				if err == nil || pe.Code != pgerror.DependentObjectsStillExist || pe.Detail != tt.wantErr {
					t.Fatalf("%s: %v (detail %q), want 2BP01 with detail %q", tt.drop, err, pe.Detail, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tt.drop, err)
			}
			got := ""
			for _, n := range res.Notices {
				got = n.Message
				if n.Detail != "" {
					got += ": " + n.Detail
				}
			}
			if got != tt.wantNotice {
				t.Errorf("%s: notice %q, want %q", tt.drop, got, tt.wantNotice)
			}
			if _, err := query(t, s, "SELECT nextval('"+tt.seq+"')"); pgerror.Flatten(err).Code != pgerror.UndefinedTable {
				t.Errorf("after %s, nextval('%s'): %v, want 42P01", tt.drop, tt.seq, err)
			}
		})
	}
}
