package history

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

func TestDetectBytesRecognizesEachFormat(t *testing.T) {
	cases := []struct {
		ext, head string
		want      Format
	}{
		{".jsonl", `{"format":"fickle-history","version":1}`, FormatFickle},
		{"", `{"format":"fickle-history","version":1}`, FormatFickle},
		{".txt", "w 0 0\nw 1 0\n=====\n", FormatAWDIT},
		{"", "r(1,1,0,0)\n", FormatPlume},
		{".txt", "// c\n[x:=1]\n", FormatDBCopHist},
		{".hist", "[x:=1]\n", FormatDBCopHist},
		{".json", `{"params":{"id":0},"data":[]}`, FormatDBCop},
		{".json", `[[{"events":[]}]]`, FormatDBCop},
		{".edn", `{:type :ok}`, FormatElle},
		{"", `{:index 0, :type :ok, :f :txn}`, FormatElle},
		{".json", `{"type":"ok","f":"txn"}`, FormatElleJSON},
		{".json", `[{"type":"ok"}]`, FormatElleJSON},
		{"", `{"value": [["r", 1, 0, true]]}`, FormatViper},
		{".log", "S\x00\x00", FormatCobra},
		{".bincode", "\x00", FormatDBCopBincode},
	}
	for _, c := range cases {
		if got, ok := DetectBytes(c.ext, []byte(c.head)); !ok || got != c.want {
			t.Errorf("DetectBytes(%q, %q) = %q, %v; want %q", c.ext, c.head, got, ok, c.want)
		}
	}
	if f, ok := DetectBytes(".txt", []byte("hello world")); ok {
		t.Errorf("DetectBytes on prose = %q, want no guess", f)
	}
}

func TestReadDetectReadsGzippedStreams(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("w(1,1,0,0)\nr(1,1,1,1)\n"))
	zw.Close()
	h, err := ReadDetect(&z, "stdin", FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpString(h); got != "T1 S0 unknown committed: w(1=1)\nT2 S1 unknown committed: r(1,T1=1,ret)\n" {
		t.Fatalf("dump:\n%s", got)
	}
	if _, err := ReadDetect(strings.NewReader("hello"), "stdin", FormatAuto); err == nil || !strings.Contains(err.Error(), "stdin: cannot tell the history format") {
		t.Fatalf("error = %v", err)
	}
}
