package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// running holds a stop for every server the run started and has not
// stopped yet (and the removal of its scratch folder), so that a signal
// ending the run (SIGINT, SIGTERM, or SIGPIPE when the reader of its
// output went away, as with `| head`) leaves nothing behind.
var running struct {
	sync.Mutex
	stops map[any]func()
}

// track records how to stop server key; untrack forgets it once stopped.
func track(key any, stop func()) {
	running.Lock()
	defer running.Unlock()
	if running.stops == nil {
		running.stops = map[any]func(){}
	}
	running.stops[key] = stop
}

func untrack(key any) {
	running.Lock()
	defer running.Unlock()
	delete(running.stops, key)
}

// stopServersOnSignal stops every running server and exits when the run
// is interrupted.
func stopServersOnSignal() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		s := <-sigs
		running.Lock()
		for _, stop := range running.stops {
			stop()
		}
		running.Unlock()
		fmt.Fprintf(os.Stderr, "pgregress: %v: servers stopped\n", s)
		os.Exit(1)
	}()
}
