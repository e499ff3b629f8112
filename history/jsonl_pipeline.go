package history

import (
	"bytes"
	"errors"
	"io"
	"runtime"
)

// ReadJSONL reads a fickle JSONL history (gzipped or not); name is used in
// errors. A last line cut off without its newline (a crash while writing)
// is ignored when it does not parse or apply. Transactions without an end
// event are Pending.
//
// Reading is a pipeline: one goroutine cuts the input into batches of
// whole lines, GOMAXPROCS goroutines parse the batches' JSON independently,
// and the caller's goroutine applies the parsed events (keys, transactions,
// orders) strictly in input order. Parsing costs more than applying, so
// splitting it is what lets the read use more than two cores' worth.
func ReadJSONL(r io.Reader, name string) (*History, error) {
	return readJSONLSized(r, name, 0)
}

// readJSONLSized is ReadJSONL for an input of about size bytes (0 when
// unknown), from which it sizes the history's large slices.
func readJSONLSized(r io.Reader, name string, size int64) (*History, error) {
	return readJSONLPipeline(r, name, size, pipelineConfig{parsers: runtime.GOMAXPROCS(0)})
}

// pipelineConfig sets the parsers of a read and, for a regular file read
// from its start, the file its row images are kept in; tests set
// beforeParse to delay or break the parsing of a chosen batch.
type pipelineConfig struct {
	parsers     int
	file        *rowFile
	beforeParse func(seq int)
}

func readJSONLPipeline(r io.Reader, name string, size int64, cfg pipelineConfig) (*History, error) {
	in, gzipped, err := decompressed(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	if gzipped {
		cfg.file = nil // offsets into the stream are not the file's
	}
	parsers := max(cfg.parsers, 1)
	// window batches exist at most: the cutter waits for a free one, which
	// bounds the memory and the reordering the applier does.
	window := 2*parsers + 2
	free := make(chan *jsonlBatch, window)
	for range window {
		free <- newJSONLBatch()
	}
	cut := make(chan *jsonlBatch, window)
	parsed := make(chan *jsonlBatch, window)
	stop := make(chan struct{})
	defer close(stop)
	go cutJSONL(&lineCutter{r: in, name: name}, cut, free, stop)
	for range parsers {
		go parseJSONL(name, cut, parsed, stop, cfg)
	}
	jr := newJSONLReader()
	jr.file = cfg.file
	jr.reserveFor(size)
	pending := make([]*jsonlBatch, window) // by seq modulo window
	for seq := 0; ; seq++ {
		b := pending[seq%window]
		for b == nil {
			p := <-parsed
			pending[p.seq%window] = p
			b = pending[seq%window]
		}
		pending[seq%window] = nil
		if b.panicked != nil {
			panic(b.panicked)
		}
		for i := range b.events {
			ev := &b.events[i]
			err := jr.resolveItems(b, ev)
			if err == nil {
				err = jr.apply(ev)
			}
			if err != nil {
				if ev.truncated {
					break // a last line cut off by a crash
				}
				return nil, lineErr(name, ev.line, "%v", err)
			}
		}
		if b.err != nil {
			return nil, b.err
		}
		if b.last {
			break
		}
		b.reset()
		free <- b
	}
	h, err := jr.finish()
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return h, nil
}

// jsonlBatch is a run of consecutive whole lines of the input and, once
// parsed, their events. The events' raw members are slices of text.
type jsonlBatch struct {
	seq    int   // the batch's place in the input, from 0
	offset int64 // the input offset of text
	// text holds the batch's lines from start on, the first of them line
	// firstLine (1-based); only the input's last line may lack its newline.
	text      []byte
	start     int
	firstLine int
	events    []jsonlEvent
	// The read items of the events, each event's a range of them.
	items []Op
	refs  []itemRef
	rows  []rowImage
	// err ends the input after the batch's lines: a line that did not
	// parse, or the reader's error; last marks the input's last batch.
	// panicked is what the cutter or a parser panicked with.
	err      error
	last     bool
	panicked any
}

// itemRef is a read item's key and writer as the file numbers them.
type itemRef struct{ key, writer int64 }

const (
	batchText   = 64 << 10 // bytes of lines in a batch, unless one line is longer
	batchEvents = 1024     // about the lines in batchText bytes
)

// batchItems is about the most read items a batch holds (an item takes at
// least ten bytes of text, a recorded one with a row image far more).
const batchItems = batchText / 16

func newJSONLBatch() *jsonlBatch {
	return &jsonlBatch{text: make([]byte, 0, batchText), events: make([]jsonlEvent, 0, batchEvents),
		items: make([]Op, 0, batchItems), refs: make([]itemRef, 0, batchItems), rows: make([]rowImage, 0, batchItems)}
}

// reset empties b for reuse, dropping a text grown for a long line. The
// events' strings and slices are left to be overwritten: they point into
// b.text and the parsers' text chunks, which outlive b anyway.
func (b *jsonlBatch) reset() {
	if cap(b.text) > batchText {
		b.text = make([]byte, 0, batchText)
	}
	*b = jsonlBatch{text: b.text[:0], events: b.events[:0], items: b.items[:0], refs: b.refs[:0], rows: b.rows[:0]}
}

// lineCutter cuts an input into batches of whole lines, checking the
// header line on the way.
type lineCutter struct {
	r         io.Reader
	name      string
	seq       int
	read      int64  // the bytes read so far
	lines     int    // the lines cut so far
	carry     []byte // the start of a line the last batch did not end
	sawHeader bool
}

// cutJSONL sends the input cut into batches until its end, an error, or
// stop is closed; a panic (of a broken reader) ends the input with it.
func cutJSONL(c *lineCutter, out chan<- *jsonlBatch, free <-chan *jsonlBatch, stop <-chan struct{}) {
	for {
		var b *jsonlBatch
		select {
		case b = <-free:
		case <-stop:
			return
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					b.panicked, b.last = r, true
				}
			}()
			c.fill(b)
		}()
		last := b.last // b is the parsers' once sent
		select {
		case out <- b:
		case <-stop:
			return
		}
		if last {
			return
		}
	}
}

