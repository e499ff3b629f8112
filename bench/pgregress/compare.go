package main

import (
	"regexp"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// verdict is how fickle's answer to a statement compares with PostgreSQL's.
type verdict int

const (
	same         verdict = iota
	fickleError          // fickle failed where PostgreSQL answered
	otherError           // both failed, with different SQLSTATEs
	missingError         // PostgreSQL failed where fickle answered
	wrongAnswer          // both answered, differently
	crash                // fickle lost the connection
	timeout              // fickle did not answer within the time-out
	// planDiffers: both answered an EXPLAIN whose output is a plan
	// without timings, with different plans. Plans need not match
	// (issue 11): fickle prints its own operators and estimates.
	planDiffers
	// tiesDiffer: both answered the same rows in an order that differs
	// only among rows whose ORDER BY keys are equal, which SQL leaves to
	// the plan: both answers are right.
	tiesDiffer
)

var orderByRE = regexp.MustCompile(`(?i)\border\s+by\b`)

// ordersRows reports whether sql sorts its result: some SELECT of it (the
// outermost or a subquery, whose order PostgreSQL's plans keep in
// practice) has an ORDER BY. The ORDER BY of a window or an aggregate's
// arguments fixes no output order. Text that does not parse falls back to
// any ORDER BY in it.
func ordersRows(sql string) bool {
	tree, err := pg_query.ParseToJSON(sql)
	if err != nil {
		return orderByRE.MatchString(sql)
	}
	return strings.Contains(tree, `"sortClause"`)
}

// compare classifies fickle's outcome against PostgreSQL's. Rows are
// compared in order when the statement sorts them (ordersRows), as a
// multiset otherwise: without it SQL fixes no order, and fickle's heap order
// is not PostgreSQL's.
func compare(sql string, pg, fk outcome) verdict {
	switch {
	case fk.lost:
		return crash
	case fk.timedOut:
		return timeout
	case fk.code != "" && pg.code == "":
		return fickleError
	case fk.code != "" && fk.code != pg.code:
		return otherError
	case fk.code == "" && pg.code != "":
		return missingError
	case fk.code != "":
		// The same error: the rows PostgreSQL sent before it are not an
		// answer (psql shows the error alone).
		return same
	}
	if sameResults(pg.results, fk.results, !ordersRows(sql)) {
		return same
	}
	if fk.inFailedTxn && !pg.inFailedTxn {
		// fickle's transaction was aborted by a statement that failed only
		// there, so its COMMIT answers ROLLBACK as PostgreSQL's would: the
		// cascade of that fickle-only error, not an answer of its own.
		return fickleError
	}
	if comparablePlan(sql) && samePlanShape(pg.results, fk.results) {
		return planDiffers
	}
	if sameUpToTies(sql, pg.results, fk.results) {
		return tiesDiffer
	}
	return wrongAnswer
}

// sameUpToTies reports whether both sides answered the same rows, sorted
// by the statement's ORDER BY alike but for the order of rows with equal
// sort keys. It needs every key of the outermost ORDER BY to be an output
// column (by name or position); otherwise it cannot tell and reports
// false.
func sameUpToTies(sql string, a, b []result) bool {
	if len(a) != 1 || len(b) != 1 || !sameResults(a, b, true) {
		return false
	}
	keys, ok := sortKeyColumns(sql, a[0].cols)
	if !ok || len(a[0].vals) != len(a[0].rows) || len(b[0].vals) != len(b[0].rows) {
		return false
	}
	keyOf := func(r result, i int) string {
		parts := make([]string, len(keys))
		for j, k := range keys {
			parts[j] = r.vals[i][k]
		}
		return strings.Join(parts, "\x00")
	}
	for i := range a[0].vals {
		if keyOf(a[0], i) != keyOf(b[0], i) {
			return false
		}
	}
	return true
}

// sortKeyColumns returns the output columns the outermost ORDER BY of sql
// sorts by: a position, or a name that is one output column's alone.
func sortKeyColumns(sql string, cols []string) ([]int, bool) {
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, false
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.SortClause) == 0 {
		return nil, false
	}
	var keys []int
	for _, n := range sel.SortClause {
		e := n.GetSortBy().GetNode()
		switch {
		case e.GetAConst().GetIval() != nil:
			k := int(e.GetAConst().GetIval().GetIval()) - 1
			if k < 0 || k >= len(cols) {
				return nil, false
			}
			keys = append(keys, k)
		case e.GetColumnRef() != nil:
			fields := e.GetColumnRef().GetFields()
			name := fields[len(fields)-1].GetString_().GetSval()
			k := slices.Index(cols, name)
			if name == "" || k < 0 || slices.Index(cols[k+1:], name) >= 0 {
				return nil, false
			}
			keys = append(keys, k)
		default:
			return nil, false
		}
	}
	return keys, true
}

var (
	// explainRE skips the comments before the statement: psql sends a
	// block comment that follows the previous statement's semicolon with
	// the next statement (partition_prune.sql's "/* commuted */"), and
	// inherit.sql heads some EXPLAINs with one.
	explainRE = regexp.MustCompile(`(?is)^(?:\s*(?:/\*.*?\*/|--[^\n]*(?:\n|$)))*\s*explain\b\s*(\((.*?)\))?\s*(analy[sz]e\b)?`)
	// analyzeOnRE finds ANALYZE in an option list, not followed by a false
	// value; offRE finds COSTS or TIMING turned off.
	analyzeOnRE = regexp.MustCompile(`(?i)\banaly[sz]e\b(\s+(true|on|1)\b)?\s*(,|$)`)
	offRE       = regexp.MustCompile(`(?i)\b(costs|timing)\s+(false|off|0)\b`)
)

// comparablePlan reports whether sql is an EXPLAIN whose output is a plan
// fickle prints its own way: one without ANALYZE, or with ANALYZE but
// COSTS or TIMING off. Plain EXPLAIN ANALYZE prints timings, which differ
// between any two runs, and stays a wrong answer when it differs.
func comparablePlan(sql string) bool {
	m := explainRE.FindStringSubmatch(sql)
	if m == nil {
		return false
	}
	opts := m[2]
	analyze := m[3] != "" || analyzeOnRE.MatchString(opts)
	return !analyze || offRE.MatchString(opts)
}

// samePlanShape reports whether both answered one result of the same
// command tag and columns (EXPLAIN's "QUERY PLAN").
func samePlanShape(a, b []result) bool {
	return len(a) == 1 && len(b) == 1 && a[0].tag == b[0].tag && slices.Equal(a[0].cols, b[0].cols)
}

func sameResults(a, b []result, anyOrder bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].tag != b[i].tag || !slices.Equal(a[i].cols, b[i].cols) {
			return false
		}
		ra, rb := a[i].rows, b[i].rows
		if anyOrder {
			ra, rb = sorted(ra), sorted(rb)
		}
		if !slices.Equal(ra, rb) {
			return false
		}
	}
	return true
}

func sorted(rows []string) []string {
	out := slices.Clone(rows)
	slices.Sort(out)
	return out
}

// oneLine shortens a statement for listings.
func oneLine(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
