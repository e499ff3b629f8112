// Package purity holds a test that keeps the isolation engine and the oracle
// pure state machines: no wall clock, no global randomness, no goroutines.
// A single stray time.Now or rand.Intn there would break seed replay.
package purity
