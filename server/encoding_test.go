package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// clientEncodingSteps are the exchanges of a client whose encoding is not
// UTF8, with what PostgreSQL 15 answers (checked against it when
// FICKLE_PGTEST_ADDR is set). The strings are bytes: "\xe9" is é in
// LATIN1 and WIN1252, "\x80" is € in WIN1252.
var clientEncodingSteps = []struct {
	name string
	send []pgproto3.FrontendMessage
	want []string
}{
	{"query text and results are LATIN1",
		[]pgproto3.FrontendMessage{&pgproto3.Query{String: "SELECT 'caf\xe9' AS \"\xe9\", length('\xe9'), chr(233) = '\xe9', pg_client_encoding()"}},
		[]string{`columns ["\xe9" "length" "?column?" "pg_client_encoding"]`, `row ["caf\xe9" "1" "t" "LATIN1"]`, "SELECT 1", "ready I"}},
	{"a character LATIN1 lacks fails the row",
		[]pgproto3.FrontendMessage{&pgproto3.Query{String: "SELECT 1 AS a, chr(8364) AS b"}},
		[]string{`columns ["a" "b"]`, `error 22P05 character with byte sequence 0xe2 0x82 0xac in encoding "UTF8" has no equivalent in encoding "LATIN1"`, "ready I"}},
	{"errors come back in LATIN1",
		[]pgproto3.FrontendMessage{&pgproto3.Query{String: "SELECT * FROM \"t\xe9\""}},
		[]string{"error 42P01 relation \"t\xe9\" does not exist", "ready I"}},
	{"notices come back in LATIN1, and one LATIN1 cannot carry fails",
		[]pgproto3.FrontendMessage{
			&pgproto3.Query{String: "DO $$BEGIN RAISE NOTICE 'n\xe9'; END$$"},
			&pgproto3.Query{String: "DO $$BEGIN RAISE NOTICE '%', chr(8364); END$$"},
		},
		[]string{"notice NOTICE n\xe9", "DO", "ready I",
			`error 22P05 character with byte sequence 0xe2 0x82 0xac in encoding "UTF8" has no equivalent in encoding "LATIN1"`, "ready I"}},
	{"text parameters are LATIN1",
		[]pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "SELECT $1::text || '\xe9' AS x, length($1::text)"},
			&pgproto3.Bind{Parameters: [][]byte{[]byte("\xe0")}},
			&pgproto3.Describe{ObjectType: 'P'},
			&pgproto3.Execute{},
			&pgproto3.Sync{},
		},
		[]string{"parse", "bind", `columns ["x" "length"]`, `row ["\xe0\xe9" "1"]`, "SELECT 1", "ready I"}},
	{"COPY data is in the client's encoding, or in its ENCODING",
		[]pgproto3.FrontendMessage{
			&pgproto3.Query{String: "CREATE TEMP TABLE enc_t (s text)"},
			&pgproto3.Query{String: "COPY enc_t FROM STDIN"},
			&pgproto3.CopyData{Data: []byte("\xe9t\xe9\n")},
			&pgproto3.CopyDone{},
			&pgproto3.Query{String: "COPY enc_t TO STDOUT (ENCODING 'UTF8')"},
			&pgproto3.Query{String: "COPY enc_t TO STDOUT"},
		},
		[]string{"CREATE TABLE", "ready I", "copy in", "COPY 1", "ready I",
			"copy out", `copy data "été\n"`, "COPY 1", "ready I",
			"copy out", `copy data "\xe9t\xe9\n"`, "COPY 1", "ready I"}},
	{"WIN1252's unassigned bytes fail, its euro sign converts",
		[]pgproto3.FrontendMessage{
			&pgproto3.Query{String: "SET client_encoding = 'windows-1252'"},
			&pgproto3.Query{String: "SELECT '\x80', ascii('\x80')"},
			&pgproto3.Query{String: "SELECT '\x81'"},
		},
		[]string{"SET", "client_encoding WIN1252", "ready I", `columns ["?column?" "ascii"]`, `row ["\x80" "8364"]`, "SELECT 1", "ready I",
			`error 22P05 character with byte sequence 0x81 in encoding "WIN1252" has no equivalent in encoding "UTF8"`, "ready I"}},
	{"SQL_ASCII passes bytes through, checked as UTF8",
		[]pgproto3.FrontendMessage{
			&pgproto3.Query{String: "SET client_encoding = 'SQL_ASCII'"},
			&pgproto3.Query{String: "SELECT '\xc3\xa9' AS x, length('\xc3\xa9')"},
			&pgproto3.Query{String: "SELECT '\xe9'"},
		},
		[]string{"SET", "client_encoding SQL_ASCII", "ready I", `columns ["x" "length"]`, `row ["é" "1"]`, "SELECT 1", "ready I",
			`error 22021 invalid byte sequence for encoding "UTF8": 0xe9 0x27`, "ready I"}},
	{"a multi-byte client encoding is refused",
		[]pgproto3.FrontendMessage{&pgproto3.Query{String: "SET client_encoding = 'MULE_INTERNAL'"}},
		[]string{`error 0A000 invalid value for parameter "client_encoding": "MULE_INTERNAL"`, "ready I"}},
}

