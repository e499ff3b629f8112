package explore

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// Exhaustive mode is stateless model checking of the command (paper 004):
// a depth-first search over the tree of its read choices. The command must
// be deterministic (the same statements in the same order whenever its
// reads return the same rows). Each run replays the choices of a prefix of
// the path, takes at its last read a choice not tried yet, and lets every
// later read take the latest version. A node of the tree is a read; its
// options are the committed versions of the key that the axioms of the
// reader's level allow after the reads before it (the oracle's brute force
// decides, on the history recorded so far), so that the tree holds every
// write-read relation the level allows for the command's schedule, each
// once: two runs differ at the read where their paths part. To serve an
// option the engine's commit order may not allow (a version it placed
// before one the reader must see), the run replays the commit order that
// the brute force found for the prefix with that option.

// ExhaustiveResult is the outcome of an exhaustive exploration.
type ExhaustiveResult struct {
	Runs int
	// Exhausted says every option of every read was tried: the command is
	// correct at its level for every read choice its schedule allows (when
	// no run failed).
	Exhausted bool
	// Untried counts the options left on the path when the run budget ran
	// out: at least that many runs remain.
	Untried int
	// Failures are the failing runs.
	Failures []*Run
	// Relations are the runs' write-read relations, in run order.
	Relations []Relation
	// Unserved counts the runs in which the engine did not serve a choice
	// asked of it (a limit of the engine, which then offers fewer
	// behaviours than the axioms allow).
	Unserved int
}

// Relation is one run's write-read relation in a canonical form: each
// read (its transaction by session and number, statement, key) with the
// transaction whose version it saw, and how each transaction ended.
type Relation struct {
	Run          int
	Text         string
	AllCommitted bool
}

// txnIdent names a transaction across runs of a deterministic command:
// its session and its number there from the last checkpoint; Init is the
// zero ident.
type txnIdent struct {
	sess history.SessionID
	seq  int
}

func (i txnIdent) String() string {
	if i.seq == 0 {
		return "init"
	}
	return fmt.Sprintf("S%d.%d", i.sess, i.seq)
}

// readAt names a read across runs.
type readAt struct {
	txn   txnIdent
	event uint32
	key   string
}

// option is a version a read may take: its writer, and a commit order of
// the history so far with that choice that satisfies the levels.
type option struct {
	writer txnIdent
	order  []txnIdent
}

// choiceNode is a read of the current path with its options.
type choiceNode struct {
	at       readAt
	options  []option
	explored []bool
	taken    int
}

// Exhaustive explores the command's tree of read choices depth first, at
// most opts.Runs runs, one at a time, every run with opts.Seed.
func Exhaustive(opts Options) (*ExhaustiveResult, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	o.Server = latestServer(o.Server)
	realTime := o.Server.RealTime || o.Server.Postgres
	res := &ExhaustiveResult{}
	var path []*choiceNode
	var replay *history.History
	for res.Runs < o.Runs {
		var seen []isolation.ReadChoice
		n := res.Runs + 1
		r := execute(o, runSpec{number: n, seed: o.Seed, historyPath: runFileName(o.Dir, n, ""), replay: replay,
			observe: func(c isolation.ReadChoice) { seen = append(seen, c) }})
		res.Runs++
		if r.ServerError != "" {
			return res, fmt.Errorf("run %d: %s", n, r.ServerError)
		}
		if len(r.Connections) == 0 {
			return res, neverConnected(r)
		}
		h := r.memory
		rel := relationOf(h)
		rel.Run = n
		res.Relations = append(res.Relations, rel)
		if r.Failed() {
			res.Failures = append(res.Failures, r)
		} else if !o.Keep {
			r.removeFiles()
		}
		ids := identsOf(h)
		var reads []isolation.ReadChoice
		for _, c := range seen {
			if c.Checkpoints == h.Checkpoints {
				reads = append(reads, c)
			}
		}
		served := true
		for i, c := range reads {
			at := readAt{txn: identOf(c.Prefix, c.Txn), event: c.Event, key: c.Key.String()}
			got := ids[servedWriter(h, c)]
			if i < len(path) {
				if path[i].at != at {
					return res, usageErrorf("the command is not deterministic: run %d made read %v where the runs before made %v", n, at, path[i].at)
				}
				served = served && path[i].options[path[i].taken].writer == got
				continue
			}
			opts, err := readOptions(c, realTime)
			if err != nil {
				return res, err
			}
			node := &choiceNode{at: at, options: opts, explored: make([]bool, len(opts)), taken: -1}
			for k, op := range opts {
				if op.writer == got {
					node.taken, node.explored[k] = k, true
				}
			}
			if node.taken < 0 {
				return res, fmt.Errorf("run %d: read %v took %v, which its level forbids: a bug in fickle", n, at, got)
			}
			path = append(path, node)
		}
		if !served {
			res.Unserved++
		}
		path = nextPath(path)
		if path == nil {
			res.Exhausted = true
			break
		}
		replay = replayOf(h, path)
	}
	for _, nd := range path {
		for _, done := range nd.explored {
			if !done {
				res.Untried++
			}
		}
	}
	return res, nil
}

// nextPath moves to the next path of the depth-first search: the deepest
// read with an untried option takes it, and the reads after it are
// forgotten. It returns nil when every option has been tried.
func nextPath(path []*choiceNode) []*choiceNode {
	for j := len(path) - 1; j >= 0; j-- {
		nd := path[j]
		for k, done := range nd.explored {
			if !done {
				nd.taken, nd.explored[k] = k, true
				return path[:j+1]
			}
		}
	}
	return nil
}

