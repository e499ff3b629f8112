// Command pagefault measures what this machine charges for the first touch
// of fresh memory, the cost that bounds fickle's bulk loads (a `pgbench -i
// -s 10` touches about 700 MB): it maps anonymous memory, writes one byte a
// page, and prints the time a 4 KB page took on first touch and on a
// second pass, with 4 KB pages and with transparent huge pages requested
// (MADV_HUGEPAGE, which the kernel honours unless its THP setting is never).
// Linux only.
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"
)

func main() {
	mb := flag.Int("mb", 256, "memory to map each round, in MB")
	rounds := flag.Int("rounds", 3, "rounds of each kind")
	flag.Parse()
	thp, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	fmt.Printf("transparent_hugepage/enabled: %s", thp)
	for _, huge := range []bool{false, true} {
		for range *rounds {
			first, second, err := touch(*mb<<20, huge)
			if err != nil {
				fmt.Fprintln(os.Stderr, "pagefault:", err)
				os.Exit(1)
			}
			pages := time.Duration(*mb << 20 / 4096)
			fmt.Printf("huge pages requested %-5v  first touch %8v a page (%v for %d MB), second pass %v a page\n",
				huge, first/pages, first.Round(time.Millisecond), *mb, second/pages)
		}
	}
}

// touch maps n bytes, asks for huge pages when huge, and times a write to
// every 4 KB page twice.
func touch(n int, huge bool) (first, second time.Duration, err error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, 0, err
	}
	defer syscall.Munmap(b)
	if huge {
		if err := syscall.Madvise(b, syscall.MADV_HUGEPAGE); err != nil {
			return 0, 0, fmt.Errorf("madvise: %w", err)
		}
	}
	for pass := range 2 {
		start := time.Now()
		for i := 0; i < n; i += 4096 {
			b[i] = byte(pass + 1)
		}
		if pass == 0 {
			first = time.Since(start)
		} else {
			second = time.Since(start)
		}
	}
	return first, second, nil
}
