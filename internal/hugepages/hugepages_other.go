//go:build !linux

package hugepages

// Advise does nothing where the platform has no transparent huge pages.
func Advise(reserve uint64) (Status, error) { return Status{}, nil }
