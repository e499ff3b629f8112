package stress

import (
	"math/rand/v2"
	"testing"
)

// TestKeyDistributions pins the shape of each distribution over 100 keys:
// uniform spreads evenly, zipf favours key 0 most (the first 10 keys get
// 63%), hotspot sends about 80% of the accesses to the first 20 keys,
// exponential 98% to the first 86 (95% before the draws past the last key
// are drawn again); all stay in range.
func TestKeyDistributions(t *testing.T) {
	const n, draws = 100, 200_000
	for _, c := range []struct {
		dist      string
		hot       int     // the first hot keys ...
		share     float64 // ... get about this share of the draws
		tolerance float64
	}{
		{"uniform", 20, 0.20, 0.01},
		{"hotspot", 20, 0.80, 0.01},
		{"exponential", 86, 0.98, 0.01},
		{"zipf", 10, 0.63, 0.02},
	} {
		t.Run(c.dist, func(t *testing.T) {
			p := newKeyPicker(c.dist, n, rand.New(rand.NewPCG(1, 2)))
			count := make([]int, n)
			for i := 0; i < draws; i++ {
				k := p.next()
				if k < 0 || k >= n {
					t.Fatalf("key %d out of range", k)
				}
				count[k]++
			}
			hot := 0
			for _, c := range count[:c.hot] {
				hot += c
			}
			if share := float64(hot) / draws; share < c.share-c.tolerance || share > c.share+c.tolerance {
				t.Errorf("the first %d keys got %.3f of the draws, want %.2f±%.2f", c.hot, share, c.share, c.tolerance)
			}
			if c.dist == "zipf" {
				for k := 1; k < n; k++ {
					if count[k] > count[0] {
						t.Errorf("key %d drawn %d times, more than key 0 (%d)", k, count[k], count[0])
					}
				}
			}
		})
	}
}

// TestOtherKeyDiffers: other never returns its argument when there are two
// keys or more, whatever the distribution.
func TestOtherKeyDiffers(t *testing.T) {
	for _, dist := range Distributions {
		p := newKeyPicker(dist, 2, rand.New(rand.NewPCG(3, 4)))
		for i := 0; i < 1000; i++ {
			k := p.next()
			if o := p.other(k); o == k {
				t.Fatalf("%s: other(%d) = %d", dist, k, o)
			}
		}
	}
}
