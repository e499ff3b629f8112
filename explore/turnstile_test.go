package explore

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestAReplayAdmitsStepsInTheRecordedOrder: whatever order the callers
// arrive in, a replaying turnstile admits the recorded steps in the
// recorded order, numbers connections as recorded (matched by their
// application_name), and records the same schedule again.
func TestAReplayAdmitsStepsInTheRecordedOrder(t *testing.T) {
	script := []Step{
		{Session: 0, Kind: stepConnect, Text: "y"},
		{Session: 1, Kind: stepConnect, Text: "x"},
		{Session: 1, Kind: stepExecute, Text: "x1"},
		{Session: 0, Kind: stepExecute, Text: "y1"},
		{Session: 1, Kind: stepExecute, Text: "x2"},
	}
	ts := newTurnstile(script)
	var mu sync.Mutex
	var order []string
	worker := func(app string, delay time.Duration, stmts ...string) {
		time.Sleep(delay)
		c := ts.enter(-1, Step{Kind: stepConnect, Text: app})
		ts.exit(c)
		for _, q := range stmts {
			a := ts.enter(c.session, Step{Session: c.session, Kind: stepExecute, Text: q})
			mu.Lock()
			order = append(order, fmt.Sprintf("%d:%s", c.session, q))
			mu.Unlock()
			ts.exit(a)
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); worker("x", 0, "x1", "x2") }()
	go func() { defer wg.Done(); worker("y", 20*time.Millisecond, "y1") }()
	wg.Wait()
	steps, div := ts.close()
	if div != nil {
		t.Fatalf("diverged: %v", div)
	}
	if fmt.Sprint(order) != "[1:x1 0:y1 1:x2]" || fmt.Sprint(steps) != fmt.Sprint(script) {
		t.Fatalf("admitted %v, recorded %v", order, steps)
	}
}

// TestAReplayNamesTheStepThatLeftTheRecording: a session that asks for
// another statement than the recorded one is the divergence; the run goes
// on unordered.
func TestAReplayNamesTheStepThatLeftTheRecording(t *testing.T) {
	ts := newTurnstile([]Step{{Session: 0, Kind: stepConnect}, {Session: 0, Kind: stepExecute, Text: "SELECT 1", Params: "p"}})
	c := ts.enter(-1, Step{Kind: stepConnect})
	ts.exit(c)
	a := ts.enter(0, Step{Session: 0, Kind: stepExecute, Text: "SELECT 1", Params: "q"})
	ts.exit(a)
	b := ts.enter(0, Step{Session: 0, Kind: stepExecute, Text: "SELECT 2"})
	ts.exit(b)
	_, div := ts.close()
	if div == nil || div.At != 1 || div.Expected == nil || div.Expected.Params != "p" ||
		div.Reason != "step 2: connection 1: execute SELECT 1 with other parameters where the recording has connection 1: execute SELECT 1" {
		t.Fatalf("divergence %+v", div)
	}
}
