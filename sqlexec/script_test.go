package sqlexec

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/tsearch"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of the script tests")

// TestScripts runs the SQL scripts of testdata/scripts in-process against a
// real store (strategy latest) and compares each block's output with the
// expected output after "----". A block is
//
//	sql [session=NAME] [params=v1,v2]
//	SQL text (one or more statements)
//	----
//	expected output
//
// or "copy [session=NAME]" whose first line is a COPY ... FROM STDIN and
// whose other lines are the data, or "needs-tsearch-data" listing files of
// PostgreSQL's tsearch_data the script reads (skipped without them). Sessions are created on first use; a
// session whose explicit transaction failed answers 25P02 until ROLLBACK,
// as the server does. Run with -rewrite to regenerate the expected output.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/scripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScript(t, f) })
	}
}

type scriptBlock struct {
	directive string
	args      map[string]string
	input     string
	expected  string
}

func parseScript(t *testing.T, text string) []scriptBlock {
	var blocks []scriptBlock
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		var params string
		if i := strings.Index(l, " params="); i >= 0 {
			l, params = l[:i], l[i+len(" params="):]
		}
		fields := strings.Fields(l)
		b := scriptBlock{directive: fields[0], args: map[string]string{}}
		if params != "" {
			b.args["params"] = params
		}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			b.args[k] = v
		}
		var in []string
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			in = append(in, lines[i])
		}
		b.input = strings.Join(in, "\n")
		var exp []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			exp = append(exp, lines[i])
		}
		b.expected = strings.Join(exp, "\n")
		blocks = append(blocks, b)
	}
	return blocks
}

type scriptSession struct {
	s      *Session
	failed bool
}

func runScript(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]*scriptSession{}
	blocks := parseScript(t, string(data))
	skipWithoutTextSearchData(t, blocks)
	var out strings.Builder
	for _, b := range blocks {
		if b.directive == "needs-tsearch-data" {
			writeBlock(&out, b, "")
			continue
		}
		name := b.args["session"]
		if name == "" {
			name = "s1"
		}
		ss := sessions[name]
		if ss == nil {
			ss = &scriptSession{s: eng.NewSession(SessionInfo{ProcessID: uint32(len(sessions) + 1), User: "tester", Database: "fickle"})}
			sessions[name] = ss
		}
		var got string
		switch b.directive {
		case "sql":
			got = runSQL(ss, b.input, b.args["params"])
		case "copy":
			got = runCopy(ss, b.input)
		default:
			t.Fatalf("%s: unknown directive %q", path, b.directive)
		}
		got = strings.TrimRight(got, "\n")
		if !*rewrite && got != b.expected {
			t.Errorf("%s:\n%s\n---- got:\n%s\n---- want:\n%s", path, b.input, got, b.expected)
		}
		writeBlock(&out, b, got)
	}
	for _, ss := range sessions {
		ss.s.Close()
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// skipWithoutTextSearchData skips a script that has a needs-tsearch-data
// block, listing files of PostgreSQL's tsearch_data (its dictionaries read
// them), when the directory fickle reads them from lacks one: a machine
// without PostgreSQL 15 installed.
func skipWithoutTextSearchData(t *testing.T, blocks []scriptBlock) {
	for _, b := range blocks {
		if b.directive != "needs-tsearch-data" {
			continue
		}
		for _, f := range strings.Fields(b.input) {
			if _, err := os.Stat(filepath.Join(tsearch.DataDir(), f)); err != nil {
				t.Skipf("needs PostgreSQL 15's tsearch_data (set %s or install postgresql-15): %v", tsearch.DataDirEnv, err)
			}
		}
	}
}

func writeBlock(out *strings.Builder, b scriptBlock, got string) {
	out.WriteString(b.directive)
	keys := []string{"session", "params"}
	for _, k := range keys {
		if v, ok := b.args[k]; ok {
			fmt.Fprintf(out, " %s=%s", k, v)
		}
	}
	out.WriteString("\n" + b.input + "\n----\n" + got + "\n\n")
}

func errText(err error) string {
	pe := pgerror.Flatten(err)
	s := fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message)
	if pe.Position > 0 {
		s += fmt.Sprintf(" (at %d)", pe.Position)
	}
	return s + "\n"
}

func runSQL(ss *scriptSession, sql, params string) string {
	s := ss.s
	sts, err := s.Parse(sql)
	if err != nil {
		return errText(err)
	}
	var out strings.Builder
	for _, st := range sts {
		if tc, ok := st.TxnControl(); ok {
			out.WriteString(runTxnControl(ss, st, tc))
			continue
		}
		if ss.failed {
			out.WriteString("ERROR 25P02: current transaction is aborted, commands ignored until end of transaction block\n")
			continue
		}
		res, ptypes, err := prepareAndRun(s, st, params)
		if err != nil {
			if s.InTxn() && s.txn.explicit {
				ss.failed = true
			}
			out.WriteString(errText(err))
			continue
		}
		if ptypes != "" {
			out.WriteString("params: " + ptypes + "\n")
		}
		out.WriteString(formatResult(s, res))
	}
	return out.String()
}

