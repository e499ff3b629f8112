package history

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestExportImportRoundTrips exports generated histories (mixed levels,
// client rollbacks) in every writable format and imports them back: the
// same history up to renaming. Formats that cannot express aborted
// transactions, or that turn them into server-aborted ones, are compared on
// their committed transactions (committedOnly).
func TestExportImportRoundTrips(t *testing.T) {
	for _, f := range WriteFormats {
		t.Run(string(f), func(t *testing.T) {
			for seed := uint64(0); seed < 25; seed++ {
				h := Generate(GenOptions{Txns: 60, Sessions: 1 + int(seed%6), Keys: 2 + int(seed%9), Seed: seed,
					Mixed: true, AbortRate: 0.15, OpsPerTxn: 1 + int(seed%10)})
				var buf bytes.Buffer
				if err := Export(&buf, h, f); err != nil {
					t.Fatal(err)
				}
				exported := buf.String()
				got, err := Read(&buf, "rt", f)
				if err != nil {
					t.Fatalf("seed %d: %v\n%s", seed, err, exported)
				}
				committedOnly := f != FormatFickle
				if a, b := canonical(h, committedOnly), canonical(got, committedOnly); a != b {
					t.Fatalf("seed %d: round trip through %s changed the history:\n%s\nvs\n%s", seed, f, a, b)
				}
			}
		})
	}
}

// TestExportKeepsStructuralAnomalies exports the Plume text versions of
// the structural tap cases (thin-air, aborted, future, not-my-last-write,
// intermediate reads) in every writable format and checks that each comes
// back with the same reads.
func TestExportKeepsStructuralAnomalies(t *testing.T) {
	b := NewBuilder()
	s0, s1 := b.Session("0"), b.Session("1")
	ab := b.Txn(s0, LevelUnknown).WriteValue("1", 5).End(ServerAborted)
	w := b.Txn(s0, LevelUnknown).WriteValue("1", 1).WriteValue("1", 2).Commit()
	tb := b.Txn(s1, LevelUnknown)
	tb.ReadValue("1", w, 1)        // intermediate read
	tb.ReadValue("2", NoWriter, 9) // thin-air read
	tb.ReadValue("1", ab, 5)       // aborted read
	tb.ReadValue("3", tb.ID(), 4)  // future read
	tb.WriteValue("3", 4)
	tb.Commit()
	h := b.MustHistory()
	want := "T3: r(1,T2=1,ret) r(2,T?=9,ret) r(1,T1=5,ret) r(3,T3=4,ret)"
	for _, f := range WriteFormats {
		var buf bytes.Buffer
		if err := Export(&buf, h, f); err != nil {
			t.Fatal(err)
		}
		got, err := Read(bytes.NewReader(buf.Bytes()), "x", f)
		if err != nil {
			t.Fatalf("%s: %v\n%s", f, err, buf.String())
		}
		reader := &got.Txns[len(got.Txns)-1]
		line := "T3:"
		for _, op := range reader.Ops {
			if op.Kind != OpRead {
				continue
			}
			w := op.Writer
			if w != NoWriter {
				// Name writers by what they wrote, whatever their ids.
				w = TxnID(map[string]TxnID{"5": 1, "1,2": 2, "4": 3}[writtenValues(got, w)])
			}
			op.Writer = w
			line += " " + got.opString(op)
		}
		if f == FormatDBCopHist {
			// .hist variables are identifiers: key 1 is k1.
			line = strings.ReplaceAll(line, "r(k", "r(")
		}
		if f == FormatAWDIT {
			// AWDIT cannot express aborted transactions: the aborted
			// read comes back as a thin-air read.
			want := "T3: r(1,T2=1,ret) r(2,T?=9,ret) r(1,T?=5,ret) r(3,T3=4,ret)"
			if line != want {
				t.Errorf("%s: %s\nwant %s\n%s", f, line, want, buf.String())
			}
			continue
		}
		if line != want {
			t.Errorf("%s: %s\nwant %s\n%s", f, line, want, buf.String())
		}
	}
}

func writtenValues(h *History, t TxnID) string {
	s := ""
	for _, op := range h.Txns[t].Ops {
		if op.Kind == OpWrite {
			if s != "" {
				s += ","
			}
			s += strconv.FormatInt(op.Value, 10)
		}
	}
	return s
}

// TestSharedHistoriesRoundTripThroughEveryFormat converts each shared
// Plume, AWDIT and Elle history to every writable format and back.
func TestSharedHistoriesRoundTripThroughEveryFormat(t *testing.T) {
	files := append(sharedFiles(t, "tap/text/*.txt"), sharedFiles(t, "awdit-tests/*/*.txt")...)
	files = append(files, sharedFiles(t, "tap/elle/*.edn")...)
	for _, p := range files {
		h, err := Import(p, FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range WriteFormats {
			var buf bytes.Buffer
			if err := Export(&buf, h, f); err != nil {
				t.Fatal(err)
			}
			got, err := Read(&buf, p, f)
			if err != nil {
				t.Fatalf("%s through %s: %v", p, f, err)
			}
			a, b := canonical(h, f != FormatFickle), canonical(got, f != FormatFickle)
			if f == FormatAWDIT {
				// AWDIT's format has no aborted transactions: reads of
				// them come back as thin-air reads.
				a = strings.ReplaceAll(a, ",aborted)", ",?)")
			}
			if a != b {
				t.Errorf("%s through %s:\n%s\nvs\n%s", p, f, a, b)
			}
		}
	}
}
