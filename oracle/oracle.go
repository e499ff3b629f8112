package oracle

import (
	"fmt"

	"github.com/fickle-db/fickle/history"
)

// Verdict is the outcome of a check.
type Verdict uint8

// Verdicts. Unknown is never a guess: it means the step budget ran out before
// the check could decide.
const (
	Consistent Verdict = iota
	Violation
	Unknown
)

var verdictNames = [...]string{"consistent", "violation", "unknown"}

// String returns "consistent", "violation" or "unknown".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", v)
}

// Options configures a check. Callers must use keyed fields.
type Options struct {
	// Level, when set, checks every transaction at this level. When zero
	// (history.LevelUnknown), each transaction is checked at its own level
	// (mixed levels, paper 000); a transaction whose own level is unknown is
	// checked at Serializable.
	Level history.Level
	// RealTime adds the real-time constraint (strict variants): a
	// transaction must see every transaction that committed before it began.
	// It uses Txn.Start and Txn.End; transactions without times are not
	// constrained.
	RealTime bool
	// MaxSteps bounds the work of the exponential searches (PC, SI, SER
	// without a usable commit order). Zero means no bound. When the budget
	// runs out the verdict is Unknown.
	MaxSteps int64
	// Progress, when set, is called from time to time with the work done and
	// the total work expected (both in abstract steps). It must be cheap.
	Progress func(done, total int64)
	// RC is the definition of read committed that transactions checked at
	// RC are held to: RCSessionOrder (the default) or RCBiswasEnea.
	RC RCDefinition

	_ struct{}
}

// Result is the outcome of Check.
type Result struct {
	Verdict Verdict
	// Level is the level checked: Options.Level, or for a mixed check the
	// strongest level of any transaction.
	Level history.Level
	// Explanation says why, when Verdict is Violation; nil otherwise.
	Explanation *Explanation
	// Steps is the work done, in the same units as Options.MaxSteps.
	Steps int64
}

// EdgeKind is the relation an edge of a dependency cycle comes from.
type EdgeKind uint8

// Edge kinds. SO, WR are given by the history; WW and RW are derived by the
// level's axiom (saturation, or the commit order under test); RT is the
// real-time order of the strict variants.
const (
	EdgeSO EdgeKind = iota // session order
	EdgeWR                 // write-read: To read a version From wrote
	EdgeWW                 // write-write: the level forces From's write of Key before To's
	EdgeRW                 // read-write (anti-dependency): From read a version of Key older than To's
	EdgeRT                 // real time: From committed before To began
)

var edgeKindNames = [...]string{"so", "wr", "ww", "rw", "rt"}

// String returns the relation's short name (so, wr, ww, rw, rt).
func (k EdgeKind) String() string {
	if int(k) < len(edgeKindNames) {
		return edgeKindNames[k]
	}
	return fmt.Sprintf("EdgeKind(%d)", k)
}

// NoOp marks an Edge end that is not a particular operation.
const NoOp int32 = -1

// Edge is one edge of a dependency cycle: From must precede To in every
// commit order the checked level allows.
type Edge struct {
	From, To history.TxnID
	Kind     EdgeKind
	// Key is the key the edge is about (wr, ww, rw); meaningless for so and rt.
	Key history.KeyID
	// FromOp and ToOp index the operations (Txn.Ops) the edge comes from: for
	// wr the write and the read; for ww the two writes; for rw the read and
	// the overwriting write. NoOp when not applicable.
	FromOp, ToOp int32
	// Via, for derived edges (ww, rw), is the transaction whose read forced
	// the edge (the reader t3 of the axiom), or the reader itself.
	Via history.TxnID
	// Reason is a one-line explanation in the user's terms.
	Reason string
}

// StructuralKind names a structural defect: a history no isolation level
// allows, whatever the commit order.
type StructuralKind uint8

// Structural defects (Adya's and paper 002's names where they exist).
const (
	ThinAirRead       StructuralKind = iota + 1 // reads a version no transaction wrote
	AbortedRead                                 // G1a: reads a write of an aborted transaction
	FutureRead                                  // reads its own later write, or a write of a so-later transaction
	IntermediateRead                            // G1b: reads a write that its writer overwrote
	NotMyOwnWrite                               // reads another's version of a key it wrote before
	NotMyLastWrite                              // reads its own write that it overwrote since
	SplitRead                                   // one statement saw two versions of the same key
	UnknownWriter                               // names a transaction or key outside the history
	Malformed                                   // the history's own structure is inconsistent
	IncompatibleOrder                           // two list reads of a key that no version order explains (Elle)
)

