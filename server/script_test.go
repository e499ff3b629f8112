package server

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/wire scripts")

// TestWireScripts runs the golden protocol scripts in testdata/wire. Each
// file is one connection; its blocks are
//
//	send                       # frontend messages as pgproto3 JSON, one a line
//	{"Type":"Query","String":"ROWS 2"}
//	----
//
//	until                      # read until each listed type is seen, in order
//	ReadyForQuery
//	----
//	{"Type":"RowDescription",...}
//
// Errors and notices are compared by SQLSTATE (and position), not by message text, so
// the same scripts can run against PostgreSQL. -rewrite regenerates the
// expected output.
func TestWireScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/wire/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			srv := startTestServer(t, Config{})
			runScript(t, dialRaw(t, srv, nil), file, false)
		})
	}
}

// pgtestAddrEnv names the environment variable with the address of a real
// PostgreSQL 15 (user postgres, trust authentication) to run the scripts
// of testdata/pgtest against as well.
const pgtestAddrEnv = "FICKLE_PGTEST_ADDR"

// pgtestAddr returns FICKLE_PGTEST_ADDR; the comparison with PostgreSQL is
// left out without it, except under FICKLE_REQUIRE_PG=1 (CI), where its
// absence fails the test.
func pgtestAddr(t *testing.T) string {
	addr := os.Getenv(pgtestAddrEnv)
	if addr == "" && os.Getenv("FICKLE_REQUIRE_PG") == "1" {
		t.Fatalf("%s is not set (FICKLE_REQUIRE_PG=1)", pgtestAddrEnv)
	}
	return addr
}

// fickleAndPostgres returns, by name, the DSN of a fickle server the test
// starts and, when FICKLE_PGTEST_ADDR is set, of PostgreSQL, for a test
// that runs the same client steps on both.
func fickleAndPostgres(t *testing.T) map[string]string {
	srv := startSQLServer(t, Config{})
	dsns := map[string]string{"fickle": fmt.Sprintf("postgres://tester@%s/fickle?sslmode=disable", srv.Addr())}
	if addr := pgtestAddr(t); addr != "" {
		dsns["postgres"] = fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", addr)
	}
	return dsns
}

// TestPGWireScripts runs the SQL-level golden scripts of testdata/pgtest
// against the real engine and, when FICKLE_PGTEST_ADDR is set, against
// PostgreSQL, with the same expected output: PostgreSQL's behaviour is the
// reference. RowDescription is compared by column names, types and formats
// (table OIDs differ between the two); errors and notices by SQLSTATE.
// With -rewrite and FICKLE_PGTEST_ADDR, PostgreSQL writes the expected
// output.
func TestPGWireScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/pgtest/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	pgAddr := pgtestAddr(t)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			if *rewrite && pgAddr != "" {
				// PostgreSQL writes the expected output; fickle must match it.
				runScript(t, dialAddr(t, pgAddr, map[string]string{"user": "postgres", "database": "postgres"}), file, true)
				return
			}
			srv := startSQLServer(t, Config{})
			runScript(t, dialRaw(t, srv, nil), file, true)
			if pgAddr != "" && !*rewrite {
				t.Run("postgres", func(t *testing.T) {
					runScript(t, dialAddr(t, pgAddr, map[string]string{"user": "postgres", "database": "postgres"}), file, true)
				})
			}
		})
	}
}

type scriptBlock struct {
	comments []string // the comment lines above the block, kept by -rewrite
	cmd      string
	input    []string
	expected []string
}

