// Command fickle-check is `fickle check` on its own: it checks histories
// against the isolation levels' axioms and explains violations, with the
// flags, output and exit codes of `fickle check`. It links only the history
// model and the checker, no SQL parser, so it builds without cgo (go install
// with no C compiler) and a check's memory is the history's, not a server's
// binary: the whole fickle binary adds about 25 MB of resident pages.
package main

import (
	"os"

	"github.com/fickle-db/fickle/cmd/internal/checkcli"
)

func main() {
	os.Exit(checkcli.Run("fickle-check", os.Args[1:], os.Stdout, os.Stderr))
}
