package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

func runConvertCapture(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	convertOut, convertErr = &o, &e
	defer func() { convertOut, convertErr = os.Stdout, os.Stderr }()
	code = run(append([]string{"convert"}, args...))
	return code, o.String(), e.String()
}

func TestConvertCommandConvertsAndReportsErrors(t *testing.T) {
	dir := t.TempDir()
	awdit := filepath.Join(dir, "h.txt")
	os.WriteFile(awdit, []byte("w 1 1\n-\n=\nr 1 1\nr 2 0\n"), 0o644)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("w 1 1\nx(1,2)\n"), 0o644)

	code, out, errOut := runConvertCapture("--to", "plume", awdit, "-")
	if code != 0 || out != "w(1,1,0,0)\nr(1,1,1,1)\nr(2,0,1,1)\n" {
		t.Fatalf("awdit to plume: code %d, out %q, err %q", code, out, errOut)
	}

	// Standard input, format detected from the content.
	convertIn = strings.NewReader("r(1,0,0,0)\n")
	code, out, errOut = runConvertCapture("--to", "awdit", "-", "-")
	convertIn = os.Stdin
	// The read of the initial value needs AWDIT's initial transaction,
	// ordered first by the marker key 2 (history.WriteAWDIT).
	if code != 0 || out != "w 2 0\nw 1 0\n-\n=\nr 2 0\nr 1 0\n-\n=\n" {
		t.Fatalf("stdin plume to awdit: code %d, out %q, err %q", code, out, errOut)
	}

	// Every writable format reads back as the same history.
	for _, f := range history.WriteFormats {
		dst := filepath.Join(dir, "out."+string(f))
		if code, _, errOut := runConvertCapture("--from", "awdit", "--to", string(f), awdit, dst); code != 0 {
			t.Fatalf("to %s: code %d: %s", f, code, errOut)
		}
		h, err := history.Import(dst, f)
		if err != nil {
			t.Fatalf("reading back %s: %v", f, err)
		}
		if len(h.Txns) != 3 || h.Txns[2].Ops[0].Writer != 1 {
			t.Fatalf("%s: read back %d transactions, first read from %d", f, len(h.Txns), h.Txns[2].Ops[0].Writer)
		}
	}

	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{awdit, "-"}, 2, "usage: fickle convert"},
		{[]string{"--to", "cobra", awdit, "-"}, 2, "cannot write format cobra"},
		{[]string{"--to", "nope", awdit, "-"}, 2, `unknown history format "nope"`},
		{[]string{"--to", "elle", bad, "-"}, 2, `bad.txt:2: bad operation "x(1,2)"`},
		{[]string{"--to", "elle", filepath.Join(dir, "missing.txt"), "-"}, 2, "no such file"},
		{[]string{"--to", "elle", awdit, filepath.Join(dir, "no/such/dir/out")}, 1, "no such file"},
		{[]string{"--to", "elle", "--elle-model", "set", awdit, "-"}, 2, `--elle-model: unknown Elle model "set"`},
		{[]string{"--to", "plume", "--elle-model", "list-append", awdit, "-"}, 2, "--elle-model: applies to --to elle only"},
		{[]string{"--to", "elle", "--elle-model", "list-append", awdit, "-"}, 2, "neither a commit order nor list-append reads"},
	}
	for _, c := range cases {
		code, _, errOut := runConvertCapture(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("convert %v: code %d, stderr %q; want code %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// TestConvertElleModels converts to Elle EDN in each model: auto keeps a
// list-append import list-append and writes other histories as
// rw-register; --elle-model picks explicitly, and list-append of a
// recorded history follows its commit order.
func TestConvertElleModels(t *testing.T) {
	dir := t.TempDir()
	la := filepath.Join(dir, "la.edn")
	os.WriteFile(la, []byte("{:type :ok, :process 0, :f :txn, :value [[:append 1 1]]}\n"+
		"{:type :ok, :process 1, :f :txn, :value [[:r 1 [1]] [:append 1 2]]}\n"), 0o644)
	recorded := filepath.Join(dir, "rec.jsonl")
	b := history.NewBuilder()
	s := b.Session("s")
	t1 := b.Txn(s, history.Serializable).WriteValue("1", 5).Commit()
	t2 := b.Txn(s, history.Serializable).ReadValue("1", t1, 5).WriteValue("1", 6).Commit()
	b.CommitOrder(t1, t2)
	var buf bytes.Buffer
	if err := history.WriteJSONL(&buf, b.MustHistory(), history.Header{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(recorded, buf.Bytes(), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--to", "elle", la, "-"}, "[[:r 1 [1]] [:append 1 2]]"},
		{[]string{"--to", "elle", "--elle-model", "rw-register", la, "-"}, "[[:r 1 1] [:w 1 2]]"},
		{[]string{"--to", "elle", recorded, "-"}, "[[:r 1 5] [:w 1 6]]"},
		{[]string{"--to", "elle", "--elle-model", "list-append", recorded, "-"}, "[[:r 1 [5]] [:append 1 6]]"},
	}
	for _, c := range cases {
		code, out, errOut := runConvertCapture(c.args...)
		if code != 0 || !strings.Contains(out, ":value "+c.want+"}") {
			t.Errorf("convert %v: code %d, stderr %q, out:\n%s\nwant a completion with %s", c.args, code, errOut, out, c.want)
		}
	}
}
