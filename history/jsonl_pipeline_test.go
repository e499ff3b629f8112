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

func TestReadJSONLPanicInTheParserReachesTheCaller(t *testing.T) {
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
