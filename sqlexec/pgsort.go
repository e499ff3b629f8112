package sqlexec

// pgQsort sorts s by cmp exactly as PostgreSQL's in-memory sort does (the
// quicksort of src/include/lib/sort_template.h that tuplesort uses): it is
// not stable, and reproducing it puts rows that cmp does not tell apart in
// the order PostgreSQL leaves them in, which answers that depend on the
// order of peers (first_value over peers, row_number within ties) show.
func pgQsort[T any](s []T, cmp func(a, b T) int) {
	for {
		n := len(s)
		if n < 7 {
			for m := 1; m < n; m++ {
				for l := m; l > 0 && cmp(s[l-1], s[l]) > 0; l-- {
					s[l], s[l-1] = s[l-1], s[l]
				}
			}
			return
		}
		presorted := true
		for m := 1; m < n; m++ {
			if cmp(s[m-1], s[m]) > 0 {
				presorted = false
				break
			}
		}
		if presorted {
			return
		}
		med3 := func(a, b, c int) int {
			if cmp(s[a], s[b]) < 0 {
				switch {
				case cmp(s[b], s[c]) < 0:
					return b
				case cmp(s[a], s[c]) < 0:
					return c
				}
				return a
			}
			switch {
			case cmp(s[b], s[c]) > 0:
				return b
			case cmp(s[a], s[c]) < 0:
				return a
			}
			return c
		}
		pm := n / 2
		if n > 7 {
			pl, pn := 0, n-1
			if n > 40 {
				d := n / 8
				pl = med3(pl, pl+d, pl+2*d)
				pm = med3(pm-d, pm, pm+d)
				pn = med3(pn-2*d, pn-d, pn)
			}
			pm = med3(pl, pm, pn)
		}
		s[0], s[pm] = s[pm], s[0]
		pa, pb := 1, 1
		pc, pd := n-1, n-1
		for {
			for pb <= pc {
				r := cmp(s[pb], s[0])
				if r > 0 {
					break
				}
				if r == 0 {
					s[pa], s[pb] = s[pb], s[pa]
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(s[pc], s[0])
				if r < 0 {
					break
				}
				if r == 0 {
					s[pc], s[pd] = s[pd], s[pc]
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			s[pb], s[pc] = s[pc], s[pb]
			pb++
			pc--
		}
		swapN := func(a, b, k int) {
			for i := 0; i < k; i++ {
				s[a+i], s[b+i] = s[b+i], s[a+i]
			}
		}
		d1 := min(pa, pb-pa)
		swapN(0, pb-d1, d1)
		d1 = min(pd-pc, n-pd-1)
		swapN(pb, n-d1, d1)
		d1, d2 := pb-pa, pd-pc
		if d1 <= d2 {
			if d1 > 1 {
				pgQsort(s[:d1], cmp)
			}
			if d2 <= 1 {
				return
			}
			s = s[n-d2:]
		} else {
			if d2 > 1 {
				pgQsort(s[n-d2:], cmp)
			}
			if d1 <= 1 {
				return
			}
			s = s[:d1]
		}
	}
}
