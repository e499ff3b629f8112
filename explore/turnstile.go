package explore

import (
	"fmt"
	"sync"
	"time"
)

// The turnstile makes a run's order of database calls a recorded input, so
// that a replay does not depend on the Go scheduler or on the operating
// system's (STYLE #1): every call a session makes into the engine (a step:
// connect, prepare, execute, begin, commit, ...) waits for the token, runs
// alone, and is appended to the schedule. A step that has to wait inside
// the engine for a lock (it calls its context's Done, see stepContext)
// hands the token on; when a later step ends, the turnstile lets every
// waiter that step woke run to its next wait or to its end before the next
// step starts (settle), so that a woken step's continuation has a fixed
// place in the order too. A replay admits the steps in the recorded order:
// a step waits until it is the schedule's next one, and the first step that
// cannot match the recording (another statement, a connection the
// recording does not have, nothing arriving for stallTimeout) is the
// divergence the replay reports before the run goes on unordered.

// Step is one call of a session into the database, as the schedule
// records it: the session's index in connection order, the kind of call,
// and what identifies it (the SQL text, the application_name of a
// connection, a savepoint's name; a digest of the parameters of an execute).
type Step struct {
	Session int    `json:"s"`
	Kind    string `json:"k"`
	Text    string `json:"q,omitempty"`
	Params  string `json:"p,omitempty"`
}

// The kinds of steps.
const (
	stepConnect    = "connect"
	stepPrepare    = "prepare"
	stepExecute    = "execute"
	stepBegin      = "begin"
	stepCommit     = "commit"
	stepRollback   = "rollback"
	stepSavepoint  = "savepoint"
	stepRelease    = "release"
	stepRollbackTo = "rollback-to"
	stepCopyIn     = "copy-in"
	stepCopyOut    = "copy-out"
	stepClose      = "close"
)

func (s Step) String() string {
	switch s.Kind {
	case stepConnect:
		if s.Text != "" {
			return fmt.Sprintf("connection %d opening (application_name %q)", s.Session+1, s.Text)
		}
		return fmt.Sprintf("connection %d opening", s.Session+1)
	case stepExecute, stepPrepare:
		return fmt.Sprintf("connection %d: %s %s", s.Session+1, s.Kind, clip(s.Text, 120))
	case stepSavepoint, stepRelease, stepRollbackTo:
		return fmt.Sprintf("connection %d: %s %s", s.Session+1, s.Kind, s.Text)
	}
	return fmt.Sprintf("connection %d: %s", s.Session+1, s.Kind)
}

// stallTimeout is how long a replay waits for the schedule's next step
// while other steps wait for it before it declares a divergence.
const stallTimeout = 5 * time.Second

// Divergence says where a replay left its recording.
type Divergence struct {
	// At is the index in the recorded schedule of the step expected.
	At int `json:"at"`
	// Expected is the recorded step, when there was one.
	Expected *Step `json:"expected,omitempty"`
	// Got lists what the run asked for instead (the steps waiting, or the
	// mismatching one first).
	Got []Step `json:"got,omitempty"`
	// Reason says it in a sentence.
	Reason string `json:"reason"`
}

func (d *Divergence) Error() string { return d.Reason }

// turnstile orders the steps of one run (see the file comment).
type turnstile struct {
	parked parkChecker

	mu struct {
		sync.Mutex
		holder   *activeStep   // the step holding the token; nil when free
		settling bool          // the token's last holder ended and its wakees are settling
		waiting  []*activeStep // steps waiting for the token, in arrival order
		blocked  map[*activeStep]bool
		sessions int // connections so far
		log      []Step
		script   []Step // the recorded schedule of a replay; nil when recording
		next     int    // the index in script of the next step to admit
		diverged *Divergence
		open     bool // false once the command has ended: steps pass unordered
		progress time.Time
	}
	kick chan struct{} // wakes the settle loop
	done chan struct{} // closed by close
}

// activeStep is one step in flight.
type activeStep struct {
	step    Step
	session int // the caller's session; -1 for a connect until admitted
	grant   chan struct{}
	gid     uint64 // the goroutine running it, once it has waited in the engine
	ended   bool
}

