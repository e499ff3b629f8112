package oracle

import (
	"fmt"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// RCDefinition selects one of the two definitions of read committed in the
// literature. They differ in one case: a transaction that reads a key
// older than a version its own session's earlier transaction wrote, without
// having read from that transaction. Paper 000 forbids it, Biswas and Enea
// (2019) allow it; both are right by their own definition, so a check names
// the one it applied.
type RCDefinition uint8

const (
	// RCSessionOrder is paper 000's read committed, fickle's default
	// (DESIGN.md §3): a read sees the transactions of its own session that
	// came before, and the writers that earlier statements of its
	// transaction read from.
	RCSessionOrder RCDefinition = iota
	// RCBiswasEnea is Biswas and Enea's read committed, the one AWDIT,
	// dbcop and Plume check: a read sees only the writers that earlier
	// reads of its transaction read from. Session order still orders
	// commits (co ⊇ so), but it makes nothing visible.
	RCBiswasEnea
)

// String returns the definition's short name, as `fickle check --level`
// takes it: "RC" or "RC-BE".
func (d RCDefinition) String() string {
	switch d {
	case RCSessionOrder:
		return "RC"
	case RCBiswasEnea:
		return "RC-BE"
	}
	return fmt.Sprintf("RCDefinition(%d)", d)
}

// Describe says in a sentence what the definition makes visible to a read.
func (d RCDefinition) Describe() string {
	if d == RCBiswasEnea {
		return "Biswas and Enea's read committed (AWDIT, dbcop, Plume): a read sees the writers its transaction's earlier reads read from"
	}
	return "paper 000's read committed (fickle's default): a read sees its session's earlier transactions and the writers its transaction's earlier reads read from"
}

// ParseRCLevel recognizes the names of Biswas and Enea's read committed
// (read-committed-be, rc-be, in any case, with dashes, underscores or
// spaces) and returns ReadCommitted with RCBiswasEnea; any other name is
// parsed by history.ParseLevel, with RCSessionOrder.
func ParseRCLevel(s string) (history.Level, RCDefinition, error) {
	n := strings.NewReplacer("_", "-", " ", "-").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch n {
	case "rc-be", "read-committed-be", "read-committed-biswas-enea", "rc-biswas-enea":
		return history.ReadCommitted, RCBiswasEnea, nil
	}
	l, err := history.ParseLevel(s)
	return l, RCSessionOrder, err
}

// LevelName names level l as checked with definition d: "RC-BE" for read
// committed under RCBiswasEnea, the level's short name otherwise.
func LevelName(l history.Level, d RCDefinition) string {
	if l == history.ReadCommitted {
		return d.String()
	}
	return l.String()
}

// nameDefinition records in the explanations of r which definition of
// read committed a violation at RC broke.
func nameDefinition(r *Result, d RCDefinition) {
	if e := r.Explanation; e != nil && e.Level == history.ReadCommitted {
		e.RC = d
	}
}

// levelText names the level an explanation is about; a cycle at read
// committed also names the definition it breaks (a structural defect
// breaks both).
func (e *Explanation) levelText() string {
	if e.Level != history.ReadCommitted || e.Structural != nil {
		return e.Level.String()
	}
	if e.RC == RCBiswasEnea {
		return "RC-BE (Biswas and Enea's read committed)"
	}
	return "RC (paper 000's read committed, session order visible)"
}
