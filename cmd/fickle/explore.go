package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fickle-db/fickle/explore"
	"github.com/fickle-db/fickle/sqlexec"
)

func init() {
	commands["explore"] = command{
		summary: "run a test command many times against fresh servers and report the first failure",
		run:     func(args []string) int { return exploreMain(args, os.Stdout, os.Stderr) },
	}
}

// exploreOptions are the parsed flags of fickle explore.
type exploreOptions struct {
	serverFlags
	runs, jobs, shrinkRuns int
	seed                   uint64
	timeout                time.Duration
	shard                  string
	check, keep            bool
	exhaustive             bool
	dir, replay            string
	command                []string
}

// Exit statuses of fickle explore.
const (
	exploreClean     = 0 // every run passed
	exploreFailed    = 1 // a run of the command failed
	exploreBadInput  = 2 // nothing could be explored
	exploreFickleBug = 3 // --check: a history violates the levels
)

func parseExploreFlags(args []string, stderr io.Writer) (*exploreOptions, *int) {
	exit := func(code int) (*exploreOptions, *int) { return nil, &code }
	o := &exploreOptions{}
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.runs, "runs", 100, "run the command `N` times (with --replay: replay it N times; with --exhaustive: at most N runs)")
	fs.Uint64Var(&o.seed, "seed", 0, "seed `S` of the exploration: run n's seed derives from S and n")
	fs.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "run `J` runs at once")
	fs.DurationVar(&o.timeout, "timeout", time.Minute, "a run fails when the command takes longer than `D`")
	fs.StringVar(&o.shard, "shard", "", "do only shard `K/N` of the runs (every N-th run from the K-th): N machines together do the runs of one")
	fs.BoolVar(&o.check, "check", false, "also check every run's history against the levels (a violation is a bug in fickle)")
	fs.StringVar(&o.dir, "dir", "fickle-explore", "keep failing runs' histories, schedules and reports in `DIR`")
	fs.BoolVar(&o.keep, "keep", false, "keep the histories of passing runs too")
	fs.IntVar(&o.shrinkRuns, "shrink-runs", 100, "spend at most `N` runs shrinking a failure to its fewest stale reads (0: do not shrink)")
	fs.StringVar(&o.replay, "replay", "", "replay the run recorded in `HISTORY` (its schedule beside it) instead of exploring")
	fs.BoolVar(&o.exhaustive, "exhaustive", false, "try every read choice the levels allow, depth first, instead of seeded runs (a small, deterministic command: up to 9 transactions)")
	o.serverFlags.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: fickle explore [flags] -- CMD [ARGS...]

Runs CMD against a fresh in-process fickle server per run, with DATABASE_URL,
PGHOST, PGPORT, PGUSER, PGDATABASE, PGSSLMODE and FICKLE_SEED set. A run fails
when CMD exits non-zero or times out. The first failure is shrunk to the fewest
reads served a stale version that still make CMD fail, and reported with the
command that replays it. Exit status: 0 no failure, 1 a failure, 2 bad input,
3 a history that violates its levels (--check: a bug in fickle).

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exit(0)
		}
		return exit(exploreBadInput)
	}
	bad := func(format string, a ...any) (*exploreOptions, *int) {
		fmt.Fprintf(stderr, "fickle explore: "+format+"\n", a...)
		return exit(exploreBadInput)
	}
	if err := o.serverFlags.resolve(fs); err != nil {
		return bad("%v", err)
	}
	o.command = fs.Args()
	if len(o.command) == 0 {
		return bad("no command to run: fickle explore [flags] -- CMD [ARGS...]")
	}
	if o.runs < 1 {
		return bad("--runs %d: want at least 1", o.runs)
	}
	if o.exhaustive && o.replay != "" {
		return bad("--exhaustive and --replay do not go together")
	}
	return o, nil
}

// options turns the flags into the explore package's options.
func (o *exploreOptions) options(shard explore.Shard, progress func(explore.Progress)) explore.Options {
	cfg := explore.ServerConfig{
		Level:       o.level,
		Strategy:    o.strategyValue,
		RealTime:    o.realtime,
		Postgres:    o.profile == "postgres",
		StaleWrites: o.staleWrites,
		Password:    o.password,
	}
	if o.loadPath != "" {
		path := o.loadPath
		cfg.Setup = func(eng *sqlexec.Engine) error { return loadSQL(eng, path) }
		cfg.Meta = map[string]string{"load": path}
	}
	return explore.Options{Command: o.command, Runs: o.runs, Seed: o.seed, Jobs: o.jobs, Timeout: o.timeout,
		Shard: shard, Check: o.check, Server: cfg, Dir: o.dir, Keep: o.keep, Progress: progress}
}

