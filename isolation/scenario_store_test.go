package isolation

import (
	"fmt"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// scenarioEnv is the state a scenario file drives: one store with one
// table "t" whose keys are names and whose rows are one integer.
type scenarioEnv struct {
	s     *Store
	tab   TableID
	sess  map[string]*Session
	txns  map[string]*Txn
	order []string // session names in first-use order
}

func newScenarioEnv() *scenarioEnv {
	e := &scenarioEnv{}
	e.reset(Config{Strategy: StrategyLatest, Record: true})
	return e
}

func (e *scenarioEnv) reset(cfg Config) {
	cfg.Record = true
	e.s = NewStore(cfg)
	e.tab, _ = e.s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	e.sess = map[string]*Session{}
	e.txns = map[string]*Txn{}
	e.order = nil
}

var strategyNames = map[string]Strategy{
	"latest": StrategyLatest, "random": StrategyRandom, "oldest": StrategyOldest, "adversarial": StrategyAdversarial,
}

// cmdStore resets the store: store seed=3 strategy=adversarial.
func (e *scenarioEnv) cmdStore(a scenarioArgs) string {
	cfg := Config{Seed: uint64(atoiOr(a.opts["seed"], 0)), Strategy: StrategyLatest}
	if s, ok := a.opts["strategy"]; ok {
		st, ok := strategyNames[s]
		if !ok {
			return fmt.Sprintf("unknown strategy %q", s)
		}
		cfg.Strategy = st
	}
	e.reset(cfg)
	return "ok"
}

// session returns the session named name, creating it on first use.
func (e *scenarioEnv) session(name string) *Session {
	s, ok := e.sess[name]
	if !ok {
		s = e.s.NewSession()
		e.sess[name] = s
		e.order = append(e.order, name)
	}
	return s
}

// txn returns the session's transaction in progress.
func (e *scenarioEnv) txn(a scenarioArgs) (*Txn, string) {
	if len(a.words) == 0 {
		return nil, "missing session"
	}
	tx, ok := e.txns[a.words[0]]
	if !ok {
		return nil, fmt.Sprintf("session %s has no transaction", a.words[0])
	}
	return tx, ""
}

// errString renders an error as its SQLSTATE and message.
func errString(err error) string {
	pe := pgerror.Flatten(err)
	return fmt.Sprintf("error %s: %s", pe.Code, pe.Message)
}
