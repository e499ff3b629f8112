//go:build linux

package hugepages

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestHeapMappingsAreTheRunsAroundHeapAddresses(t *testing.T) {
	maps := `00400000-004ac000 r-xp 00000000 fe:00 10189865                           /usr/bin/fickle
0058f000-0059a000 rw-p 0018f000 fe:00 10189865                           /usr/bin/fickle
0059a000-005d0000 rw-p 00000000 00:00 0
ac058000000-ac059400000 ---p 00000000 00:00 0
ac059400000-ac05fc00000 rw-p 00000000 00:00 0
ac05fc00000-ac060000000 rw-p 00000000 00:00 0
ac060000000-ac064000000 ---p 00000000 00:00 0
7f6aabb9e000-7f6aabe00000 rw-p 00000000 00:00 0
7fff66689000-7fff666aa000 rw-p 00000000 00:00 0                          [stack]
`
	for _, tc := range []struct {
		name  string
		addrs []uintptr
		want  []mapping
	}{
		{"an address inside the heap's run takes all its writable mappings",
			[]uintptr{0xac059500000},
			[]mapping{{0xac059400000, 0xac05fc00000, true, true}, {0xac05fc00000, 0xac060000000, true, true}}},
		{"an address in a reserved, unmapped part still names the run",
			[]uintptr{0xac060000010},
			[]mapping{{0xac059400000, 0xac05fc00000, true, true}, {0xac05fc00000, 0xac060000000, true, true}}},
		{"two addresses in one run give it once",
			[]uintptr{0xac059400000, 0xac05fc00008},
			[]mapping{{0xac059400000, 0xac05fc00000, true, true}, {0xac05fc00000, 0xac060000000, true, true}}},
		{"a named mapping (the binary, the stack) is never the heap",
			[]uintptr{0x0058f010, 0x7fff66689010},
			nil},
		{"no address, no mapping", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := heapMappings([]byte(maps), tc.addrs)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestAdviseMarksTheMemoryTheHeapFillsNext runs Advise and then checks
// that a fresh allocation lies in a mapping the kernel flags "hg" (huge
// page advised) in /proc/self/smaps.
func TestAdviseMarksTheMemoryTheHeapFillsNext(t *testing.T) {
	if mode := kernelMode(); mode != "madvise" {
		t.Skipf("the kernel's transparent huge page setting is %q: Advise has nothing to do", mode)
	}
	st, err := Advise(256 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != "madvise" || st.Advised < 256<<20 {
		t.Fatalf("Advise = %+v, want madvise and at least the 256 MB reserve advised", st)
	}
	block := make([]byte, 32<<20)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(block)))
	flags := vmFlags(t, addr)
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("the mapping of a fresh 32 MB allocation has VmFlags %q, want hg among them", flags)
	}
}

// vmFlags returns the VmFlags line of the mapping of /proc/self/smaps that
// holds addr.
func vmFlags(t *testing.T, addr uintptr) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if lo, hi, ok := strings.Cut(strings.Fields(line + " x")[0], "-"); ok {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uintptr(l) <= addr && addr < uintptr(h)
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping of /proc/self/smaps holds %#x", addr)
	return ""
}
