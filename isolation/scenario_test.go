package isolation

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// rewrite regenerates the expected output of the scenario files:
//
//	go test ./isolation -run Scenario -rewrite
var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/scenarios")

// Scenario files (testdata/scenarios/*.txt) drive the engine with a small
// command language, one command per block, its expected output after a
// "----" line and a blank line ending the block (cockroachdb/datadriven's
// layout). Commands and their handlers:
//
//	store seed=N strategy=S          reset the store (scenario_store_test.go)
//	begin s1 level=RA [strategy=S] [readonly]
//	commit s1 | rollback s1          (scenario_txn_test.go)
//	read s1 x | scan s1              (scenario_read_test.go)
//	statement s1 [name]              (scenario_statement_test.go)
//	write s1 x=1 | insert s1 x=1 | delete s1 x
//	                                 (scenario_write_test.go)
//	valid s1 x                       the versions s1 may read now
//	index | lookup s1 lo hi          (scenario_index_test.go)
//	history | check                  (scenario_inspect_test.go)
//	_breakpoint                      a place to set a debugger breakpoint
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runScenarioFile(t, f) })
	}
}

// scenarioBlock is one command with its expected output.
type scenarioBlock struct {
	line     int
	cmd      string
	expected string
}

func parseScenario(t *testing.T, path string) []scenarioBlock {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var blocks []scenarioBlock
	sc := bufio.NewScanner(fh)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b := scenarioBlock{line: n, cmd: line}
		if !sc.Scan() || sc.Text() != "----" {
			t.Fatalf("%s:%d: command %q not followed by ----", path, n, line)
		}
		n++
		var out []string
		for sc.Scan() {
			n++
			if sc.Text() == "" {
				break
			}
			out = append(out, sc.Text())
		}
		b.expected = strings.Join(out, "\n")
		blocks = append(blocks, b)
	}
	return blocks
}

func runScenarioFile(t *testing.T, path string) {
	blocks := parseScenario(t, path)
	env := newScenarioEnv()
	var rewritten strings.Builder
	for _, b := range blocks {
		got := strings.TrimRight(env.run(b.cmd), "\n")
		if *rewrite {
			fmt.Fprintf(&rewritten, "%s\n----\n%s\n\n", b.cmd, got)
			continue
		}
		if got != b.expected {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, b.line, b.cmd, got, b.expected)
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(strings.TrimRight(rewritten.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scenarioArgs splits "verb s1 k=v flag" into positional words and options.
type scenarioArgs struct {
	verb  string
	words []string
	opts  map[string]string
}

func parseArgs(cmd string) scenarioArgs {
	f := strings.Fields(cmd)
	a := scenarioArgs{verb: f[0], opts: map[string]string{}}
	for _, w := range f[1:] {
		if k, v, ok := strings.Cut(w, "="); ok && a.verb != "write" && a.verb != "insert" {
			a.opts[k] = v
		} else {
			a.words = append(a.words, w)
		}
	}
	return a
}

func (e *scenarioEnv) run(cmd string) string {
	a := parseArgs(cmd)
	switch a.verb {
	case "store":
		// store seed=3 strategy=adversarial
		return e.cmdStore(a)
	case "begin":
		// begin s1 level=SI strategy=oldest readonly
		return e.cmdBegin(a)
	case "commit", "rollback":
		// commit s1
		return e.cmdEnd(a)
	case "read":
		// read s1 x
		return e.cmdRead(a)
	case "scan":
		// scan s1
		return e.cmdScan(a)
	case "statement":
		// statement s1 self join
		return e.cmdStatement(a)
	case "write", "insert":
		// write s1 x=1
		return e.cmdWrite(a)
	case "delete":
		// delete s1 x
		return e.cmdDelete(a)
	case "index":
		return e.cmdIndex()
	case "lookup":
		// lookup s1 7 9
		return e.cmdLookup(a)
	case "valid":
		// valid s1 x
		return e.cmdValid(a)
	case "history":
		// history
		return e.cmdHistory()
	case "check":
		// check
		return e.cmdCheck()
	case "_breakpoint":
		// _breakpoint
		return ""
	}
	return fmt.Sprintf("unknown command %q", a.verb)
}

func atoiOr(s string, d int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return d
}
