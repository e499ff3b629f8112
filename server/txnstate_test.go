package server

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestTxnTableCoverage writes, for every state, the events the transaction
// table handles (with action and next states) and the ones it misses, and
// compares with testdata/txn_transitions.txt, so that a change to the state
// machine shows up in review. -rewrite regenerates the file.
func TestTxnTableCoverage(t *testing.T) {
	var b strings.Builder
	for s := txnState(0); s < numStates; s++ {
		fmt.Fprintf(&b, "%s (ReadyForQuery %q)\n", s, s.readyStatus())
		var missing []string
		for e := txnEvent(0); e < numEvents; e++ {
			tr, ok := txnTable[s][e]
			if !ok {
				missing = append(missing, e.String())
				continue
			}
			note := ""
			switch tr.notice {
			case warnNoTxn:
				note = ", warning 25P01"
			case warnInTxnAlready:
				note = ", warning 25001"
			}
			fmt.Fprintf(&b, "  handled %-20s -> %-26s next %-8s on error %s%s\n", e, tr.action, tr.next, tr.onError, note)
		}
		fmt.Fprintf(&b, "  missing: %s\n", strings.Join(missing, ", "))
	}
	const golden = "testdata/txn_transitions.txt"
	if *rewrite {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("transaction table changed; review and run with -rewrite:\n%s", b.String())
	}
}

// TestTxnTableIsComplete pins that no (state, event) pair is missing and
// that ReadyForQuery never reports the implicit state.
func TestTxnTableIsComplete(t *testing.T) {
	for s := txnState(0); s < numStates; s++ {
		for e := txnEvent(0); e < numEvents; e++ {
			if _, ok := txnTable[s][e]; !ok {
				t.Errorf("state %s has no transition for %s", s, e)
			}
		}
		for e, tr := range txnTable[s] {
			if e == evEndOfBatch && tr.next == stateImplicit {
				t.Errorf("state %s keeps an implicit transaction past the end of a batch", s)
			}
		}
	}
}

func TestParseTimeout(t *testing.T) {
	tests := map[string]string{"0": "0s", "250": "250ms", "5s": "5s", "1.5s": "1.5s", "2min": "2m0s",
		"1h": "1h0m0s", "10us": "10µs", "1d": "24h0m0s", "-1": "0s", "abc": "0s", "5 parsecs": "0s", "": "0s"}
	for in, want := range tests {
		if got := parseTimeout(in).String(); got != want {
			t.Errorf("parseTimeout(%q) = %s, want %s", in, got, want)
		}
	}
}