func exploreMain(args []string, stdout, stderr io.Writer) int {
	o, code := parseExploreFlags(args, stderr)
	if code != nil {
		return *code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "fickle explore: %v\n", err)
		return exploreBadInput
	}
	var shard explore.Shard
	if o.shard != "" {
		s, err := explore.ParseShard(o.shard)
		if err != nil {
			return fail(err)
		}
		shard = s
	}
	switch {
	case o.replay != "":
		return replayMain(o, stdout, stderr)
	case o.exhaustive:
		return exhaustiveMain(o, stdout, stderr)
	}
	pp := newProgressPrinter(stderr)
	opts := o.options(shard, pp.update)
	fmt.Fprintf(stderr, "fickle explore: %d runs%s of %s, seed %d, %d at a time (--isolation %s --strategy %s --profile %s)\n",
		o.runs, shardText(shard), shellQuote(o.command), o.seed, o.jobs, o.isolationText, o.strategy, o.profile)
	sum, err := explore.Explore(opts)
	pp.finish()
	if err != nil {
		return fail(err)
	}
	if len(sum.Failures) == 0 {
		fmt.Fprintf(stdout, "%d runs, no failure (%.1f runs/s)\n", sum.Runs, float64(sum.Runs)/sum.Elapsed.Seconds())
		return exploreClean
	}
	first := sum.Failures[0]
	fmt.Fprintf(stdout, "%d runs, %d failed; the first failing run:\n", sum.Runs, len(sum.Failures))
	reported, stats := first, (*explore.ShrinkStats)(nil)
	if first.Violation == nil && o.shrinkRuns > 0 {
		fmt.Fprintf(stderr, "fickle explore: shrinking run %d (at most %d runs)...\n", first.Number, o.shrinkRuns)
		shrunk, s, err := explore.Shrink(opts, first, o.shrinkRuns)
		if err != nil {
			return fail(err)
		}
		reported, stats = shrunk, s
	}
	rep, err := explore.BuildReport(reported, replayCommand(reported.History, o))
	if err != nil {
		return fail(err)
	}
	rep.Shrink = stats
	fmt.Fprint(stdout, rep.Text())
	if path, err := rep.WriteJSON(); err == nil {
		fmt.Fprintf(stdout, "  report: %s\n", path)
	} else {
		fmt.Fprintf(stderr, "fickle explore: writing the report: %v\n", err)
	}
	if first.Violation != nil {
		return exploreFickleBug
	}
	return exploreFailed
}

// replayCommand is the command line that replays a recorded run.
func replayCommand(historyPath string, o *exploreOptions) string {
	args := []string{"fickle", "explore", "--replay", historyPath}
	if o.loadPath != "" {
		args = append(args, "--load", o.loadPath)
	}
	if o.password != "" {
		args = append(args, "--password", o.password)
	}
	return shellQuote(append(append(args, "--"), o.command...))
}

func replayMain(o *exploreOptions, stdout, stderr io.Writer) int {
	rec, err := explore.LoadRecording(o.replay)
	if err != nil {
		fmt.Fprintf(stderr, "fickle explore: %v\n", err)
		return exploreBadInput
	}
	if o.loadPath == "" {
		o.loadPath = rec.Meta["load"]
	}
	opts := o.options(explore.Shard{}, nil)
	if rec.Schedule == nil {
		fmt.Fprintf(stderr, "fickle explore: %s has no schedule beside it: replaying its read choices only, in whatever order the command runs\n", o.replay)
	}
	failed, exact := 0, 0
	for i := 1; i <= o.runs; i++ {
		out := filepath.Join(o.dir, fmt.Sprintf("replay-%d-%s", i, filepath.Base(o.replay)))
		res, err := explore.Replay(opts, rec, out)
		if err != nil {
			fmt.Fprintf(stderr, "fickle explore: %v\n", err)
			return exploreBadInput
		}
		status := res.Run.Status()
		if res.Run.Failed() {
			failed++
		}
		switch {
		case res.Exact:
			exact++
			status += ", exactly as recorded"
		case res.Divergence != nil:
			status += "; it diverged from the recording: " + res.Divergence.Reason
		default:
			status += ", same history (no schedule to follow)"
		}
		fmt.Fprintf(stdout, "replay %d/%d: %s\n", i, o.runs, status)
		if !o.keep {
			os.Remove(out)
			os.Remove(strings.TrimSuffix(out, ".jsonl") + ".schedule.jsonl")
		}
	}
	fmt.Fprintf(stdout, "%d of %d replays failed, %d followed the recording exactly\n", failed, o.runs, exact)
	if failed > 0 {
		return exploreFailed
	}
	return exploreClean
}

func shardText(s explore.Shard) string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf(" (shard %s)", s)
}

// shellQuote renders argv for a shell.
func shellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
