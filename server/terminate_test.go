package server

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestTerminatingOwnBackendEndsTheStatementWithFatal pins what a client sees
// when a statement terminates its own backend (pgx's BeginTx with a
// BeginQuery of pg_terminate_backend(pg_backend_pid())): the statement's
// row may come, but no CommandComplete and no ReadyForQuery, only FATAL
// 57P01 and the end of the connection, through both protocols, as from
// PostgreSQL (checked too when FICKLE_PGTEST_ADDR is set).
func TestTerminatingOwnBackendEndsTheStatementWithFatal(t *testing.T) {
	const query = "SELECT pg_terminate_backend(pg_backend_pid())"
	flows := map[string][]pgproto3.FrontendMessage{
		"simple": {&pgproto3.Query{String: query}},
		"extended": {&pgproto3.Parse{Query: query}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
			&pgproto3.Execute{}, &pgproto3.Sync{}},
	}
	servers := map[string]func(t *testing.T) *rawConn{
		"fickle": func(t *testing.T) *rawConn { return dialRaw(t, startSQLServer(t, Config{}), nil) },
	}
	if addr := pgtestAddr(t); addr != "" {
		servers["postgres"] = func(t *testing.T) *rawConn {
			return dialAddr(t, addr, map[string]string{"user": "postgres", "database": "postgres"})
		}
	}
	for server, dial := range servers {
		for flow, msgs := range flows {
			t.Run(server+"/"+flow, func(t *testing.T) {
				c := dial(t)
				c.send(msgs...)
				var got []string
				for {
					msg, err := c.fe.Receive()
					if err != nil {
						break
					}
					switch m := msg.(type) {
					case *pgproto3.ErrorResponse:
						got = append(got, fmt.Sprintf("%s %s", m.Severity, m.Code))
					case *pgproto3.CommandComplete, *pgproto3.ReadyForQuery:
						got = append(got, fmt.Sprintf("%T", m))
					}
				}
				if len(got) != 1 || got[0] != "FATAL 57P01" {
					t.Fatalf("got %v after the statement, want only FATAL 57P01 and the end of the connection", got)
				}
			})
		}
	}
}
