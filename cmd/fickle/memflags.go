package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// memFlags are serve's flags about memory: how stale a read may be, which
// bounds what the store keeps (isolation.Config.MaxStaleness), and the
// ceiling past which statements fail with 53200 (server.Config.MaxMemory).
type memFlags struct {
	maxStaleness  int
	maxMemoryText string
	hugePages     string
	// Resolved by resolve:
	maxMemory uint64 // bytes; 0 for no ceiling
}

// defaultMaxStaleness keeps the versions of the last 10,000 transactions:
// a few megabytes for pgbench's transactions, and far staler reads than a
// test is likely to need.
const defaultMaxStaleness = 10_000

// keptPerTransaction sets isolation.Config.MaxKept from --max-staleness:
// the transactions after the horizon may keep 100 entries each on average
// (row versions, keys read at REPEATABLE READ and above, clock entries),
// so that transactions that scan big tables shorten the window instead of
// filling memory.
const keptPerTransaction = 100

func (f *memFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.maxStaleness, "max-staleness", defaultMaxStaleness, "keep the row versions of the last `N` transactions of the commit order (fewer when they read or write more than 100 rows each on average): no read sees a state older than that, a transaction whose reads need a collected version fails with 40001 (snapshot too old), and memory stays bounded; 0 keeps every version for ever")
	fs.StringVar(&f.hugePages, "huge-pages", "try", "`MODE`: try asks Linux for transparent huge pages for the store's memory where the kernel gives them only on request (its madvise setting), which makes bulk loads much faster where a page fault is dear (virtual machines); off leaves the kernel's default")
	fs.StringVar(&f.maxMemoryText, "max-memory", "auto", "memory ceiling `SIZE` (such as 2GB or 512MB): past it running statements fail with 53200 (out_of_memory) and the server lives on; auto is half of the machine's memory (or of the container's limit), 0 none")
}

// resolve checks the flags.
func (f *memFlags) resolve() error {
	if f.maxStaleness < 0 {
		return fmt.Errorf("--max-staleness %d: want 0 (keep everything) or more", f.maxStaleness)
	}
	if f.hugePages != "try" && f.hugePages != "off" {
		return fmt.Errorf("--huge-pages %q: want try or off", f.hugePages)
	}
	if f.maxMemoryText == "auto" {
		f.maxMemory = machineMemory() / 2
		return nil
	}
	n, err := parseSize(f.maxMemoryText)
	if err != nil {
		return fmt.Errorf("--max-memory %q: want a size such as 2GB, 512MB, 0 or auto", f.maxMemoryText)
	}
	f.maxMemory = n
	return nil
}

// hugePageReserve is how much of the heap --huge-pages try prepares ahead
// (hugepages.Advise): the first gigabyte, or half the memory ceiling when
// that is lower. It costs address space, not memory.
func (f *memFlags) hugePageReserve() uint64 {
	const reserve = 1 << 30
	if f.maxMemory > 0 {
		return min(reserve, f.maxMemory/2)
	}
	return reserve
}

// parseSize parses a number of bytes with an optional unit (B, kB, MB, GB,
// TB, in PostgreSQL's powers of 1024).
func parseSize(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	units := map[string]float64{"": 1, "b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40}
	u, ok := units[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("bad unit in %q", s)
	}
	return uint64(n * u), nil
}

// machineMemory returns the memory the process may use: the machine's
// (MemTotal in /proc/meminfo), or the container's limit (cgroup v2
// memory.max) when lower; 0 when neither can be read.
func machineMemory() uint64 {
	var total uint64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if kb, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
				total = n << 10
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}
