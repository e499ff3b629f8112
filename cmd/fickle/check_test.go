package main

import (
	"bytes"
	"os"
)

// runCheckCapture runs fickle check (cmd/internal/checkcli has its tests)
// and returns its exit code and output.
func runCheckCapture(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	checkOut, checkErr = &o, &e
	defer func() { checkOut, checkErr = os.Stdout, os.Stderr }()
	code = run(append([]string{"check"}, args...))
	return code, o.String(), e.String()
}
