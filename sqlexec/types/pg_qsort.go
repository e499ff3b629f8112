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
