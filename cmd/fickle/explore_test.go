package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runExploreCapture(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = exploreMain(args, &o, &e)
	return code, o.String(), e.String()
}

// TestExploreBadInputIsOneMessageAndExit2: a command that does not exist,
// one that never connects, a history that is not fickle's and a shard that
// does not parse each end with exit status 2 and one line saying so.
func TestExploreBadInputIsOneMessageAndExit2(t *testing.T) {
	dir := t.TempDir()
	plume := filepath.Join(dir, "h.txt")
	if err := os.WriteFile(plume, []byte("w(x,1,0,0)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing command", []string{"--", "fickle-no-such-command"}, `command "fickle-no-such-command" not found`},
		{"never connects", []string{"--runs", "3", "--", "true"}, "the command never connected to the server"},
		{"not a fickle history", []string{"--replay", plume, "--", "true"}, "not a fickle history"},
		{"bad shard", []string{"--shard", "2/x", "--", "true"}, `--shard "2/x": want K/N`},
		{"shard out of range", []string{"--shard", "4/3", "--", "true"}, `--shard "4/3"`},
		{"no command", []string{"--runs", "3"}, "no command to run"},
		{"bad level", []string{"--isolation", "sometimes", "--", "true"}, `--isolation "sometimes"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runExploreCapture(append([]string{"--dir", dir}, c.args...)...)
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			var msgs []string
			for _, l := range lines {
				if strings.HasPrefix(l, "fickle explore: ") && !strings.Contains(l, " runs of ") {
					msgs = append(msgs, l)
				}
			}
			if code != exploreBadInput || len(msgs) != 1 || !strings.Contains(msgs[0], c.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 2 and one message containing %q", code, errOut, c.want)
			}
		})
	}
}

// TestExploreReportsAFailingCommandAndWritesTheJSONReport runs psql
// commands that pass and fail: a passing exploration exits 0; a failing
// one exits 1, prints the report with the command that replays the run,
// and writes the report as JSON beside the run's history.
func TestExploreReportsAFailingCommandAndWritesTheJSONReport(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		if os.Getenv("FICKLE_REQUIRE_PG") != "" {
			t.Fatal("psql is missing")
		}
		t.Skip("psql is missing")
	}
	dir := t.TempDir()
	code, out, errOut := runExploreCapture("--dir", dir, "--runs", "4", "--", "psql", "-qAt", "-c", "SELECT 1")
	if code != exploreClean || !strings.Contains(out, "4 runs, no failure") {
		t.Fatalf("passing command: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runExploreCapture("--dir", dir, "--runs", "4", "--", "psql", "-qAt", "-v", "ON_ERROR_STOP=1", "-c", "SELECT 1/0")
	if code != exploreFailed {
		t.Fatalf("failing command: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"run 1 (seed ", "exit status 1", "re-create it: fickle explore --replay ", "division by zero", "report: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	i := strings.Index(out, "report: ")
	path := strings.TrimSpace(out[i+len("report: "):])
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Run    int    `json:"run"`
		Replay string `json:"replay"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Run != 1 || !strings.HasPrefix(rep.Replay, "fickle explore --replay ") {
		t.Fatalf("JSON report %s: %v", b, err)
	}
}
