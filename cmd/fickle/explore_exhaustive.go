package main

import (
	"fmt"
	"io"

	"github.com/fickle-db/fickle/explore"
)

// exhaustiveMain runs fickle explore --exhaustive: a depth-first search of
// the command's read choices, at most --runs runs.
func exhaustiveMain(o *exploreOptions, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "fickle explore: every read choice of %s, at most %d runs (--isolation %s)\n", shellQuote(o.command), o.runs, o.isolationText)
	res, err := explore.Exhaustive(o.options(explore.Shard{}, nil))
	if err != nil {
		fmt.Fprintf(stderr, "fickle explore: %v\n", err)
		return exploreBadInput
	}
	aborted := 0
	for _, r := range res.Relations {
		if !r.AllCommitted {
			aborted++
		}
	}
	fmt.Fprintf(stdout, "%d runs, %d write-read relations (%d with a transaction rolled back), %d failed\n", res.Runs, len(res.Relations), aborted, len(res.Failures))
	if res.Unserved > 0 {
		fmt.Fprintf(stdout, "the engine did not serve a requested choice in %d runs: those relations were not tried\n", res.Unserved)
	}
	switch {
	case res.Exhausted && len(res.Failures) == 0:
		fmt.Fprintf(stdout, "the tree is exhausted: the command passes for every read choice its schedule allows at this level\n")
	case res.Exhausted:
		fmt.Fprintf(stdout, "the tree is exhausted\n")
	default:
		fmt.Fprintf(stdout, "the tree is not exhausted: at least %d choices remain untried (raise --runs)\n", res.Untried)
	}
	if len(res.Failures) == 0 {
		return exploreClean
	}
	first := res.Failures[0]
	rep, err := explore.BuildReport(first, replayCommand(first.History, o))
	if err != nil {
		fmt.Fprintf(stderr, "fickle explore: %v\n", err)
		return exploreBadInput
	}
	fmt.Fprintf(stdout, "the first failing run:\n%s", rep.Text())
	if path, err := rep.WriteJSON(); err == nil {
		fmt.Fprintf(stdout, "  report: %s\n", path)
	}
	return exploreFailed
}
