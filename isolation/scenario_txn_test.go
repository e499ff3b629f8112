package isolation

import (
	"fmt"

	"github.com/fickle-db/fickle/history"
)

// cmdBegin starts a transaction: begin s1 level=SI strategy=oldest readonly.
func (e *scenarioEnv) cmdBegin(a scenarioArgs) string {
	if len(a.words) == 0 {
		return "missing session"
	}
	opts := TxnOptions{Level: history.ReadCommitted}
	if l, ok := a.opts["level"]; ok {
		lv, err := history.ParseLevel(l)
		if err != nil {
			return err.Error()
		}
		opts.Level = lv
	}
	if s, ok := a.opts["strategy"]; ok {
		opts.Strategy = strategyNames[s]
	}
	for _, w := range a.words[1:] {
		if w == "readonly" {
			opts.ReadOnly = true
		}
	}
	tx, err := e.session(a.words[0]).Begin(opts)
	if err != nil {
		return errString(err)
	}
	e.txns[a.words[0]] = tx
	return fmt.Sprintf("T%d %s", tx.ID(), tx.Level())
}

// cmdEnd commits or rolls back: commit s1, rollback s1.
func (e *scenarioEnv) cmdEnd(a scenarioArgs) string {
	tx, msg := e.txn(a)
	if tx == nil {
		return msg
	}
	delete(e.txns, a.words[0])
	var err error
	if a.verb == "commit" {
		err = tx.Commit(bg)
	} else {
		err = tx.Rollback()
	}
	if err != nil {
		return errString(err)
	}
	return "ok"
}
