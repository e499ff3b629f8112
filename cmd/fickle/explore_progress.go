package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/fickle-db/fickle/explore"
)

// progressPrinter shows an exploration's progress: one line rewritten in
// place on a terminal (runs done, failures, runs per second, time left),
// plain lines otherwise (a line per failing run, and one every ten seconds).
type progressPrinter struct {
	w   io.Writer
	tty bool
	mu  sync.Mutex
	// last is when a plain line was last printed.
	last  time.Time
	drawn bool
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	p := &progressPrinter{w: w, last: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progressPrinter) update(pr explore.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rate := float64(pr.Done) / pr.Elapsed.Seconds()
	eta := time.Duration(float64(pr.Total-pr.Done)/rate) * time.Second
	line := fmt.Sprintf("runs %d/%d  failed %d  %.1f runs/s  ETA %s", pr.Done, pr.Total, pr.Failures, rate, eta.Round(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.drawn = true
		return
	}
	if r := pr.Last; r != nil && r.Failed() {
		fmt.Fprintf(p.w, "run %d (seed %d): %s\n", r.Number, r.Seed, r.Status())
	}
	if time.Since(p.last) >= 10*time.Second || pr.Done == pr.Total {
		fmt.Fprintln(p.w, line)
		p.last = time.Now()
	}
}

// finish ends the line drawn on a terminal.
func (p *progressPrinter) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
