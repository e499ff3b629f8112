package history

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// panickingReader gives its text, then panics, as a broken io.Reader might.
type panickingReader struct{ r *strings.Reader }

func (p panickingReader) Read(b []byte) (int, error) {
	if p.r.Len() == 0 {
		panic("reader broke")
	}
	return p.r.Read(b)
}

func TestReadJSONLPanicInTheReaderReachesTheCaller(t *testing.T) {
	defer func() {
		if r := recover(); r != "reader broke" {
			t.Fatalf("recovered %v, want the reader's panic", r)
		}
	}()
	ReadJSONL(panickingReader{strings.NewReader(`{"format":"fickle-history","version":1}` + "\n")}, "p")
	t.Fatal("ReadJSONL returned")
}

func TestReadJSONLStopsItsParserAfterAnError(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"format":"fickle-history","version":1}` + "\n")
	b.WriteString(`{"e":"commit","t":7}` + "\n") // transaction 7 never began
	for i := range 200_000 {                     // far more than the batches in flight
		fmt.Fprintf(&b, `{"e":"session","s":%d}`+"\n", i)
	}
	before := runtime.NumGoroutine()
	_, err := ReadJSONL(&b, "h")
	if err == nil || !strings.Contains(err.Error(), "h:2:") {
		t.Fatalf("err = %v, want an error on line 2", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the read, %d before: the parser did not stop", n, before)
	}
}

func TestReadJSONLKeepsLineNumbersAcrossBatches(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"format":"fickle-history","version":1}` + "\n")
	const sessions = 3 * batchEvents
	for i := range sessions {
		fmt.Fprintf(&b, `{"e":"session","s":%d}`+"\n\n", i) // blank lines count too
	}
	b.WriteString(`{"e":"session","s":0}` + "\n")
	_, err := ReadJSONL(&b, "h")
	if want := fmt.Sprintf("h:%d:", 2*sessions+2); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one on line %d", err, 2*sessions+2)
	}
}

// sessionLines returns a JSONL input of n session events, each line
// sessionLineLen bytes, with bad in place of the lines given by number.
func sessionLines(n int, bad map[int]string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"format":"fickle-history","version":1}` + "\n")
	for i := range n {
		if s, ok := bad[i+2]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, `{"e":"session","s":%08d}`+"\n", i)
	}
	return b.Bytes()
}

// sessionLineLen is the length of sessionLines' lines with their newline.
const sessionLineLen = 27

// lineInBatch returns a line number well inside the batch seq of an input
// of sessionLines.
func lineInBatch(seq int) int { return (seq*batchText + batchText/2) / sessionLineLen }

func TestReadJSONLReportsTheFirstBadLineWhenALaterBatchFailsFirst(t *testing.T) {
	first, second := lineInBatch(1), lineInBatch(2)
	in := sessionLines(lineInBatch(6), map[int]string{first: `{"e":`, second: `not json`})
	cfg := pipelineConfig{parsers: 4, beforeParse: func(seq int) {
		if seq == 1 {
			time.Sleep(50 * time.Millisecond) // batch 2 fails first
		}
	}}
	_, err := readJSONLPipeline(bytes.NewReader(in), "h", 0, cfg)
	if want := fmt.Sprintf("h:%d:", first); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v, want one on line %d", err, first)
	}
}

func TestReadJSONLRaisesAParserPanicInItsTurn(t *testing.T) {
	panicIn := func(seq int) func(int) {
		return func(s int) {
			if s == seq {
				panic("parser broke")
			}
		}
	}
	t.Run("after the batches before it", func(t *testing.T) {
		defer func() {
			if r := recover(); r != "parser broke" {
				t.Fatalf("recovered %v, want the parser's panic", r)
			}
		}()
		readJSONLPipeline(bytes.NewReader(sessionLines(lineInBatch(6), nil)), "h", 0, pipelineConfig{parsers: 4, beforeParse: panicIn(3)})
		t.Fatal("the read returned")
	})
	t.Run("not after an earlier batch's error", func(t *testing.T) {
		bad := lineInBatch(1)
		in := sessionLines(lineInBatch(6), map[int]string{bad: `{"e":`})
		_, err := readJSONLPipeline(bytes.NewReader(in), "h", 0, pipelineConfig{parsers: 4, beforeParse: panicIn(3)})
		if want := fmt.Sprintf("h:%d:", bad); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("err = %v, want one on line %d", err, bad)
		}
	})
}

func TestReadJSONLGivesTheSameHistoryWithAnyNumberOfParsers(t *testing.T) {
	h := Generate(GenOptions{Txns: 3000, Sessions: 8, OpsPerTxn: 8, Keys: 500, Seed: 3, CommitOrder: true})
	var in bytes.Buffer
	if err := WriteJSONL(&in, h, Header{}); err != nil {
		t.Fatal(err)
	}
	if in.Len() < 4*batchText {
		t.Fatalf("the input is %d bytes, fewer than four batches", in.Len())
	}
	var want []byte
	for _, parsers := range []int{1, 2, 4, 7} {
		got, err := readJSONLPipeline(bytes.NewReader(in.Bytes()), "h", 0, pipelineConfig{parsers: parsers})
		if err != nil {
			t.Fatalf("%d parsers: %v", parsers, err)
		}
		var out bytes.Buffer
		if err := WriteJSONL(&out, got, Header{}); err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = out.Bytes()
		} else if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%d parsers read a different history than 1", parsers)
		}
	}
}

func TestReadJSONLFindsTheHeaderAfterBatchesOfBlankLines(t *testing.T) {
	blank := strings.Repeat("\n", 2*batchText)
	_, err := ReadJSONL(strings.NewReader(blank+`{"format":"fickle-history","version":1}`+"\nnot json\n"), "h")
	if want := fmt.Sprintf("h:%d:", 2*batchText+2); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v, want one on line %d", err, 2*batchText+2)
	}
	if _, err := ReadJSONL(strings.NewReader(blank), "h"); err == nil || !strings.Contains(err.Error(), "empty input") {
		t.Fatalf("err = %v for blank lines only, want the empty input's", err)
	}
}
