// Package historyview renders a history as one self-contained HTML page
// (fickle report): sessions as swimlanes, each transaction a box on its
// session's lane with its statements, write-read edges from writer to
// reader, the reads served a version older than the latest committed one
// highlighted, and the checker's dependency cycle when there is one.
//
// The page embeds its data as JSON and draws it with its own script: no
// network, no library. It draws only the columns on screen (and the edges
// that touch them), so that a history of 10^4 transactions scrolls as
// freely as one of ten. historyview reads histories and explanations; it
// never checks them itself.
package historyview

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Parse(pageHTML))

// Options configure a page. Callers must use keyed fields.
type Options struct {
	// Title heads the page (the history's file name, say).
	Title string
	// Cycle, when set, is drawn over the history: the checker's
	// explanation of a violation.
	Cycle *oracle.Explanation
	// CycleNote says what the cycle is ("violates the transactions' own
	// levels", "the anomaly the stale reads form at SERIALIZABLE").
	CycleNote string
	// SessionNames, when set, names sessions by id (a connection's
	// application_name, say); the history's names otherwise.
	SessionNames map[history.SessionID]string

	_ struct{}
}

// Render writes the page for h.
func Render(w io.Writer, h *history.History, opts Options) error {
	d, err := build(h, opts)
	if err != nil {
		return err
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return page.Execute(w, struct {
		Title string
		Data  template.JS
	}{Title: opts.Title, Data: template.JS(data)})
}

// pageData is what the page's script draws. Short field names keep a
// history of 10^4 transactions at a few megabytes.
type pageData struct {
	Sessions []sessionData `json:"sessions"`
	Txns     []txnData     `json:"txns"`
	// SQL holds every distinct statement text once; statements name it by
	// index.
	SQL   []string   `json:"sql"`
	Keys  []string   `json:"keys"`
	Stale int        `json:"stale"`
	Cycle *cycleData `json:"cycle,omitempty"`
}

type sessionData struct {
	Name string `json:"name"`
}

type txnData struct {
	ID      int        `json:"id"`
	Session int        `json:"s"`
	Level   string     `json:"level"`
	Outcome string     `json:"outcome"`
	Stmts   []stmtData `json:"stmts"`
}

type stmtData struct {
	SQL    int       `json:"sql"` // index into SQL, -1 when unknown
	Reads  []readOp  `json:"r,omitempty"`
	Writes []writeOp `json:"w,omitempty"`
}

// readOp is a read as [key, writer, latest, flags]: the writer is a
// transaction id (-1 for none); latest is the newer committed version's
// writer when the read was stale, else -1; flags are readReturned and
// readAbsent. The page draws a write-read edge for every read of another
// transaction's version.
type readOp [4]int

const (
	readReturned = 1 // the row was returned to the client
	readAbsent   = 2 // the version seen was a tombstone
)

type writeOp struct {
	Key int    `json:"k"`
	Del bool   `json:"del,omitempty"`
	Row string `json:"row,omitempty"`
}

type cycleData struct {
	Name  string          `json:"name"`
	Level string          `json:"level"`
	Note  string          `json:"note"`
	Edges []cycleEdgeData `json:"edges"`
}

type cycleEdgeData struct {
	From   int    `json:"from"`
	To     int    `json:"to"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// build turns h into the page's data. Transactions are drawn in id order
// (the order they began, for fickle's histories), Init first. The error is
// a row image that could not be read back from the history's file.
func build(h *history.History, opts Options) (*pageData, error) {
	d := &pageData{Txns: make([]txnData, 0, len(h.Txns))}
	for _, k := range h.Keys {
		d.Keys = append(d.Keys, k.String())
	}
	for _, s := range h.Sessions {
		name := s.Name
		if n, ok := opts.SessionNames[s.ID]; ok {
			name = n
		}
		if name == "" {
			name = fmt.Sprintf("session %d", s.ID)
		}
		d.Sessions = append(d.Sessions, sessionData{Name: name})
	}
	sqlIndex := map[string]int{}
	for i := range h.Txns {
		t := &h.Txns[i]
		td := txnData{ID: int(t.ID), Session: int(t.Session), Level: t.Level.String(), Outcome: t.Outcome.String()}
		if t.ID == history.Init {
			td.Session, td.Level = -1, ""
		}
		events := map[uint32]int{}
		for j, op := range t.Ops {
			si, ok := events[op.Event]
			if !ok {
				si = len(td.Stmts)
				events[op.Event] = si
				td.Stmts = append(td.Stmts, stmtData{SQL: sqlOf(t, op.Event, sqlIndex, &d.SQL)})
			}
			st := &td.Stmts[si]
			if op.Kind == history.OpWrite {
				wo := writeOp{Key: int(op.Key), Del: op.Flags&history.FlagTombstone != 0}
				var err error
				if wo.Row, err = t.Row(j); err != nil {
					return nil, err
				}
				st.Writes = append(st.Writes, wo)
				continue
			}
			ro := readOp{int(op.Key), txnRef(op.Writer), -1, 0}
			if op.Writer == t.ID {
				ro[1] = -2 // its own write: no edge
			}
			if op.Flags&history.FlagReturned != 0 {
				ro[3] |= readReturned
			}
			if op.Flags&history.FlagTombstone != 0 {
				ro[3] |= readAbsent
			}
			if latest, stale := t.LatestOf(j); stale {
				ro[2] = int(latest)
				d.Stale++
			}
			st.Reads = append(st.Reads, ro)
		}
		d.Txns = append(d.Txns, td)
	}
	if e := opts.Cycle; e != nil && len(e.Cycle) > 0 {
		c := &cycleData{Name: e.Anomaly, Level: e.Level.String(), Note: opts.CycleNote}
		for _, ed := range e.Cycle {
			c.Edges = append(c.Edges, cycleEdgeData{From: int(ed.From), To: int(ed.To), Kind: ed.Kind.String(), Reason: ed.Reason})
		}
		d.Cycle = c
	}
	return d, nil
}

func txnRef(t history.TxnID) int {
	if t == history.NoWriter {
		return -1
	}
	return int(t)
}

// sqlOf returns the index of the statement's SQL text in sql, adding it.
func sqlOf(t *history.Txn, event uint32, index map[string]int, sql *[]string) int {
	if int(event) >= len(t.Statements) || t.Statements[event].SQL == "" {
		return -1
	}
	s := t.Statements[event].SQL
	i, ok := index[s]
	if !ok {
		i = len(*sql)
		index[s] = i
		*sql = append(*sql, s)
	}
	return i
}
