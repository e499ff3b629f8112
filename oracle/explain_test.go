package oracle

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of testdata/check/*.txt")

// ddCase is one case of a testdata/check file: a command line, its input
// and the expected output.
type ddCase struct {
	pos      string
	cmd      string
	args     map[string]string
	argOrder []string
	input    string
	want     string
	sep, end int // line indexes of "----" and of the blank line after the output
}

// readDD parses a file of cases: a command line, input lines, "----",
// expected output lines, and a blank line. Lines starting with '#' between
// cases are comments.
func readDD(t *testing.T, path string) (cases []ddCase, lines []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	for i := 0; i < len(lines); {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			i++
			continue
		}
		c := ddCase{pos: fmt.Sprintf("%s:%d", filepath.Base(path), i+1), args: map[string]string{}}
		fs := strings.Fields(l)
		c.cmd = fs[0]
		for _, a := range fs[1:] {
			k, v, _ := strings.Cut(a, "=")
			c.args[k] = v
			c.argOrder = append(c.argOrder, k)
		}
		i++
		var in []string
		for i < len(lines) && lines[i] != "----" {
			in = append(in, lines[i])
			i++
		}
		c.sep = i
		i++
		var out []string
		for i < len(lines) && lines[i] != "" {
			out = append(out, lines[i])
			i++
		}
		c.end = i
		c.input = strings.Join(in, "\n")
		c.want = strings.Join(out, "\n")
		cases = append(cases, c)
	}
	return cases, lines
}

// TestCheckScripts runs testdata/check/*.txt. Commands:
//
//	# Check every transaction at level (default: its own level, given in
//	# the history) and print the verdict and explanation.
//	check [level=RC] [realtime]
//	S1: [w x=1]
//	----
//	consistent
//
//	# Assert the verdict at each level (yes: consistent, no: violation) and
//	# print the strongest level that holds and the explanation of the
//	# weakest violation. PC, SI and SER may be unknown while the
//	# commit-order search is not linked in.
//	levels RC=yes RA=no CC=no PC=no SI=no SER=no
//
// Run with -rewrite to regenerate the expected outputs.
func TestCheckScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases, lines := readDD(t, path)
			var out []string
			prev := 0
			for _, c := range cases {
				got := runDD(t, c)
				if !*rewrite && got != c.want {
					t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", c.pos, c.cmd, got, c.want)
				}
				out = append(out, lines[prev:c.sep+1]...)
				if got != "" {
					out = append(out, strings.Split(got, "\n")...)
				}
				prev = c.end
			}
			if *rewrite {
				out = append(out, lines[prev:]...)
				if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func runDD(t *testing.T, c ddCase) string {
	t.Helper()
	level := history.Causal // the default level of transactions without one
	if l, ok := c.args["level"]; ok {
		var err error
		if level, err = history.ParseLevel(l); err != nil {
			t.Fatalf("%s: %v", c.pos, err)
		}
	}
	h, err := miniHistory(c.input, level)
	if err != nil {
		t.Fatalf("%s: %v", c.pos, err)
	}
	_, realtime := c.args["realtime"]
	switch c.cmd {
	case "check":
		opts := Options{RealTime: realtime}
		if _, ok := c.args["level"]; ok {
			opts.Level = level
		}
		r := Check(h, opts)
		s := r.Verdict.String()
		if _, brief := c.args["verdict-only"]; brief || r.Explanation == nil {
			return s
		}
		switch c.args["format"] {
		case "dot":
			return s + "\n" + strings.TrimRight(r.Explanation.DOT(h), "\n")
		case "json":
			j, err := r.Explanation.JSON(h)
			if err != nil {
				t.Fatalf("%s: %v", c.pos, err)
			}
			return s + "\n" + string(j)
		}
		return s + "\n" + strings.TrimRight(r.Explanation.Text(h), "\n")
	case "levels":
		var weakest *Explanation
		var holds []string
		for _, l := range history.Levels {
			want, ok := c.args[l.String()]
			if !ok {
				continue
			}
			r := Check(h, Options{Level: l, RealTime: realtime})
			switch {
			case r.Verdict == Unknown && l >= history.Prefix && searchCommitOrderHook == nil:
				continue
			case r.Verdict == Unknown:
				t.Errorf("%s: %s: unknown", c.pos, l)
			case (r.Verdict == Consistent) != (want == "yes"):
				t.Errorf("%s: %s: got %s, want allowed=%s", c.pos, l, r.Verdict, want)
			}
			if r.Verdict == Consistent && l <= history.Causal {
				holds = append(holds, l.String())
			}
			if r.Verdict == Violation && weakest == nil {
				weakest = r.Explanation
			}
		}
		// The output covers RC, RA and CC only, so that it does not change
		// when the PC/SI/SER search is linked in; those verdicts are
		// asserted above.
		if weakest == nil || weakest.Level > history.Causal {
			return "holds at " + strings.Join(holds, ", ")
		}
		return strings.TrimRight(weakest.Text(h), "\n")
	}
	t.Fatalf("%s: unknown command %q", c.pos, c.cmd)
	return ""
}

// TestExplanationNamesSQLTablesAndKeys: a violation in a SQL history is
// explained with the statements' text, the table and key, and the values.
func TestExplanationNamesSQLTablesAndKeys(t *testing.T) {
	b := history.NewBuilder()
	s1, s2, s3 := b.Session("alice"), b.Session("bob"), b.Session("carol")
	t1 := b.Txn(s1, history.ReadAtomic).Table("accounts").WriteValue("1", 10).WriteValue("2", 10).Name("deposit").Commit()
	t2 := b.Txn(s2, history.ReadAtomic).Table("accounts").WriteValue("1", 20).WriteValue("2", 20).Name("transfer").Commit()
	b.Txn(s3, history.ReadAtomic).
		Stmt(history.Statement{SQL: "SELECT balance FROM accounts WHERE id = 1", Table: "accounts"}).ReadValue("1", t1, 10).EndStmt().
		Stmt(history.Statement{SQL: "SELECT balance FROM accounts WHERE id = 2", Table: "accounts"}).ReadValue("2", t2, 20).EndStmt().
		Name("audit").Commit()
	h := b.MustHistory()
	r := Check(h, Options{})
	if r.Verdict != Violation || r.Explanation.Anomaly != "fractured read" || r.Explanation.Level != history.ReadAtomic {
		t.Fatalf("got %s %+v", r.Verdict, r.Explanation)
	}
	text := r.Explanation.Text(h)
	for _, want := range []string{
		`audit read accounts/1 = 10 from deposit in "SELECT balance FROM accounts WHERE id = 1"`,
		`audit read accounts/2 = 20 from transfer in "SELECT balance FROM accounts WHERE id = 2"`,
		"transfer: session bob, RA, committed",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
}
