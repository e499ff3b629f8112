package explore

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// Report explains a failing run in the user's terms: how to re-create it,
// what the command printed, every read fickle served a version other than
// the latest committed one, and the anomaly those reads form.
type Report struct {
	Run     int    `json:"run"`
	Seed    uint64 `json:"seed"`
	Status  string `json:"status"`
	History string `json:"history"`
	// Replay is the command line that re-creates the run.
	Replay     string      `json:"replay"`
	OutputTail []string    `json:"output_tail"`
	StaleReads []StaleRead `json:"stale_reads"`
	// Anomaly is what the stale reads form, checked at serializability;
	// nil when they form no cycle (a serializable history without real
	// time: the reads are stale only in real time).
	Anomaly *Anomaly `json:"anomaly,omitempty"`
	// Shrink says how the failure was reduced, when it was.
	Shrink *ShrinkStats `json:"shrink,omitempty"`
	// FickleBug is set when the history violates the transactions' own
	// levels: fickle served something it must not.
	FickleBug *Anomaly `json:"fickle_bug,omitempty"`
}

// StaleRead is one read served a version other than the latest committed
// one.
type StaleRead struct {
	Connection      int     `json:"connection"` // 1-based, in connection order; 0 when unknown
	ApplicationName string  `json:"application_name,omitempty"`
	Txn             string  `json:"txn"`
	Level           string  `json:"level"`
	SQL             string  `json:"sql"`
	Table           string  `json:"table"`
	Key             string  `json:"key"`
	Seen            string  `json:"seen"` // returned, filtered out, absent
	Served          Version `json:"served"`
	Latest          Version `json:"latest"`
}

// Version is a version of a row: who wrote it, with which statement, and
// the row (JSON; empty for a deleted or absent row).
type Version struct {
	Txn     string          `json:"txn"`
	SQL     string          `json:"sql,omitempty"`
	Row     json.RawMessage `json:"row,omitempty"`
	Deleted bool            `json:"deleted,omitempty"`
}

// Anomaly is a dependency cycle the oracle found, named in its vocabulary.
type Anomaly struct {
	Name string `json:"name"`
	// Level is the weakest level it breaks.
	Level string `json:"level"`
	// Cycle is the oracle's explanation, one edge a line.
	Cycle []string `json:"cycle"`
	// Reads indexes the stale reads that take part in it.
	Reads []int `json:"reads,omitempty"`
}

// pgLevelNames names fickle's levels in PostgreSQL's terms where it has
// them.
var pgLevelNames = map[history.Level]string{
	history.ReadCommitted: "READ COMMITTED",
	history.Snapshot:      "REPEATABLE READ (snapshot isolation)",
	history.Serializable:  "SERIALIZABLE",
	history.ReadAtomic:    "read atomic",
	history.Causal:        "causal consistency",
	history.Prefix:        "prefix consistency",
}

// BuildReport reads a failing run's history and explains it; replay is the
// command line that re-creates the run.
func BuildReport(r *Run, replay string) (*Report, error) {
	rep, err := Explain(r.History, r.Connections)
	if err != nil {
		return nil, err
	}
	rep.Run, rep.Seed, rep.Status, rep.Replay, rep.OutputTail = r.Number, r.Seed, r.Status(), replay, lastLines([]byte(r.Output), 20)
	if r.Violation != nil {
		h, err := history.Import(r.History, history.FormatFickle)
		if err != nil {
			return nil, err
		}
		rep.FickleBug = anomalyOf(h, r.Violation.Explanation, nil)
	}
	return rep, nil
}

// Explain reads the history at path, written by a server whose
// connections had the application names apps, and lists its stale reads
// and the anomaly they form.
func Explain(path string, apps []string) (*Report, error) {
	h, err := history.Import(path, history.FormatFickle)
	if err != nil {
		return nil, err
	}
	rep := &Report{History: path, StaleReads: []StaleRead{}}
	names := sessionConnections(h, apps)
	type ref struct {
		t  history.TxnID
		op int
	}
	index := map[ref]int{}
	for i := 1; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		for _, s := range t.Stale {
			index[ref{t.ID, int(s.Op)}] = len(rep.StaleReads)
			sr, err := staleRead(h, t, int(s.Op), s.Latest, names)
			if err != nil {
				return nil, err
			}
			rep.StaleReads = append(rep.StaleReads, sr)
		}
	}
	res := oracle.Check(h, oracle.Options{Level: history.Serializable, MaxSteps: checkBudget})
	if res.Verdict == oracle.Violation && res.Explanation != nil {
		rep.Anomaly = anomalyOf(h, res.Explanation, func(t history.TxnID, op int32) (int, bool) {
			i, ok := index[ref{t, int(op)}]
			return i, ok
		})
	}
	return rep, nil
}

