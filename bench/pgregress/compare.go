package main

import (
	"regexp"
	"slices"
	"strings"
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
)

var orderByRE = regexp.MustCompile(`(?i)\border\s+by\b`)

// compare classifies fickle's outcome against PostgreSQL's. Rows are
// compared in order when the statement says ORDER BY somewhere, as a
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
	if sameResults(pg.results, fk.results, !orderByRE.MatchString(sql)) {
		return same
	}
	return wrongAnswer
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
