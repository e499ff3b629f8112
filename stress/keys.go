package stress

import (
	"math"
	"math/rand/v2"
)

// keyPicker draws the key a transaction touches, from 0 to n-1, with one of
// the access distributions of paper 001's generator (YCSB's, as its
// artifact has them):
//
//   - uniform: every key alike;
//   - zipf: key i with probability proportional to 1/(i+1)^1.1, so key 0
//     is the hottest (Go's Zipf needs an exponent above 1; YCSB's 0.99 is
//     close);
//   - hotspot: 80% of the accesses go to the first 20% of the keys;
//   - exponential: key i with probability proportional to e^(-γi), with γ
//     such that 95% of the draws fall in the first 85.7% of the keys (draws
//     past the last key are drawn again, so 98% of the accesses do).
type keyPicker struct {
	n     int
	dist  string
	rng   *rand.Rand
	zipf  *rand.Zipf
	gamma float64
}

func newKeyPicker(dist string, n int, rng *rand.Rand) *keyPicker {
	p := &keyPicker{n: n, dist: dist, rng: rng}
	switch dist {
	case "zipf":
		if n > 1 {
			p.zipf = rand.NewZipf(rng, 1.1, 1, uint64(n-1))
		}
	case "exponential":
		p.gamma = -math.Log(1-0.95) / (0.857 * float64(n))
	}
	return p
}

// next draws a key.
func (p *keyPicker) next() int {
	switch p.dist {
	case "zipf":
		if p.zipf == nil {
			return 0
		}
		return int(p.zipf.Uint64())
	case "hotspot":
		hot := max(1, p.n/5)
		if p.rng.IntN(10) < 8 || hot == p.n {
			return p.rng.IntN(hot)
		}
		return hot + p.rng.IntN(p.n-hot)
	case "exponential":
		for {
			if k := int(-math.Log(1-p.rng.Float64()) / p.gamma); k < p.n {
				return k
			}
		}
	}
	return p.rng.IntN(p.n)
}

// other draws a key other than k when there are two keys or more.
func (p *keyPicker) other(k int) int {
	if p.n < 2 {
		return k
	}
	for i := 0; i < 8; i++ {
		if o := p.next(); o != k {
			return o
		}
	}
	return (k + 1 + p.rng.IntN(p.n-1)) % p.n
}
