package history

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// A transaction's row images (Txn.Rows, JSON, one per operation, "" where
// an operation has none) are kept in memory, or, for a history read from a
// regular JSONL file, as references into the file, read back on demand:
// only an explanation, a view or an export needs them, and the 234,000 of a
// recorded pgbench history are a third of the bytes a read would keep (a
// history with client reads, whose check reads them all, has them read into
// memory at the end of the read). Read them with Txn.Row, which knows both.

// rowRef is a row image's place in a history's file and the checksum of
// its bytes, so that a file changed since the read is noticed.
type rowRef struct {
	off int64
	n   uint32
	sum uint32
}

// HasRows reports whether t's row images are known (recorded in the
// source), in memory or in the history's file.
func (t *Txn) HasRows() bool { return t.Rows != nil || t.rowRefs != nil }

// rowsLen returns the number of t's row images, that of its operations
// when known.
func (t *Txn) rowsLen() int {
	if t.rowFile != nil {
		return len(t.rowRefs)
	}
	return len(t.Rows)
}

// HasRow reports whether operation i has a row image.
func (t *Txn) HasRow(i int) bool {
	if t.rowFile != nil {
		return i < len(t.rowRefs) && t.rowRefs[i].n > 0
	}
	return i < len(t.Rows) && t.Rows[i] != ""
}

// Row returns operation i's row image ("" when none), reading it from the
// history's file when it is kept there. The error names the file when it
// changed or shrank since the history was read from it.
func (t *Txn) Row(i int) (string, error) {
	if t.rowFile != nil {
		if i >= len(t.rowRefs) || t.rowRefs[i].n == 0 {
			return "", nil
		}
		return t.rowFile.read(t.rowRefs[i])
	}
	if i >= len(t.Rows) {
		return "", nil
	}
	return t.Rows[i], nil
}

// ClearRows makes t's row images unknown, wherever they were kept.
func (t *Txn) ClearRows() { t.Rows, t.rowRefs, t.rowFile = nil, nil, nil }

// KeepRows sets t's row images to those of src's operations idx, in that
// order, kept where src keeps them.
func (t *Txn) KeepRows(src *Txn, idx []int) {
	t.ClearRows()
	if !src.HasRows() {
		return
	}
	if src.rowFile != nil {
		t.rowFile, t.rowRefs = src.rowFile, make([]rowRef, 0, len(idx))
		for _, i := range idx {
			t.rowRefs = append(t.rowRefs, src.rowRefs[i])
		}
		return
	}
	t.Rows = make([]string, 0, len(idx))
	for _, i := range idx {
		t.Rows = append(t.Rows, src.Rows[i])
	}
}

// rowImage returns operation i's image as it is kept.
func (t *Txn) rowImage(i int) rowImage {
	switch {
	case t.rowFile != nil && i < len(t.rowRefs):
		return rowImage{ref: t.rowRefs[i]}
	case t.rowFile == nil && i < len(t.Rows):
		return rowImage{text: t.Rows[i]}
	}
	return rowImage{}
}

// growRows gives t's row images room for n more (its operations grew).
func (t *Txn) growRows(n int) {
	if t.rowFile != nil {
		t.rowRefs = grow(t.rowRefs, n)
	} else if t.Rows != nil {
		t.Rows = grow(t.Rows, n)
	}
}

// appendNoRow appends an operation's lack of a row image, when t's row
// images are known.
func (t *Txn) appendNoRow() {
	if t.rowFile != nil {
		t.rowRefs = append(grow(t.rowRefs, 1), rowRef{})
	} else if t.Rows != nil {
		t.Rows = append(grow(t.Rows, 1), "")
	}
}

// setRowImage sets operation i's row image, making t's row images known,
// with the length and capacity of its operations, when they were not; a
// reference is into file.
func (t *Txn) setRowImage(i int, row rowImage, file *rowFile) {
	switch {
	case row.ref.n > 0:
		if t.rowRefs == nil {
			t.rowRefs, t.rowFile = make([]rowRef, len(t.Ops), cap(t.Ops)), file
		}
		t.rowRefs[i] = row.ref
	case row.text != "":
		if t.Rows == nil {
			t.Rows = make([]string, len(t.Ops), cap(t.Ops))
		}
		t.Rows[i] = row.text
	}
}

// rowImage is one row image as an importer reads it: its text, or its
// reference into the history's file.
type rowImage struct {
	text string
	ref  rowRef
}

// rowFile is the file a history's row images are kept in. It is opened at
// the first image read back and closed when the history is dropped.
type rowFile struct {
	path string // as the history was read from it, for errors
	abs  string // to open it whatever the working directory later
	size int64
	mod  time.Time
	once sync.Once
	f    *os.File
	err  error
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func rowSum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// newRowFile describes the regular file at path as the history is read
// from it; st is its state then.
func newRowFile(path string, st os.FileInfo) *rowFile {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return &rowFile{path: path, abs: abs, size: st.Size(), mod: st.ModTime()}
}

func (rf *rowFile) open() {
	f, err := os.Open(rf.abs)
	if err != nil {
		rf.err = fmt.Errorf("%s: cannot read the history's row images back: %v", rf.path, err)
		return
	}
	st, err := f.Stat()
	if err == nil && (st.Size() != rf.size || !st.ModTime().Equal(rf.mod)) {
		err = errors.New("the file changed since the history was read from it")
	}
	if err != nil {
		f.Close()
		rf.err = fmt.Errorf("%s: cannot read the history's row images back: %v", rf.path, err)
		return
	}
	rf.f = f
	runtime.AddCleanup(rf, func(f *os.File) { f.Close() }, f)
}

// read returns the row image ref names, checking that the file still holds
// it.
func (rf *rowFile) read(ref rowRef) (string, error) {
	rf.once.Do(rf.open)
	if rf.err != nil {
		return "", rf.err
	}
	b := make([]byte, ref.n)
	_, err := rf.f.ReadAt(b, ref.off)
	switch {
	case errors.Is(err, io.EOF):
		return "", fmt.Errorf("%s: cannot read the history's row images back: the file is shorter than when the history was read from it", rf.path)
	case err != nil:
		return "", fmt.Errorf("%s: cannot read the history's row images back: %v", rf.path, err)
	case rowSum(b) != ref.sum:
		return "", fmt.Errorf("%s: cannot read the history's row images back: the file changed since the history was read from it (byte %d on)", rf.path, ref.off)
	}
	return unsafe.String(&b[0], len(b)), nil
}

// intoMemory replaces h's row images kept in rf by their texts, read from
// the file in one go.
func (rf *rowFile) intoMemory(h *History) error {
	data, err := os.ReadFile(rf.abs)
	if err != nil {
		return fmt.Errorf("reading the row images back: %v", err)
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.rowFile != rf {
			continue
		}
		texts := make([]string, len(t.rowRefs))
		for j, ref := range t.rowRefs {
			end := ref.off + int64(ref.n)
			switch {
			case ref.n == 0:
				continue
			case end > int64(len(data)):
				return errors.New("reading the row images back: the file is shorter than when the history was read from it")
			case rowSum(data[ref.off:end]) != ref.sum:
				return fmt.Errorf("reading the row images back: the file changed while the history was read from it (byte %d on)", ref.off)
			}
			texts[j] = string(data[ref.off:end])
		}
		t.ClearRows()
		t.Rows = texts
	}
	return nil
}
