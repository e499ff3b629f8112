package oracle

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// miniCase is one case of testdata/mini/cases.txt.
type miniCase struct {
	name   string
	txns   []string
	checks [][2]string // check name, expected outcome
}

func readMiniCases(t *testing.T, path string) []miniCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []miniCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "=== "):
			cases = append(cases, miniCase{name: line[4:]})
		case len(cases) == 0:
			t.Fatalf("%s: %q before the first case", path, line)
		case len(line) > 1 && line[0] == 'S' && line[1] >= '0' && line[1] <= '9':
			cases[len(cases)-1].txns = append(cases[len(cases)-1].txns, line)
		default:
			check, want, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("%s: bad line %q", path, line)
			}
			cases[len(cases)-1].checks = append(cases[len(cases)-1].checks, [2]string{check, strings.TrimSpace(want)})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// parseMiniHistory builds a history from the case notation: one line a
// transaction, "S<n>[ @start-end][ aborted|pending]: r x 0, w x 1, ...";
// a read of value v names the transaction that wrote v to the key (Init
// for 0).
func parseMiniHistory(lines []string) (*history.History, error) {
	b := history.NewBuilder()
	sessions := map[string]history.SessionID{}
	type rd struct {
		tb    *history.TxnBuilder
		key   string
		value int64
	}
	type txn struct {
		tb  *history.TxnBuilder
		ops []string
	}
	var txns []txn
	writer := map[string]history.TxnID{}
	for _, line := range lines {
		head, body, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("bad transaction %q", line)
		}
		fields := strings.Fields(head)
		s, ok := sessions[fields[0]]
		if !ok {
			s = b.Session(fields[0])
			sessions[fields[0]] = s
		}
		tb := b.Txn(s, history.Serializable)
		outcome := history.Committed
		for _, f := range fields[1:] {
			switch {
			case strings.HasPrefix(f, "@"):
				a, z, _ := strings.Cut(f[1:], "-")
				start, err1 := strconv.ParseInt(a, 10, 64)
				end, err2 := strconv.ParseInt(z, 10, 64)
				if err1 != nil || err2 != nil {
					return nil, fmt.Errorf("bad times %q", f)
				}
				tb.Times(start, end)
			case f == "aborted":
				outcome = history.ClientAborted
			case f == "pending":
				outcome = history.Pending
			default:
				return nil, fmt.Errorf("bad field %q", f)
			}
		}
		tb.End(outcome)
		var ops []string
		if strings.TrimSpace(body) != "" {
			ops = strings.Split(body, ",")
		}
		for _, op := range ops {
			f := strings.Fields(op)
			if len(f) == 3 && f[0] == "w" {
				writer[f[1]+"="+f[2]] = tb.ID()
			}
		}
		txns = append(txns, txn{tb, ops})
	}
	for _, x := range txns {
		for _, op := range x.ops {
			f := strings.Fields(op)
			if len(f) != 3 {
				return nil, fmt.Errorf("bad operation %q", op)
			}
			v, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("bad value in %q", op)
			}
			switch f[0] {
			case "w":
				x.tb.WriteValue(f[1], v)
			case "r":
				w, ok := writer[f[1]+"="+f[2]]
				if !ok {
					w = history.Init
					if v != 0 {
						w = history.NoWriter
					}
				}
				x.tb.ReadValue(f[1], w, v)
			default:
				return nil, fmt.Errorf("bad operation %q", op)
			}
		}
	}
	return b.History()
}

// runMiniCheck runs the check a case line names.
func runMiniCheck(h *history.History, check string) (MiniResult, Options, error) {
	switch check {
	case "SI", "SER":
		o := Options{Level: history.Snapshot, RealTime: false}
		if check == "SER" {
			o.Level = history.Serializable
		}
		r, err := CheckMini(h, o)
		return r, o, err
	case "SSI", "SSER":
		o := Options{Level: history.Snapshot, RealTime: true}
		if check == "SSER" {
			o.Level = history.Serializable
		}
		r, err := CheckMini(h, o)
		return r, o, err
	case "LIN":
		r, err := CheckLinearizable(h)
		return r, Options{Level: history.Serializable, RealTime: true}, err
	}
	return MiniResult{}, Options{}, fmt.Errorf("unknown check %q", check)
}

// TestMiniCases runs testdata/mini/cases.txt: each check's verdict and the
// anomaly it names, and oracle.Check's verdict on the same history.
func TestMiniCases(t *testing.T) {
	for _, c := range readMiniCases(t, "testdata/mini/cases.txt") {
		t.Run(c.name, func(t *testing.T) {
			h, err := parseMiniHistory(c.txns)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range c.checks {
				res, opts, err := runMiniCheck(h, ch[0])
				var nm *NotMiniError
				switch {
				case ch[1] == "not mini":
					if !errors.As(err, &nm) {
						t.Errorf("%s: got %v, %v; want not a mini-transaction history", ch[0], res.Verdict, err)
					}
					continue
				case err != nil:
					t.Fatalf("%s: %v", ch[0], err)
				}
				got := res.Verdict.String()
				if res.Verdict == Violation {
					got += " " + res.Violations[0].Anomaly
				}
				anomaly, hasAnomaly := strings.CutPrefix(ch[1], "violation ")
				if res.Verdict.String() != strings.Fields(ch[1])[0] || hasAnomaly && res.Anomalies[anomaly] == 0 {
					t.Errorf("%s: got %s (anomalies %v); want %s", ch[0], got, res.Anomalies, ch[1])
					for _, v := range res.Violations {
						t.Logf("%s", v.Text(h))
					}
				}
				if general := Check(h, opts); general.Verdict != res.Verdict {
					t.Errorf("%s: oracle.Check says %s, the mini check %s", ch[0], general.Verdict, res.Verdict)
				}
			}
		})
	}
}