// connectionOf maps a history session to its connection number and
// application name.
type connectionOf func(s history.SessionID) (int, string)

// sessionConnections matches the history's sessions with the run's
// connections: the last len(apps) sessions are the connections, in order
// (a --load setup's session comes first).
func sessionConnections(h *history.History, apps []string) connectionOf {
	offset := len(h.Sessions) - len(apps)
	return func(s history.SessionID) (int, string) {
		i := int(s) - offset
		if offset < 0 || i < 0 || i >= len(apps) {
			return 0, ""
		}
		return i + 1, apps[i]
	}
}

func staleRead(h *history.History, t *history.Txn, op int, latest history.TxnID, conn connectionOf) (StaleRead, error) {
	o := t.Ops[op]
	k := h.Keys[o.Key]
	served, err := version(h, o.Writer, o.Key)
	if err != nil {
		return StaleRead{}, err
	}
	newest, err := version(h, latest, o.Key)
	if err != nil {
		return StaleRead{}, err
	}
	sr := StaleRead{Txn: txnLabel(t.ID), Level: t.Level.String(), Table: k.Table, Key: k.Name, Served: served, Latest: newest}
	sr.Connection, sr.ApplicationName = conn(t.Session)
	if int(o.Event) < len(t.Statements) {
		sr.SQL = t.Statements[o.Event].SQL
	}
	switch {
	case o.Flags&history.FlagReturned != 0:
		sr.Seen = "returned"
	case o.Flags&history.FlagTombstone != 0:
		sr.Seen = "absent"
	default:
		sr.Seen = "filtered out"
	}
	return sr, nil
}

func txnLabel(t history.TxnID) string {
	if t == history.Init {
		return "init"
	}
	return fmt.Sprintf("T%d", t)
}

// version describes the version of key x that w wrote: its last write of
// x, the statement that made it and the row. The error is a row image that
// could not be read back from the history's file.
func version(h *history.History, w history.TxnID, x history.KeyID) (Version, error) {
	v := Version{Txn: txnLabel(w)}
	if int(w) >= len(h.Txns) {
		return v, nil
	}
	t := &h.Txns[w]
	for i := len(t.Ops) - 1; i >= 0; i-- {
		o := t.Ops[i]
		if o.Kind != history.OpWrite || o.Key != x {
			continue
		}
		if w != history.Init && int(o.Event) < len(t.Statements) {
			v.SQL = t.Statements[o.Event].SQL
		}
		v.Deleted = o.Flags&history.FlagTombstone != 0
		row, err := t.Row(i)
		if err != nil {
			return v, err
		}
		if row != "" && json.Valid([]byte(row)) {
			v.Row = json.RawMessage(row)
		}
		break
	}
	return v, nil
}

// anomalyOf turns an oracle explanation into an Anomaly; stale, when set,
// finds the stale read of a cycle's read operation.
func anomalyOf(h *history.History, e *oracle.Explanation, stale func(history.TxnID, int32) (int, bool)) *Anomaly {
	if e == nil {
		return nil
	}
	a := &Anomaly{Name: e.Anomaly, Level: e.Level.String()}
	for _, line := range strings.Split(strings.TrimRight(e.Text(h), "\n"), "\n")[1:] {
		a.Cycle = append(a.Cycle, strings.TrimSpace(line))
	}
	if stale == nil {
		return a
	}
	seen := map[int]bool{}
	for _, ed := range e.Cycle {
		var t history.TxnID
		var op int32
		switch ed.Kind {
		case oracle.EdgeRW:
			t, op = ed.From, ed.FromOp
		case oracle.EdgeWR:
			t, op = ed.To, ed.ToOp
		case oracle.EdgeWW:
			// Forced by Via's read of the older version (To's).
			t, op = ed.Via, readOf(h, ed.Via, ed.Key, ed.To)
		default:
			continue
		}
		if i, ok := stale(t, op); ok && !seen[i] {
			seen[i] = true
			a.Reads = append(a.Reads, i)
		}
	}
	return a
}

// readOf returns the index of t's read of key x from writer w, or -1.
func readOf(h *history.History, t history.TxnID, x history.KeyID, w history.TxnID) int32 {
	if int(t) >= len(h.Txns) {
		return -1
	}
	for i, op := range h.Txns[t].Ops {
		if op.Kind == history.OpRead && op.Key == x && op.Writer == w {
			return int32(i)
		}
	}
	return -1
}

