package main

import (
	"io"
	"os"

	"github.com/fickle-db/fickle/cmd/internal/checkcli"
)

// checkOut and checkErr are where fickle check writes (tests replace them).
var checkOut, checkErr io.Writer = os.Stdout, os.Stderr

func init() {
	commands["check"] = command{
		summary: "check histories against the isolation levels' axioms",
		run: func(args []string) int {
			return checkcli.Run("fickle check", args, checkOut, checkErr)
		},
	}
}
