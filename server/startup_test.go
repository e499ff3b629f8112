package server

import (
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestStartupSettingsAreCheckedAsPostgreSQLChecksThem pins PostgreSQL's
// answers to the settings of a startup message, given as parameters or as
// -c switches of the options parameter: a bad value is FATAL 22023, an
// unknown name FATAL 42704, a setting fixed at server start FATAL 55P02;
// good ones are reported in ParameterStatus.
func TestStartupSettingsAreCheckedAsPostgreSQLChecksThem(t *testing.T) {
	cases := []struct {
		param, value, want string
		// status is a ParameterStatus the connection must report.
		status [2]string
	}{
		{param: "DateStyle", value: "garbage", want: "22023"},
		{param: "client_encoding", value: "EBCDIC", want: "22023"},
		{param: "client_encoding", value: "'utf-8'", status: [2]string{"client_encoding", "UTF8"}}, // as asyncpg sends it
		{param: "statement_timeout", value: "abc", want: "22023"},
		{param: "no_such_parameter", value: "1", want: "42704"},
		{param: "server_version", value: "1", want: "55P02"},
		{param: "application_name", value: "fine", status: [2]string{"application_name", "fine"}},
		{param: "my.placeholder", value: "x"},
		{param: "options", value: `-c DateStyle=German --application-name=with\ space`, status: [2]string{"application_name", "with space"}},
		{param: "options", value: "-c DateStyle=German", status: [2]string{"DateStyle", "German, DMY"}},
		{param: "options", value: "-cno_such=1", want: "42704"},
		{param: "options", value: "--statement-timeout=abc", want: "22023"},
	}
	addrs := map[string]string{"fickle": startSQLServer(t, Config{}).Addr().String()}
	if addr := pgtestAddr(t); addr != "" {
		addrs["postgres"] = addr
	}
	for name, addr := range addrs {
		for _, tc := range cases {
			t.Run(name+"/"+tc.param+"="+tc.value, func(t *testing.T) {
				nc, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				if err := nc.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
					t.Fatal(err)
				}
				fe := pgproto3.NewFrontend(nc, nc)
				user := map[string]string{"fickle": "tester", "postgres": "postgres"}[name]
				fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
					Parameters: map[string]string{"user": user, "database": "postgres", tc.param: tc.value}})
				if err := fe.Flush(); err != nil {
					t.Fatal(err)
				}
				got, status := "", map[string]string{}
			read:
				for {
					msg, err := fe.Receive()
					if err != nil {
						t.Fatalf("receive: %v", err)
					}
					switch m := msg.(type) {
					case *pgproto3.ErrorResponse:
						got = m.Severity + " " + m.Code
						break read
					case *pgproto3.ParameterStatus:
						status[m.Name] = m.Value
					case *pgproto3.ReadyForQuery:
						break read
					}
				}
				want := ""
				if tc.want != "" {
					want = "FATAL " + tc.want
				}
				if got != want {
					t.Fatalf("got %q, want %q", got, want)
				}
				if k := tc.status[0]; k != "" && status[k] != tc.status[1] {
					t.Fatalf("ParameterStatus %s = %q, want %q", k, status[k], tc.status[1])
				}
			})
		}
	}
}
