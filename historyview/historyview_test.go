package historyview

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// chromium returns the headless browser, or skips (fails in CI, where
// .ci/run installs it and sets FICKLE_REQUIRE_CHROMIUM).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("FICKLE_REQUIRE_CHROMIUM") != "" {
		t.Fatal("chromium is missing")
	}
	t.Skip("chromium is missing")
	return ""
}

// dumpDOM renders the page in headless Chromium and returns the DOM its
// script built.
func dumpDOM(t *testing.T, page []byte) string {
	t.Helper()
	bin := chromium(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,800",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// lostUpdate is two sessions that read x from init and write it; the
// second read was stale (the first had committed its write).
func lostUpdate(t *testing.T) *history.History {
	b := history.NewBuilder()
	s1, s2 := b.Session("worker-1"), b.Session("worker-2")
	t1 := b.Txn(s1, history.ReadCommitted).Stmt(history.Statement{SQL: "SELECT n FROM c WHERE id = 1"}).Read("x", history.Init).
		Stmt(history.Statement{SQL: "UPDATE c SET n = 1 WHERE id = 1"}).Write("x").Commit()
	t2 := b.Txn(s2, history.ReadCommitted).Stmt(history.Statement{SQL: "SELECT n FROM c WHERE id = 1"}).Read("x", history.Init).
		Stmt(history.Statement{SQL: "UPDATE c SET n = 1 WHERE id = 1"}).Write("x").Commit()
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	h.Txns[t2].Stale = []history.StaleRead{{Op: 0, Latest: t1}}
	return h
}

func render(t *testing.T, h *history.History, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, h, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var (
	laneRE  = regexp.MustCompile(`<div class="lane" data-session="(-?\d+)"`)
	txnRE   = regexp.MustCompile(`<div class="txn ([^"]*)" data-txn="(\d+)"`)
	edgeRE  = regexp.MustCompile(`<path [^>]*class="(edge [^"]*)" data-from="(\d+)" data-to="(\d+)"`)
	countRE = regexp.MustCompile(`<span class="count ([a-z-]+)" data-n="(\d+)"`)
)

// TestThePageDrawsLanesTransactionsEdgesStaleReadsAndTheCycle renders a
// lost update in headless Chromium and reads the page's DOM: a lane per
// session and one for init, a box per transaction on its lane, the
// write-read edges with the stale one highlighted, the transactions and
// edges of the oracle's cycle marked, and the counts in the summary.
func TestThePageDrawsLanesTransactionsEdgesStaleReadsAndTheCycle(t *testing.T) {
	h := lostUpdate(t)
	res := oracle.Check(h, oracle.Options{Level: history.Serializable})
	if res.Verdict != oracle.Violation {
		t.Fatal("setup: the lost update is serializable")
	}
	dom := dumpDOM(t, render(t, h, Options{Title: "lost update", Cycle: res.Explanation, CycleNote: "at SERIALIZABLE"}))
	var lanes []string
	for _, m := range laneRE.FindAllStringSubmatch(dom, -1) {
		lanes = append(lanes, m[1])
	}
	if strings.Join(lanes, ",") != "-1,0,1" {
		t.Errorf("lanes %v, want init's and one per session", lanes)
	}
	boxes := map[string]string{}
	for _, m := range txnRE.FindAllStringSubmatch(dom, -1) {
		boxes[m[2]] = m[1]
	}
	if len(boxes) != 3 || !strings.Contains(boxes["2"], "has-stale") || strings.Contains(boxes["1"], "has-stale") ||
		!strings.Contains(boxes["1"], "cycle") || !strings.Contains(boxes["2"], "cycle") {
		t.Errorf("transaction boxes %v", boxes)
	}
	edges := map[string]string{}
	for _, m := range edgeRE.FindAllStringSubmatch(dom, -1) {
		edges[m[2]+"->"+m[3]+" "+m[1]] = m[1]
	}
	for _, want := range []string{"0->1 edge wr", "0->2 edge wr stale", "1->2 edge cycle kind-rw", "2->1 edge cycle kind-rw"} {
		if _, ok := edges[want]; !ok {
			t.Errorf("no edge %q among %v", want, edges)
		}
	}
	counts := map[string]string{}
	for _, m := range countRE.FindAllStringSubmatch(dom, -1) {
		counts[m[1]] = m[2]
	}
	if counts["sessions"] != "2" || counts["transactions"] != "2" || counts["reads"] != "2" || counts["stale-reads"] != "1" {
		t.Errorf("summary counts %v", counts)
	}
	for _, want := range []string{`<b class="anomaly">lost update</b>`, `class="stale-read">T2 (worker-2) read x from init, latest T1: SELECT n FROM c WHERE id = 1</li>`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// TestThePageNeedsNoNetwork: the page names no URL to fetch (the SVG
// namespace is a name, not a download).
func TestThePageNeedsNoNetwork(t *testing.T) {
	page := string(render(t, lostUpdate(t), Options{Title: "x"}))
	rest := strings.ReplaceAll(page, "http://www.w3.org/2000/svg", "")
	for _, bad := range []string{"http://", "https://", "src=", "href=", "@import", "url("} {
		if strings.Contains(rest, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
}

// TestATenThousandTransactionHistoryStaysUsable renders a generated
// history of 10^4 transactions: the page stays a few megabytes, Chromium
// builds it in seconds, and it draws only the transactions on screen (and
// the edges touching them) while its summary counts them all.
func TestATenThousandTransactionHistoryStaysUsable(t *testing.T) {
	if testing.Short() {
		t.Skip("10^4 transactions in Chromium: not with -short")
	}
	h := history.Generate(history.GenOptions{Sessions: 16, Txns: 10000, Level: history.ReadCommitted, Seed: 1})
	for i := 1; i < len(h.Txns); i += 7 {
		for j, op := range h.Txns[i].Ops {
			if op.Kind == history.OpRead && op.Writer != h.Txns[i].ID {
				h.Txns[i].Stale = append(h.Txns[i].Stale, history.StaleRead{Op: int32(j), Latest: op.Writer})
				break
			}
		}
	}
	page := render(t, h, Options{Title: "generated"})
	if len(page) > 8<<20 {
		t.Errorf("the page is %d bytes", len(page))
	}
	start := time.Now()
	dom := dumpDOM(t, page)
	took := time.Since(start)
	boxes := len(txnRE.FindAllStringIndex(dom, -1))
	edges := len(edgeRE.FindAllStringIndex(dom, -1))
	m := countRE.FindAllStringSubmatch(dom, -1)
	counts := map[string]int{}
	for _, c := range m {
		counts[c[1]], _ = strconv.Atoi(c[2])
	}
	t.Logf("%d bytes, rendered in %s: %d boxes, %d edges drawn", len(page), took, boxes, edges)
	if counts["transactions"] != 10000 || counts["stale-reads"] == 0 {
		t.Errorf("summary counts %v", counts)
	}
	if boxes == 0 || boxes > 200 || edges > 4000 {
		t.Errorf("drew %d boxes and %d edges: want the columns on screen only", boxes, edges)
	}
	if took > time.Minute {
		t.Errorf("Chromium took %s", took)
	}
}
