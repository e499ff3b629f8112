package explore

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// Recording is a run as its files keep it: the history with its header's
// settings, and the schedule beside it.
type Recording struct {
	Path    string
	History *history.History
	Meta    map[string]string
	// Schedule is nil when the history has no schedule beside it (one
	// recorded by fickle serve --history): a replay then re-issues the
	// read choices only, in whatever order the command's connections run.
	Schedule []Step
}

// LoadRecording reads the history at path and the schedule beside it. A
// file that is not a fickle history is a UsageError.
func LoadRecording(path string) (*Recording, error) {
	meta, err := readHistoryMeta(path)
	if err != nil {
		return nil, err
	}
	h, err := history.Import(path, history.FormatFickle)
	if err != nil {
		return nil, usageErrorf("--replay %s: %v", path, err)
	}
	steps, err := readSchedule(schedulePath(path))
	if err != nil {
		return nil, usageErrorf("--replay: %v", err)
	}
	return &Recording{Path: path, History: h, Meta: meta, Schedule: steps}, nil
}

// readHistoryMeta reads the header line of a fickle JSONL history
// (gzipped or not).
func readHistoryMeta(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErrorf("--replay: %v", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, usageErrorf("--replay %s: %v", path, err)
		}
		r = zr
	}
	line, _ := bufio.NewReader(r).ReadBytes('\n')
	var hdr struct {
		Format string            `json:"format"`
		Meta   map[string]string `json:"meta"`
	}
	if json.Unmarshal(line, &hdr) != nil || hdr.Format != history.JSONLFormat {
		return nil, usageErrorf("--replay %s: not a fickle history (its first line is not a fickle-history header)", path)
	}
	return hdr.Meta, nil
}

// Seed returns the recorded run's seed.
func (rec *Recording) Seed() (uint64, error) {
	s, ok := rec.Meta["seed"]
	if !ok {
		return 0, usageErrorf("--replay %s: the history does not say its seed", rec.Path)
	}
	seed, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usageErrorf("--replay %s: bad seed %q", rec.Path, s)
	}
	return seed, nil
}

// ServerConfig returns base with the recorded run's settings (strategy,
// default level, profile, real time, stale writes), which a replay must
// share.
func (rec *Recording) ServerConfig(base ServerConfig) (ServerConfig, error) {
	c := base
	bad := func(name, v string) (ServerConfig, error) {
		return c, usageErrorf("--replay %s: bad %s %q in the history's header", rec.Path, name, v)
	}
	if v, ok := rec.Meta["strategy"]; ok {
		s, err := isolation.ParseStrategy(v)
		if err != nil {
			return bad("strategy", v)
		}
		c.Strategy = s
	}
	if v, ok := rec.Meta["isolation"]; ok {
		l, err := history.ParseLevel(v)
		if err != nil {
			return bad("isolation", v)
		}
		c.Level = l
	}
	if v, ok := rec.Meta["profile"]; ok {
		switch v {
		case "axiomatic":
			c.Postgres = false
		case "postgres":
			c.Postgres = true
		default:
			return bad("profile", v)
		}
	}
	for name, field := range map[string]*bool{"realtime": &c.RealTime, "stale-writes": &c.StaleWrites} {
		if v, ok := rec.Meta[name]; ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return bad(name, v)
			}
			*field = b
		}
	}
	return c, nil
}

// ReplayResult is one replay of a recording.
type ReplayResult struct {
	Run *Run
	// Exact says the replay admitted the recorded steps in their order and
	// produced the recorded history, read for read.
	Exact bool
	// Divergence says where it left the recording, when it did.
	Divergence *Divergence
}

// Replay runs the command once more against a server that re-issues the
// recording's choices and admits its steps in their recorded order, and
// compares the history it makes with the recorded one. out is where the
// replay's own history goes.
func Replay(opts Options, rec *Recording, out string) (*ReplayResult, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	seed, err := rec.Seed()
	if err != nil {
		return nil, err
	}
	if o.Server, err = rec.ServerConfig(o.Server); err != nil {
		return nil, err
	}
	r := execute(o, runSpec{number: 1, seed: seed, historyPath: out, replay: rec.History, script: rec.Schedule})
	if r.ServerError != "" {
		return nil, fmt.Errorf("replay: %s", r.ServerError)
	}
	res := &ReplayResult{Run: r, Divergence: r.Divergence}
	if res.Divergence == nil {
		h, err := history.Import(out, history.FormatFickle)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		res.Divergence = compareHistories(rec.History, h)
	}
	res.Exact = res.Divergence == nil && rec.Schedule != nil
	return res, nil
}

// compareHistories returns where got first differs from want, transaction
// by transaction in their dumps, or nil when they are the same.
func compareHistories(want, got *history.History) *Divergence {
	w, g := dumpLines(want), dumpLines(got)
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return &Divergence{At: -1, Reason: fmt.Sprintf("the replayed history differs from the recording:\n  recorded: %s\n  replayed: %s", orNothing(a), orNothing(b))}
		}
	}
	return nil
}

func dumpLines(h *history.History) []string {
	var b strings.Builder
	_ = h.Dump(&b)
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return clip(s, 400)
}

// withReadsKept returns a copy of h in which every read other than those
// keep accepts is deleted: a replay serves those reads as recorded and the
// others by its strategy (the latest, when shrinking).
func withReadsKept(h *history.History, keep func(t history.TxnID, op int) bool) *history.History {
	c := *h
	c.Txns = make([]history.Txn, len(h.Txns))
	for i := range h.Txns {
		t := h.Txns[i]
		ops := make([]history.Op, 0, len(t.Ops))
		for j, op := range t.Ops {
			if op.Kind == history.OpWrite || keep(t.ID, j) {
				ops = append(ops, op)
			}
		}
		t.Ops, t.Stale = ops, nil
		t.ClearRows()
		c.Txns[i] = t
	}
	return &c
}

// latestServer is cfg with reads that have no recorded choice served the
// latest valid version.
func latestServer(cfg ServerConfig) ServerConfig {
	cfg.Strategy = isolation.StrategyLatest
	return cfg
}
