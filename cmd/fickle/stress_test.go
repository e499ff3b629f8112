package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/cmd/internal/checkcli"
	"github.com/fickle-db/fickle/explore"
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/stress"
)

func runStressCapture(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = stressMain(args, &o, &e)
	return code, o.String(), e.String()
}

// TestStressBadInputIsOneMessageAndExit2: bad flags and an unreachable
// database end with exit status 2 and one line saying what is wrong.
func TestStressBadInputIsOneMessageAndExit2(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no database", []string{}, "give --dsn"},
		{"bad workload", []string{"--dsn", "postgres://x@127.0.0.1:1/x", "--workload", "tpcc"}, `--workload "tpcc"`},
		{"bad level", []string{"--dsn", "postgres://x@127.0.0.1:1/x", "--level", "sometimes"}, `--level "sometimes"`},
		{"bad distribution", []string{"--dsn", "postgres://x@127.0.0.1:1/x", "--dist", "normal"}, `--dist "normal"`},
		{"bad table", []string{"--dsn", "postgres://x@127.0.0.1:1/x", "--table", "t; drop"}, `--table "t; drop"`},
		{"unreachable", []string{"--dsn", "postgres://x:secret@127.0.0.1:1/x?connect_timeout=2"}, "cannot connect to postgres://x:xxx@127.0.0.1:1/x"},
		{"argument", []string{"--dsn", "postgres://x@127.0.0.1:1/x", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runStressCapture(c.args...)
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			if code != stressFailed || out != "" || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and one message containing %q", code, out, errOut, c.want)
			}
		})
	}
}

// TestStressExitStatusFollowsTheRequestedLevel: against fickle, a run at
// read-committed exits 0 with the RC check requested and holding, one at
// serializable (BEGIN ISOLATION LEVEL SERIALIZABLE, whatever the server's
// default) with the SER check; the JSON report says so.
func TestStressExitStatusFollowsTheRequestedLevel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.jsonl")
	srv, err := explore.StartServer(explore.ServerConfig{Level: history.ReadCommitted}, 1, path)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	for _, level := range []string{"read-committed", "serializable"} {
		code, out, errOut := runStressCapture("--dsn", srv.DSN(), "--txns", "200", "--objects", "3", "--level", level, "--json")
		var rep struct {
			Checks []struct {
				Name, Verdict string
				Requested     bool
			} `json:"checks"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v\n%s%s", level, err, out, errOut)
		}
		requested := ""
		for _, c := range rep.Checks {
			if c.Requested {
				requested = c.Name + " " + c.Verdict
			}
		}
		want := map[string]string{"read-committed": "RC holds", "serializable": "SER holds"}[level]
		if code != stressHolds || requested != want {
			t.Errorf("--level %s: exit %d, requested check %q; want 0 and %q\n%s", level, code, requested, want, out)
		}
	}
}

// TestStressExitStatus: a violation of the requested level exits 1 even
// when the run ended early; a run that ended early exits 2; an undecided
// level 3.
func TestStressExitStatus(t *testing.T) {
	failed := errors.New("session S1 lost its connection")
	for _, c := range []struct {
		verdict string
		runErr  error
		want    int
	}{
		{stress.Holds, nil, stressHolds},
		{stress.Violated, nil, stressViolation},
		{stress.Violated, failed, stressViolation},
		{stress.Holds, failed, stressFailed},
		{stress.Undecided, nil, stressUndecided},
	} {
		rep := &stress.Report{RunError: c.runErr, Checks: []stress.Check{{Name: "SER", Requested: true, Verdict: c.verdict}}}
		if got := stressExit(rep); got != c.want {
			t.Errorf("%s, run error %v: exit %d, want %d", c.verdict, c.runErr, got, c.want)
		}
	}
}

// TestCheckDecidesAStressHistory: fickle check --level SER decides a
// history fickle stress recorded against fickle at RC (no commit order:
// the mini-transaction check decides it) and names its lost update, as
// the stress report did.
func TestCheckDecidesAStressHistory(t *testing.T) {
	dir := t.TempDir()
	srv, err := explore.StartServer(explore.ServerConfig{Level: history.ReadCommitted}, 2, filepath.Join(dir, "server.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	path := filepath.Join(dir, "stress.jsonl")
	if code, out, errOut := runStressCapture("--dsn", srv.DSN(), "--txns", "300", "--objects", "2", "--level", "read-committed", "--history", path); code != stressHolds {
		t.Fatalf("fickle stress: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCheckCapture("--level", "SER", path)
	if code != checkcli.Violation || !strings.Contains(out, "lost update") {
		t.Errorf("fickle check --level SER: exit %d, want 1 and a lost update\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCheckCapture("--level", "RC", path); code != checkcli.Consistent {
		t.Errorf("fickle check --level RC: exit %d\n%s%s", code, out, errOut)
	}
}
