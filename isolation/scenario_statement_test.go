package isolation

import (
	"strings"

	"github.com/fickle-db/fickle/history"
)

// cmdStatement starts a statement of the session's transaction (Txn.Statement):
// statement s1 [words naming it]. The reads that follow belong to it.
func (e *scenarioEnv) cmdStatement(a scenarioArgs) string {
	tx, msg := e.txn(a)
	if tx == nil {
		return msg
	}
	tx.Statement(history.Statement{SQL: strings.Join(a.words[1:], " ")})
	return "ok"
}
