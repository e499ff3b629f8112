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

// RowImages are the row images (JSON) of a transaction's operations, one per
// operation, "" where an operation has none. A history read from a regular
// JSONL file keeps them as references into the file, read back on demand
// (an explanation or a client-read check needs a few; the 216,000 of a
// recorded pgbench history are most of the bytes a read would copy); other
// histories keep them in memory. The zero value is "unknown".
type RowImages struct {
	text []string // in memory, parallel to the operations
	refs []rowRef // or in file, parallel to the operations
	file *rowFile
}

// rowRef is a row image's place in a history's file and the checksum of
// its bytes, so that a file changed since the read is noticed.
type rowRef struct {
	off int64
	n   uint32
	sum uint32
}

// RowsInMemory returns the row images texts, parallel to the operations.
func RowsInMemory(texts []string) RowImages { return RowImages{text: texts} }

// Known reports whether the row images are known (recorded in the source).
func (r RowImages) Known() bool { return r.text != nil || r.refs != nil }

// Len returns the number of row images, that of the operations when known.
func (r RowImages) Len() int {
	if r.file != nil {
		return len(r.refs)
	}
	return len(r.text)
}

// Has reports whether operation i has a row image.
func (r RowImages) Has(i int) bool {
	if r.file != nil {
		return i < len(r.refs) && r.refs[i].n > 0
	}
	return i < len(r.text) && r.text[i] != ""
}

// At returns operation i's row image ("" when none), reading it from the
// history's file when it is kept there. The error names the file when it
// changed or shrank since the history was read from it.
func (r RowImages) At(i int) (string, error) {
	if r.file != nil {
		if i >= len(r.refs) || r.refs[i].n == 0 {
			return "", nil
		}
		return r.file.read(r.refs[i])
	}
	if i >= len(r.text) {
		return "", nil
	}
	return r.text[i], nil
}

// image returns operation i's image as it is kept.
func (r RowImages) image(i int) rowImage {
	switch {
	case r.file != nil && i < len(r.refs):
		return rowImage{ref: r.refs[i]}
	case r.file == nil && i < len(r.text):
		return rowImage{text: r.text[i]}
	}
	return rowImage{}
}

// Select returns the row images of the operations idx, in that order.
func (r RowImages) Select(idx []int) RowImages {
	if !r.Known() {
		return RowImages{}
	}
	out := RowImages{file: r.file}
	for _, i := range idx {
		if r.file != nil {
			out.refs = append(out.refs, r.refs[i])
		} else {
			out.text = append(out.text, r.text[i])
		}
	}
	if out.text == nil && out.refs == nil {
		out.text = []string{} // known, for no operations
	}
	return out
}

// grow gives r room for n more images (its operations grew).
func (r *RowImages) grow(n int) {
	if r.file != nil {
		r.refs = grow(r.refs, n)
	} else if r.text != nil {
		r.text = grow(r.text, n)
	}
}

// appendNone appends an operation without a row image, when r is known.
func (r *RowImages) appendNone() {
	if r.file != nil {
		r.refs = append(grow(r.refs, 1), rowRef{})
	} else if r.text != nil {
		r.text = append(grow(r.text, 1), "")
	}
}

// set sets operation i's image, making r known with ops operations (of
// capacity c) when it was not.
func (r *RowImages) set(i, ops, c int, row rowImage, file *rowFile) {
	switch {
	case row.ref.n > 0:
		if r.refs == nil {
			r.refs, r.file = make([]rowRef, ops, c), file
		}
		r.refs[i] = row.ref
	case row.text != "":
		if r.text == nil {
			r.text = make([]string, ops, c)
		}
		r.text[i] = row.text
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
		r := &h.Txns[i].Rows
		if r.file != rf {
			continue
		}
		texts := make([]string, len(r.refs))
		for j, ref := range r.refs {
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
		*r = RowImages{text: texts}
	}
	return nil
}
