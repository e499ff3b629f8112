package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
// Errors and notices are compared by SQLSTATE only, not by message text, so
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
			runScript(t, srv, file)
		})
	}
}

type scriptBlock struct {
	cmd      string
	input    []string
	expected []string
}

func parseScript(t *testing.T, text string) []scriptBlock {
	var blocks []scriptBlock
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			i++
			continue
		}
		b := scriptBlock{cmd: line}
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

func runScript(t *testing.T, srv *Server, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blocks := parseScript(t, string(data))
	c := dialRaw(t, srv, nil)
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
					got = append(got, encodeBackend(t, msg))
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
// severity and code only, CopyData as text.
func encodeBackend(t *testing.T, msg pgproto3.BackendMessage) string {
	var v any = msg
	switch m := msg.(type) {
	case *pgproto3.ErrorResponse:
		v = map[string]string{"Type": "ErrorResponse", "Severity": m.Severity, "Code": m.Code}
	case *pgproto3.NoticeResponse:
		v = map[string]string{"Type": "NoticeResponse", "Severity": m.Severity, "Code": m.Code}
	case *pgproto3.CopyData:
		v = map[string]string{"Type": "CopyData", "Data": string(m.Data)}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
