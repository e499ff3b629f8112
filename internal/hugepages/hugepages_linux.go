//go:build linux

package hugepages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// anchor is an object of the heap: the mappings around it are the heap's.
var anchor *[64]byte

// Advise marks the Go heap's mappings MADV_HUGEPAGE when the kernel's
// setting is "madvise", so that the pages the heap touches from now on are
// 2 MB where the kernel has them to give. The runtime maps its heap a few
// megabytes at a time as it grows, and a new mapping carries no mark, so
// Advise first grows the heap by reserve bytes without touching them (fresh
// memory is known to be zero), marks everything, and hands
// the reserve back to the runtime (released, so it counts as memory in use
// nowhere): the first reserve bytes the heap fills later get huge pages;
// what lies beyond gets the kernel's default. Where the kernel would refuse
// to commit the reserve (strict overcommit, an address-space limit) it is
// cut down. Call it at start-up, before the memory limit is set.
func Advise(reserve uint64) (Status, error) {
	st := Status{Mode: kernelMode()}
	if st.Mode != "madvise" {
		return st, nil
	}
	anchor = new([64]byte)
	addrs := []uintptr{uintptr(unsafe.Pointer(anchor))}
	// The reserve is taken in blocks: the runtime zeroes a large
	// allocation that starts among pages it has used before, and zeroing
	// a gigabyte would touch all of it; a block that does only touches
	// pages already in memory.
	reserve = min(reserve, commitRoom())
	blocks := make([][]byte, 0, reserve/reserveBlock)
	for range reserve / reserveBlock {
		b := make([]byte, reserveBlock)
		blocks = append(blocks, b)
		addrs = append(addrs, uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	}
	var err error
	st.Advised, err = markHeap(addrs)
	runtime.KeepAlive(blocks) // dead from here: the collection below frees them
	debug.FreeOSMemory()
	return st, err
}

// markHeap marks MADV_HUGEPAGE the heap's mappings around addrs and
// returns how many bytes it marked.
func markHeap(addrs []uintptr) (uint64, error) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	var marked uint64
	for _, m := range heapMappings(maps, addrs) {
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, m.lo, m.hi-m.lo, syscall.MADV_HUGEPAGE); errno != 0 {
			return marked, fmt.Errorf("madvise(MADV_HUGEPAGE): %w", errno)
		}
		marked += uint64(m.hi - m.lo)
	}
	return marked, nil
}

// reserveBlock is the size of Advise's blocks: the step by which the
// runtime maps its heap.
const reserveBlock = 4 << 20

// mapping is the address range [lo, hi) of one line of /proc/self/maps.
type mapping struct {
	lo, hi   uintptr
	writable bool
	anon     bool
}

// heapMappings returns the writable mappings of the heap, given the text of
// /proc/self/maps and addresses of heap objects: the runs of contiguous
// anonymous mappings that hold one of the addresses (the runtime reserves
// its heap arenas side by side and maps them as it grows).
func heapMappings(maps []byte, addrs []uintptr) []mapping {
	var all []mapping
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		if m, ok := parseMapping(sc.Text()); ok {
			all = append(all, m)
		}
	}
	var heap []mapping
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[i].anon && all[j].anon && all[j].lo == all[j-1].hi {
			j++
		}
		run := all[i:j]
		if run[0].anon && holdsAny(run[0].lo, run[len(run)-1].hi, addrs) {
			for _, m := range run {
				if m.writable {
					heap = append(heap, m)
				}
			}
		}
		i = j
	}
	return heap
}

// parseMapping parses a line of /proc/self/maps: "lo-hi perms offset dev
// inode [path]". A mapping is anonymous when it has no path and inode 0.
func parseMapping(line string) (mapping, bool) {
	f := strings.Fields(line)
	if len(f) < 5 {
		return mapping{}, false
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return mapping{}, false
	}
	l, err1 := strconv.ParseUint(lo, 16, 64)
	h, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || h <= l {
		return mapping{}, false
	}
	return mapping{
		lo:       uintptr(l),
		hi:       uintptr(h),
		writable: strings.HasPrefix(f[1], "rw"),
		anon:     len(f) == 5 && f[4] == "0",
	}, true
}

func holdsAny(lo, hi uintptr, addrs []uintptr) bool {
	for _, a := range addrs {
		if lo <= a && a < hi {
			return true
		}
	}
	return false
}

// commitRoom bounds the reserve by what the kernel would let the process
// map: under strict overcommit (vm.overcommit_memory 2) half of what is
// left to commit, under an address-space limit (ulimit -v) half of what is
// left below it; otherwise no bound.
func commitRoom() uint64 {
	room := ^uint64(0)
	if b, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err == nil && strings.TrimSpace(string(b)) == "2" {
		limit, committed := meminfoKB("CommitLimit"), meminfoKB("Committed_AS")
		room = 0
		if limit > committed {
			room = (limit - committed) << 10 / 2
		}
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil && lim.Cur != ^uint64(0) {
		used := statusKB("VmSize") << 10
		left := uint64(0)
		if lim.Cur > used {
			left = (lim.Cur - used) / 2
		}
		room = min(room, left)
	}
	return room
}

// meminfoKB and statusKB read a field, in kB, of /proc/meminfo or
// /proc/self/status; 0 when it is missing.
func meminfoKB(field string) uint64 { return procFieldKB("/proc/meminfo", field) }
func statusKB(field string) uint64  { return procFieldKB("/proc/self/status", field) }

func procFieldKB(path, field string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, rest, ok := strings.Cut(line, ":"); ok && name == field {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
