package history

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestJSONLReadSizedFromAFileIsTheSameHistory pins that sizing the
// history's slices from the input's length changes nothing read: the
// same file read from memory, through Import (which passes the file's
// size) and with a size hint far above the input's gives one history,
// row images and statements included.
func TestJSONLReadSizedFromAFileIsTheSameHistory(t *testing.T) {
	dir := t.TempDir()
	for seed := uint64(0); seed < 6; seed++ {
		h := Generate(GenOptions{Txns: 3000, Sessions: 1 + int(seed%5), Keys: 1 + int(seed*40), Seed: seed,
			Mixed: seed%2 == 0, AbortRate: 0.2, CommitOrder: seed%3 != 0})
		for i := range h.Txns {
			if i%3 == 1 && len(h.Txns[i].Ops) > 0 {
				h.Txns[i].Rows = make([]string, len(h.Txns[i].Ops))
				h.Txns[i].Rows[0] = `{"id":1,"bal":100}`
			}
		}
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, h, Header{}); err != nil {
			t.Fatal(err)
		}
		fromMemory, err := ReadJSONL(bytes.NewReader(buf.Bytes()), "mem.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		sameHistory(t, h, fromMemory)
		path := filepath.Join(dir, "h.jsonl")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fromFile, err := Import(path, FormatFickle)
		if err != nil {
			t.Fatal(err)
		}
		sameHistory(t, fromMemory, fromFile)
		oversized, err := readJSONLSized(bytes.NewReader(buf.Bytes()), "big.jsonl", 1<<28)
		if err != nil {
			t.Fatal(err)
		}
		sameHistory(t, fromMemory, oversized)
	}
}
