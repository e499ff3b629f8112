package isolation

import (
	"context"
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// FuzzStoreAPI drives the store's API with arbitrary call sequences from
// three sessions, misuse included (calls after the end, unknown savepoints,
// dropped tables and indexes, checkpoints, advisory locks, row locks of
// every mode, every level), with a staleness horizon of 1 to 3 transactions
// or none. No call may panic, and the recorded history must stay valid
// and witnessed by its co. Lock waits use an expired context, so nothing
// blocks.
func FuzzStoreAPI(f *testing.F) {
	f.Add([]byte{0, 1, 3, 4, 10, 2, 0, 5, 1, 4, 11, 0})
	f.Add([]byte{0, 5, 5, 1, 6, 2, 7, 0, 8, 1, 9, 3, 0, 12, 3, 13, 1, 14, 2, 15, 0})
	f.Add([]byte("\x00\x05\x03\x01\x00\x06\x04\x02\x10\x00\x03\x04\x11\x01\x0b\x00\x0b\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		expired, cancel := context.WithCancel(context.Background())
		cancel()
		s := NewStore(Config{Record: true, Strategy: Strategy(1 + len(data)%4), Seed: uint64(len(data)), MaxStaleness: len(data) % 4})
		tab, _ := s.CreateTable(TableSpec{Name: "t"})
		idx, _ := s.CreateIndex(tab, IndexSpec{Name: "u", Unique: true, Key: func(_ []byte, row []any) ([]byte, bool) {
			return []byte(fmt.Sprint(row[0])), row[0] == nil
		}})
		sess := []*Session{s.NewSession(), s.NewSession(), s.Session("named")}
		txns := make([]*Txn, len(sess))
		next := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		for len(data) > 0 {
			op, who := next(), int(next())%len(sess)
			arg := next()
			key := []byte{'k', '0' + arg%4}
			row := []any{int(arg % 3)}
			if arg%5 == 0 {
				row = []any{nil}
			}
			tx := txns[who]
			if op %= 21; tx == nil && (op < 16 || op == 20) {
				var err error
				tx, err = sess[who].Begin(TxnOptions{Level: history.Levels[int(arg)%len(history.Levels)], ReadOnly: arg%17 == 0})
				if err != nil {
					continue
				}
				txns[who] = tx
			}
			ro := ReadOptions{Latest: arg%7 == 0, ForLock: arg%3 == 0}
			visit := func([]byte, []any) (bool, error) { return arg%2 == 0, nil }
			switch op {
			case 0:
				_, _, _ = tx.Get(expired, tab, key, ro)
			case 1:
				_ = tx.Scan(expired, tab, Span{}, ro, visit)
			case 2:
				_ = tx.ScanIndex(expired, idx, ExactSpan([]byte(fmt.Sprint(row[0]))), ro, visit)
			case 3:
				_, _ = tx.Insert(expired, tab, key, row)
			case 4:
				_ = tx.Update(expired, tab, key, row)
			case 5:
				_ = tx.Delete(expired, tab, key)
			case 6:
				tx.Savepoint()
			case 7:
				_ = tx.RollbackTo(Savepoint(arg % 3))
			case 8:
				_ = tx.Release(Savepoint(arg % 3))
			case 9:
				_ = tx.LockTable(expired, tab, TableLock(arg%10), WaitPolicy(arg%3))
			case 10:
				_, _ = tx.AdvisoryLock(expired, AdvisoryKey{Key: int64(arg % 3)}, arg%2 == 0, WaitPolicy(arg%3))
			case 11:
				tx.Statement(history.Statement{SQL: "s"})
			case 12, 13, 14:
				_ = tx.Commit(expired)
				txns[who] = nil
			case 15:
				_ = tx.Rollback()
				txns[who] = nil
			case 16:
				_, _ = sess[who].AdvisoryLock(expired, AdvisoryKey{Key: int64(arg % 3)}, arg%2 == 0, WaitPolicy(arg%3))
			case 17:
				sess[who].AdvisoryUnlock(AdvisoryKey{Key: int64(arg % 3)}, arg%2 == 0)
			case 18:
				_, _ = s.Checkpoint()
			case 19:
				if arg%8 == 0 {
					_, _ = s.DropIndex(idx)
				} else if arg%8 == 1 {
					_ = s.DropTable(tab)
				}
			case 20:
				_, _ = tx.LockRow(expired, tab, key, LockRequest{Mode: RowLock(arg % 5), Wait: WaitPolicy(arg % 3), Write: arg%2 == 0})
			}
		}
		for _, tx := range txns {
			if tx != nil {
				_ = tx.Rollback()
			}
		}
		h := s.History()
		if err := h.Validate(); err != nil {
			t.Fatalf("invalid history: %v\n%s", err, dumpHistory(h))
		}
		if ex, err := oracle.CheckOrder(h, h.CommitOrder, oracle.Options{}, nil); err != nil || ex != nil {
			t.Fatalf("recorded co rejected: %v %+v\n%s", err, ex, dumpHistory(h))
		}
	})
}
