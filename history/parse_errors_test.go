package history

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// bincode builds a dbcop bincode history from u64s and raw bytes.
func bincode(parts ...any) string {
	var b bytes.Buffer
	for _, p := range parts {
		switch v := p.(type) {
		case int:
			binary.Write(&b, binary.LittleEndian, uint64(v))
		case bool:
			if v {
				b.WriteByte(1)
			} else {
				b.WriteByte(0)
			}
		case string:
			b.WriteString(v)
		}
	}
	return b.String()
}

// bincodeHeader is the five u64 parameters and three empty strings.
var bincodeHeader = []any{0, 1, 1, 1, 1, 0, 0, 0}

func cobraRec(kind byte, vals ...int64) string {
	b := []byte{kind}
	for _, v := range vals {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return string(b)
}

// TestImportersRejectBadInputNamingFileAndLine feeds each parser broken
// input: the error names the file and the line (or byte offset) and says
// what is wrong.
func TestImportersRejectBadInputNamingFileAndLine(t *testing.T) {
	cases := []struct {
		format Format
		in     string
		want   string
	}{
		{FormatPlume, "w(1,1,0,0)\nx(1,2)\n", `f:2: bad operation "x(1,2)"`},
		{FormatPlume, "r(1,1,0)\n", "f:1: bad operation \"r(1,1,0)\": want four comma-separated integers"},
		{FormatPlume, "r(1,1,0,-2)\n", "f:1: bad operation \"r(1,1,0,-2)\": negative number"},
		{FormatPlume, "w(1,1,0,0)\nw(2,1,1,0)\n", "f:2: transaction 0 appears in sessions 0 and 1"},
		{FormatPlume, "w(1,1,0,0)\nw(1,1,0,1)\n", "f:2: value 1 written to key 1 twice"},
		{FormatDBCop, `[[{"events":[{"Write":{"variable":0,"version":null}}]}]]`, "f: session 0 transaction 0: event 0: write without a version"},
		{FormatDBCop, "[[{\"events\":[\n{\"Frob\":{}}]}]]", "unknown event kind \"Frob\""},
		{FormatDBCop, "[\n[{\"events\": ]]", "f:2: bad JSON"},
		{FormatDBCop, `{"params":{}}`, `dbcop JSON object without "data"`},
		{FormatDBCopHist, "[x:=1]\n---\n[y==1 z]\n", `f:3: bad event "z"`},
		{FormatDBCopHist, "[x:=1\n", "f:1: transaction \"[x:=1\" has no closing ']'"},
		{FormatDBCopHist, "[x==-1]\n", `f:1: bad event "x==-1"`},
		{FormatDBCopBincode, bincode(append(bincodeHeader, 1, 1, 5)...), "f: byte 72: length 1 exceeds the 8 bytes left"},
		{FormatDBCopBincode, bincode(append(bincodeHeader, 1, 1, 1, true, 1, 1, "\x07")...), "f: byte 105: bad bool byte 7"},
		{FormatDBCopBincode, "\x01\x02", "f: byte 0: unexpected end of input"},
		{FormatElle, "{:type :ok, :f :txn, :value [[:r 1 nil]]}\n{:type :ok :f :txn :value [[:r 1 [1 :x]]]}\n", "f:2: micro-operation [r 1 [1 x]]: list elements must be integers"},
		{FormatElle, "{:type :ok, :f :txn, :value [[:frob 1 1]]}\n", `f:1: micro-operation [frob 1 1]: unknown function "frob"`},
		{FormatElle, "{:type :ok, :f :txn,\n :value [[:r 1 nil]}\n", "f:2: bad EDN: unexpected '}'"},
		{FormatElle, "{:type :nope, :f :txn}\n", `f:1: operation type "nope"`},
		{FormatElle, "{:type :ok, :f :txn, :value [[:w 1 1] [:append 2 1]]}\n", "mixes rw-register"},
		{FormatElle, "[1 2]\n", "f:1: want an operation map, got a number"},
		{FormatElleJSON, "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",1,null]]}\n{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"w\",1]]}\n", "f:2: bad micro-operation"},
		{FormatElleJSON, "{\"type\":\"ok\",\n\"f\": }", "f:2: bad JSON"},
		{FormatViper, "{\"value\": [[\"r\", 1, 0, true]]}\n{\"value\": [[\"x\", 1, 0, true]]}\n", `f:2: bad operation ["x",1,0,true]`},
		{FormatViper, "{\"value\": [[\"w\", 1, 1, \"yes\"]]}\n", "f:1: bad operation [\"w\",1,1,\"yes\"]: the fourth element must be a bool"},
		{FormatViper, "{\"value\": 3}\n", "f:1: bad transaction"},
		{FormatCobra, cobraRec('S', 1) + cobraRec('W', 1, 2, 3) + "X", "f: byte 34: unknown record type 'X'"},
		{FormatCobra, cobraRec('S', 1) + cobraRec('C', 2), "f: byte 9: 'C' of transaction 2, which is not the open one"},
		{FormatCobra, cobraRec('R', 1, 2, 3, 4), "f: byte 0: read outside a transaction"},
		{FormatCobra, cobraRec('S', 1)[:5], "f: byte 0: record 'S' cut off"},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.in), "f", c.format)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q:\n error %v\n want %q", c.format, c.in, err, c.want)
		}
	}
}

