package history

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sameHistory compares two histories field by field, ignoring the key
// index cache.
func sameHistory(t *testing.T, want, got *History) {
	t.Helper()
	var a, b bytes.Buffer
	want.Dump(&a)
	got.Dump(&b)
	if a.String() != b.String() {
		t.Fatalf("histories differ:\nwant:\n%s\ngot:\n%s", a.String(), b.String())
	}
	if !reflect.DeepEqual(want.Keys, got.Keys) || !reflect.DeepEqual(want.Sessions, got.Sessions) ||
		!reflect.DeepEqual(want.CommitOrder, got.CommitOrder) || len(want.Txns) != len(got.Txns) {
		t.Fatalf("histories differ in keys, sessions, commit order or length")
	}
	for i := range want.Txns {
		w, g := want.Txns[i], got.Txns[i]
		if len(w.Ops) == 0 && len(g.Ops) == 0 {
			w.Ops, g.Ops = nil, nil
		}
		sameRows(t, i, &w, &g)
		if !reflect.DeepEqual(w, g) {
			t.Fatalf("transaction %d differs:\nwant %+v\ngot  %+v", i, w, g)
		}
	}
}

// sameRows fails t unless want and got hold the same row images, however
// kept (in memory or in a file), and leaves them both in memory.
func sameRows(t *testing.T, txn int, want, got *Txn) {
	t.Helper()
	if want.HasRows() != got.HasRows() || want.rowsLen() != got.rowsLen() {
		t.Fatalf("transaction %d: row images known %v, %d of them; want %v, %d", txn, got.HasRows(), got.rowsLen(), want.HasRows(), want.rowsLen())
	}
	if !want.HasRows() {
		return
	}
	texts := make([]string, want.rowsLen())
	for i := range texts {
		w, err := want.Row(i)
		if err != nil {
			t.Fatal(err)
		}
		g, err := got.Row(i)
		if err != nil {
			t.Fatal(err)
		}
		if w != g {
			t.Fatalf("transaction %d operation %d: row image %q, want %q", txn, i, g, w)
		}
		texts[i] = w
	}
	want.ClearRows()
	got.ClearRows()
	want.Rows, got.Rows = texts, texts
}

func roundTripJSONL(t *testing.T, h *History) *History {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, h, Header{Meta: map[string]string{"seed": "1"}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONL(&buf, "rt.jsonl")
	if err != nil {
		t.Fatalf("ReadJSONL: %v", err)
	}
	return got
}

func TestJSONLRoundTripsGeneratedHistories(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		o := GenOptions{Txns: 60, Sessions: 1 + int(seed%5), Keys: 1 + int(seed%7), Seed: seed,
			Mixed: seed%2 == 0, AbortRate: 0.2, CommitOrder: seed%3 != 0}
		h := Generate(o)
		if err := h.Validate(); err != nil {
			t.Fatalf("seed %d: generated history invalid: %v", seed, err)
		}
		sameHistory(t, h, roundTripJSONL(t, h))
	}
}

func TestJSONLRoundTripsStatementsRowsAndOddReads(t *testing.T) {
	b := NewBuilder()
	b.InitWrite(b.Key("acct", "1"), 100)
	s1, s2 := b.Session("conn \"one\""), b.Session("conn-2")
	t1 := b.Txn(s1, ReadCommitted).Stmt(Statement{SQL: "UPDATE acct SET bal = 1 WHERE id = 1", Table: "acct", Predicate: "id = 1"}).
		Read("1", Init).Write("1").Stmt(Statement{SQL: "DELETE FROM acct WHERE id = 2", Table: "acct"}).Delete("2").Times(10, 20).Commit()
	tb := b.Txn(s2, Causal).Name("x\ty")
	tb.Stmt(Statement{SQL: "SELECT * FROM acct WHERE bal > 0 -- ünïcode", Table: "acct", Predicate: "bal > 0"}).
		Read("1", t1).ReadAbsent("2", t1).ReadFiltered("3", Init)
	tb.EndStmt().Table("").ReadValue("z", NoWriter, -7).WriteValue("z", 1<<62)
	t2 := tb.End(ServerAborted)
	b.Txn(s1, Serializable).Read("z", t2) // pending, reads an aborted write
	b.CommitOrder(t1)
	h := b.MustHistory()
	h.Txns[t1].Rows = []string{`{"id":1,"bal":100}`, `{"id":1,"bal":1}`, ""}
	sameHistory(t, h, roundTripJSONL(t, h))
}