var structuralNames = [...]string{"", "thin-air read", "aborted read", "future read", "intermediate read",
	"not my own write", "not my last write", "split read", "unknown writer", "malformed history", "incompatible order"}

// String returns the defect's name, as used in Explanation.Anomaly.
func (k StructuralKind) String() string {
	if k > 0 && int(k) < len(structuralNames) {
		return structuralNames[k]
	}
	return fmt.Sprintf("StructuralKind(%d)", k)
}

// Explanation says why a history violates a level.
type Explanation struct {
	// Level is the weakest level the violation breaks: the history (or the
	// offending transaction) fails at Level and every stronger level.
	Level history.Level
	// Anomaly is the anomaly's name: G0, G1a, G1b, G1c, G-single, G2, lost
	// update, write skew, fractured read, causality violation, long fork,
	// non-repeatable read, or a structural kind.
	Anomaly string
	// Cycle is a minimal cycle of the dependency graph, when the violation
	// is one; its edges are in order, Cycle[i].To == Cycle[i+1].From.
	Cycle []Edge
	// Structural is set when the history is malformed for every level.
	Structural *StructuralIssue
	// RC, when Level is ReadCommitted, is the definition of read committed
	// that was violated (Options.RC of the check).
	RC RCDefinition

	// vis records, for saturation cycles, why each inferred edge's writer
	// was visible to the reader; nil otherwise.
	vis []visibility
	// levels records the level each transaction of the cycle was checked
	// at, when known.
	levels map[history.TxnID]history.Level
}

// StructuralIssue locates a structural defect.
type StructuralIssue struct {
	Kind StructuralKind
	Txn  history.TxnID // the reading transaction
	Op   int32         // the read, an index into Txn.Ops
	Key  history.KeyID
	// Writer is the transaction whose version was read (history.NoWriter
	// for a thin-air read).
	Writer history.TxnID
	// Reason is a one-line explanation in the user's terms.
	Reason string
}

// Check decides whether h satisfies opts.Level (or, when zero, each
// transaction's own level). It never panics on any history and never runs
// past opts.MaxSteps: it answers Unknown instead (and for an opts.Level
// that is not a level). A pending transaction that may still be aborted is
// ignored like a server-aborted one (settled).
//
// The dispatch: well-formedness and structural checks first
// (checkWellFormed, checkStructure); a history with client reads
// (history.Statement.Client) then goes to CheckClient, its missing reads
// and predicates taken from the history (recordedClientReads). Otherwise,
// when every transaction is checked at RC, RA or CC, saturation
// (saturate; with CC transactions, the recorded commit order first, a
// witness when it passes); when PC, SI or SER transactions are present,
// verification of
// the recorded commit order, and when there is none or it fails, saturation
// at CC (an exact, polynomial reject), windows of the failed order around
// its failures (repairOrder: exact both ways, and cheap), and the search. A
// violation is explained at the weakest level that fails.
//
// The PC/SI/SER half is owned by order*.go and search*.go, which provide:
//
//	// verifyCommitOrder checks h with every transaction at levels[t] against
//	// the total order co (of all non-server-aborted transactions, Init
//	// first); nil means co witnesses consistency.
//	func verifyCommitOrder(h *history.History, co []history.TxnID, levels []history.Level, opts Options) *Explanation
//
//	// searchCommitOrder looks for a commit order witnessing consistency; the
//	// verdict is Consistent (with co), Violation (with an explanation) or
//	// Unknown (budget exhausted).
//	func searchCommitOrder(h *history.History, levels []history.Level, opts Options) (co []history.TxnID, v Verdict, why *Explanation, steps int64)
//
// Both may assume that checkWellFormed and checkStructure passed. Check
// reaches them through the hooks verifyCommitOrderHook and
// searchCommitOrderHook, which their files set in init; were they unset,
// Check would answer Unknown for PC/SI/SER, never a guess.
func Check(h *history.History, opts Options) Result {
	res := check(settled(h), opts)
	nameDefinition(&res, opts.RC)
	return res
}

