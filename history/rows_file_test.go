package history_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/historyview"
	"github.com/fickle-db/fickle/oracle"
)

// lostUpdate is two serializable transactions that read the same balance
// and both write it, with row images.
const lostUpdate = `{"format":"fickle-history","version":1}
{"e":"key","k":0,"table":"acct","name":"1"}
{"e":"write","t":0,"k":0,"row":{"id":1,"bal":100}}
{"e":"session","s":1}
{"e":"session","s":2}
{"e":"begin","t":1,"s":1,"level":"SER"}
{"e":"begin","t":2,"s":2,"level":"SER"}
{"e":"stmt","t":1,"sql":"SELECT bal FROM acct WHERE id = 1","table":"acct"}
{"e":"read","t":1,"r":[[0,0,"r",null,{"id":1,"bal":100}]]}
{"e":"stmt","t":2,"sql":"SELECT bal FROM acct WHERE id = 1","table":"acct"}
{"e":"read","t":2,"r":[[0,0,"r",null,{"id":1,"bal":100}]]}
{"e":"stmt","t":1,"sql":"UPDATE acct SET bal = 110 WHERE id = 1","table":"acct"}
{"e":"write","t":1,"k":0,"row":{"id":1,"bal":110}}
{"e":"stmt","t":2,"sql":"UPDATE acct SET bal = 120 WHERE id = 1","table":"acct"}
{"e":"write","t":2,"k":0,"row":{"id":1,"bal":120}}
{"e":"commit","t":1}
{"e":"commit","t":2}
`

// readBoth reads text from memory and, written to a file, from the file.
func readBoth(t *testing.T, text string) (fromMemory, fromFile *history.History, path string) {
	t.Helper()
	fromMemory, err := history.ReadJSONL(strings.NewReader(text), "mem.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if fromFile, err = history.Import(path, history.FormatFickle); err != nil {
		t.Fatal(err)
	}
	return fromMemory, fromFile, path
}

// explained returns h's serializability violation drawn as a page, and
// h exported to JSONL: both show every row image.
func explained(t *testing.T, h *history.History) (page, export []byte, err error) {
	t.Helper()
	res := oracle.Check(h, oracle.Options{Level: history.Serializable})
	if res.Verdict != oracle.Violation || res.Explanation == nil {
		t.Fatalf("verdict %v, want a violation", res.Verdict)
	}
	var p, e bytes.Buffer
	if err := historyview.Render(&p, h, historyview.Options{Title: "h", Cycle: res.Explanation}); err != nil {
		return nil, nil, err
	}
	err = history.WriteJSONL(&e, h, history.Header{})
	return p.Bytes(), e.Bytes(), err
}

func TestAnExplanationOfAHistoryReadFromAFileShowsItsRowImages(t *testing.T) {
	fromMemory, fromFile, _ := readBoth(t, lostUpdate)
	wantPage, wantExport, err := explained(t, fromMemory)
	if err != nil {
		t.Fatal(err)
	}
	page, export, err := explained(t, fromFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(wantPage, []byte(`\"bal\":120`)) && !bytes.Contains(wantPage, []byte(`"bal":120`)) {
		t.Fatalf("the page shows no row image:\n%s", wantPage)
	}
	if !bytes.Equal(page, wantPage) || !bytes.Equal(export, wantExport) {
		t.Fatalf("the history read from a file shows other row images:\n%s\nwant:\n%s", export, wantExport)
	}
}

func TestRowImagesOfAFileChangedAfterTheReadAreAnErrorNamingIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(path string, st os.FileInfo) error
		want   string
	}{
		{"a row rewritten, size and time kept", func(path string, st os.FileInfo) error {
			text := strings.Replace(lostUpdate, `"bal":120`, `"bal":121`, 1)
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return err
			}
			return os.Chtimes(path, st.ModTime(), st.ModTime())
		}, "changed"},
		{"truncated", func(path string, _ os.FileInfo) error {
			return os.Truncate(path, int64(len(lostUpdate)/2))
		}, "changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, fromFile, path := readBoth(t, lostUpdate)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.change(path, st); err != nil {
				t.Fatal(err)
			}
			_, _, err = explained(t, fromFile)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %s that says %q", err, path, tc.want)
			}
		})
	}
}

func TestRowImagesOfAFileTruncatedAfterTheyWereFirstReadAreAnError(t *testing.T) {
	_, fromFile, path := readBoth(t, lostUpdate)
	if _, _, err := explained(t, fromFile); err != nil { // opens the file
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(lostUpdate)/2)); err != nil {
		t.Fatal(err)
	}
	_, _, err := explained(t, fromFile)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "shorter") {
		t.Fatalf("err = %v, want one naming %s that says it is shorter", err, path)
	}
}

func TestAClientReadCheckOfAHistoryReadFromAFileIsTheSame(t *testing.T) {
	// T2's WHERE v <= 0 returns x2 as init wrote it (v = 1): a returned row
	// its predicate rejects, which only the row images show.
	text := `{"format":"fickle-history","version":1}
{"e":"key","k":0,"table":"t","name":"x1"}
{"e":"key","k":1,"table":"t","name":"x2"}
{"e":"write","t":0,"k":0,"row":{"id":"x1","v":1}}
{"e":"write","t":0,"k":1,"row":{"id":"x2","v":1}}
{"e":"session","s":1}
{"e":"begin","t":1,"s":1,"level":"RC"}
{"e":"stmt","t":1,"sql":"SELECT * FROM t WHERE v <= 0","table":"t","pred":"v <= 0"}
{"e":"read","t":1,"r":[[1,0,"r",null,{"id":"x2","v":1}]],"client":{"table":"t","where":[["v","<=",0]]}}
{"e":"commit","t":1}
`
	fromMemory, fromFile, path := readBoth(t, text)
	opts := oracle.Options{Level: history.ReadCommitted}
	want, got := oracle.Check(fromMemory, opts), oracle.Check(fromFile, opts)
	if want.Verdict != oracle.Violation || !reflect.DeepEqual(got, want) {
		t.Fatalf("from the file: %+v, from memory: %+v", got, want)
	}
	// Its rows were read into memory: the file may go.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := oracle.Check(fromFile, opts); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the file went: %+v, want %+v", got, want)
	}
}
