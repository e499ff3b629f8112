package server

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The memory ceiling (Config.MaxMemory). Go cannot refuse an allocation
// the way PostgreSQL's palloc does, so the server samples its memory every
// memoryCheckInterval and, while it is past the ceiling, cancels every
// statement running with 53200 (out_of_memory), then collects the garbage
// they leave: a statement that allocates without bound fails, and the
// server, its sessions and their transactions live on. The statement's
// context carries the cancellation; every wait and long loop of the
// executor checks it.

// memoryCheckInterval is how often the server samples its memory.
const memoryCheckInterval = 20 * time.Millisecond

// runtimeMemory returns the memory the Go runtime holds from the operating
// system and has not released: what Go's soft memory limit
// (debug.SetMemoryLimit) bounds, and close to the process's resident size.
func runtimeMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// watchMemory cancels the running statements whenever the memory in use is
// past cfg.MaxMemory, until stop is closed.
func (s *Server) watchMemory(stop <-chan struct{}) {
	t := time.NewTicker(memoryCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		used := s.cfg.MemoryInUse()
		if used <= s.cfg.MaxMemory {
			continue
		}
		err := pgerror.New(pgerror.OutOfMemory, "out of memory").
			WithDetail("The server uses %d MB, past its limit of %d MB (--max-memory); running statements are cancelled.", used>>20, s.cfg.MaxMemory>>20)
		s.mu.Lock()
		conns := make([]*conn, 0, len(s.mu.conns))
		for _, c := range s.mu.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		for _, c := range conns {
			c.cancelStatement(err)
		}
		runtime.GC() // what the cancelled statements held is garbage now
	}
}

// bulkLoadGCPercent is the collector's target (GOGC) while a COPY FROM runs.
// What a COPY allocates it mostly keeps, and at Go's default of 100 the
// collector marks the whole heap again each time it doubles: a load of
// 1,000,000 rows (pgbench -i -s 10) spends a quarter of its processor time
// there. At 300 it runs a third as often; the heap's peak moves little,
// since little of it is garbage.
const bulkLoadGCPercent = 300

// bulkLoads counts the COPY FROMs running in the process: the first raises
// the collector's target, the last puts back the one it found.
var bulkLoads struct {
	sync.Mutex
	running int
	saved   int
}

// enterBulkLoad raises the collector's target for a COPY FROM, unless the
// GOGC environment variable chose one, and returns the call that ends it.
func enterBulkLoad() (leave func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	bulkLoads.Lock()
	defer bulkLoads.Unlock()
	if bulkLoads.running == 0 {
		bulkLoads.saved = debug.SetGCPercent(bulkLoadGCPercent)
		if bulkLoads.saved > bulkLoadGCPercent || bulkLoads.saved < 0 {
			debug.SetGCPercent(bulkLoads.saved)
		}
	}
	bulkLoads.running++
	return func() {
		bulkLoads.Lock()
		defer bulkLoads.Unlock()
		if bulkLoads.running--; bulkLoads.running == 0 {
			debug.SetGCPercent(bulkLoads.saved)
		}
	}
}
