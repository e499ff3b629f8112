package history

import (
	"io"
	"os"
)

// FileLog is a Writer to a history file that can read back what it wrote
// so far: a server that logs its history to a file (fickle serve
// --history) keeps none of it in memory and reads the file when asked for
// the history (SELECT * FROM fickle_check()).
type FileLog struct {
	*Writer
	f    *os.File
	path string
}

// CreateFileLog creates (or truncates) the file at path and writes the
// header line to it.
func CreateFileLog(path string, hdr Header) (*FileLog, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, hdr)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &FileLog{Writer: w, f: f, path: path}, nil
}

// Path returns the file's path.
func (l *FileLog) Path() string { return l.path }

// ReadBack flushes the events written so far and returns a function that
// reads them back as a history: what followed the last checkpoint, with
// the transactions still open as pending. The caller must not write to the
// log while ReadBack runs; the function it returns may run while more
// events are written, which it does not read.
func (l *FileLog) ReadBack() (func() (*History, error), error) {
	if err := l.Flush(); err != nil {
		return nil, err
	}
	size, err := l.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	return func() (*History, error) {
		f, err := os.Open(l.path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ReadJSONL(io.LimitReader(f, size), l.path)
	}, nil
}

// Close flushes the log and closes its file.
func (l *FileLog) Close() error {
	err := l.Writer.Close()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
