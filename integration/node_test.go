package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// nodeDir is the npm project of the Node.js clients the tests drive
// (.ci/run runs npm install there; node_modules is not committed).
const nodeDir = "testdata/node"

// nodeScript returns the command that runs a script of testdata/node with
// Node.js, or skips (fails under FICKLE_REQUIRE_PG=1, where .ci/run installs
// every client) when node or the npm packages are missing.
func nodeScript(t *testing.T, script string, args ...string) *exec.Cmd {
	t.Helper()
	node, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not installed"
	default:
		if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "pg")); err != nil {
			missing = "the npm packages are not installed (npm install --prefix integration/testdata/node)"
		}
	}
	if missing != "" {
		if requirePG() {
			t.Fatalf("%s (FICKLE_REQUIRE_PG=1)", missing)
		}
		t.Skip(missing)
	}
	return exec.Command(node, append([]string{filepath.Join(nodeDir, script)}, args...)...)
}

// TestNodePostgresPoolIncrementsAreNeverLost: a node-postgres pool of 10
// connections runs 50 increments through SELECT ... FOR UPDATE and 50
// atomic UPDATE ... SET bal = bal + 1, concurrently, retrying aborted
// transactions, at every level of every profile: the balance is exact
// after each phase, and the history passes fickle check.
func TestNodePostgresPoolIncrementsAreNeverLost(t *testing.T) {
	const increments = 50
	for _, p := range lockingProfiles() {
		for _, level := range p.levels {
			t.Run(p.name+"/"+level.String(), func(t *testing.T) {
				f := lockingServer(t, p.cfg, "CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL)", "INSERT INTO acct VALUES (1, 0)")
				begin := beginStatements(level)
				if len(begin) > 1 {
					begin = []string{fmt.Sprintf("BEGIN; SET LOCAL fickle.isolation = '%s'", level)}
				}
				out, err := nodeScript(t, "lock_increments.js", f.dsn, begin[0], "10", fmt.Sprint(increments)).CombinedOutput()
				if err != nil {
					t.Fatalf("node: %v\n%s", err, out)
				}
				var got struct{ ForUpdate, Atomic int }
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("node printed %q: %v", out, err)
				}
				if got.ForUpdate != increments || got.Atomic != 2*increments {
					t.Errorf("balance %d after %d increments through FOR UPDATE and %d after %d more atomic ones", got.ForUpdate, increments, got.Atomic, increments)
				}
				checkWithFickleCheck(t, f, p.cfg.RealTime)
			})
		}
	}
}

// TestNodePostgresListenNotifyMatchesPostgres runs testdata/node's
// listen_notify.js, a node-postgres listener idling on its channels while
// another connection notifies inside and outside transactions (committed,
// rolled back, across savepoints, while the listener is in a block, to
// itself, with bad arguments), against PostgreSQL 15 and against fickle
// with the adversary, and requires the same transcript.
func TestNodePostgresListenNotifyMatchesPostgres(t *testing.T) {
	run := func(t *testing.T, port int, db string) string {
		t.Helper()
		out, err := nodeScript(t, "listen_notify.js", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s", port, db)).CombinedOutput()
		if err != nil {
			t.Fatalf("node listen_notify.js on port %d: %v\n%s", port, err, out)
		}
		return string(out)
	}
	port := startPostgres(t)
	want := run(t, port, freshPostgresDB(t, port))
	srv := startFickle(t, "--strategy", "adversarial")
	if got := run(t, srv.Port, "postgres"); got != want {
		t.Errorf("fickle and PostgreSQL differ:\n%s", lineDiff(want, got))
	}
}
