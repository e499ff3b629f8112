//go:build unix

package oracle

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user plus system CPU time, which the
// benchmarks report next to wall time: on a shared machine wall time
// measures the neighbours too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
