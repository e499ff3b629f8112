package explore

import (
	"bytes"
	"runtime"
	"strconv"
)

// A step that waits in the engine for a lock calls its context's Done and
// then parks in a select until the lock's holder lets go (isolation's
// acquire and beginWait are the engine's only waits). The turnstile needs
// to know when such a step, woken by a later step, has run its part and
// parked again: the engine does not say, so parkChecker asks the Go runtime
// for the state of the step's goroutine. A goroutine in state "select" with
// its step not ended is parked in the engine; any other state means it is
// still running (or about to park). The check costs one stack dump of the
// process's goroutines and only runs while a step is waiting for a lock.
type parkChecker struct {
	buf []byte
}

// allParked reports whether every goroutine in gids is parked in a select.
func (p *parkChecker) allParked(gids []uint64) bool {
	if p.buf == nil {
		p.buf = make([]byte, 1<<16)
	}
	for {
		n := runtime.Stack(p.buf, true)
		if n < len(p.buf) {
			return allInSelect(p.buf[:n], gids)
		}
		p.buf = make([]byte, 2*len(p.buf))
	}
}

// allInSelect reads the goroutine headers of a stack dump ("goroutine 42
// [select]:" or "[select, 2 minutes]:").
func allInSelect(dump []byte, gids []uint64) bool {
	want := make(map[uint64]bool, len(gids))
	for _, g := range gids {
		want[g] = true
	}
	for len(dump) > 0 && len(want) > 0 {
		line := dump
		if i := bytes.IndexByte(dump, '\n'); i >= 0 {
			line, dump = dump[:i], dump[i+1:]
		} else {
			dump = nil
		}
		id, state, ok := goroutineHeader(line)
		if !ok || !want[id] {
			continue
		}
		if !bytes.HasPrefix(state, []byte("select")) || bytes.HasPrefix(state, []byte("select (no cases)")) {
			return false
		}
		delete(want, id)
	}
	// A goroutine missing from the dump has exited: its step has ended.
	return true
}

// goroutineHeader parses "goroutine ID [STATE]:".
func goroutineHeader(line []byte) (id uint64, state []byte, ok bool) {
	rest, found := bytes.CutPrefix(line, []byte("goroutine "))
	if !found {
		return 0, nil, false
	}
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return 0, nil, false
	}
	id, err := strconv.ParseUint(string(rest[:sp]), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	rest = rest[sp+1:]
	if len(rest) < 2 || rest[0] != '[' {
		return 0, nil, false
	}
	end := bytes.IndexByte(rest, ']')
	if end < 0 {
		return 0, nil, false
	}
	return id, rest[1:end], true
}

// currentGoroutine returns the calling goroutine's id.
func currentGoroutine() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	id, _, _ := goroutineHeader(buf[:n])
	return id
}
