//go:build invariants

package invariants

import "math/rand/v2"

// Enabled is true in builds with the "invariants" tag.
const Enabled = true

// Sometimes returns true with probability p in invariant builds, so that
// tests exercise paths the normal run takes rarely.
func Sometimes(p float64) bool { return rand.Float64() < p }
