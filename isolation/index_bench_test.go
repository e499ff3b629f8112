package isolation

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// BenchmarkIndexLookupWithInserts measures what index scans' marks
// (phantom.go) cost: per op, a transaction of the given level looks up 20
// fresh values of a secondary index one by one (as the inner side of a
// join does), and another session inserts a row under one of them and
// commits, which gives the lookup that covers it its read.
func BenchmarkIndexLookupWithInserts(b *testing.B) {
	for _, bc := range []struct {
		level  history.Level
		record bool
	}{
		{history.ReadCommitted, false},
		{history.Snapshot, false},
		{history.Snapshot, true},
		{history.Serializable, true},
	} {
		b.Run(fmt.Sprintf("%s-record=%v", bc.level, bc.record), func(b *testing.B) {
			s := NewStore(Config{Strategy: StrategyLatest, Record: bc.record})
			tab, _ := s.CreateTable(TableSpec{Name: "t"})
			valKey := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
			ix, _ := s.CreateIndex(tab, IndexSpec{Name: "t_v", Key: func(_ []byte, row []any) ([]byte, bool) { return valKey(row[0].(int64)), false }})
			reader, writer := s.NewSession(), s.NewSession()
			visit := func([]byte, []any) (bool, error) { return true, nil }
			b.ResetTimer()
			for i := range b.N {
				tx, _ := reader.Begin(TxnOptions{Level: bc.level})
				base := int64(i) * 20
				for v := range int64(20) {
					if err := tx.ScanIndex(bg, ix, ExactSpan(valKey(base+v)), ReadOptions{}, visit); err != nil {
						b.Fatal(err)
					}
				}
				w, _ := writer.Begin(TxnOptions{Level: history.ReadCommitted})
				if _, err := w.Insert(bg, tab, binary.BigEndian.AppendUint64(nil, uint64(i)), []any{base + int64(i%20)}); err != nil {
					b.Fatal(err)
				}
				if err := w.Commit(bg); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(bg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUniqueIndexExactLookup measures the point look-up of a unique
// index that ALTER TABLE ... ADD PRIMARY KEY gives a table keyed by hidden
// row ids (pgbench's accounts): per op, one read committed transaction
// finds one of 1,000,000 rows through the index.
func BenchmarkUniqueIndexExactLookup(b *testing.B) {
	const rows = 1_000_000
	s := NewStore(Config{Strategy: StrategyLatest})
	tab, _ := s.CreateTable(TableSpec{Name: "accounts", HiddenRowID: true})
	valKey := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	loader := s.NewSession()
	tx, _ := loader.Begin(TxnOptions{Level: history.ReadCommitted})
	for v := range int64(rows) {
		if _, err := tx.Insert(bg, tab, nil, []any{v}); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(bg); err != nil {
		b.Fatal(err)
	}
	ix, err := s.CreateIndex(tab, IndexSpec{Name: "accounts_pkey", Unique: true, Key: func(_ []byte, row []any) ([]byte, bool) { return valKey(row[0].(int64)), false }})
	if err != nil {
		b.Fatal(err)
	}
	reader := s.NewSession()
	visit := func([]byte, []any) (bool, error) { return true, nil }
	b.ResetTimer()
	for i := range b.N {
		tx, _ := reader.Begin(TxnOptions{Level: history.ReadCommitted})
		if err := tx.ScanIndex(bg, ix, ExactSpan(valKey(int64(i*7919%rows))), ReadOptions{}, visit); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(bg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateUniqueIndex measures ALTER TABLE ... ADD PRIMARY KEY's
// index build over a table keyed by hidden row ids: per op, a unique index
// over 200,000 committed rows is built and dropped.
func BenchmarkCreateUniqueIndex(b *testing.B) {
	const rows = 200_000
	s := NewStore(Config{Strategy: StrategyLatest})
	tab, _ := s.CreateTable(TableSpec{Name: "accounts", HiddenRowID: true})
	valKey := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	tx, _ := s.NewSession().Begin(TxnOptions{Level: history.ReadCommitted})
	for v := range int64(rows) {
		if _, err := tx.Insert(bg, tab, nil, []any{v}); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(bg); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		ix, err := s.CreateIndex(tab, IndexSpec{Name: "accounts_pkey", Unique: true, Key: func(_ []byte, row []any) ([]byte, bool) { return valKey(row[0].(int64)), false }})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.DropIndex(ix); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBulkInsert inserts pgbench_accounts-shaped rows into a table
// keyed by hidden row ids in one transaction, as COPY in `pgbench -i` does:
// the store's share of a bulk load, with the heap it leaves per row.
func BenchmarkBulkInsert(b *testing.B) {
	for _, rows := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(rows), func(b *testing.B) {
			var before, after runtime.MemStats
			var s *Store
			for b.Loop() {
				runtime.GC()
				runtime.ReadMemStats(&before)
				s = NewStore(Config{Strategy: StrategyLatest})
				tab, _ := s.CreateTable(TableSpec{Name: "accounts", HiddenRowID: true})
				tx, _ := s.NewSession().Begin(TxnOptions{})
				for i := 1; i <= rows; i++ {
					if _, err := tx.Insert(bg, tab, nil, []any{int64(i), int64(1 + i/100000), int64(0), ""}); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.Commit(bg); err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(rows), "heap-B/row")
			runtime.KeepAlive(s)
		})
	}
}
