package history

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// ParseError is an importer's error: it names the file and the line (or,
// for binary formats, the byte offset) where the input went wrong.
type ParseError struct {
	File   string
	Line   int   // 1-based line; 0 when the error has a byte offset instead
	Offset int64 // byte offset in binary formats, when Line is 0; -1 when neither applies
	Msg    string
}

// Error returns "file:line: msg", "file: byte N: msg" or "file: msg".
func (e *ParseError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.Offset >= 0:
		return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func lineErr(file string, line int, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

func fileErr(file string, format string, args ...any) *ParseError {
	return &ParseError{File: file, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// decompress returns r, or a gzip reader over it when r starts with the gzip
// magic number, so that every importer reads .gz files transparently.
func decompress(r io.Reader) (io.Reader, error) {
	d, _, err := decompressed(r)
	return d, err
}

// decompressed is decompress that also reports whether r was gzipped.
func decompressed(r io.Reader) (io.Reader, bool, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 256<<10)
	}
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, true, err
		}
		return bufio.NewReaderSize(zr, 256<<10), true, nil
	}
	return br, false, nil
}

// lineReader splits its input into lines without allocating per line. A
// final line without a newline is returned with complete false, so that
// formats written incrementally can ignore a line cut off by a crash. A gzip
// stream cut off in the middle ends the input like a missing newline.
type lineReader struct {
	r    *bufio.Reader
	line int
	long []byte
	err  error
}

func newLineReader(r io.Reader) (*lineReader, error) {
	d, err := decompress(r)
	if err != nil {
		return nil, err
	}
	br, ok := d.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(d, 256<<10)
	}
	return &lineReader{r: br}, nil
}

// next returns the next line without its newline. ok is false at the end
// of the input (err is nil then, unless reading failed).
func (lr *lineReader) next() (line []byte, complete, ok bool, err error) {
	if lr.err == io.EOF {
		return nil, false, false, nil
	}
	if lr.err != nil {
		return nil, false, false, lr.err
	}
	b, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, b...)
		}
		b = lr.long
	}
	switch {
	case err == nil:
		lr.line++
		b = b[:len(b)-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		return b, true, true, nil
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		lr.err = io.EOF
		if len(b) == 0 {
			return nil, false, false, nil
		}
		lr.line++
		return b, false, true, nil
	default:
		lr.err = err
		return nil, false, false, err
	}
}

// readAllInput reads a whole (possibly gzipped) input into memory, for the
// formats whose parsers need random access.
func readAllInput(r io.Reader) ([]byte, error) {
	d, err := decompress(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(d)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return b, err
}

// idMap maps a format's integer ids to dense ids: a slice while the ids
// stay small, a map for the rest, so that hostile ids cannot make it
// allocate much.
type idMap struct {
	dense  []uint32 // index: id; value: dense id + 1, 0 for none
	sparse map[int64]uint32
	n      int // ids set
}

func (m *idMap) get(id int64) (uint32, bool) {
	if id >= 0 && id < int64(len(m.dense)) {
		if v := m.dense[id]; v != 0 {
			return v - 1, true
		}
	}
	v, ok := m.sparse[id]
	return v, ok
}

func (m *idMap) set(id int64, v uint32) {
	m.n++
	// The dense slice stays within a small factor of the number of ids, so
	// that ids spread far apart cannot make it huge.
	if id >= 0 && (id < int64(len(m.dense)) || id < int64(4*m.n+1024)) {
		for int64(len(m.dense)) <= id {
			m.dense = append(m.dense, 0)
		}
		m.dense[id] = v + 1
		return
	}
	if m.sparse == nil {
		m.sparse = make(map[int64]uint32)
	}
	m.sparse[id] = v
}

// trimSpace trims ASCII spaces around b.
func trimSpace(b []byte) []byte {
	return bytes.TrimSpace(b)
}
