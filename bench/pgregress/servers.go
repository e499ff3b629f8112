package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"time"
)

// postgresServer is a throwaway PostgreSQL 15 cluster.
type postgresServer struct {
	dir, ctl string
	port     int
	asPG     bool
}

// startPostgres initdbs a cluster in a temporary folder (C locale, UTF8, as
// fickle's databases report) and starts it on a free port, as user postgres
// when we are root.
func startPostgres(bindir string) (*postgresServer, error) {
	dir, err := os.MkdirTemp("", "pgregress-")
	if err != nil {
		return nil, err
	}
	p := &postgresServer{dir: dir, ctl: filepath.Join(bindir, "pg_ctl")}
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		p.asPG = true
		if out, err := exec.Command("chown", "postgres:postgres", dir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown: %v: %s", err, out)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := p.command(filepath.Join(bindir, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if p.port, err = freePort(); err != nil {
		return nil, err
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", p.port, dir)
	if out, err := p.command(p.ctl, "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
	track(p, p.halt)
	return p, nil
}

func (p *postgresServer) command(prog string, args ...string) *exec.Cmd {
	if p.asPG {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", prog}, args...)...)
	}
	return exec.Command(prog, args...)
}

func (p *postgresServer) dsn(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.port, db)
}

func (p *postgresServer) stop() {
	untrack(p)
	p.halt()
}

// halt stops the server at once and removes its folder.
func (p *postgresServer) halt() {
	_ = p.command(p.ctl, "-D", filepath.Join(p.dir, "data"), "-m", "immediate", "-w", "stop").Run()
	os.RemoveAll(p.dir)
}

// fickleServer is a `fickle serve --realtime --strategy latest` process.
type fickleServer struct {
	cmd  *exec.Cmd
	port int
	done chan struct{}
}

// startFickle starts the fickle binary on a free port and waits for the
// address it prints.
func startFickle(bin string) (*fickleServer, error) {
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--realtime", "--strategy", "latest")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &fickleServer{cmd: cmd, done: make(chan struct{})}
	track(f, func() { _ = cmd.Process.Kill() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				addr <- strings.TrimSpace(a)
			}
		}
		close(addr)
	}()
	go func() { _ = cmd.Wait(); close(f.done) }()
	select {
	case a, ok := <-addr:
		if !ok {
			return nil, fmt.Errorf("fickle exited without printing its address")
		}
		_, port, err := net.SplitHostPort(a)
		if err != nil {
			return nil, err
		}
		fmt.Sscan(port, &f.port)
	case <-time.After(30 * time.Second):
		f.stop()
		return nil, fmt.Errorf("fickle did not print its address within 30s")
	}
	return f, nil
}

func (f *fickleServer) dsn(db string) string {
	return fmt.Sprintf("postgres://fickle@127.0.0.1:%d/%s?sslmode=disable", f.port, db)
}

// alive reports whether the process still runs.
func (f *fickleServer) alive() bool {
	select {
	case <-f.done:
		return false
	default:
		return true
	}
}

func (f *fickleServer) stop() {
	untrack(f)
	_ = f.cmd.Process.Signal(os.Interrupt)
	select {
	case <-f.done:
	case <-time.After(10 * time.Second):
		_ = f.cmd.Process.Kill()
		<-f.done
	}
}

// buildFickle builds cmd/fickle from the tree into dir.
func buildFickle(dir string) (string, error) {
	bin := filepath.Join(dir, "fickle")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/fickle").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/fickle: %v\n%s", err, out)
	}
	return bin, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
