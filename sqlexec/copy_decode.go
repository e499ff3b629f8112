package sqlexec

import (
	"bufio"
	"io"

	"github.com/fickle-db/fickle/internal/pgencoding"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// copyDecodeBatch is the number of records a text COPY FROM hands to its
// decoding goroutine at once: enough to make the hand-over's cost small per
// row, few enough that the rows in flight stay a small part of the load.
const copyDecodeBatch = 256

// copyBatchesInFlight bounds the batches read but not yet inserted: one the
// decoder works on while the inserting goroutine inserts the one before it.
const copyBatchesInFlight = 2

// rawCopyBatch is a run of records read from a COPY's input, in order, and
// how the read after the last of them ended: at the end-of-data marker, or
// with err (io.EOF at the end of the input). rows and lines are an inserted
// batch's storage, empty, for the decoder to reuse.
type rawCopyBatch struct {
	records []string
	end     bool
	err     error
	rows    [][]any
	lines   []int64
}

// decodedCopyBatch is the table rows of a rawCopyBatch's records, in order,
// up to the first that failed; err is that failure, else the batch's read
// error, io.EOF at the end of the data. panicked carries a panic of the
// decoder to the inserting goroutine, which raises it again. records is the
// raw batch's storage, decoded, for the reader to reuse.
type decodedCopyBatch struct {
	rows [][]any
	// lines are each row's line number, and headers the records before
	// the first row (a HEADER line): row i's record is records[headers+i].
	// Both give a failure to insert a row its context.
	lines    []int64
	headers  int
	err      error
	panicked any
	records  []string
}

// decodesAlone reports whether the text input of every column a COPY
// lists depends on no state but the statement's settings (no catalog look-up,
// no type registry), so that another goroutine may decode its rows while
// the session inserts.
func decodesAlone(cp *copyPlan) bool {
	for _, c := range cp.target {
		switch cp.t.cols[c].typ.Oid {
		case types.OidBool, types.OidInt2, types.OidInt4, types.OidInt8,
			types.OidFloat4, types.OidFloat8, types.OidNumeric,
			types.OidText, types.OidVarchar, types.OidBpchar, types.OidName, types.OidChar,
			types.OidBytea, types.OidUUID, types.OidDate, types.OidTimestamp, types.OidTimestamptz,
			types.OidTime, types.OidInterval, types.OidJSON, types.OidJSONB:
		default:
			return false
		}
	}
	return true
}

// copyTextRowsConcurrently runs a text or CSV COPY FROM on two goroutines:
// the caller's reads the records from r and inserts their rows in input
// order, another splits and decodes the records of the batch after the one
// being inserted. The rows insert handles and the error returned are those
// of reading and inserting one row at a time: the first failure in input
// order, nothing inserted after it. The decoder has ended when this returns,
// and it never touches r, so the connection is the caller's alone.
func copyTextRowsConcurrently(x *execCtx, cp *copyPlan, conv *pgencoding.Converter, r *bufio.Reader, insert func([]any) error) error {
	env := *x.env // the decoder's own copy: the session may change x.env
	d := newTextRecordDecoder(&env, cp, conv)
	raw := make(chan rawCopyBatch, copyBatchesInFlight)
	decoded := make(chan decodedCopyBatch, copyBatchesInFlight)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		decodeCopyBatches(d, raw, decoded, stop)
	}()
	rawOpen := true
	defer func() {
		close(stop)
		if rawOpen {
			close(raw)
		}
		<-done
	}()
	inFlight := 0
	var spareRecords [][]string // storage of decoded batches' records
	var spareRows [][][]any     // storage of inserted batches' rows
	var spareLines [][]int64    // and of their line numbers
	for {
		for rawOpen && inFlight < copyBatchesInFlight {
			b := readRawCopyBatch(r, cp.opts, takeSpare(&spareRecords))
			b.rows, b.lines = takeSpare(&spareRows), takeSpare(&spareLines)
			raw <- b
			inFlight++
			if b.end || b.err != nil {
				close(raw)
				rawOpen = false
			}
		}
		b := <-decoded
		inFlight--
		if b.panicked != nil {
			panic(b.panicked)
		}
		for i, row := range b.rows {
			if err := insert(row); err != nil {
				return copyInsertContext(err, cp.t.name, b.lines[i], b.records[b.headers+i])
			}
		}
		if b.err == io.EOF {
			return nil
		}
		if b.err != nil {
			return b.err
		}
		spareRecords = append(spareRecords, b.records[:0])
		spareRows = append(spareRows, b.rows[:0])
		spareLines = append(spareLines, b.lines[:0])
	}
}

// takeSpare removes and returns the last of spares, nil if there is none.
func takeSpare[T any](spares *[]T) T {
	var spare T
	if n := len(*spares); n > 0 {
		spare = (*spares)[n-1]
		*spares = (*spares)[:n-1]
	}
	return spare
}

// readRawCopyBatch reads up to copyDecodeBatch records of a text or CSV
// COPY into records' storage (nil for new), stopping early at the
// end-of-data marker or a failed read.
func readRawCopyBatch(r *bufio.Reader, o copyOptions, records []string) rawCopyBatch {
	if records == nil {
		records = make([]string, 0, copyDecodeBatch)
	}
	b := rawCopyBatch{records: records}
	for len(b.records) < copyDecodeBatch {
		record, end, err := readRawRecord(r, o)
		if err != nil {
			b.err = err
			return b
		}
		if end {
			b.end = true
			b.err = io.EOF
			return b
		}
		b.records = append(b.records, record)
	}
	return b
}

// decodeCopyBatches is the decoding goroutine of copyTextRowsConcurrently:
// it decodes the batches of raw in order and sends their rows on decoded,
// and ends after a batch that failed or ended the data, when raw closes, or
// when stop closes.
func decodeCopyBatches(d *textRecordDecoder, raw <-chan rawCopyBatch, decoded chan<- decodedCopyBatch, stop <-chan struct{}) {
	defer func() {
		if p := recover(); p != nil {
			select {
			case decoded <- decodedCopyBatch{panicked: p}:
			case <-stop:
			}
		}
	}()
	for b := range raw {
		out := decodedCopyBatch{rows: b.rows, lines: b.lines, err: b.err, records: b.records}
		if out.rows == nil {
			out.rows = make([][]any, 0, copyDecodeBatch)
		}
		for _, record := range b.records {
			row, header, err := d.decode(record)
			if err != nil {
				out.err = err
				break
			}
			if !header {
				out.rows = append(out.rows, row)
				out.lines = append(out.lines, d.line)
			} else {
				out.headers++
			}
		}
		select {
		case decoded <- out:
		case <-stop:
			return
		}
		if out.err != nil {
			return
		}
	}
}