func runTxnControl(ss *scriptSession, st *Statement, tc TxnControl) string {
	s := ss.s
	if err := st.TxnControlError(); err != nil {
		return errText(err)
	}
	var err error
	tag := ""
	switch tc.Kind {
	case TxnBegin:
		tag, err = "BEGIN", s.Begin(tc.Options, true)
	case TxnCommit:
		tag = "COMMIT"
		if ss.failed {
			tag, err = "ROLLBACK", s.Rollback()
		} else {
			err = s.Commit()
		}
		ss.failed = false
	case TxnRollback:
		tag, err = "ROLLBACK", s.Rollback()
		ss.failed = false
	case TxnSavepoint:
		if ss.failed {
			return "ERROR 25P02: current transaction is aborted, commands ignored until end of transaction block\n"
		}
		tag, err = "SAVEPOINT", s.Savepoint(context.Background(), tc.Savepoint)
	case TxnRelease:
		tag, err = "RELEASE", s.ReleaseSavepoint(tc.Savepoint)
	case TxnRollbackTo:
		tag, err = "ROLLBACK", s.RollbackToSavepoint(tc.Savepoint)
		if err == nil {
			ss.failed = false
		}
	}
	if err != nil {
		return errText(err)
	}
	return tag + "\n"
}

// prepareAndRun prepares st with unknown parameter types and executes it
// with the given text parameters parsed as the inferred types.
func prepareAndRun(s *Session, st *Statement, params string) (*Result, string, error) {
	p, err := s.Prepare(st, nil)
	if err != nil {
		return nil, "", err
	}
	var args []any
	var names []string
	if params != "" {
		vals := strings.Split(params, ",")
		for i, oid := range p.ParamOIDs {
			typ, _ := types.TypeByOid(types.Oid(p.ValueOIDs[i]))
			name := typ.Name()
			if oid != p.ValueOIDs[i] { // a domain, read as its base type
				name, _ = catalogNames{s: s}.RegOut(types.OidRegtype, int64(oid))
			}
			names = append(names, name)
			if i >= len(vals) || vals[i] == "NULL" {
				args = append(args, nil)
				continue
			}
			v, err := s.ParseText(typ, vals[i])
			if err != nil {
				return nil, "", err
			}
			args = append(args, v)
		}
	}
	res, err := s.Execute(context.Background(), p, args)
	return res, strings.Join(names, ", "), err
}

func formatResult(s *Session, res *Result) string {
	var out strings.Builder
	for _, n := range res.Notices {
		fmt.Fprintf(&out, "%s %s: %s\n", n.Severity, n.Code, n.Message)
	}
	if res.Copy != nil {
		if res.Copy.In {
			return "COPY IN requested\n"
		}
		tag, err := s.CopyOut(context.Background(), res.Copy, func(line []byte) error {
			out.Write(line)
			return nil
		})
		if err != nil {
			return errText(err)
		}
		return out.String() + tag + "\n"
	}
	if len(res.Columns) > 0 {
		names := make([]string, len(res.Columns))
		for i, c := range res.Columns {
			t, _ := types.TypeByOid(types.Oid(c.TypeOID))
			names[i] = c.Name + ":" + t.Name()
		}
		out.WriteString(strings.Join(names, " | ") + "\n")
		for _, r := range res.Rows {
			vals := make([]string, len(r))
			for i, v := range r {
				if v == nil {
					vals[i] = "NULL"
					continue
				}
				vals[i] = s.FormatText(types.Type{Oid: types.Oid(res.Columns[i].TypeOID), Typmod: res.Columns[i].TypeMod}, v)
				if vals[i] == "" {
					vals[i] = "''"
				}
			}
			out.WriteString(strings.Join(vals, " | ") + "\n")
		}
		if strings.HasPrefix(res.Tag, "SELECT") || res.Tag == "SHOW" {
			return out.String()
		}
	}
	return out.String() + res.Tag + "\n"
}

func runCopy(ss *scriptSession, input string) string {
	s := ss.s
	sql, data, _ := strings.Cut(input, "\n")
	sts, err := s.Parse(sql)
	if err != nil {
		return errText(err)
	}
	res, _, err := prepareAndRun(s, sts[0], "")
	if err != nil {
		return errText(err)
	}
	if res.Copy == nil || !res.Copy.In {
		return "not a COPY FROM\n"
	}
	tag, err := s.CopyIn(context.Background(), res.Copy, strings.NewReader(data+"\n"))
	if err != nil {
		if s.InTxn() && s.txn.explicit {
			ss.failed = true
		}
		return errText(err)
	}
	return tag + "\n"
}