// newTurnstile returns a turnstile that records, or that replays script
// when it is not nil.
func newTurnstile(script []Step) *turnstile {
	ts := &turnstile{kick: make(chan struct{}, 1), done: make(chan struct{})}
	ts.mu.blocked = map[*activeStep]bool{}
	ts.mu.script = script
	ts.mu.open = true
	ts.mu.progress = time.Now()
	if script != nil {
		go ts.watch()
	}
	return ts
}

// enter waits until step st of session may run and returns its handle; a
// connect passes session -1 and learns its index from the handle.
func (ts *turnstile) enter(session int, st Step) *activeStep {
	a := &activeStep{step: st, session: session, grant: make(chan struct{})}
	ts.mu.Lock()
	if !ts.mu.open {
		ts.numberLocked(a, -1)
		ts.mu.Unlock()
		return a
	}
	ts.mu.waiting = append(ts.mu.waiting, a)
	ts.dispatchLocked()
	ts.mu.Unlock()
	<-a.grant
	return a
}

// exit ends a step: the token (if it still holds it) goes to the next step
// once the waiters this step woke have settled.
func (ts *turnstile) exit(a *activeStep) {
	ts.mu.Lock()
	a.ended = true
	delete(ts.mu.blocked, a)
	if ts.mu.holder != a {
		ts.mu.Unlock()
		ts.poke() // a woken step ended: the settle loop may go on
		return
	}
	ts.mu.holder = nil
	if len(ts.mu.blocked) == 0 || !ts.mu.open {
		ts.dispatchLocked()
		ts.mu.Unlock()
		return
	}
	ts.mu.settling = true
	ts.mu.Unlock()
	ts.settle()
	ts.mu.Lock()
	ts.mu.settling = false
	ts.dispatchLocked()
	ts.mu.Unlock()
}

// blocked is called by a step about to wait in the engine: it hands the
// token on (a woken step that waits again only says where it is).
func (ts *turnstile) blocked(a *activeStep) {
	gid := currentGoroutine()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	a.gid = gid
	ts.mu.blocked[a] = true
	if ts.mu.holder == a {
		ts.mu.holder = nil
		ts.dispatchLocked()
		return
	}
	ts.poke()
}

func (ts *turnstile) poke() {
	select {
	case ts.kick <- struct{}{}:
	default:
	}
}

// settle waits until every step that waited in the engine is parked there
// again or has ended: the steps the last one woke have run their part.
func (ts *turnstile) settle() {
	backoff := 20 * time.Microsecond
	for {
		ts.mu.Lock()
		var gids []uint64
		for a := range ts.mu.blocked {
			gids = append(gids, a.gid)
		}
		open := ts.mu.open
		ts.mu.Unlock()
		if len(gids) == 0 || !open || ts.parked.allParked(gids) {
			return
		}
		select {
		case <-ts.kick:
		case <-time.After(backoff):
			backoff = min(2*backoff, 5*time.Millisecond)
		case <-ts.done:
			return
		}
	}
}

// dispatchLocked grants the token to the next step, if it is free: in
// arrival order when recording (or after a divergence), the schedule's
// next step when replaying.
func (ts *turnstile) dispatchLocked() {
	if ts.mu.holder != nil || ts.mu.settling || len(ts.mu.waiting) == 0 {
		return
	}
	i, recorded := 0, -1
	if ts.replayingLocked() {
		i, recorded = ts.matchLocked()
		if i < 0 {
			return
		}
	}
	a := ts.mu.waiting[i]
	ts.mu.waiting = append(ts.mu.waiting[:i], ts.mu.waiting[i+1:]...)
	ts.numberLocked(a, recorded)
	ts.mu.holder = a
	ts.mu.log = append(ts.mu.log, a.step)
	ts.mu.progress = time.Now()
	close(a.grant)
}

func (ts *turnstile) replayingLocked() bool { return ts.mu.script != nil && ts.mu.diverged == nil }

// numberLocked numbers a connection: recorded is the number the replayed
// schedule gives it, -1 for the next number in order of admission.
func (ts *turnstile) numberLocked(a *activeStep, recorded int) {
	if a.step.Kind != stepConnect {
		return
	}
	a.session = recorded
	if recorded < 0 {
		a.session = ts.mu.sessions
	}
	ts.mu.sessions = max(ts.mu.sessions, a.session+1)
	a.step.Session = a.session
}

