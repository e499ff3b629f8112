//go:build !invariants

package invariants

// Enabled is true in builds with the "invariants" tag.
const Enabled = false

// Sometimes returns true with probability p in invariant builds; in other
// builds it is always false.
func Sometimes(p float64) bool { return false }