// WriteJSON writes the report beside its history (…/run-000007.report.json)
// and returns the file's path.
func (rep *Report) WriteJSON() (string, error) {
	path := strings.TrimSuffix(rep.History, ".jsonl") + ".report.json"
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

// Text renders the report for people.
func (rep *Report) Text() string {
	var b strings.Builder
	if rep.Run > 0 {
		fmt.Fprintf(&b, "run %d (seed %d): %s\n", rep.Run, rep.Seed, rep.Status)
	}
	if rep.Replay != "" {
		fmt.Fprintf(&b, "  re-create it: %s\n", rep.Replay)
	}
	if s := rep.Shrink; s != nil && s.From > 0 {
		fmt.Fprintf(&b, "  shrunk from %d stale reads to %d in %d runs\n", s.From, s.To, s.Runs)
	}
	if len(rep.OutputTail) > 0 {
		b.WriteString("  output (end):\n")
		for _, l := range rep.OutputTail {
			fmt.Fprintf(&b, "    | %s\n", l)
		}
	}
	if rep.FickleBug != nil {
		fmt.Fprintf(&b, "  BUG IN FICKLE: the history violates its own levels (%s, %s):\n", rep.FickleBug.Name, rep.FickleBug.Level)
		for _, l := range rep.FickleBug.Cycle {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	if len(rep.StaleReads) == 0 {
		b.WriteString("  every read was served the latest committed version: the command fails without a stale read,\n" +
			"  as it can on PostgreSQL at the same level with the same interleaving\n")
	} else {
		fmt.Fprintf(&b, "  reads served a version other than the latest committed one (%d):\n", len(rep.StaleReads))
	}
	for i, s := range rep.StaleReads {
		fmt.Fprintf(&b, "  %d. %s, %s (%s): %s\n", i+1, s.connectionText(), s.Txn, s.Level, clip(s.SQL, 200))
		fmt.Fprintf(&b, "     %s/%s (%s) as written by %s\n", s.Table, s.Key, s.Seen, s.Served.text())
		fmt.Fprintf(&b, "     the latest was %s\n", s.Latest.text())
	}
	if a := rep.Anomaly; a != nil {
		level, _ := history.ParseLevel(a.Level)
		what := "the history shows"
		switch {
		case len(a.Reads) == 1 && len(rep.StaleReads) == 1:
			what = "it forms"
		case len(a.Reads) > 0 && len(a.Reads) == len(rep.StaleReads):
			what = "together they form"
		case len(a.Reads) > 0:
			var nums []string
			for _, i := range a.Reads {
				nums = append(nums, fmt.Sprint(i+1))
			}
			what = "reads " + strings.Join(nums, ", ") + " form"
		}
		fmt.Fprintf(&b, "  %s a %s, which %s and every stronger level forbid:\n", what, a.Name, pgLevelNames[level])
		for _, l := range a.Cycle {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	} else if len(rep.StaleReads) > 0 {
		b.WriteString("  they form no dependency cycle: every level allows them without real time (stale reads);\n" +
			"  a database that serves the latest committed version (PostgreSQL) would not show them\n")
	}
	return b.String()
}

func (s StaleRead) connectionText() string {
	switch {
	case s.Connection == 0:
		return "a connection"
	case s.ApplicationName != "":
		return fmt.Sprintf("connection %d (application_name %q)", s.Connection, s.ApplicationName)
	}
	return fmt.Sprintf("connection %d", s.Connection)
}

func (v Version) text() string {
	if v.Txn == "init" {
		if len(v.Row) > 0 {
			return "the initial state " + string(v.Row)
		}
		return "the initial state (no row)"
	}
	s := v.Txn
	if v.SQL != "" {
		s += " " + clip(v.SQL, 160)
	}
	switch {
	case v.Deleted:
		s += " (row deleted)"
	case len(v.Row) > 0:
		s += " -> " + string(v.Row)
	}
	return s
}

// SessionNames names the sessions of the history at path by the
// connections its schedule (beside it) records: "connection 2
// (worker-1)". It returns nil when there is no schedule.
func SessionNames(h *history.History, path string) map[history.SessionID]string {
	steps, err := readSchedule(schedulePath(path))
	if err != nil || steps == nil {
		return nil
	}
	var apps []string
	for _, st := range steps {
		if st.Kind == stepConnect {
			for len(apps) <= st.Session {
				apps = append(apps, "")
			}
			apps[st.Session] = st.Text
		}
	}
	conn := sessionConnections(h, apps)
	names := map[history.SessionID]string{}
	for _, s := range h.Sessions {
		if n, app := conn(s.ID); n > 0 {
			names[s.ID] = StaleRead{Connection: n, ApplicationName: app}.connectionText()
		}
	}
	return names
}
