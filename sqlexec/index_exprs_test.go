package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestIndexUniqueViolationDetail pins the DETAIL of a 23505 from a partial
// or expression unique index, and the SQLSTATE of errors evaluating an
// index expression or predicate, as PostgreSQL 15 gives them (checked with
// psql against it).
func TestIndexUniqueViolationDetail(t *testing.T) {
	tests := []struct {
		name       string
		setup      []string
		stmt       string
		wantCode   pgerror.Code
		wantDetail string
	}{
		{
			name:       "expression over a varchar column",
			setup:      []string{"CREATE UNIQUE INDEX u_lower ON u (lower(email))", "INSERT INTO u VALUES (1, 'A@x', 1, NULL)"},
			stmt:       "INSERT INTO u VALUES (2, 'a@X', 2, NULL)",
			wantCode:   pgerror.UniqueViolation,
			wantDetail: "Key (lower(email::text))=(a@x) already exists.",
		},
		{
			name:       "expression and column mixed",
			setup:      []string{"CREATE UNIQUE INDEX u_mix ON u (lower(email), (n + 1))", "INSERT INTO u VALUES (1, 'A@x', 1, NULL)"},
			stmt:       "INSERT INTO u VALUES (2, 'a@X', 1, NULL)",
			wantCode:   pgerror.UniqueViolation,
			wantDetail: "Key (lower(email::text), (n + 1))=(a@x, 2) already exists.",
		},
		{
			name:       "operator expression",
			setup:      []string{"CREATE UNIQUE INDEX u_pos ON u ((n > 0))", "INSERT INTO u VALUES (1, 'a', 1, NULL)"},
			stmt:       "INSERT INTO u VALUES (2, 'b', 5, NULL)",
			wantCode:   pgerror.UniqueViolation,
			wantDetail: "Key ((n > 0))=(t) already exists.",
		},
		{
			name:       "partial index names its columns",
			setup:      []string{"CREATE UNIQUE INDEX u_live ON u (n) WHERE d IS NULL", "INSERT INTO u VALUES (1, 'a', 1, NULL), (2, 'b', 1, now())"},
			stmt:       "INSERT INTO u VALUES (3, 'c', 1, NULL)",
			wantCode:   pgerror.UniqueViolation,
			wantDetail: "Key (n)=(1) already exists.",
		},
		{
			name:     "a row outside the predicate is not checked",
			setup:    []string{"CREATE UNIQUE INDEX u_live ON u (n) WHERE d IS NULL", "INSERT INTO u VALUES (1, 'a', 1, NULL)"},
			stmt:     "INSERT INTO u VALUES (2, 'b', 1, now())",
			wantCode: "",
		},
		{
			name:     "an expression that fails fails the insert",
			setup:    []string{"CREATE INDEX u_div ON u ((10 / n))"},
			stmt:     "INSERT INTO u VALUES (1, 'a', 0, NULL)",
			wantCode: pgerror.DivisionByZero,
		},
		{
			name:     "a predicate that fails fails the update",
			setup:    []string{"CREATE INDEX u_div ON u (id) WHERE 10 / n > 1", "INSERT INTO u VALUES (1, 'a', 1, NULL)"},
			stmt:     "UPDATE u SET n = 0",
			wantCode: pgerror.DivisionByZero,
		},
		{
			name:     "a stable function in a predicate",
			stmt:     "CREATE INDEX u_now ON u (id) WHERE d > now()",
			wantCode: pgerror.InvalidObjectDefinition,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sessionAfter(t, append([]string{"CREATE TABLE u (id int PRIMARY KEY, email varchar(50), n int, d timestamp)"}, tt.setup...)...)
			_, err := execOne(s, tt.stmt)
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("%s: %v", tt.stmt, err)
				}
				return
			}
			pe := pgerror.Flatten(err)
			if err == nil || pe.Code != tt.wantCode || tt.wantDetail != "" && pe.Detail != tt.wantDetail {
				t.Fatalf("%s: %v (detail %q), want %s with detail %q", tt.stmt, err, pe.Detail, tt.wantCode, tt.wantDetail)
			}
		})
	}
}