// readOptions returns the versions the read c may take: each committed
// writer of its key with which the history so far satisfies every
// transaction's level (the transactions still running count as rolled
// back: their reads must be consistent, their writes are not seen).
func readOptions(c isolation.ReadChoice, realTime bool) ([]option, error) {
	if c.Prefix == nil {
		return nil, fmt.Errorf("exhaustive: the store did not record the history")
	}
	if n := len(c.Prefix.Txns) - 1; n > oracle.MaxBruteForceTxns {
		return nil, usageErrorf("exhaustive mode checks every read by brute force, up to %d transactions since the last checkpoint; this command has more: explore it with seeded runs", oracle.MaxBruteForceTxns)
	}
	var out []option
	for _, w := range c.Writers {
		h := withRead(c, w)
		v, order := oracle.BruteForce(h, oracle.Options{RealTime: realTime})
		if v != oracle.Consistent {
			continue
		}
		op := option{writer: identOf(c.Prefix, w)}
		for _, t := range order {
			op.order = append(op.order, identOf(c.Prefix, t))
		}
		out = append(out, op)
	}
	return out, nil
}

// withRead returns c's history so far with c's read taking w's version,
// every running transaction rolled back.
func withRead(c isolation.ReadChoice, w history.TxnID) *history.History {
	p := c.Prefix
	h := &history.History{Keys: slices.Clone(p.Keys), Sessions: p.Sessions, Txns: slices.Clone(p.Txns), Checkpoints: p.Checkpoints}
	key := slices.Index(h.Keys, c.Key)
	if key < 0 {
		key = len(h.Keys)
		h.Keys = append(h.Keys, c.Key)
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Outcome == history.Pending {
			t.Outcome = history.ClientAborted
		}
		if t.ID == c.Txn {
			t.Ops = append(slices.Clone(t.Ops), history.Op{Kind: history.OpRead, Key: history.KeyID(key), Event: c.Event, Writer: w})
			t.ClearRows()
			for len(t.Statements) > 0 && len(t.Statements) <= int(c.Event) {
				t.Statements = append(t.Statements, history.Statement{})
			}
		}
	}
	return h
}

// identsOf maps h's transaction ids to their idents.
func identsOf(h *history.History) map[history.TxnID]txnIdent {
	ids := map[history.TxnID]txnIdent{history.Init: {}}
	for _, s := range h.Sessions {
		for i, t := range s.Txns {
			ids[t] = txnIdent{sess: s.ID, seq: i + 1}
		}
	}
	return ids
}

func identOf(h *history.History, t history.TxnID) txnIdent {
	return identsOf(h)[t]
}

// servedWriter returns the writer of the version c's read took, as the
// run's history records it.
func servedWriter(h *history.History, c isolation.ReadChoice) history.TxnID {
	if int(c.Txn) >= len(h.Txns) {
		return history.NoWriter
	}
	for _, op := range h.Txns[c.Txn].Ops {
		if op.Kind == history.OpRead && op.Event == c.Event && h.Keys[op.Key] == c.Key {
			return op.Writer
		}
	}
	return history.NoWriter
}

// replayOf returns the replay that makes the next run follow path: h (the
// last run's history) with the path's reads taking the chosen versions,
// every other read left to the strategy, and the commit order that the
// last read's option comes with.
func replayOf(h *history.History, path []*choiceNode) *history.History {
	ids := identsOf(h)
	byIdent := map[txnIdent]history.TxnID{}
	for t, id := range ids {
		byIdent[id] = t
	}
	want := map[readAt]history.TxnID{}
	for _, nd := range path {
		want[nd.at] = byIdent[nd.options[nd.taken].writer]
	}
	r := withReadsKept(h, func(t history.TxnID, op int) bool {
		o := h.Txns[t].Ops[op]
		_, ok := want[readAt{txn: ids[t], event: o.Event, key: h.Keys[o.Key].String()}]
		return ok
	})
	for i := range r.Txns {
		t := &r.Txns[i]
		for j, o := range t.Ops {
			if w, ok := want[readAt{txn: ids[t.ID], event: o.Event, key: r.Keys[o.Key].String()}]; ok && o.Kind == history.OpRead {
				t.Ops[j].Writer = w
			}
		}
	}
	last := path[len(path)-1]
	r.CommitOrder = nil
	for _, id := range last.options[last.taken].order {
		if t, ok := byIdent[id]; ok {
			r.CommitOrder = append(r.CommitOrder, t)
		}
	}
	return r
}

// relationOf renders h's write-read relation canonically.
func relationOf(h *history.History) Relation {
	ids := identsOf(h)
	var lines []string
	all := true
	for i := 1; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		all = all && t.Outcome == history.Committed
		lines = append(lines, fmt.Sprintf("%v %s", ids[t.ID], t.Outcome))
		for _, op := range t.Ops {
			if op.Kind == history.OpRead && op.Writer != t.ID {
				lines = append(lines, fmt.Sprintf("%v/%d %s <- %v", ids[t.ID], op.Event, h.Keys[op.Key], ids[op.Writer]))
			}
		}
	}
	sort.Strings(lines)
	return Relation{Text: strings.Join(lines, "\n"), AllCommitted: all}
}