// fill reads whole lines into b, the carried start of a line first.
func (c *lineCutter) fill(b *jsonlBatch) {
	b.seq, b.firstLine, b.offset = c.seq, c.lines+1, c.read-int64(len(c.carry))
	c.seq++
	b.text = append(b.text[:0], c.carry...)
	var err error
	for {
		for len(b.text) < cap(b.text) && err == nil {
			var n int
			n, err = c.r.Read(b.text[len(b.text):cap(b.text)])
			b.text = b.text[:len(b.text)+n]
			c.read += int64(n)
		}
		if err != nil || bytes.LastIndexByte(b.text, '\n') >= 0 {
			break
		}
		b.text = append(b.text, 0)[:len(b.text)] // a line longer than the batch: grow it
	}
	end := len(b.text)
	atEnd := err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)
	if err == nil || !atEnd {
		// A read error: the lines read whole count, the error is the next
		// line's. At the end (a gzip stream cut off in the middle ends the
		// input too) a last line may lack its newline.
		end = bytes.LastIndexByte(b.text, '\n') + 1
	}
	b.last = err != nil
	c.carry = append(c.carry[:0], b.text[end:]...)
	b.text = b.text[:end]
	c.lines += bytes.Count(b.text, []byte{'\n'})
	if !c.sawHeader {
		c.header(b, err == nil || atEnd)
	}
	if err != nil && !atEnd && b.err == nil {
		b.err = lineErr(c.name, c.lines+1, "%v", err)
	}
}

// header checks the input's first non-blank line, the header, and takes it
// out of b; an input that ends cleanly without one is an error.
func (c *lineCutter) header(b *jsonlBatch, clean bool) {
	line := b.firstLine
	for b.start < len(b.text) {
		l, rest := nextLine(b.text[b.start:])
		b.start = len(b.text) - len(rest)
		if len(trimSpace(l)) == 0 {
			line++
			continue
		}
		c.sawHeader = true
		if err := checkJSONLHeader(l); err != nil {
			b.err, b.last = lineErr(c.name, line, "%v", err), true
		}
		b.firstLine = line + 1
		return
	}
	if b.last && clean {
		b.err = fileErr(c.name, "empty input: no %s header line", JSONLFormat)
	}
	b.firstLine = line
}

// nextLine splits the first line off text: the line without its newline
// (and a carriage return before it), and the rest after the newline; a
// last line without a newline is returned as it is.
func nextLine(text []byte) (line, rest []byte) {
	i := bytes.IndexByte(text, '\n')
	if i < 0 {
		return text, nil
	}
	line = text[:i]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, text[i+1:]
}

// jsonlParser turns the lines of batches into events. It owns its texts
// table: a text is interned by the goroutine that parses it.
type jsonlParser struct {
	s     jsonScanner
	texts *textTable
	// inFile is set when row images are kept as references into the input
	// file; lineOff is then the offset of the line being parsed.
	inFile  bool
	lineOff int64
}

// parseJSONL parses the batches it receives from in and passes them on, in
// whatever order they finish, until in closes or stop is closed.
func parseJSONL(name string, in <-chan *jsonlBatch, out chan<- *jsonlBatch, stop <-chan struct{}, cfg pipelineConfig) {
	p := &jsonlParser{texts: newTextTable(), inFile: cfg.file != nil}
	for {
		var b *jsonlBatch
		select {
		case b = <-in:
		case <-stop:
			return
		}
		p.parseBatch(b, name, cfg.beforeParse)
		out <- b // never blocks: out has room for every batch
	}
}

// parseBatch parses b's lines into its events; a panic is kept in b for
// the applier to raise in its turn.
func (p *jsonlParser) parseBatch(b *jsonlBatch, name string, beforeParse func(int)) {
	defer func() {
		if r := recover(); r != nil {
			b.panicked = r
		}
	}()
	if b.panicked != nil {
		return
	}
	if beforeParse != nil {
		beforeParse(b.seq)
	}
	line := b.firstLine - 1
	text := b.text[b.start:]
	for len(text) > 0 {
		complete := bytes.IndexByte(text, '\n') >= 0
		p.lineOff = b.offset + int64(len(b.text)-len(text))
		var l []byte
		l, text = nextLine(text)
		line++
		if len(trimSpace(l)) == 0 {
			continue
		}
		if err := p.parse(l, b); err != nil {
			b.events = b.events[:len(b.events)-1]
			if !complete && line > 1 {
				return // truncated last line
			}
			b.err = lineErr(name, line, "%v", err)
			return
		}
		ev := &b.events[len(b.events)-1]
		ev.line, ev.truncated = line, !complete && line > 1
	}
}
