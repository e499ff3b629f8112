package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// verify checks the history file after the run: every mixed transaction
// whose COMMIT succeeded wrote its id in a committed transaction, at least
// as many pgbench transactions committed as pgbench saw acknowledged (each
// inserts into pgbench_history), and `fickle check` accepts the file.
func verify(o options, pgbenchAcked int, mixed *mixedResult) error {
	committedIDs, pgbenchCommits, err := scanHistory(o.historyPath)
	if err != nil {
		return err
	}
	missing := 0
	for id := range mixed.acked {
		if !committedIDs[id] {
			missing++
		}
	}
	st, _ := os.Stat(o.historyPath)
	fmt.Printf("history: %d MB; %d of %d acknowledged mixed commits missing; %d pgbench transactions committed, %d acknowledged\n",
		st.Size()>>20, missing, len(mixed.acked), pgbenchCommits, pgbenchAcked)
	if missing > 0 || pgbenchCommits < pgbenchAcked {
		return fmt.Errorf("acknowledged commits are missing from the history")
	}
	start := time.Now()
	check := exec.Command(o.bin, "check", o.historyPath)
	out, err := check.CombinedOutput()
	os.WriteFile(o.historyPath+".check.txt", out, 0o644) //nolint:errcheck // a log
	peak := 0
	if ru, ok := check.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = int(ru.Maxrss >> 10)
	}
	fmt.Printf("fickle check: %v in %v, peak RSS %d MB\n%s", err == nil, time.Since(start).Round(time.Second), peak, out)
	if err != nil {
		return fmt.Errorf("fickle check: %v", err)
	}
	return nil
}

// scanHistory reads a fickle JSONL history and returns the ids written into
// soak_kv's v by committed transactions, and how many committed
// transactions wrote pgbench_history.
func scanHistory(path string) (map[int64]bool, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	type event struct {
		E     string          `json:"e"`
		T     int64           `json:"t"`
		K     int64           `json:"k"`
		Table string          `json:"table"`
		Row   json.RawMessage `json:"row"`
	}
	tables := map[int64]string{}
	pending := map[int64][]int64{} // ids written by open transactions
	pgbench := map[int64]bool{}    // open transactions that wrote pgbench_history
	committed := map[int64]bool{}
	commits := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, 0, err
		}
		switch ev.E {
		case "key":
			tables[ev.K] = ev.Table
		case "write":
			switch tables[ev.K] {
			case "soak_kv":
				var row struct{ V int64 }
				if len(ev.Row) > 0 && json.Unmarshal(ev.Row, &row) == nil {
					pending[ev.T] = append(pending[ev.T], row.V)
				}
			case "pgbench_history":
				pgbench[ev.T] = true
			}
		case "commit":
			for _, id := range pending[ev.T] {
				committed[id] = true
			}
			if pgbench[ev.T] {
				commits++
			}
			delete(pending, ev.T)
			delete(pgbench, ev.T)
		case "abort":
			delete(pending, ev.T)
			delete(pgbench, ev.T)
		}
	}
	return committed, commits, sc.Err()
}
