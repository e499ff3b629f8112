package sqlexec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// copyLines returns n records "i\tvalue i" numbered from 1, each ended by a
// line break, with bad replacing record number at (none if at is 0).
func copyLines(n, at int, bad string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i == at {
			b.WriteString(bad + "\n")
			continue
		}
		fmt.Fprintf(&b, "%d\tvalue %d\n", i, i)
	}
	return b.String()
}

// failingReader returns its text and then err instead of io.EOF, as a
// connection that breaks.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// copyOutcome is what a text COPY's rows did: the rows handed to insert, in
// the COPY's text format, and the error it ended with.
type copyOutcome struct {
	rows []string
	err  string
}

// runTextCopy feeds input to a text COPY of the table t(id int, v text) with
// options opts, decoding on one goroutine or two, and records the rows given
// to insert, which fails at row failAt (1-based; 0 never). With lost the
// input's end is a failed read instead of io.EOF.
func runTextCopy(t *testing.T, opts, input string, lost bool, failAt int, concurrent bool) copyOutcome {
	t.Helper()
	s := newCopyTestSession(t)
	mustRun(t, s, "CREATE TABLE t (id int, v text)")
	req := startCopy(t, s, "COPY t FROM STDIN "+opts)
	x := &execCtx{ctx: context.Background(), s: s, env: s.newEnv()}
	var in io.Reader = strings.NewReader(input)
	if lost {
		in = &failingReader{r: in, err: errors.New("connection lost")}
	}
	r := bufio.NewReaderSize(in, 1<<16)
	var out copyOutcome
	insert := func(row []any) error {
		if len(out.rows)+1 == failAt {
			return pgerror.New(pgerror.UniqueViolation, "insert failed")
		}
		out.rows = append(out.rows, fmt.Sprint(row...))
		return nil
	}
	var err error
	if concurrent {
		err = copyTextRowsConcurrently(x, req.copy, nil, r, insert)
	} else {
		next, insertContext := textCopyRows(x, req.copy, nil, r)
		for {
			row, nerr := next()
			if nerr == io.EOF {
				break
			}
			if nerr != nil {
				err = nerr
				break
			}
			if err = insert(row); err != nil {
				err = insertContext(err)
				break
			}
		}
	}
	if err != nil {
		out.err = err.Error()
		var pe *pgerror.Error
		if errors.As(err, &pe) {
			out.err = fmt.Sprintf("%s %s (%s; %s)", pe.Code, pe.Message, pe.Detail, pe.Where)
		}
	}
	return out
}

// TestConcurrentTextCopyMatchesOneGoroutine runs text and CSV COPYs through
// the two-goroutine decoder and through the one-goroutine reader: the rows
// inserted and the error (its line included) are the same, and nothing
// after the first failure in input order reaches insert.
func TestConcurrentTextCopyMatchesOneGoroutine(t *testing.T) {
	tests := []struct {
		name   string
		opts   string
		input  string
		lost   bool // the input ends in a failed read
		failAt int
		want   string // the error the COPY ends with ("" for none)
	}{
		{name: "several batches", input: copyLines(1000, 0, "") + "\\.\n", want: ""},
		{name: "end of input without marker", input: copyLines(600, 0, "")},
		{name: "last line without line break", input: strings.TrimSuffix(copyLines(300, 0, ""), "\n")},
		{name: "marker then garbage", input: copyLines(300, 0, "") + "\\.\nnot\ta\tcopy row\n", want: ""},
		{name: "bad value in the third batch", input: copyLines(1000, 600, "x\tvalue"), want: "22P02"},
		{name: "missing column at a batch's end", input: copyLines(1000, 256, "256"), want: "COPY t, line 256"},
		{name: "extra column at a batch's start", input: copyLines(1000, 257, "257\ta\tb"), want: "COPY t, line 257"},
		{name: "escapes and NULL", input: copyLines(1000, 513, "513\t\\x41\\tb\\\\") + "514\t\\N\n"},
		{name: "read error after the rows", input: copyLines(700, 0, ""), lost: true, want: "connection lost"},
		{name: "read error in a record", input: strings.TrimSuffix(copyLines(700, 0, ""), "\n"), lost: true, want: "connection lost"},
		{name: "insert fails", input: copyLines(1000, 0, ""), failAt: 300, want: "insert failed (; COPY t, line 300)"},
		{name: "insert fails before a bad value", input: copyLines(1000, 400, "x"), failAt: 300, want: "insert failed"},
		{name: "header", opts: "(HEADER)", input: "id\tv\n" + copyLines(500, 0, "")},
		{name: "insert fails after a header", opts: "(HEADER)", input: "id\tv\n" + copyLines(500, 0, ""), failAt: 300, want: "insert failed (; COPY t, line 301)"},
		{name: "header line counted", opts: "(HEADER)", input: "id\tv\n" + copyLines(500, 300, "300"), want: "COPY t, line 301"},
		{name: "CSV with a quoted line break", opts: "(FORMAT csv)", input: "1,\"a\nb\"\n2,\"c\"\"d\"\n3,\n4,\"\"\n5,x\n"},
		{name: "CSV unterminated at the end", opts: "(FORMAT csv)", input: "1,a\n2,\"b\n3,c\n", want: "unterminated CSV quoted field"},
		{name: "CSV bad value", opts: "(FORMAT csv)", input: strings.ReplaceAll(copyLines(900, 800, "y,z"), "\t", ","), want: "22P02"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			one := runTextCopy(t, tt.opts, tt.input, tt.lost, tt.failAt, false)
			two := runTextCopy(t, tt.opts, tt.input, tt.lost, tt.failAt, true)
			if !strings.Contains(two.err, tt.want) || tt.want == "" && two.err != "" {
				t.Errorf("error %q, want one with %q", two.err, tt.want)
			}
			if two.err != one.err {
				t.Errorf("two goroutines: error %q, one goroutine: %q", two.err, one.err)
			}
			if len(two.rows) != len(one.rows) {
				t.Fatalf("two goroutines inserted %d rows, one goroutine %d", len(two.rows), len(one.rows))
			}
			for i := range one.rows {
				if two.rows[i] != one.rows[i] {
					t.Fatalf("row %d: two goroutines %q, one goroutine %q", i+1, two.rows[i], one.rows[i])
				}
			}
		})
	}
}

