// Package invariants switches expensive self-checks on in test builds.
//
// Build with the tag "invariants" (go test -tags invariants) and Enabled is
// true: code then re-verifies what it believes (for example, the isolation
// engine re-checks its history after every commit). Without the tag Enabled
// is a constant false and the checks compile away. Invariant checks never
// replace error returns: client input is validated with errors, always.
//
// Sometimes(p) lets a test build take rarely-exercised paths on purpose. It
// must never be a source of choice in replayable code: the isolation engine
// and the oracle take their randomness from seeds, never from here.
package invariants
