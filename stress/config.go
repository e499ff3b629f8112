package stress

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/fickle-db/fickle/history"
)

// Config is one run of fickle stress. Callers use keyed fields.
type Config struct {
	// DSN is the database's connection string (a postgres:// URL or
	// key=value pairs, as libpq takes).
	DSN string
	// Sessions is the number of concurrent sessions, each one connection
	// running one transaction at a time.
	Sessions int
	// Txns is the number of transactions to attempt, over all sessions;
	// each ends committed or aborted, and none is retried. Zero with a
	// Duration: as many as the Duration allows.
	Txns int
	// Objects is the number of rows of the table, the keys the
	// transactions read and write.
	Objects int
	// Dist is how transactions pick keys: uniform, zipf, hotspot or
	// exponential.
	Dist string
	// Level is the isolation level of every transaction: PostgreSQL's
	// names (read-committed, repeatable-read, serializable) or fickle's
	// (read-atomic, causal, prefix, snapshot) against fickle.
	Level string
	// Duration, when set, ends the run after that long.
	Duration time.Duration
	// Workload is mt (mini-transactions), rw (a read/write mix), append
	// (list-append over arrays) or cas (compare-and-set).
	Workload string
	// Table is the table the run creates (dropping one of that name).
	Table string
	// Seed makes the transactions' programs (not their interleaving)
	// reproducible.
	Seed uint64
	// HistoryPath is where the client-side history is written (fickle's
	// JSONL format); empty: a temporary file, removed after the check.
	HistoryPath string
	// MaxSteps bounds the general checker's search (workloads rw and
	// append, and levels below SI); past it a level is undecided.
	MaxSteps int64

	_ struct{}
}

// Defaults of Config's zero fields.
const (
	DefaultSessions = 8
	DefaultTxns     = 1000
	DefaultObjects  = 10
	DefaultTable    = "fickle_stress"
	DefaultMaxSteps = 10_000_000
)

// Workloads and key distributions, by name.
var (
	Workloads     = []string{"mt", "rw", "append", "cas"}
	Distributions = []string{"uniform", "zipf", "hotspot", "exponential"}
)

var tableName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// withDefaults fills the zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.DSN == "" {
		return c, fmt.Errorf("no database: give --dsn")
	}
	if c.Sessions == 0 {
		c.Sessions = DefaultSessions
	}
	if c.Txns == 0 && c.Duration == 0 {
		c.Txns = DefaultTxns
	}
	if c.Objects == 0 {
		c.Objects = DefaultObjects
	}
	if c.Dist == "" {
		c.Dist = "uniform"
	}
	if c.Level == "" {
		c.Level = "serializable"
	}
	if c.Workload == "" {
		c.Workload = "mt"
	}
	if c.Table == "" {
		c.Table = DefaultTable
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	switch {
	case c.Sessions < 1 || c.Sessions > 1000:
		return c, fmt.Errorf("--sessions %d: want 1 to 1000", c.Sessions)
	case c.Txns < 0:
		return c, fmt.Errorf("--txns %d: want a positive number", c.Txns)
	case c.Duration < 0:
		return c, fmt.Errorf("--duration %s: want a positive duration", c.Duration)
	case c.Objects < 1 || c.Objects > 10_000_000:
		return c, fmt.Errorf("--objects %d: want 1 to 10000000", c.Objects)
	case !contains(Distributions, c.Dist):
		return c, fmt.Errorf("--dist %q: want one of %s", c.Dist, strings.Join(Distributions, ", "))
	case !contains(Workloads, c.Workload):
		return c, fmt.Errorf("--workload %q: want one of %s", c.Workload, strings.Join(Workloads, ", "))
	case !tableName.MatchString(c.Table):
		return c, fmt.Errorf("--table %q: want a lower-case SQL identifier", c.Table)
	case c.Workload == "mt" && c.Objects < 2:
		return c, fmt.Errorf("--objects %d: the mt workload needs 2 objects or more", c.Objects)
	}
	if _, err := parseLevel(c.Level); err != nil {
		return c, err
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// level is an isolation level as the run sets it.
type level struct {
	level history.Level
	// begin starts a transaction at the level; set, when not empty, is
	// run once per session first (fickle's own levels).
	begin, set string
}

// parseLevel maps a level's name to how a session gets it: PostgreSQL's
// names with BEGIN ISOLATION LEVEL (fickle takes them too), fickle's
// others with its fickle.isolation setting.
func parseLevel(name string) (level, error) {
	l, err := history.ParseLevel(name)
	if err != nil {
		return level{}, fmt.Errorf("--level %q: want read-committed, repeatable-read, serializable, or fickle's read-atomic, causal, prefix or snapshot", name)
	}
	switch l {
	case history.ReadCommitted:
		return level{level: l, begin: "BEGIN ISOLATION LEVEL READ COMMITTED"}, nil
	case history.Snapshot:
		return level{level: l, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ"}, nil
	case history.Serializable:
		return level{level: l, begin: "BEGIN ISOLATION LEVEL SERIALIZABLE"}, nil
	}
	names := map[history.Level]string{history.ReadAtomic: "read-atomic", history.Causal: "causal", history.Prefix: "prefix"}
	return level{level: l, begin: "BEGIN", set: "SET fickle.isolation = '" + names[l] + "'"}, nil
}