func check(h *history.History, opts Options) Result {
	if opts.Level > history.Serializable {
		return Result{Verdict: Unknown, Level: opts.Level} // not a level: no verdict
	}
	levels := levelsFor(h, opts)
	res := Result{Level: strongest(h, levels)}
	if len(h.Txns) == 0 {
		res.Verdict = Consistent
		return res
	}
	if why := checkWellFormed(h); why != nil {
		res.Verdict, res.Explanation = Violation, why
		return res
	}
	ix := newIndex(h, levels)
	if why := checkStructure(ix); why != nil {
		res.Verdict, res.Explanation = Violation, why
		return res
	}
	if c, why, ok := recordedClientReads(h); ok {
		return checkClientHistory(h, c, why, opts, res)
	}
	if res.Level <= history.Causal {
		// With causal transactions, a recorded order that passes is a
		// witness found faster than saturation (at RC and RA saturation is
		// the faster); saturation decides otherwise.
		if res.Level == history.Causal && h.CommitOrder != nil && verifyCommitOrderHook != nil &&
			verifyCommitOrderHook(h, h.CommitOrder, levels, opts) == nil {
			res.Verdict = Consistent
			return res
		}
		res.Verdict, res.Explanation, res.Steps = saturate(ix, opts)
		if res.Verdict == Violation {
			res.Explanation = weakestViolation(h, levels, opts, res.Level, res.Explanation)
		}
		return res
	}
	// PC, SI, SER: a recorded commit order that passes is a witness. When
	// there is none or it fails, the causal part first (exact and
	// polynomial), then windows of the failed order around the failure
	// (exact when they find a violation, cheap), then the search.
	var failure *Explanation
	if h.CommitOrder != nil && verifyCommitOrderHook != nil {
		if failure = verifyCommitOrderHook(h, h.CommitOrder, levels, opts); failure == nil {
			res.Verdict = Consistent
			return res
		}
	}
	capped := capLevels(levels, history.Causal)
	if v, why, steps := saturate(newIndex(h, capped), opts); v == Violation {
		res.Verdict, res.Steps = v, steps
		res.Explanation = weakestViolation(h, levels, opts, history.Causal, why)
		return res
	}
	if searchCommitOrderHook == nil {
		res.Verdict = Unknown
		return res
	}
	if failure != nil {
		_, v, why, steps := repairOrder(h, h.CommitOrder, levels, opts, opts.MaxSteps)
		res.Steps += steps
		switch v {
		case Consistent:
			res.Verdict = v
			return res
		case Violation:
			res.Verdict, res.Explanation = v, weakestCoreViolation(h, levels, opts, res.Level, why)
			return res
		}
	}
	o := opts
	if o.MaxSteps > 0 {
		if o.MaxSteps -= res.Steps; o.MaxSteps <= 0 {
			res.Verdict = Unknown
			return res
		}
	}
	var steps int64
	_, res.Verdict, res.Explanation, steps = searchCommitOrderHook(h, levels, o)
	res.Steps += steps
	if res.Verdict == Violation {
		res.Explanation = weakestSearchViolation(h, levels, opts, res.Level, res.Explanation)
	}
	return res
}

// checkClientHistory decides a history with client reads (paper 000's
// client histories) by CheckClient: why, when set, is a returned row that
// fails its own predicate, a violation of every level. A violation of a
// uniform opts.Level is explained at the weakest level that CheckClient
// also rejects.
func checkClientHistory(h *history.History, c ClientReads, why *Explanation, opts Options, res Result) Result {
	res = checkClientReads(h, c, why, opts, res)
	if c.rows != nil && c.rows.err != nil {
		// A row image could not be read back (history.RowImages.At): no
		// verdict rests on rows that were not there.
		return Result{Verdict: Unknown, Level: res.Level, Steps: res.Steps}
	}
	return res
}

func checkClientReads(h *history.History, c ClientReads, why *Explanation, opts Options, res Result) Result {
	if why != nil {
		res.Verdict, res.Explanation = Violation, why
		return res
	}
	res.Verdict, _, res.Explanation = CheckClient(h, c, opts)
	if res.Verdict != Violation {
		return res
	}
	if res.Explanation == nil {
		res.Explanation = &Explanation{Level: res.Level, Anomaly: "no full history the client reads allow is consistent"}
	}
	for _, l := range history.Levels {
		if l >= res.Level || opts.Level == history.LevelUnknown {
			break
		}
		o := opts
		o.Level = l
		if v, _, e := CheckClient(h, c, o); v == Violation && e != nil {
			res.Explanation = e
			break
		}
	}
	if res.Explanation.Level == history.LevelUnknown {
		res.Explanation.Level = res.Level
	}
	return res
}

