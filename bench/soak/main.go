// Command soak is fickle's soak benchmark (issue 12): it starts `fickle
// serve`, runs pgbench's TPC-B-like script (prepared, 8 clients) for a long
// time beside a mixed workload of 200 connections that disconnect at random
// in the middle of transactions, and samples the server's resident memory
// every 30 seconds. With -history it then checks that every commit a
// client saw acknowledged is in the history file, and that `fickle check`
// accepts the file. bench/soak.sh builds fickle and runs it with and
// without -history; docs/benchmarks.md has the figures. Not run in CI.
//
//	go run ./bench/soak -bin ./fickle -duration 30m -history -out /tmp/soak
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	o := options{}
	flag.StringVar(&o.bin, "bin", "fickle", "path of the fickle binary")
	flag.DurationVar(&o.duration, "duration", 30*time.Minute, "how long pgbench and the mixed workload run")
	flag.BoolVar(&o.history, "history", false, "serve with --history, then check the history")
	flag.StringVar(&o.out, "out", "", "`DIR` for the history, the RSS samples and the logs (default: a new temporary directory)")
	flag.IntVar(&o.clients, "c", 8, "pgbench clients")
	flag.IntVar(&o.mixed, "mixed", 200, "connections of the mixed workload")
	flag.DurationVar(&o.sample, "sample", 30*time.Second, "RSS sampling interval")
	flag.IntVar(&o.rate, "pgbench-rate", 0, "pgbench's target rate in transactions per second (-R; 0: as fast as it can)")
	flag.DurationVar(&o.think, "think", 0, "the mixed workload's pause between transactions on a connection")
	flag.Parse()
	o.serveArgs = flag.Args()
	if o.out == "" {
		d, err := os.MkdirTemp("", "fickle-soak-")
		if err != nil {
			fail(err)
		}
		o.out = d
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fail(err)
	}
	if err := run(o); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "soak:", err)
	os.Exit(1)
}

type options struct {
	bin               string
	duration, sample  time.Duration
	history           bool
	out               string
	clients, mixed    int
	rate              int
	think             time.Duration
	serveArgs         []string
	historyPath, port string
}

func run(o options) error {
	args := []string{"serve", "--listen", "127.0.0.1:0", "--database", "soak", "--max-connections", strconv.Itoa(o.mixed + o.clients + 10)}
	if o.history {
		o.historyPath = filepath.Join(o.out, "history.jsonl")
		args = append(args, "--history", o.historyPath)
	}
	args = append(args, o.serveArgs...)
	srv := exec.Command(o.bin, args...)
	srv.Stderr, _ = os.Create(filepath.Join(o.out, "fickle.log"))
	stdout, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Process.Kill() //nolint:errcheck // already stopped on the good path
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("fickle serve: %v", err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	o.port = addr[strings.LastIndexByte(addr, ':')+1:]
	fmt.Printf("fickle serve %s on port %s, pid %d; output in %s\n", strings.Join(args[3:], " "), o.port, srv.Process.Pid, o.out)

	if out, err := pgbench(o, "-i", "-s", "1", "-q").CombinedOutput(); err != nil {
		return fmt.Errorf("pgbench -i: %v\n%s", err, out)
	}
	dsn := fmt.Sprintf("postgres://soak@127.0.0.1:%s/soak?sslmode=disable", o.port)
	if err := setupMixed(dsn); err != nil {
		return err
	}

	ctx, stop := context.WithTimeout(context.Background(), o.duration)
	defer stop()
	samples := make(chan []string)
	go func() { samples <- sampleRSS(ctx, srv.Process.Pid, o.sample, filepath.Join(o.out, "rss.csv")) }()
	var wg sync.WaitGroup
	var pgbenchOut []byte
	var pgbenchErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		args := []string{"-c", strconv.Itoa(o.clients), "-j", "2", "-M", "prepared", "-T", strconv.Itoa(int(o.duration.Seconds()))}
		if o.rate > 0 {
			args = append(args, "-R", strconv.Itoa(o.rate))
		}
		pgbenchOut, pgbenchErr = pgbench(o, args...).CombinedOutput()
	}()
	mixed := runMixed(ctx, dsn, o.mixed, o.think)
	wg.Wait()
	stop()
	rss := <-samples
	os.WriteFile(filepath.Join(o.out, "pgbench.txt"), pgbenchOut, 0o644) //nolint:errcheck // a log
	if pgbenchErr != nil {
		return fmt.Errorf("pgbench: %v\n%s", pgbenchErr, pgbenchOut)
	}
	processed := matchInt(`number of transactions actually processed: (\d+)`, pgbenchOut)
	fmt.Printf("pgbench: %d transactions acknowledged, %s\n", processed, matchLine(`^tps = .*`, pgbenchOut))
	fmt.Println(mixed)

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	if err := srv.Wait(); err != nil {
		return fmt.Errorf("fickle serve exited: %v", err)
	}
	fmt.Printf("RSS (MB) every %v: %s\n", o.sample, strings.Join(rss, " "))
	if !o.history {
		return nil
	}
	return verify(o, processed, mixed)
}

// pgbench returns the pgbench command against the server with args.
func pgbench(o options, args ...string) *exec.Cmd {
	return exec.Command("pgbench", append(args, "-h", "127.0.0.1", "-p", o.port, "-U", "soak", "soak")...)
}

// sampleRSS samples the resident size of process pid every interval until
// ctx ends (and once more then), writing "seconds,rss_kB" lines to path;
// it returns the samples in MB.
func sampleRSS(ctx context.Context, pid int, interval time.Duration, path string) []string {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	fmt.Fprintln(f, "seconds,rss_kB")
	start := time.Now()
	t := time.NewTicker(interval)
	defer t.Stop()
	var mb []string
	for {
		kb := rssKB(pid)
		fmt.Fprintf(f, "%d,%d\n", int(time.Since(start).Seconds()), kb)
		mb = append(mb, strconv.Itoa(kb>>10))
		select {
		case <-ctx.Done():
			return mb
		case <-t.C:
		}
	}
}

// rssKB returns VmRSS of process pid in kB (0 when unreadable).
func rssKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return matchInt(`VmRSS:\s+(\d+) kB`, b)
}

// matchInt returns the integer the first group of re matches in b, or 0.
func matchInt(re string, b []byte) int {
	m := regexp.MustCompile(re).FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// matchLine returns the first line of b that re matches.
func matchLine(re string, b []byte) string {
	return string(regexp.MustCompile("(?m)" + re).Find(b))
}