func TestJSONLToleratesATruncatedLastLine(t *testing.T) {
	h := Generate(GenOptions{Txns: 30, Seed: 7, CommitOrder: true})
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, h, Header{}); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	headerEnd := bytes.IndexByte(full, '\n') + 1
	for cut := headerEnd; cut < len(full); cut += 7 {
		got, err := ReadJSONL(bytes.NewReader(full[:cut]), "cut.jsonl")
		if err != nil {
			t.Fatalf("cut at byte %d of %d: %v", cut, len(full), err)
		}
		if len(got.Txns) > len(h.Txns) {
			t.Fatalf("cut at %d: %d transactions, more than the %d written", cut, len(got.Txns), len(h.Txns))
		}
	}
	// A bad line that is not the last one is an error, with its line number.
	bad := append(append([]byte{}, full[:headerEnd]...), "{\"e\":\"begin\",\"t\":1\n"...)
	bad = append(bad, full[headerEnd:]...)
	_, err := ReadJSONL(bytes.NewReader(bad), "bad.jsonl")
	if err == nil || !strings.HasPrefix(err.Error(), "bad.jsonl:2: ") {
		t.Fatalf("error = %v, want one naming bad.jsonl:2", err)
	}
}

func TestJSONLReadsGzipTransparently(t *testing.T) {
	h := Generate(GenOptions{Txns: 50, Seed: 3, CommitOrder: true})
	var plain, zipped bytes.Buffer
	if err := WriteJSONL(&plain, h, Header{}); err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain.Bytes())
	zw.Close()
	got, err := ReadJSONL(&zipped, "h.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	sameHistory(t, h, got)
}

func TestJSONLRejectsBadInputNamingTheLine(t *testing.T) {
	const hdr = `{"format":"fickle-history","version":1}` + "\n"
	cases := []struct{ name, in, want string }{
		{"empty", "", "empty input"},
		{"wrong format", `{"format":"other","version":1}` + "\n", "h.jsonl:1: header names format \"other\""},
		{"future version", `{"format":"fickle-history","version":9}` + "\n", "version 9 is not supported"},
		{"unknown event", hdr + `{"e":"frob","t":0}` + "\n", "h.jsonl:2: unknown event \"frob\""},
		{"txn never began", hdr + `{"e":"commit","t":4}` + "\n", "h.jsonl:2: \"commit\" event names transaction 4, which did not begin"},
		{"undeclared key", hdr + `{"e":"begin","t":1,"s":0}` + "\n" + `{"e":"write","t":1,"k":3}` + "\n", "h.jsonl:3: undeclared key 3"},
		{"bad level", hdr + `{"e":"begin","t":1,"s":0,"level":"XX"}` + "\n", "h.jsonl:2: unknown isolation level"},
		{"began twice", hdr + `{"e":"begin","t":1,"s":0}` + "\n" + `{"e":"begin","t":1,"s":0}` + "\n", "h.jsonl:3: transaction 1 began twice"},
		{"event after end", hdr + `{"e":"begin","t":1,"s":0}` + "\n" + `{"e":"commit","t":1}` + "\n" + `{"e":"stmt","t":1}` + "\n", "h.jsonl:4: \"stmt\" event for transaction 1, which has ended"},
		{"co after unplaced", hdr + `{"e":"begin","t":1,"s":0}` + "\n" + `{"e":"co","t":1,"after":5}` + "\n", "h.jsonl:3: unknown transaction 5"},
		{"bad read flag", hdr + `{"e":"key","k":0,"name":"x"}` + "\n" + `{"e":"begin","t":1,"s":0}` + "\n" + `{"e":"read","t":1,"r":[[0,0,"q"]]}` + "\n", "h.jsonl:4: bad read flag 'q'"},
		{"trailing garbage", hdr + `{"e":"checkpoint"} x` + "\n", "h.jsonl:2: byte 20: trailing data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(c.in), "h.jsonl")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestJSONLGolden reads each testdata/jsonl/*.jsonl and compares its dump
// with the .golden file beside it (go test -run JSONLGolden -update
// rewrites them).
func TestJSONLGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/jsonl/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no golden inputs in testdata/jsonl")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			h, err := ReadJSONL(in, filepath.Base(f))
			var out bytes.Buffer
			if err != nil {
				out.WriteString("error: " + err.Error() + "\n")
			} else {
				h.Dump(&out)
			}
			checkGolden(t, strings.TrimSuffix(f, ".jsonl")+".golden", out.Bytes())
		})
	}
}

