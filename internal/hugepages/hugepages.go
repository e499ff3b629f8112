// Package hugepages asks Linux to back the Go heap with transparent huge
// pages where the kernel grants them only on request.
//
// An in-memory store touches fresh memory for every row it loads, and on
// some machines (virtual machines above all) the first touch of a 4 KB page
// costs tens of microseconds: a bulk load then spends much of its time in
// page faults, and the collector's scans in TLB misses. A 2 MB page is one
// fault instead of 512 and one TLB entry instead of 512 (the host may still
// pay for backing fresh memory a byte at a time). The kernel's setting
// (/sys/kernel/mm/transparent_hugepage/enabled) decides: "always" gives
// every mapping huge pages, "never" none, and "madvise", the default of
// many distributions, only the mappings a program marks with
// madvise(MADV_HUGEPAGE). Go's runtime marks none, so under "madvise" its
// heap gets 4 KB pages; Advise marks it, the way a JVM does with
// -XX:+UseTransparentHugePages.
package hugepages

import (
	"os"
	"strings"
)

// Status says what Advise found and did.
type Status struct {
	// Mode is the kernel's setting: "always", "madvise", "never", or ""
	// where the platform has none or it cannot be read.
	Mode string
	// Advised is how many bytes of heap mappings Advise marked: 0 unless
	// Mode is "madvise".
	Advised uint64
}

// kernelMode reads the kernel's transparent huge page setting, the word in
// brackets of the file's line ("always [madvise] never").
func kernelMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	return bracketed(string(b))
}

// bracketed returns the word of s between [ and ], or "".
func bracketed(s string) string {
	i := strings.IndexByte(s, '[')
	j := strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}