// TestImportersReadTheirDocumentedShapes pins one small input per format.
func TestImportersReadTheirDocumentedShapes(t *testing.T) {
	cases := []struct {
		format Format
		in     string
		want   string
	}{
		{FormatPlume, "w(1,1,0,0)\nw(2,5,1,1)\nw(3,1,0,0)\nw(1,9,0,-1)\nr(2,5,0,2)\nw(4,1,0,-1)\n",
			"T1 S0 unknown committed: w(1=1) | w(3=1)\nT2 S1 unknown committed: w(2=5)\n" +
				"T3 S0 unknown server-aborted: w(1=9) | w(4=1)\nT4 S0 unknown committed: r(2,T2=5,ret)\n"},
		{FormatDBCopHist, "// s1\n[x:=1 y:=1] [z==? z:=3]\n---\n[x==1 y==0]!\n[y==1]\n",
			"T1 S0 unknown committed: w(x=1) | w(y=1)\nT2 S0 unknown committed: r(z,T0,del) | w(z=3)\n" +
				"T3 S1 unknown server-aborted: r(x,T1=1,ret) | r(y,T0=0,ret)\nT4 S1 unknown committed: r(y,T1=1,ret)\n"},
		{FormatDBCop, `[[{"events":[["w",0,1],{"Read":{"variable":1,"version":null}}],"committed":true}],[{"events":[["r",0,1]],"committed":false}]]`,
			"T1 S0 unknown committed: w(0=1) | r(1,T0,del)\nT2 S1 unknown server-aborted: r(0,T1=1,ret)\n"},
		{FormatDBCopBincode, bincode(append(bincodeHeader, 2, 1, 1, true, 7, 3, true, true, 1, 2, false, 7, 3, true, true, 7, 4, false, true)...),
			"T1 S0 unknown committed: w(7=3)\nT2 S1 unknown committed: r(7,T1=3,ret)\nT3 S1 unknown server-aborted: w(7=4)\n"},
		{FormatElle, "{:type :invoke, :f :txn, :value [[:append :k 1] [:r :k nil]], :process 0, :time 5}\n" +
			"{:type :invoke, :f :txn, :value [[:r :k nil]], :process 1, :time 6}\n" +
			"{:type :ok, :f :txn, :value [[:append :k 1] [:r :k [1]]], :process 0, :time 7}\n" +
			"{:type :info, :f :txn, :value [[:r :k nil]], :process 1, :time 8}\n" +
			"#jepsen.history.Op{:type :ok, :f :txn, :value [[:r :k [1]] [:append :k 2]], :process 2} ; comment\n" +
			"{:type :invoke, :f :start, :process :nemesis}\n",
			"T1 S0 unknown committed: w(:k=1) | r(:k,T1=1,ret)\nT2 S1 unknown committed:\nT3 S2 unknown committed: r(:k,T1=1,ret) | w(:k=2)\n"},
		{FormatCobra, cobraRec('S', 10) + cobraRec('W', 100, -5, 0) + cobraRec('C', 10) + cobraRec('S', 11) +
			cobraRec('R', 10, 100, -5, 0) + cobraRec('R', 0, 0xdeadbeef, 7, 0) + cobraRec('A', 11) + cobraRec('S', 12),
			"T1 S0 unknown committed: w(-5=100)\nT2 S0 unknown server-aborted: r(-5,T1=100,ret) | r(7,T0=3735928559,ret)\nT3 S0 unknown pending:\n"},
	}
	for _, c := range cases {
		h, err := Read(strings.NewReader(c.in), "f", c.format)
		if err != nil {
			t.Errorf("%s: %v", c.format, err)
			continue
		}
		if got := dumpString(h); got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.format, got, c.want)
		}
	}
}
