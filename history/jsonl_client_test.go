package history

import (
	"bytes"
	"strings"
	"testing"
)

// clientFig2 is paper 000's Figure 2 as a client history (the figure is
// not in the paper's text; this follows its caption and §3.2): T1 sets v to
// -2 in both rows; T2's SELECT ... WHERE v <= 0 returns x2 as T1 wrote it
// and not x1, so T2 must have seen init's x1.
const clientFig2 = `{"format":"fickle-history","version":1}
{"e":"key","k":0,"table":"t","name":"x1"}
{"e":"key","k":1,"table":"t","name":"x2"}
{"e":"write","t":0,"k":0,"row":{"id":"x1","v":1}}
{"e":"write","t":0,"k":1,"row":{"id":"x2","v":1}}
{"e":"session","s":1,"name":"S1"}
{"e":"session","s":2,"name":"S2"}
{"e":"begin","t":1,"s":1,"level":"SER"}
{"e":"stmt","t":1,"sql":"UPDATE t SET v = -2","table":"t"}
{"e":"read","t":1,"r":[[0,0,"r"],[1,0,"r"]]}
{"e":"write","t":1,"k":0,"row":{"id":"x1","v":-2}}
{"e":"write","t":1,"k":1,"row":{"id":"x2","v":-2}}
{"e":"commit","t":1}
{"e":"begin","t":2,"s":2,"level":"SER"}
{"e":"stmt","t":2,"sql":"SELECT * FROM t WHERE v <= 0","table":"t","pred":"v <= 0"}
{"e":"read","t":2,"r":[[1,1,"r",null,{"id":"x2","v":-2}]],"client":{"table":"t","where":[["v","<=",0]]}}
{"e":"commit","t":2}
`

func TestClientReadsAreReadIntoTheirStatements(t *testing.T) {
	in := clientFig2 + `{"e":"begin","t":3,"s":1,"level":"RC"}
{"e":"read","t":3,"r":[],"client":{"table":"t","where":[["id","=","x1"],["v",">",-3.5],["v","<",0]]}}
{"e":"write","t":3,"k":0,"del":true}
{"e":"commit","t":3}
`
	h, err := ReadJSONL(strings.NewReader(in), "c.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !h.HasClientReads() {
		t.Fatal("HasClientReads = false")
	}
	t2 := h.Txns[2]
	want := ClientRead{Table: "t", Where: []Condition{{Column: "v", Op: OpLe, Value: "0"}}}
	if c := t2.Statements[0].Client; c == nil || c.Table != want.Table || len(c.Where) != 1 || c.Where[0] != want.Where[0] {
		t.Fatalf("T2's client read = %+v, want %+v", c, want)
	}
	if t2.Statements[0].Predicate != "v <= 0" || len(t2.Ops) != 1 || t2.Rows[0] != `{"id":"x2","v":-2}` {
		t.Fatalf("T2 = %+v", t2)
	}
	// A client read that returned nothing, outside any stmt, is a
	// statement of its own without ops; the delete after it is another.
	t3 := h.Txns[3]
	if len(t3.Statements) != 2 || t3.Statements[0].Client == nil || len(t3.Statements[0].Client.Where) != 3 ||
		t3.Statements[1].Client != nil || len(t3.Ops) != 1 || t3.Ops[0].Event != 1 {
		t.Fatalf("T3 = %+v", t3)
	}
}