func TestWriterFlushesAtCommitAndNotBefore(t *testing.T) {
	var out bytes.Buffer // what reached the underlying writer
	w, err := NewWriter(&out, Header{Meta: map[string]string{"seed": "9", "a\"b": "c\nd"}})
	if err != nil {
		t.Fatal(err)
	}
	w.Session(0, "conn-0")
	w.Begin(1, 0, Snapshot, 5, "")
	w.Stmt(1, Statement{SQL: "UPDATE t SET v = 1 WHERE k = 'x'", Table: "t", Predicate: "k = 'x'"})
	w.Read(1, []ReadItem{{Key: Key{"t", "x"}, Writer: Init, Returned: true, Row: `{"k":"x","v":0}`}})
	w.Write(1, WriteItem{Key: Key{"t", "x"}, Row: `{"k":"x","v":1}`})
	w.CommitOrder(1, Init)
	if out.Len() != 0 {
		t.Fatalf("%d bytes written before the commit: the writer must buffer", out.Len())
	}
	if err := w.Commit(1, 6); err != nil {
		t.Fatal(err)
	}
	want := `{"format":"fickle-history","version":1,"meta":{"a\"b":"c\nd","seed":"9"}}
{"e":"session","s":0,"name":"conn-0"}
{"e":"begin","t":1,"s":0,"level":"SI","start":5}
{"e":"stmt","t":1,"sql":"UPDATE t SET v = 1 WHERE k = 'x'","table":"t","pred":"k = 'x'"}
{"e":"key","k":0,"table":"t","name":"x"}
{"e":"read","t":1,"r":[[0,0,"r",null,{"k":"x","v":0}]]}
{"e":"write","t":1,"k":0,"row":{"k":"x","v":1}}
{"e":"co","t":1,"after":0}
{"e":"commit","t":1,"end":6}
`
	if out.String() != want {
		t.Fatalf("after Commit the file holds:\n%s\nwant:\n%s", out.String(), want)
	}
	w.Begin(2, 0, ReadCommitted, 0, "")
	w.Scan(2, Scan{Table: "t", AsOf: 1, Filtered: []Key{{"t", "x"}}})
	w.Abort(2, ServerAborted, "40001", 0)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(3, 0); err == nil {
		t.Fatal("Commit after Close succeeded")
	}
	h, err := ReadJSONL(strings.NewReader(out.String()), "w.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got := dumpString(h)
	wantDump := "T1 S0 SI committed: r(t/x,T0,ret) w(t/x)\n" +
		"  stmt 0: sql=\"UPDATE t SET v = 1 WHERE k = 'x'\" table=\"t\" pred=\"k = 'x'\"\n" +
		"T2 S0 RC server-aborted: r(t/x,T1)\nco: T0 T1\n"
	if got != wantDump {
		t.Fatalf("read back:\n%s\nwant:\n%s", got, wantDump)
	}
	if h.Txns[1].Rows[1] != `{"k":"x","v":1}` || h.Txns[1].Start != 5 || h.Txns[1].End != 6 {
		t.Fatalf("rows or times lost: %q %d %d", h.Txns[1].Rows, h.Txns[1].Start, h.Txns[1].End)
	}
}

func TestJSONLKeepsElleVersionOrders(t *testing.T) {
	const edn = `{:type :ok, :f :txn, :value [[:append 1 1]], :process 0}
{:type :ok, :f :txn, :value [[:append 1 2] [:append 2 5]], :process 1}
{:type :ok, :f :txn, :value [[:r 1 [1 2]] [:r 2 [5]]], :process 2}
`
	h, err := ReadElleEDN(strings.NewReader(edn), "la.edn")
	if err != nil {
		t.Fatal(err)
	}
	if got := h.VersionOrder; len(got) != 2 || !reflect.DeepEqual(got[0], []TxnID{1, 2}) || !reflect.DeepEqual(got[1], []TxnID{2}) {
		t.Fatalf("version order = %v, want [[1 2] [2]]", got)
	}
	back := roundTripJSONL(t, h)
	if !reflect.DeepEqual(back.VersionOrder, h.VersionOrder) {
		t.Fatalf("version order after JSONL = %v, want %v", back.VersionOrder, h.VersionOrder)
	}
}

func TestIDMapStaysSmallForSpreadIDs(t *testing.T) {
	var m idMap
	for i := range 40 {
		id := int64(1000) << i
		m.set(id, uint32(i))
		if got, ok := m.get(id); !ok || got != uint32(i) {
			t.Fatalf("get(%d) = %d, %v", id, got, ok)
		}
	}
	if len(m.dense) > 1<<12 {
		t.Fatalf("dense part grew to %d entries for 40 ids", len(m.dense))
	}
	for i := range 5000 {
		m.set(int64(i), uint32(i))
	}
	if got, ok := m.get(4999); !ok || got != 4999 {
		t.Fatalf("get(4999) = %d, %v", got, ok)
	}
}

func TestJSONLToleratesACutGzipStream(t *testing.T) {
	h := Generate(GenOptions{Txns: 200, Seed: 5, CommitOrder: true})
	var plain, zipped bytes.Buffer
	if err := WriteJSONL(&plain, h, Header{}); err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain.Bytes())
	zw.Close()
	cut := zipped.Bytes()[:zipped.Len()*2/3]
	got, err := ReadJSONL(bytes.NewReader(cut), "cut.jsonl.gz")
	if err != nil {
		t.Fatalf("a gzip stream cut by a crash: %v", err)
	}
	if len(got.Txns) < 2 || len(got.Txns) > len(h.Txns) {
		t.Fatalf("read %d transactions from a cut stream of %d", len(got.Txns), len(h.Txns))
	}
}
