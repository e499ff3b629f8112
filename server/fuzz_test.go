package server

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// fuzzStatements are the statements FuzzSession draws from: transaction
// control in every form, statements that succeed, fail, return rows or
// start a COPY.
var fuzzStatements = []string{
	"BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT a", "RELEASE a", "ROLLBACK TO a", "COMMIT AND CHAIN",
	"ROLLBACK AND CHAIN", "PREPARE TRANSACTION 'x'", "PUT k v", "GET k", "ROWS 3", "FAIL 23505",
	"PUT conflict 1", "PARAMS 23", "COPYIN", "COPYOUT 2", "", "BEGIN; PUT a 1; COMMIT; ROWS 1", "!bad",
	"BADPREP", "START TRANSACTION ISOLATION LEVEL bogus",
}

// fuzzMessages turns fuzz input into a frontend message sequence: each
// byte pair picks a message and its argument.
func fuzzMessages(data []byte) []pgproto3.FrontendMessage {
	names := []string{"", "s1", "s2"}
	var msgs []pgproto3.FrontendMessage
	for i := 0; i+1 < len(data) && len(msgs) < 64; i += 2 {
		arg := int(data[i+1])
		stmt := fuzzStatements[arg%len(fuzzStatements)]
		name := names[arg%len(names)]
		switch data[i] % 14 {
		case 0:
			msgs = append(msgs, &pgproto3.Query{String: stmt})
		case 1:
			msgs = append(msgs, &pgproto3.Parse{Name: name, Query: stmt})
		case 2:
			var params [][]byte
			if arg%2 == 0 {
				params = [][]byte{[]byte("42")}
			}
			msgs = append(msgs, &pgproto3.Bind{DestinationPortal: names[(arg/3)%3], PreparedStatement: name,
				Parameters: params, ResultFormatCodes: []int16{int16(arg % 3)}})
		case 3:
			msgs = append(msgs, &pgproto3.Describe{ObjectType: "SP"[arg%2], Name: name})
		case 4:
			msgs = append(msgs, &pgproto3.Execute{Portal: name, MaxRows: uint32(arg % 3)})
		case 5:
			msgs = append(msgs, &pgproto3.Close{ObjectType: "SP"[arg%2], Name: name})
		case 6, 7:
			msgs = append(msgs, &pgproto3.Sync{})
		case 8:
			msgs = append(msgs, &pgproto3.Flush{})
		case 9:
			msgs = append(msgs, &pgproto3.CopyData{Data: []byte("line\n")})
		case 10:
			msgs = append(msgs, &pgproto3.CopyDone{})
		case 11:
			msgs = append(msgs, &pgproto3.CopyFail{Message: "no"})
		case 12:
			msgs = append(msgs, &pgproto3.Query{String: "SET statement_timeout 1000"})
		case 13:
			// Answered like a Query, with its own ReadyForQuery.
			msgs = append(msgs, &pgproto3.FunctionCall{Function: uint32(arg), Arguments: [][]byte{[]byte("1")}})
		}
	}
	return append(msgs, &pgproto3.Sync{}, &pgproto3.Query{String: "ROLLBACK"}, &pgproto3.Terminate{})
}

// FuzzSession drives one connection with arbitrary sequences of valid
// frontend messages over the fake engine. The server must never break the
// engine's contract (the fake answers a violation with a plain error, which
// reaches the client as XX000), never end the session with FATAL, never
// panic, and always finish.
func FuzzSession(f *testing.F) {
	f.Add([]byte{0, 0, 0, 9, 0, 11, 0, 1})
	f.Add([]byte{1, 9, 2, 0, 4, 0, 1, 12, 2, 0, 4, 0, 6, 0})
	f.Add([]byte{0, 0, 0, 12, 0, 6, 0, 5, 0, 7, 0, 2})
	f.Add([]byte{1, 15, 2, 0, 4, 0, 9, 0, 10, 0, 6, 0, 0, 16})
	f.Add([]byte{1, 11, 2, 3, 4, 1, 4, 1, 5, 1, 6, 0, 3, 0, 3, 1})
	srv, err := New(Config{Engine: newFakeEngine()})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			newConn(srv, server).serve()
		}()
		client.SetDeadline(time.Now().Add(10 * time.Second))
		go func() {
			fe := pgproto3.NewFrontend(nil, client)
			fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "f"}})
			for _, m := range fuzzMessages(data) {
				fe.Send(m)
			}
			fe.Flush()
		}()
		fe := pgproto3.NewFrontend(client, io.Discard)
		for {
			msg, err := fe.Receive()
			if err != nil {
				break
			}
			if e, ok := msg.(*pgproto3.ErrorResponse); ok && (e.Code == "XX000" || e.Severity == "FATAL") {
				t.Fatalf("%s %s: %s", e.Severity, e.Code, e.Message)
			}
		}
		client.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("connection goroutine did not finish")
		}
	})
}