func TestClientReadsRoundTripThroughJSONL(t *testing.T) {
	in := clientFig2 + `{"e":"begin","t":3,"s":1,"level":"RC"}
{"e":"read","t":3,"r":[],"client":{"table":"t","where":[]}}
{"e":"stmt","t":3,"sql":"SELECT * FROM t WHERE id = 'x2'","table":"t"}
{"e":"read","t":3,"r":[[1,1,"r"]],"client":{"table":"t","where":[["id","=","x2"],["on",">=",false]]}}
{"e":"stmt","t":3,"sql":"DELETE FROM t WHERE v <> 100","table":"t"}
{"e":"read","t":3,"r":[],"client":{"table":"t","where":[["v","<>",1e2]]}}
{"e":"commit","t":3}
`
	h, err := ReadJSONL(strings.NewReader(in), "c.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got := roundTripJSONL(t, h)
	sameHistory(t, h, got)
	if !got.HasClientReads() || got.Txns[3].Statements[1].Client.Where[1].Value != "false" {
		t.Fatalf("client reads lost: %+v", got.Txns[3].Statements)
	}
}

func TestClientReadsRejectBadInputNamingTheLine(t *testing.T) {
	const head = `{"format":"fickle-history","version":1}
{"e":"key","k":0,"table":"t","name":"x1"}
{"e":"key","k":1,"table":"u","name":"y"}
{"e":"write","t":0,"k":0,"row":{"v":1}}
{"e":"begin","t":1,"s":1}
`
	cases := []struct{ name, line, want string }{
		{"unknown comparison", `{"e":"read","t":1,"r":[],"client":{"table":"t","where":[["v","like",1]]}}`, `c.jsonl:6: client read: unknown comparison "like"`},
		{"null constant", `{"e":"read","t":1,"r":[],"client":{"table":"t","where":[["v","=",null]]}}`, "c.jsonl:6: client read: constant null is not"},
		{"object constant", `{"e":"read","t":1,"r":[],"client":{"table":"t","where":[["v","=",{"a":1}]]}}`, "c.jsonl:6: client read: constant"},
		{"short condition", `{"e":"read","t":1,"r":[],"client":{"table":"t","where":[["v","="]]}}`, "c.jsonl:6: client read: a condition is [column, op, constant]"},
		{"filtered item", `{"e":"read","t":1,"r":[[0,0]],"client":{"table":"t"}}`, "c.jsonl:6: client read lists key t/x1 without \"r\""},
		{"item of another table", `{"e":"read","t":1,"r":[[1,0,"r"]],"client":{"table":"t"}}` + "\n" + `{"e":"commit","t":1}`, "lists only the rows it returned, not u/y"},
		{"two in one statement", `{"e":"stmt","t":1}` + "\n" + `{"e":"read","t":1,"r":[],"client":{"table":"t"}}` + "\n" +
			`{"e":"read","t":1,"r":[],"client":{"table":"t"}}`, "c.jsonl:8: a second client read in one statement"},
		{"write without row image", `{"e":"read","t":1,"r":[],"client":{"table":"t"}}` + "\n" + `{"e":"write","t":1,"k":0}`, "writes t/x1 without a row image"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(head+c.line+"\n"), "c.jsonl")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// FuzzReadJSONLClientReads: whatever the reader accepts is valid and
// survives a round trip through the writer.
func FuzzReadJSONLClientReads(f *testing.F) {
	f.Add([]byte(clientFig2))
	f.Add([]byte(`{"format":"fickle-history","version":1}
{"e":"key","k":0,"table":"t","name":"1"}
{"e":"begin","t":1,"s":0,"level":"PC"}
{"e":"read","t":1,"r":[],"client":{"table":"t","where":[["a","<","\u00e9\/"],["b",">=",-0.5e-3],["c","<>",true]]}}
{"e":"write","t":1,"k":0,"row":{"a":"z"}}
{"e":"stmt","t":1}
{"e":"read","t":1,"r":[[0,1,"r",null,{"a":"z"}]],"client":{"table":"t","where":[]}}
{"e":"commit","t":1}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadJSONL(bytes.NewReader(data), "fuzz")
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %v is a %T, want *ParseError", err, err)
			}
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("accepted an invalid history: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, h, Header{}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadJSONL(&buf, "again")
		if err != nil {
			t.Fatalf("cannot read back what was written: %v\n%s", err, buf.String())
		}
		if got.HasClientReads() != h.HasClientReads() {
			t.Fatalf("client reads: %v before the round trip, %v after", h.HasClientReads(), got.HasClientReads())
		}
	})
}
