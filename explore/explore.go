package explore

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure an exploration. Callers must use keyed fields.
type Options struct {
	// Command is the command to run (argv); required.
	Command []string
	// Runs is the number of runs of the whole exploration (100 when
	// zero); with a Shard, this machine does its share of them.
	Runs int
	// Seed derives every run's seed (RunSeed).
	Seed uint64
	// Jobs is how many runs go at once (the number of CPUs when zero).
	Jobs int
	// Timeout bounds one run of the command (one minute when zero).
	Timeout time.Duration
	// Shard, when set, restricts this machine to its share of the runs.
	Shard Shard
	// Check also fails a run whose history violates the levels (a bug in
	// fickle, reported as such).
	Check bool
	// Server is each run's server.
	Server ServerConfig
	// Dir receives the histories and schedules of failing runs (the
	// current directory's fickle-explore when empty).
	Dir string
	// Keep keeps the files of passing runs too.
	Keep bool
	// Progress, when set, is called after every run.
	Progress func(Progress)

	_ struct{}
}

// Progress is the state of an exploration after a run.
type Progress struct {
	Done, Total, Failures int
	Elapsed               time.Duration
	Last                  *Run
}

// Summary is the outcome of an exploration.
type Summary struct {
	// Runs is how many runs were done.
	Runs int
	// Failures are the failing runs, by run number; the first is the one
	// to report (the exploration stops dispatching at the first failure).
	Failures []*Run
	Elapsed  time.Duration
}

// ErrNeverConnected says the command ran without ever connecting to the
// server: it does not read DATABASE_URL or the PG* variables.
var ErrNeverConnected = errors.New("the command never connected to the server")

// UsageError is input explore cannot use (exit status 2): one message
// that says what is wrong; Err, when set, is the kind of problem.
type UsageError struct {
	Msg string
	Err error
}

func (e *UsageError) Error() string { return e.Msg }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

func (o *Options) withDefaults() (*Options, error) {
	c := *o
	if len(c.Command) == 0 {
		return nil, usageErrorf("no command to run: give it after --")
	}
	if _, err := exec.LookPath(c.Command[0]); err != nil {
		return nil, usageErrorf("command %q not found: %v", c.Command[0], unwrapExec(err))
	}
	if c.Runs <= 0 {
		c.Runs = 100
	}
	if c.Jobs <= 0 {
		c.Jobs = runtime.NumCPU()
	}
	if c.Timeout <= 0 {
		c.Timeout = time.Minute
	}
	if c.Dir == "" {
		c.Dir = "fickle-explore"
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	c.Server = c.Server.withDefaults()
	return &c, nil
}

func unwrapExec(err error) error {
	var e *exec.Error
	if errors.As(err, &e) {
		return e.Err
	}
	return err
}

// Explore runs the command Runs times (its shard's share), Jobs at a time,
// each run against a fresh server with its own seed, and stops dispatching
// runs at the first failure. A run in which the command never connected
// ends the exploration with ErrNeverConnected; a server that cannot start
// with an error.
func Explore(opts Options) (*Summary, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	numbers := o.Shard.Runs(o.Runs)
	start := time.Now()
	var (
		mu       sync.Mutex
		sum      = &Summary{}
		stop     bool
		firstErr error
	)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(o.Jobs, max(len(numbers), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range work {
				r := execute(o, runSpec{number: n, seed: RunSeed(o.Seed, n), historyPath: runFileName(o.Dir, n, "")})
				mu.Lock()
				sum.Runs++
				switch {
				case r.ServerError != "" && firstErr == nil:
					firstErr, stop = fmt.Errorf("run %d: %s", n, r.ServerError), true
				case len(r.Connections) == 0 && firstErr == nil:
					firstErr, stop = neverConnected(r), true
				case r.Failed():
					sum.Failures = append(sum.Failures, r)
					stop = true
				}
				if !r.Failed() && !o.Keep {
					r.removeFiles()
				}
				if o.Progress != nil {
					o.Progress(Progress{Done: sum.Runs, Total: len(numbers), Failures: len(sum.Failures), Elapsed: time.Since(start), Last: r})
				}
				mu.Unlock()
			}
		}()
	}
	for _, n := range numbers {
		mu.Lock()
		s := stop
		mu.Unlock()
		if s {
			break
		}
		work <- n
	}
	close(work)
	wg.Wait()
	sum.Elapsed = time.Since(start)
	sort.Slice(sum.Failures, func(i, j int) bool { return sum.Failures[i].Number < sum.Failures[j].Number })
	if firstErr != nil {
		return sum, firstErr
	}
	return sum, nil
}

func neverConnected(r *Run) error {
	why := r.Status()
	if r.StartError != "" {
		return usageErrorf("run %d: the command %s", r.Number, why)
	}
	msg := fmt.Sprintf("run %d: %v (%s); it must connect with DATABASE_URL, or PGHOST and PGPORT", r.Number, ErrNeverConnected, why)
	if tail := lastLines([]byte(r.Output), 5); len(tail) > 0 {
		msg += "; its output ends:\n    " + strings.Join(tail, "\n    ")
	}
	return &UsageError{Msg: msg, Err: ErrNeverConnected}
}

// RunSeed is the seed of run n of an exploration seeded with seed: any run
// can be re-created alone from the two numbers.
func RunSeed(seed uint64, n int) uint64 {
	return splitmix(seed + uint64(n)*0x9e3779b97f4a7c15)
}

// splitmix is SplitMix64's finalizer.
func splitmix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Shard is one machine's share of an exploration: run n is this machine's
// when (n-1) mod Count equals Index-1. The zero Shard is every run.
type Shard struct {
	Index, Count int
}

// ParseShard parses "K/N" with 1 <= K <= N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, usageErrorf("--shard %q: want K/N with 1 <= K <= N, as 2/3", s)
	}
	return Shard{Index: ki, Count: ni}, nil
}

// Runs returns the run numbers among 1..total that are the shard's.
func (s Shard) Runs(total int) []int {
	var out []int
	for n := 1; n <= total; n++ {
		if s.Count <= 1 || (n-1)%s.Count == s.Index-1 {
			out = append(out, n)
		}
	}
	return out
}

func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}
