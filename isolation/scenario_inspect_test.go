package isolation

import (
	"fmt"
	"strings"
)

// cmdValid lists the committed versions the session's transaction may read
// now, by writer, oldest first: valid s1 x.
func (e *scenarioEnv) cmdValid(a scenarioArgs) string {
	tx, msg := e.txn(a)
	if tx == nil {
		return msg
	}
	if len(a.words) < 2 {
		return "missing key"
	}
	en := e.s.e
	en.mu.Lock()
	defer en.mu.Unlock()
	ks := en.tables[e.tab].keyState(a.words[1], true)
	var out []string
	for _, i := range en.validVersions(tx.t, ks, nil) {
		out = append(out, fmt.Sprintf("T%d", ks.versions()[i].w.id))
	}
	return a.words[1] + ": " + strings.Join(out, " ")
}

// cmdHistory prints the recorded history and co.
func (e *scenarioEnv) cmdHistory() string {
	return dumpHistory(e.s.History())
}

// cmdCheck checks the history against the axioms with its recorded co and
// by searching every order.
func (e *scenarioEnv) cmdCheck() string {
	h := e.s.History()
	if why := bruteCheck(h); why != "" {
		return "violation: " + why
	}
	unordered := *h
	unordered.CommitOrder = nil
	if why := bruteCheck(&unordered); why != "" {
		return "violation: " + why
	}
	return "consistent"
}
