package main

import (
	"bufio"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestServeListensAndShutsDownOnSignal starts `fickle serve --listen
// 127.0.0.1:0`, reads the address from its first line, runs a query, then
// sends SIGTERM: the open session receives FATAL 57P01 and serve exits 0.
func TestServeListensAndShutsDownOnSignal(t *testing.T) {
	stdoutR, stdoutW := io.Pipe()
	stop := make(chan os.Signal, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- serve([]string{"--listen", "127.0.0.1:0"}, stdoutW, io.Discard, stop)
		stdoutW.Close()
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, stdoutR)

	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
	fe.Send(&pgproto3.Query{String: "SELECT 1"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	ready := 0
	for ready < 2 {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.ReadyForQuery:
			ready++
		case *pgproto3.ErrorResponse:
			t.Fatalf("error %s: %s", m.Code, m.Message)
		}
	}

	stop <- syscall.SIGTERM
	msg, err := fe.Receive()
	if err != nil {
		t.Fatalf("expected 57P01, got %v", err)
	}
	if e, ok := msg.(*pgproto3.ErrorResponse); !ok || e.Code != "57P01" || e.Severity != "FATAL" {
		t.Fatalf("got %#v, want FATAL 57P01", msg)
	}
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("serve exited %d", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not exit")
	}
}

func TestServeRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--nope"}, {"extra"}, {"--listen", "256.0.0.1:99999"}} {
		if code := serve(args, io.Discard, io.Discard, nil); code == 0 {
			t.Errorf("serve(%q) = 0", args)
		}
	}
}