// weakestCoreViolation names a violation that a window of the recorded
// commit order proved (repairOrder) by the weakest level that fails (CC is
// known to hold): with every level capped at PC, then SI, below failed, a
// recorded order that passes shows the capped levels hold, and one that
// fails is repaired around its failure again. When no cap is
// proved to fail, why stands, at failed.
func weakestCoreViolation(h *history.History, levels []history.Level, opts Options, failed history.Level, why *Explanation) *Explanation {
	for _, l := range []history.Level{history.Prefix, history.Snapshot} {
		if l >= failed {
			break
		}
		capped := capLevels(levels, l)
		f := verifyCommitOrderHook(h, h.CommitOrder, capped, opts)
		if f == nil {
			continue
		}
		if _, v, e, _ := repairOrder(h, h.CommitOrder, capped, opts, opts.MaxSteps); v == Violation {
			return nameSearchViolation(e, l)
		}
	}
	return nameSearchViolation(why, failed)
}

// nameSearchViolation sets the level of a PC, SI or SER violation (one
// whose weaker levels hold) and names its anomaly for that level, unless
// the explanation already names it at that level (explainSearchCycle
// counts the anti-dependencies hidden in its edges' justifications, which
// the cycle alone does not show).
func nameSearchViolation(why *Explanation, level history.Level) *Explanation {
	if why == nil || why.Structural != nil || why.Level == level && why.Anomaly != "" {
		return why
	}
	why.Level = level
	why.Anomaly = anomalyName(level, why.Cycle, nil)
	return why
}

// weakestViolation re-checks a history that violates its levels with every
// level capped at RC, then RA, ..., below failed, and returns the
// explanation of the first capped check that fails: the weakest level
// violated, with the cycle that shows it there.
func weakestViolation(h *history.History, levels []history.Level, opts Options, failed history.Level, why *Explanation) *Explanation {
	for _, l := range []history.Level{history.ReadCommitted, history.ReadAtomic} {
		if l >= failed {
			break
		}
		if v, e, _ := saturate(newIndex(h, capLevels(levels, l)), opts); v == Violation {
			return finishExplanation(e, l)
		}
	}
	return finishExplanation(why, failed)
}

// capLevels returns levels with every level above c lowered to c.
func capLevels(levels []history.Level, c history.Level) []history.Level {
	out := make([]history.Level, len(levels))
	for i, l := range levels {
		out[i] = min(l, c)
	}
	return out
}

// levelsFor returns the level each transaction is checked at.
func levelsFor(h *history.History, opts Options) []history.Level {
	levels := make([]history.Level, len(h.Txns))
	for i := range h.Txns {
		switch {
		case opts.Level != history.LevelUnknown:
			levels[i] = opts.Level
		case h.Txns[i].Level == history.LevelUnknown:
			levels[i] = history.Serializable
		default:
			levels[i] = h.Txns[i].Level
		}
	}
	return levels
}

// strongest returns the strongest level of any checked transaction (Init
// and server-aborted transactions are not checked), at least RC.
func strongest(h *history.History, levels []history.Level) history.Level {
	best := history.ReadCommitted
	for i := 1; i < len(h.Txns); i++ {
		if h.Txns[i].Outcome != history.ServerAborted && levels[i] > best {
			best = levels[i]
		}
	}
	return best
}

// StrongestLevel returns the strongest level L such that h satisfies L with
// every transaction at L, and the results of the checks made, weakest
// first: one Result per level up to L (consistent), then, when L is not
// SER, the result for the next level (a violation, or Unknown when the
// search ran out of opts.MaxSteps there). It returns history.LevelUnknown
// when even RC does not hold or could not be decided. opts.Level is
// ignored.
//
// A level that holds implies every weaker one, and a level that fails every
// stronger one; StrongestLevel decides each level by the cheapest exact
// argument it has, in this order:
//
//  1. the structural checks, once (a defect fails every level);
//  2. the recorded commit order, verified at SER, SI, PC, CC, RA, RC in
//     turn (near-linear each): the first level it passes holds, and so do
//     the weaker ones;
//  3. saturation at CC for the levels below PC still open (exact and
//     polynomial; when CC fails, RC and RA are saturated to find the
//     weakest that fails, and PC, SI and SER fail with it);
//  4. for PC, SI and SER still open, weakest first: windows of the
//     recorded order around the failure verification found
//     (repairOrder: a window without a commit order is a violation; the
//     windows' orders spliced into the recorded one may give a witness),
//     then the search; a witness found is verified at the stronger levels,
//     which it may also witness.
//
// Only the search can run out of budget, so Unknown is reported only for
// a level that no cheaper argument decides.
func StrongestLevel(h *history.History, opts Options) (history.Level, []Result) {
	l, results := strongestLevel(h, opts)
	for i := range results {
		nameDefinition(&results[i], opts.RC)
	}
	return l, results
}

