// goapps holds four Go application stacks in one module so that they build once: golang-migrate (pgx/v5 driver),
// goose, bun (pgdialect over its own pgdriver) and ent (its Atlas-based schema migration and SQL builder over pgx). Each subcommand drives its stack against the server at URL and
// prints a transcript free of timestamps, durations and server-dependent identifiers, so that runs on two servers can
// be compared. Usage: goapps migrate|goose|bun|ent URL
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: goapps migrate|goose|bun|ent URL")
		os.Exit(2)
	}
	apps := map[string]func(url string){"migrate": runMigrate, "goose": runGoose, "bun": runBun, "ent": runEnt}
	app, ok := apps[os.Args[1]]
	if !ok {
		fmt.Fprintln(os.Stderr, "unknown app", os.Args[1])
		os.Exit(2)
	}
	app(os.Args[2])
}

// must stops the application on an error it did not expect.
func must(err error) {
	if err != nil {
		fmt.Println("FAILED:", err)
		os.Exit(1)
	}
}
