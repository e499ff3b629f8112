package history

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fuzzImporter checks that a parser never panics, that whatever it accepts
// is a valid history, and, for a format fickle also writes, that exporting
// what it read reaches a fixed point: the export reads back to a history
// that exports to the same bytes. Seeds: small hand-made inputs, an export of a
// generated history, and (when present) the shared histories in the format.
func fuzzImporter(f *testing.F, format Format, seeds []string, shared string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	if exportable(format) {
		var buf bytes.Buffer
		if err := Export(&buf, Generate(GenOptions{Txns: 12, Sessions: 3, Keys: 4, Seed: 1, Mixed: true, AbortRate: 0.2, CommitOrder: true}), format); err == nil {
			f.Add(buf.Bytes())
		}
	}
	if shared != "" {
		files, _ := filepath.Glob(filepath.Join(sharedHistories, shared))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(bytes.NewReader(data), "fuzz", format)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %v is a %T, want *ParseError", err, err)
			}
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("accepted an invalid history: %v", err)
		}
		if !exportable(format) {
			return
		}
		var first, second bytes.Buffer
		if err := Export(&first, h, format); err != nil {
			return
		}
		h2, err := Read(bytes.NewReader(first.Bytes()), "export", format)
		if err != nil {
			t.Fatalf("the export of an accepted history does not read back: %v\n%s", err, first.Bytes())
		}
		if err := Export(&second, h2, format); err != nil {
			t.Fatalf("the history read back from an export does not export: %v", err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("export is not a fixed point:\n%s\nthen:\n%s", first.Bytes(), second.Bytes())
		}
	})
}

// exportable reports whether Export writes f.
func exportable(f Format) bool {
	for _, g := range WriteFormats {
		if f == g {
			return true
		}
	}
	return false
}

func FuzzReadJSONL(f *testing.F) {
	fuzzImporter(f, FormatFickle, []string{
		`{"format":"fickle-history","version":1}` + "\n" + `{"e":"key","k":0,"name":"x"}` + "\n" +
			`{"e":"begin","t":1,"s":0,"level":"SI"}` + "\n" + `{"e":"scan","t":1,"asof":0,"except":[[0,0,"d"]]}` + "\n" +
			`{"e":"write","t":1,"k":0,"row":{"a":[1,2.5e3,"\u00e9"]}}` + "\n" + `{"e":"co","t":1,"after":0}` + "\n" + `{"e":"commit","t":1}` + "\n" +
			`{"e":"checkpoint"}` + "\n" + `{"e":"begin","t":2,"s":0}` + "\n" + `{"e":"read","t":2,"r":[[0,0,"r",5,null]]}`,
	}, "")
}

func FuzzReadAWDIT(f *testing.F) {
	fuzzImporter(f, FormatAWDIT, []string{"w 0 0\nw 1 0\n=====\nw 0 1\n-----\nr 0 1\nr 1 0\n", "r 1 1\n-\n=\n"}, "awdit-tests/*/*.txt")
}

func FuzzReadPlume(f *testing.F) {
	fuzzImporter(f, FormatPlume, []string{"w(1,1,0,-1)\nr(1,1,1,2)\n", "r(1,0,0,0)\nw(2,3,0,0)\n"}, "tap/text/*.txt")
}

func FuzzReadDBCopJSON(f *testing.F) {
	fuzzImporter(f, FormatDBCop, []string{
		`[[{"events":[["w",0,1],["r",1,null]],"committed":true}],[{"events":[{"Read":{"variable":0,"version":1}}],"committed":false}]]`,
		`{"params":{"id":0},"data":[[{"events":[{"Write":{"variable":"x","version":2}}],"committed":true}]]}`,
	}, "")
}

func FuzzReadDBCopHist(f *testing.F) {
	fuzzImporter(f, FormatDBCopHist, []string{"// s\n[x:=1 y:=1] [z==? z:=3]\n---\n[x==1]!\n"}, "")
}

func FuzzReadDBCopBincode(f *testing.F) {
	fuzzImporter(f, FormatDBCopBincode, []string{
		bincode(append(bincodeHeader, 2, 1, 1, true, 7, 3, true, true, 1, 2, false, 7, 3, true, true, 7, 4, false, true)...),
	}, "tap/dbcop/*/history.bincode")
}

func FuzzReadElleEDN(f *testing.F) {
	fuzzImporter(f, FormatElle, []string{
		"{:type :invoke, :f :txn, :value [[:append :k 1] [:r :k nil]], :process 0, :time 5}\n" +
			"#jepsen.history.Op{:type :ok, :f :txn, :value [[:append :k 1] [:r :k [1]]], :process 0} ; c\n",
		`[{:type :ok :f :txn :value [[:w 1 1] [:r 2 nil]] :process 0} #_ {:x 1} {:type :fail :f :txn :value [[:w 3 \a]] :process "p"}]`,
	}, "tap/elle/*.edn")
}

func FuzzReadElleJSON(f *testing.F) {
	fuzzImporter(f, FormatElleJSON, []string{
		`{"type":"ok","f":"txn","value":[["append",1,1],["r",1,[1]]],"process":0,"time":3}` + "\n" + `{"type":"fail","f":"txn","value":[["w",2,1]],"process":1}`,
		`[{"type":"ok","f":"txn","value":[["r",1,null]],"process":0}]`,
	}, "")
}

func FuzzReadViper(f *testing.F) {
	fuzzImporter(f, FormatViper, []string{`{"value": [["w", 1, 2, true], ["r", 1, 2, true]]}` + "\n" + `{"value": [["r", 2, 0, false]]}`}, "tap/viper/*/*.log")
}

func FuzzReadCobra(f *testing.F) {
	fuzzImporter(f, FormatCobra, []string{
		cobraRec('S', 10) + cobraRec('W', 100, -5, 0) + cobraRec('C', 10) + cobraRec('S', 11) +
			cobraRec('R', 10, 100, -5, 0) + cobraRec('R', 0, 0xdeadbeef, 7, 0) + cobraRec('A', 11),
	}, "")
}