func strongestLevel(h *history.History, opts Options) (history.Level, []Result) {
	opts.Level = history.LevelUnknown
	if len(h.Txns) <= 1 || verifyCommitOrderHook == nil || searchCommitOrderHook == nil || h.HasClientReads() {
		return strongestByCheck(h, opts)
	}
	uniform := func(l history.Level) []history.Level {
		levels := make([]history.Level, len(h.Txns))
		for i := range levels {
			levels[i] = l
		}
		return levels
	}
	result := func(v Verdict, l history.Level, why *Explanation, steps int64) (history.Level, []Result) {
		var results []Result
		for _, m := range history.Levels {
			if m >= l {
				break
			}
			results = append(results, Result{Verdict: Consistent, Level: m})
		}
		holds := l - 1
		if l == history.ReadCommitted {
			holds = history.LevelUnknown
		}
		if v == Consistent {
			holds = l
		}
		return holds, append(results, Result{Verdict: v, Level: l, Explanation: why, Steps: steps})
	}
	if why := checkWellFormed(h); why != nil {
		return result(Violation, history.ReadCommitted, why, 0)
	}
	if why := checkStructure(newIndex(h, uniform(history.ReadCommitted))); why != nil {
		return result(Violation, history.ReadCommitted, why, 0)
	}
	holds := history.LevelUnknown
	// witness is the order that witnesses holds (nil: none), and failures
	// say why it fails at the levels above holds.
	witness := h.CommitOrder
	failures := map[history.Level]*Explanation{}
	if h.CommitOrder != nil {
		for i := len(history.Levels) - 1; i >= 0 && holds == history.LevelUnknown; i-- {
			l := history.Levels[i]
			if failures[l] = verifyCommitOrderHook(h, h.CommitOrder, uniform(l), opts); failures[l] == nil {
				holds = l
			}
		}
	}
	if holds < history.Causal {
		v, why, steps := saturate(newIndex(h, uniform(history.Causal)), opts)
		if v != Consistent {
			for l := max(holds+1, history.ReadCommitted); l < history.Causal; l++ {
				if v, why, steps := saturate(newIndex(h, uniform(l)), opts); v != Consistent {
					return result(v, l, finishExplanation(why, l), steps)
				}
			}
			return result(v, history.Causal, finishExplanation(why, history.Causal), steps)
		}
		holds = history.Causal
	}
	for holds < history.Serializable {
		l := holds + 1
		var steps int64
		var co []history.TxnID
		v := Unknown
		if f := failures[l]; f != nil {
			var why *Explanation
			co, v, why, steps = repairOrder(h, witness, uniform(l), opts, opts.MaxSteps)
			if v == Violation {
				return result(v, l, nameSearchViolation(why, l), steps)
			}
		}
		if v != Consistent {
			o := opts
			if o.MaxSteps > 0 {
				o.MaxSteps = max(1, o.MaxSteps-steps)
			}
			var why *Explanation
			var n int64
			co, v, why, n = searchCommitOrderHook(h, uniform(l), o)
			steps += n
			if v != Consistent {
				if v == Violation {
					if e := explainSearchCycle(h, uniform(l), opts, l); e != nil {
						why = e
					}
					why = nameSearchViolation(why, l)
				}
				return result(v, l, why, steps)
			}
		}
		holds, witness = l, co
		for m := history.Serializable; m > l; m-- {
			if failures[m] = verifyCommitOrderHook(h, co, uniform(m), opts); failures[m] == nil {
				holds = m
				break
			}
		}
	}
	return result(Consistent, history.Serializable, nil, 0)
}

// strongestByCheck is StrongestLevel by Check at each level in turn, for
// the histories StrongestLevel's shortcuts do not apply to.
func strongestByCheck(h *history.History, opts Options) (history.Level, []Result) {
	var results []Result
	holds := history.LevelUnknown
	for _, l := range history.Levels {
		o := opts
		o.Level = l
		r := Check(h, o)
		results = append(results, r)
		if r.Verdict != Consistent {
			break
		}
		holds = l
	}
	return holds, results
}

// Hooks to the commit-order half of the checker (see Check). They are set by
// init functions in order*.go and search*.go and never changed afterwards.
var (
	verifyCommitOrderHook func(h *history.History, co []history.TxnID, levels []history.Level, opts Options) *Explanation
	searchCommitOrderHook func(h *history.History, levels []history.Level, opts Options) (co []history.TxnID, v Verdict, why *Explanation, steps int64)
)
