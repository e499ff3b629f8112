package integration

import (
	"os"
	"os/exec"
	"testing"
)

// clientTool returns the path of a client stack's program (java, node,
// npm), or skips the test with a message when it is not installed (fails
// under FICKLE_REQUIRE_PG=1).
func clientTool(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if requirePG() {
		t.Fatalf("%s is not installed (FICKLE_REQUIRE_PG=1)", name)
	}
	t.Skipf("%s is not installed: skipping this client's test", name)
	return ""
}

// clientFile returns a file a client stack needs (a driver's jar), or
// skips or fails like clientTool.
func clientFile(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if requirePG() {
		t.Fatalf("%s is missing (FICKLE_REQUIRE_PG=1)", path)
	}
	t.Skipf("%s is missing: skipping this client's test", path)
	return ""
}

// fickleConfigs are the two ways the client stacks' tests run fickle:
// with real time added to every level (a new connection sees every
// earlier commit), and with the adversarial default strategy with the
// schema and fixtures loaded at start (--load), as
// docs/clients-node-java.md tells users to run their test suites.
var fickleConfigs = []struct {
	name string
	args func(fixtures string) []string
	load bool
}{
	{name: "realtime", args: func(string) []string { return []string{"--realtime"} }},
	{name: "adversarial", args: func(fixtures string) []string { return []string{"--strategy", "adversarial", "--load", fixtures} }, load: true},
}