// endlessCopyRows is a text COPY input that never ends: row after row, and a
// call of cancel once it has given after rows.
type endlessCopyRows struct {
	n, after int
	cancel   func()
	pending  []byte
}

func (e *endlessCopyRows) Read(p []byte) (int, error) {
	if len(e.pending) == 0 {
		e.n++
		if e.n == e.after {
			e.cancel()
		}
		e.pending = fmt.Appendf(nil, "%d\tv\n", e.n)
	}
	n := copy(p, e.pending)
	e.pending = e.pending[n:]
	return n, nil
}

// TestConcurrentTextCopyCancels cancels a COPY FROM STDIN mid-stream: it
// fails with 57014, the table stays empty, and no decoding goroutine is left
// behind.
func TestConcurrentTextCopyCancels(t *testing.T) {
	s := newCopyTestSession(t)
	mustRun(t, s, "CREATE TABLE t (id int, v text)")
	before := runtime.NumGoroutine()
	req := startCopy(t, s, "COPY t FROM STDIN")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := s.CopyIn(ctx, req, &endlessCopyRows{after: 5000, cancel: cancel})
	var pe *pgerror.Error
	if !errors.As(err, &pe) || pe.Code != pgerror.QueryCanceled {
		t.Fatalf("got %v, want 57014", err)
	}
	if got := textOf(t, s, "COPY t TO STDOUT"); got != "" {
		t.Errorf("the table holds %d bytes after the canceled COPY", len(got))
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before the COPY", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDecodesAloneOnlyForSessionFreeTypes: a COPY into columns whose text
// input looks up the catalog or a type registry decodes on the session's
// goroutine.
func TestDecodesAloneOnlyForSessionFreeTypes(t *testing.T) {
	tests := []struct {
		columns string
		want    bool
	}{
		{"a int, b bigint, c numeric, d text, e char(84), f timestamptz, g bool, h jsonb", true},
		{"a int, b regclass", false},
		{"a int, b int[]", false},
	}
	for _, tt := range tests {
		t.Run(tt.columns, func(t *testing.T) {
			s := newCopyTestSession(t)
			mustRun(t, s, "CREATE TABLE t ("+tt.columns+")")
			req := startCopy(t, s, "COPY t FROM STDIN")
			if got := decodesAlone(req.copy); got != tt.want {
				t.Errorf("decodesAlone = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCopyDecoderHandsItsPanicToTheInserter: a panic while decoding ends the
// decoder and reaches the inserting goroutine as a batch, which raises it
// there, where the statement's recovery turns it into XX000.
func TestCopyDecoderHandsItsPanicToTheInserter(t *testing.T) {
	d := &textRecordDecoder{target: []int{3}} // a column the (empty) table lacks
	raw := make(chan rawCopyBatch, 1)
	decoded := make(chan decodedCopyBatch, 1)
	raw <- rawCopyBatch{records: []string{"1"}}
	close(raw)
	decodeCopyBatches(d, raw, decoded, make(chan struct{}))
	if b := <-decoded; b.panicked == nil {
		t.Fatalf("got %+v, want the decoder's panic", b)
	}
}

// FuzzTextCopyPaths feeds untrusted COPY data, text and CSV, through the
// one-goroutine reader and the two-goroutine decoder: neither may panic, and
// both hand insert the same rows and end with the same error.
func FuzzTextCopyPaths(f *testing.F) {
	for _, s := range []string{"1\ta\n2\t\\N\n", "1,\"a\nb\"\n2,x\n", "1\tx\n\\.\nafter\n", "x\ty\n", "1\t\\x41\\101\n", "\"unterminated\n"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, input string, csv bool) {
		opts := ""
		if csv {
			opts = "(FORMAT csv)"
		}
		one := runTextCopy(t, opts, input, false, 0, false)
		two := runTextCopy(t, opts, input, false, 0, true)
		if fmt.Sprint(one) != fmt.Sprint(two) {
			t.Fatalf("input %q: one goroutine %v, two %v", input, one, two)
		}
	})
}
