package integration

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

var failedTxns = regexp.MustCompile(`number of failed transactions: (\d+)`)
var processedTxns = regexp.MustCompile(`number of transactions actually processed: (\d+)`)

// TestPgbenchRunsTPCBWithoutFailures initializes pgbench's tables at scale 1
// and runs its TPC-B-like script with 4 clients for 10 seconds in each query
// mode: every run must exit 0 with zero failed transactions.
func TestPgbenchRunsTPCBWithoutFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("pgbench runs 30s of load; skipped with -short")
	}
	pgbench := pgTool(t, "pgbench")
	srv := startFickle(t)
	conn := []string{"-h", srv.Host, "-p", strconv.Itoa(srv.Port), "-U", "fickle"}
	out, err := runTool(t, 3*time.Minute, nil, pgbench, append([]string{"-i", "-s", "1"}, append(conn, "fickle")...)...)
	if err != nil {
		t.Fatalf("pgbench -i -s 1: %v\n%s", err, out)
	}
	for _, mode := range []string{"simple", "extended", "prepared"} {
		t.Run(mode, func(t *testing.T) {
			args := append([]string{"-c", "4", "-j", "2", "-T", "10", "-M", mode}, append(conn, "fickle")...)
			out, err := runTool(t, 2*time.Minute, nil, pgbench, args...)
			if err != nil {
				t.Fatalf("pgbench -M %s: %v\n%s", mode, err, out)
			}
			m := failedTxns.FindStringSubmatch(out)
			if m == nil || m[1] != "0" {
				t.Errorf("pgbench -M %s reports failed transactions:\n%s", mode, out)
			}
			p := processedTxns.FindStringSubmatch(out)
			if p == nil || p[1] == "0" {
				t.Errorf("pgbench -M %s processed no transactions:\n%s", mode, out)
			}
		})
	}
}
