package types

// PGQsort sorts s as PostgreSQL's qsort and qsort_arg do (sort_template.h,
// Bentley and McIlroy's quicksort with a presorted check), element for
// element: where cmp leaves elements equal but they differ otherwise,
// callers that keep the first of equal ones (ts_rank's operands,
// ts_rewrite's operator children) must see them in PostgreSQL's order.
func PGQsort[T any](s []T, cmp func(a, b T) int) {
	swap := func(i, j int) { s[i], s[j] = s[j], s[i] }
	swapn := func(i, j, n int) {
		for k := 0; k < n; k++ {
			swap(i+k, j+k)
		}
	}
	med3 := func(a, b, c int) int {
		if cmp(s[a], s[b]) < 0 {
			if cmp(s[b], s[c]) < 0 {
				return b
			}
			if cmp(s[a], s[c]) < 0 {
				return c
			}
			return a
		}
		if cmp(s[b], s[c]) > 0 {
			return b
		}
		if cmp(s[a], s[c]) < 0 {
			return a
		}
		return c
	}
	var sort func(a, n int)
	sort = func(a, n int) {
		for {
			if n < 7 {
				for pm := a + 1; pm < a+n; pm++ {
					for pl := pm; pl > a && cmp(s[pl-1], s[pl]) > 0; pl-- {
						swap(pl, pl-1)
					}
				}
				return
			}
			presorted := true
			for pm := a + 1; pm < a+n; pm++ {
				if cmp(s[pm-1], s[pm]) > 0 {
					presorted = false
					break
				}
			}
			if presorted {
				return
			}
			pm := a + n/2
			if n > 7 {
				pl, pn := a, a+n-1
				if n > 40 {
					d := n / 8
					pl = med3(pl, pl+d, pl+2*d)
					pm = med3(pm-d, pm, pm+d)
					pn = med3(pn-2*d, pn-d, pn)
				}
				pm = med3(pl, pm, pn)
			}
			swap(a, pm)
			pa, pb := a+1, a+1
			pc, pd := a+n-1, a+n-1
			for {
				for pb <= pc {
					r := cmp(s[pb], s[a])
					if r > 0 {
						break
					}
					if r == 0 {
						swap(pa, pb)
						pa++
					}
					pb++
				}
				for pb <= pc {
					r := cmp(s[pc], s[a])
					if r < 0 {
						break
					}
					if r == 0 {
						swap(pc, pd)
						pd--
					}
					pc--
				}
				if pb > pc {
					break
				}
				swap(pb, pc)
				pb++
				pc--
			}
			pn := a + n
			d1 := min(pa-a, pb-pa)
			swapn(a, pb-d1, d1)
			d1 = min(pd-pc, pn-pd-1)
			swapn(pb, pn-d1, d1)
			d1 = pb - pa
			d2 := pd - pc
			if d1 <= d2 {
				if d1 > 1 {
					sort(a, d1)
				}
				if d2 <= 1 {
					return
				}
				a, n = pn-d2, d2
			} else {
				if d2 > 1 {
					sort(pn-d2, d2)
				}
				if d1 <= 1 {
					return
				}
				n = d1
			}
		}
	}
	sort(0, len(s))
}

// PGSortBounded sorts s as PostgreSQL's tuplesort does for a Sort node
// whose Limit above it needs only the first bound elements (bound < 0:
// all): past twice the bound it keeps the bound smallest in a heap
// (make_bounded_heap, sort_bounded_heap) and returns them sorted, else it
// quicksorts every element (PGQsort). Equal elements come out in
// PostgreSQL's order, and the result may be shorter than s.
func PGSortBounded[T any](s []T, bound int, cmp func(a, b T) int) []T {
	if bound < 0 || len(s) <= 2*bound {
		PGQsort(s, cmp)
		return s
	}
	if bound == 0 {
		return s[:0]
	}
	// The heap runs on the reversed comparison, so that its top is the
	// greatest of the kept elements, the one a smaller newcomer replaces.
	rev := func(a, b T) int { return -cmp(a, b) }
	heap := make([]T, 0, bound)
	replaceTop := func(x T) {
		n, i := len(heap), 0
		for {
			j := 2*i + 1
			if j >= n {
				break
			}
			if j+1 < n && rev(heap[j], heap[j+1]) > 0 {
				j++
			}
			if rev(x, heap[j]) <= 0 {
				break
			}
			heap[i] = heap[j]
			i = j
		}
		heap[i] = x
	}
	for _, x := range s {
		if len(heap) < bound {
			j := len(heap)
			heap = append(heap, x)
			for j > 0 {
				i := (j - 1) >> 1
				if rev(x, heap[i]) >= 0 {
					break
				}
				heap[j] = heap[i]
				j = i
			}
			heap[j] = x
			continue
		}
		if rev(x, heap[0]) <= 0 {
			continue
		}
		replaceTop(x)
	}
	// sort_bounded_heap: pop the top into the slot the heap gives up.
	sorted := heap
	for n := len(sorted); n > 1; n-- {
		top := sorted[0]
		heap = sorted[:n-1]
		replaceTop(sorted[n-1])
		sorted[n-1] = top
	}
	return sorted
}