// matchLocked returns the index in waiting of the schedule's next step,
// and for a connection the number the schedule gives it (else -1), or -1
// when that step has not arrived. A step of the expected session that is
// not the expected one, or any step after the schedule's end, diverges.
func (ts *turnstile) matchLocked() (int, int) {
	if ts.mu.next >= len(ts.mu.script) {
		ts.divergeLocked(&Divergence{At: ts.mu.next, Got: []Step{ts.mu.waiting[0].step},
			Reason: fmt.Sprintf("the run went on after the recording ended: %s", ts.mu.waiting[0].step)})
		return 0, -1
	}
	want := ts.mu.script[ts.mu.next]
	for i, a := range ts.mu.waiting {
		got := a.step
		if want.Kind == stepConnect {
			if got.Kind == stepConnect && got.Text == want.Text {
				ts.mu.next++
				return i, want.Session
			}
			continue
		}
		if a.session != want.Session {
			continue
		}
		got.Session = a.session
		if got != want {
			ts.divergeLocked(&Divergence{At: ts.mu.next, Expected: &want, Got: []Step{got},
				Reason: fmt.Sprintf("step %d: %s where the recording has %s", ts.mu.next+1, describeMismatch(got, want), want)})
			return i, -1
		}
		ts.mu.next++
		return i, -1
	}
	return -1, -1
}

func describeMismatch(got, want Step) string {
	if got.Kind == want.Kind && got.Text == want.Text {
		return fmt.Sprintf("%s with other parameters", got)
	}
	return got.String()
}

func (ts *turnstile) divergeLocked(d *Divergence) {
	if ts.mu.diverged == nil {
		ts.mu.diverged = d
	}
}

// watch declares a divergence when a replay has steps waiting but none
// admitted for stallTimeout: the step the recording expects did not come.
func (ts *turnstile) watch() {
	tick := time.NewTicker(stallTimeout / 10)
	defer tick.Stop()
	for {
		select {
		case <-ts.done:
			return
		case <-tick.C:
		}
		ts.mu.Lock()
		if ts.replayingLocked() && ts.mu.open && len(ts.mu.waiting) > 0 && ts.mu.holder == nil && !ts.mu.settling &&
			time.Since(ts.mu.progress) > stallTimeout {
			d := &Divergence{At: ts.mu.next}
			for _, a := range ts.mu.waiting {
				st := a.step
				st.Session = a.session
				d.Got = append(d.Got, st)
			}
			if ts.mu.next < len(ts.mu.script) {
				want := ts.mu.script[ts.mu.next]
				d.Expected = &want
				d.Reason = fmt.Sprintf("step %d: the recording has %s, which did not come within %s; waiting instead: %s",
					ts.mu.next+1, want, stallTimeout, stepList(d.Got))
			}
			ts.divergeLocked(d)
			ts.dispatchLocked()
		}
		ts.mu.Unlock()
	}
}

func stepList(steps []Step) string {
	s := ""
	for i, st := range steps {
		if i > 0 {
			s += "; "
		}
		s += st.String()
	}
	return s
}

// close ends the ordering once the command has ended (a killed command's
// connections close in any order) and returns the schedule and, for a
// replay, the divergence: the first mismatch, or a recording that goes on
// past the run's end.
func (ts *turnstile) close() ([]Step, *Divergence) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if !ts.mu.open {
		return ts.mu.log, ts.mu.diverged
	}
	ts.mu.open = false
	close(ts.done)
	if ts.replayingLocked() && ts.mu.next < len(ts.mu.script) {
		want := ts.mu.script[ts.mu.next]
		ts.divergeLocked(&Divergence{At: ts.mu.next, Expected: &want,
			Reason: fmt.Sprintf("step %d: the run ended where the recording goes on with %s", ts.mu.next+1, want)})
	}
	for _, a := range ts.mu.waiting {
		ts.numberLocked(a, -1)
		close(a.grant)
	}
	ts.mu.waiting = nil
	return ts.mu.log, ts.mu.diverged
}