// TestClientEncodingConvertsTextBothWays runs clientEncodingSteps on one
// connection that starts with client_encoding LATIN1, on fickle and, with
// FICKLE_PGTEST_ADDR, on PostgreSQL.
func TestClientEncodingConvertsTextBothWays(t *testing.T) {
	run := func(t *testing.T, c *rawConn) {
		for _, step := range clientEncodingSteps {
			c.send(step.send...)
			var got []string
			for len(got) < len(step.want) {
				if s, ok := describeForEncodingTest(c.receive()); ok {
					got = append(got, s)
				}
			}
			if strings.Join(got, "\n") != strings.Join(step.want, "\n") {
				t.Errorf("%s:\ngot  %q\nwant %q", step.name, got, step.want)
			}
		}
	}
	params := map[string]string{"client_encoding": "LATIN1"}
	run(t, dialRaw(t, startSQLServer(t, Config{}), params))
	if addr := pgtestAddr(t); addr != "" {
		t.Run("postgres", func(t *testing.T) {
			params["user"], params["database"] = "postgres", "postgres"
			run(t, dialAddr(t, addr, params))
		})
	}
}

// describeForEncodingTest prints what clientEncodingSteps compare of a
// message, with its text as the bytes that came; false for a message they
// leave out.
func describeForEncodingTest(msg pgproto3.BackendMessage) (string, bool) {
	switch m := msg.(type) {
	case *pgproto3.RowDescription:
		names := make([]string, len(m.Fields))
		for i, f := range m.Fields {
			names[i] = string(f.Name)
		}
		return fmt.Sprintf("columns %q", names), true
	case *pgproto3.DataRow:
		values := make([]string, len(m.Values))
		for i, v := range m.Values {
			values[i] = string(v)
		}
		return fmt.Sprintf("row %q", values), true
	case *pgproto3.CommandComplete:
		return string(m.CommandTag), true
	case *pgproto3.ReadyForQuery:
		return "ready " + string(m.TxStatus), true
	case *pgproto3.ErrorResponse:
		return "error " + m.Code + " " + m.Message, true
	case *pgproto3.NoticeResponse:
		return "notice " + m.Severity + " " + m.Message, true
	case *pgproto3.ParameterStatus:
		return m.Name + " " + m.Value, m.Name == "client_encoding"
	case *pgproto3.ParseComplete:
		return "parse", true
	case *pgproto3.BindComplete:
		return "bind", true
	case *pgproto3.CopyInResponse:
		return "copy in", true
	case *pgproto3.CopyOutResponse:
		return "copy out", true
	case *pgproto3.CopyData:
		return fmt.Sprintf("copy data %q", m.Data), true
	}
	return "", false
}
