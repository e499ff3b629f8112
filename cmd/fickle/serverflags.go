package main

import (
	"flag"
	"fmt"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec"
)

// serverFlags are the flags that say what server to run, which serve and
// explore share: the default level, the strategy, the profile, real time,
// stale writes, the initial data and the password.
type serverFlags struct {
	password, isolationText, strategy, profile, loadPath string
	realtime, staleWrites                                bool
	// tsearchData is the directory of text search dictionaries' files.
	tsearchData string
	// Resolved by resolve:
	level            history.Level
	strategyValue    isolation.Strategy
	strategyExplicit bool
}

func (f *serverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.password, "password", "", "require `P` from every client (SCRAM-SHA-256 unless --auth says otherwise); default: trust")
	fs.StringVar(&f.isolationText, "isolation", "read-committed", "default isolation `LEVEL` of every session: read-committed, repeatable-read, serializable (PostgreSQL's) or read-atomic, causal, prefix, snapshot")
	fs.StringVar(&f.strategy, "strategy", "adversarial", "strategy `S` by which reads pick among the versions their level allows: latest, random, oldest or adversarial")
	fs.BoolVar(&f.realtime, "realtime", false, "add real time to every level: a transaction sees every transaction that committed before it began")
	fs.StringVar(&f.profile, "profile", "axiomatic", "`PROFILE`: axiomatic (the levels' axioms) or postgres (PostgreSQL's behaviour: real time, a snapshot per statement under READ COMMITTED and per transaction above it, its WHERE re-check after a wait, first-updater-wins and SSI aborts, strategy latest unless --strategy says otherwise)")
	fs.BoolVar(&f.staleWrites, "stale-writes", false, "axiomatic profile: let UPDATE and DELETE compute on the version their WHERE clause read instead of the row's latest version under its lock (the pure axioms, where SET v = v + 1 may lose an update below snapshot isolation: for stores that build SQL on a key-value layer without write locks)")
	fs.StringVar(&f.loadPath, "load", "", "run the SQL in `FILE.sql` into the initial state before the history starts")
	fs.StringVar(&f.tsearchData, "tsearch-data", "", "read the files of CREATE TEXT SEARCH DICTIONARY (stop words, synonyms, unaccent rules) from `DIR`; default: $"+sqlexec.TextSearchDataDirEnv+", else PostgreSQL's (pg_config --sharedir)/tsearch_data")
}

// resolve checks and completes the flags after fs.Parse; the error is the
// message for a bad value.
func (f *serverFlags) resolve(fs *flag.FlagSet) error {
	fs.Visit(func(fl *flag.Flag) { f.strategyExplicit = f.strategyExplicit || fl.Name == "strategy" })
	l, err := history.ParseLevel(f.isolationText)
	if err != nil {
		return fmt.Errorf("--isolation %q: want read-committed, repeatable-read, serializable, read-atomic, causal, prefix or snapshot", f.isolationText)
	}
	f.level = l
	switch f.profile {
	case "axiomatic":
	case "postgres":
		if f.staleWrites {
			return fmt.Errorf("--stale-writes: PostgreSQL's profile re-checks every written row on its latest version; use --profile axiomatic")
		}
		if !f.strategyExplicit {
			f.strategy = "latest"
		}
		f.realtime = true
	default:
		return fmt.Errorf("--profile %q: want axiomatic or postgres", f.profile)
	}
	s, err := isolation.ParseStrategy(f.strategy)
	if err != nil {
		return fmt.Errorf("--strategy %q: want latest, random, oldest or adversarial", f.strategy)
	}
	f.strategyValue = s
	if f.tsearchData != "" {
		sqlexec.SetTextSearchDataDir(f.tsearchData)
	}
	return nil
}
