// Command startup measures fickle's time from launch to the first accepted
// connection: it starts `fickle serve --listen 127.0.0.1:0` n times, and for
// each launch times how long until a client completes the startup handshake.
// It prints the median and the spread. Used by bench/pgbench.sh.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func main() {
	bin := flag.String("bin", "fickle", "path of the fickle binary")
	n := flag.Int("n", 11, "number of launches")
	flag.Parse()
	var times []time.Duration
	for i := 0; i < *n; i++ {
		d, err := launch(*bin, flag.Args())
		if err != nil {
			fmt.Fprintln(os.Stderr, "startup:", err)
			os.Exit(1)
		}
		times = append(times, d)
	}
	slices.Sort(times)
	fmt.Printf("median %v (min %v, max %v, %d launches)\n", times[len(times)/2], times[0], times[len(times)-1], len(times))
}

// launch starts one server and returns the time until a connection is
// accepted and authenticated.
func launch(bin string, extra []string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, extra...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(out)
	var addr string
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		return 0, fmt.Errorf("fickle printed no address")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, "postgres://fickle@"+addr+"/fickle?sslmode=disable")
	if err != nil {
		return 0, err
	}
	d := time.Since(start)
	conn.Close(ctx)
	return d, nil
}
