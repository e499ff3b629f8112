package main

import (
	"os"
	"strconv"

	"github.com/fickle-db/fickle/history"
)

// openHistory opens the history log of fickle serve: the --history file,
// or with --record alone a temporary file that close removes. The history
// lives on disk, not in memory: the store logs every event to it, and
// SELECT * FROM fickle_check() reads it back. It returns a nil log when
// neither flag is given; close flushes and closes it.
func openHistory(o *serveOptions) (log *history.FileLog, close func() error, err error) {
	path, temporary := o.historyPath, false
	if path == "" {
		if !o.record {
			return nil, func() error { return nil }, nil
		}
		f, err := os.CreateTemp("", "fickle-history-*.jsonl")
		if err != nil {
			return nil, nil, err
		}
		path, temporary = f.Name(), true
		f.Close()
	}
	meta := map[string]string{"seed": strconv.FormatUint(o.seed, 10), "strategy": o.strategy,
		"isolation": o.level.String(), "profile": o.profile, "realtime": strconv.FormatBool(o.realtime),
		"stale-writes": strconv.FormatBool(o.staleWrites), "max-staleness": strconv.Itoa(o.maxStaleness), "server": "fickle"}
	log, err = history.CreateFileLog(path, history.Header{Meta: meta})
	if err != nil {
		if temporary {
			os.Remove(path)
		}
		return nil, nil, err
	}
	closed := false
	return log, func() error {
		if closed {
			return nil
		}
		closed = true
		err := log.Close()
		if temporary {
			os.Remove(path)
		}
		return err
	}, nil
}