func parseScript(t *testing.T, text string) []scriptBlock {
	var blocks []scriptBlock
	var comments []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			if line != "" {
				comments = append(comments, line)
			}
			i++
			continue
		}
		b := scriptBlock{cmd: line, comments: comments}
		comments = nil
		i++
		for i < len(lines) && lines[i] != "----" {
			if s := strings.TrimSpace(lines[i]); s != "" && !strings.HasPrefix(s, "#") {
				b.input = append(b.input, s)
			}
			i++
		}
		if i == len(lines) {
			t.Fatalf("block %q has no ----", b.cmd)
		}
		i++
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			b.expected = append(b.expected, lines[i])
			i++
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// runScript runs a script on the connection c. With portable, messages
// whose details differ between servers (table OIDs, ParameterStatus) are
// normalized or skipped.
func runScript(t *testing.T, c *rawConn, file string, portable bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blocks := parseScript(t, string(data))
	var out bytes.Buffer
	for bi, b := range blocks {
		var got []string
		switch b.cmd {
		case "send":
			for _, line := range b.input {
				c.fe.Send(decodeFrontend(t, line))
			}
			if err := c.fe.Flush(); err != nil {
				t.Fatal(err)
			}
		case "until":
			for _, want := range b.input {
				for {
					msg := c.receive()
					if _, ok := msg.(*pgproto3.ParameterStatus); ok && portable {
						continue
					}
					got = append(got, encodeBackend(t, msg, portable))
					if typeName(msg) == want {
						break
					}
				}
			}
		default:
			t.Fatalf("unknown command %q", b.cmd)
		}
		if bi > 0 {
			out.WriteString("\n")
		}
		for _, c := range b.comments {
			fmt.Fprintf(&out, "%s\n", c)
		}
		fmt.Fprintf(&out, "%s\n", b.cmd)
		for _, in := range b.input {
			fmt.Fprintf(&out, "%s\n", in)
		}
		out.WriteString("----\n")
		for _, g := range got {
			fmt.Fprintf(&out, "%s\n", g)
		}
		if !*rewrite && strings.Join(got, "\n") != strings.Join(b.expected, "\n") {
			t.Fatalf("%s, block %d (%s %v):\n got:\n%s\nwant:\n%s", file, bi, b.cmd, b.input,
				strings.Join(got, "\n"), strings.Join(b.expected, "\n"))
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// printable reports whether b is valid UTF-8 without control characters
// other than tab and newline.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f {
			return false
		}
	}
	return true
}

func typeName(msg any) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", msg), "*pgproto3.")
}

// decodeFrontend turns one JSON line into a frontend message by its Type.
func decodeFrontend(t *testing.T, line string) pgproto3.FrontendMessage {
	var head struct{ Type string }
	if err := json.Unmarshal([]byte(line), &head); err != nil {
		t.Fatalf("bad message %q: %v", line, err)
	}
	var msg pgproto3.FrontendMessage
	switch head.Type {
	case "Query":
		msg = &pgproto3.Query{}
	case "Parse":
		msg = &pgproto3.Parse{}
	case "Bind":
		msg = &pgproto3.Bind{}
	case "Describe":
		msg = &pgproto3.Describe{}
	case "Execute":
		msg = &pgproto3.Execute{}
	case "Close":
		msg = &pgproto3.Close{}
	case "Sync":
		msg = &pgproto3.Sync{}
	case "Flush":
		msg = &pgproto3.Flush{}
	case "CopyData":
		var m struct{ Data string }
		json.Unmarshal([]byte(line), &m)
		return &pgproto3.CopyData{Data: []byte(m.Data)}
	case "CopyDone":
		msg = &pgproto3.CopyDone{}
	case "CopyFail":
		msg = &pgproto3.CopyFail{}
	case "FunctionCall":
		msg = &pgproto3.FunctionCall{}
	default:
		t.Fatalf("unknown frontend message type %q", head.Type)
	}
	if err := json.Unmarshal([]byte(line), msg); err != nil {
		t.Fatalf("bad %s %q: %v", head.Type, line, err)
	}
	return msg
}

// encodeBackend renders a backend message as JSON, errors and notices by
// severity and code only, CopyData as text, notifications without the
// sender's process ID.
func encodeBackend(t *testing.T, msg pgproto3.BackendMessage, portable bool) string {
	var v any = msg
	switch m := msg.(type) {
	case *pgproto3.RowDescription:
		if portable {
			var cols []string
			for _, f := range m.Fields {
				cols = append(cols, fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.Format))
			}
			v = map[string]any{"Type": "RowDescription", "Columns": cols}
		}
	case *pgproto3.ErrorResponse:
		e := map[string]any{"Type": "ErrorResponse", "Severity": m.Severity, "Code": m.Code}
		if m.Position != 0 {
			e["Position"] = m.Position
		}
		v = e
	case *pgproto3.NoticeResponse:
		v = map[string]string{"Type": "NoticeResponse", "Severity": m.Severity, "Code": m.Code}
	case *pgproto3.CopyData:
		v = map[string]string{"Type": "CopyData", "Data": string(m.Data)}
	case *pgproto3.NotificationResponse:
		// The sender's process ID differs between servers.
		v = map[string]string{"Type": "NotificationResponse", "Channel": m.Channel, "Payload": m.Payload}
	case *pgproto3.DataRow:
		// pgproto3 prints values that are not printable ASCII lossily; print
		// them in hex so that every byte is compared.
		vals := make([]any, len(m.Values))
		for i, b := range m.Values {
			switch {
			case b == nil:
			case printable(b):
				vals[i] = map[string]string{"text": string(b)}
			default:
				vals[i] = map[string]string{"hex": hex.EncodeToString(b)}
			}
		}
		v = map[string]any{"Type": "DataRow", "Values": vals}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
