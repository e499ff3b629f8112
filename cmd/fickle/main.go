// Command fickle is a PostgreSQL-wire server that returns, for every read, one
// of the results the transaction's isolation level allows, records the
// history, and checks histories against the isolation levels' axioms.
//
// Each subcommand lives in its own file and registers itself in commands;
// this file only dispatches and sets the exit code.
package main

import (
	"fmt"
	"os"
	"sort"
)

// command is one subcommand: run parses its own flags from args and returns
// the process exit code.
type command struct {
	summary string
	run     func(args []string) int
}

// commands is filled by the init functions of the subcommand files.
var commands = map[string]command{}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "fickle: unknown command %q\n\n", args[0])
		usage()
		return 2
	}
	return cmd.run(args[1:])
}

func usage() {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(os.Stderr, "usage: fickle <command> [flags]\n\ncommands:")
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'fickle <command> -h' for a command's flags.")
}
