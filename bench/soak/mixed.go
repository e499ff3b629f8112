package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The mixed workload: connections that each run a few dozen transactions
// at READ COMMITTED, REPEATABLE READ or SERIALIZABLE on soak_kv (a point
// read, a lookup of five keys or now and then a whole-table scan, an upsert
// of a hot key, an insert or a delete of a cold one) and now and then close their socket in the middle of a
// transaction, without COMMIT, ROLLBACK or Terminate, then connect again.
// Every transaction upserts its own id into a hot key, so that the history
// shows which transactions committed: an id whose COMMIT succeeded must be
// in the value of a committed transaction's write.

const (
	hotKeys  = 1000 // upserted, never deleted
	coldKeys = 1000 // inserted and deleted
)

func setupMixed(dsn string) error {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `DROP TABLE IF EXISTS soak_kv;
		CREATE TABLE soak_kv (k int PRIMARY KEY, v bigint NOT NULL, pad text);
		INSERT INTO soak_kv SELECT g, 0, 'x' FROM generate_series(0, 999) g`)
	return err
}

// mixedResult is what the mixed workload did.
type mixedResult struct {
	acked       map[int64]bool // the ids of the transactions whose COMMIT succeeded
	connections int
	disconnects int            // sockets closed in the middle of a transaction
	failed      map[string]int // transactions that failed, by SQLSTATE
}

func (r *mixedResult) String() string {
	var fails []string
	for code, n := range r.failed {
		fails = append(fails, fmt.Sprintf("%s: %d", code, n))
	}
	sort.Strings(fails)
	return fmt.Sprintf("mixed workload: %d commits acknowledged, %d connections, %d closed mid-transaction, failed transactions {%s}",
		len(r.acked), r.connections, r.disconnects, strings.Join(fails, ", "))
}

// runMixed runs n connections of the mixed workload until ctx ends, each
// pausing think between transactions.
func runMixed(ctx context.Context, dsn string, n int, think time.Duration) *mixedResult {
	res := &mixedResult{acked: map[int64]bool{}, failed: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := mixedWorker(ctx, dsn, w, think)
			mu.Lock()
			defer mu.Unlock()
			for id := range r.acked {
				res.acked[id] = true
			}
			res.connections += r.connections
			res.disconnects += r.disconnects
			for code, k := range r.failed {
				res.failed[code] += k
			}
		}()
	}
	wg.Wait()
	return res
}

// mixedWorker is one connection slot of the mixed workload.
func mixedWorker(ctx context.Context, dsn string, w int, think time.Duration) *mixedResult {
	res := &mixedResult{acked: map[int64]bool{}, failed: map[string]int{}}
	rng := rand.New(rand.NewPCG(uint64(w), 99))
	seq := int64(0)
	for ctx.Err() == nil {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			res.failed[sqlstate(err)]++
			time.Sleep(100 * time.Millisecond)
			continue
		}
		res.connections++
		for n := 1 + rng.IntN(40); n > 0 && ctx.Err() == nil; n-- {
			if think > 0 {
				time.Sleep(think/2 + time.Duration(rng.Int64N(int64(think)))) // on average think
			}
			seq++
			id := int64(w)<<32 | seq
			ok, err := mixedTxn(ctx, c, rng, id)
			if ok {
				res.acked[id] = true
				continue
			}
			if err == nil { // closed mid-transaction on purpose
				res.disconnects++
				break
			}
			res.failed[sqlstate(err)]++
			if c.IsClosed() {
				break
			}
			c.Exec(context.Background(), "ROLLBACK") //nolint:errcheck // best effort after a failure
		}
		c.Close(context.Background())
	}
	return res
}

// mixedTxn runs one transaction with id. It reports whether its COMMIT
// succeeded; (false, nil) means it closed the socket in the middle.
func mixedTxn(ctx context.Context, c *pgx.Conn, rng *rand.Rand, id int64) (bool, error) {
	levels := []string{"READ COMMITTED", "READ COMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"}
	stmts := []func() error{
		func() error {
			_, err := c.Exec(ctx, "BEGIN ISOLATION LEVEL "+levels[rng.IntN(len(levels))])
			return err
		},
		func() error {
			var v int64
			err := c.QueryRow(ctx, "SELECT v FROM soak_kv WHERE k = $1", rng.IntN(hotKeys)).Scan(&v)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			return err
		},
		func() error {
			var n int64
			if rng.IntN(50) == 0 { // a whole-table scan now and then
				return c.QueryRow(ctx, "SELECT count(*) FROM soak_kv WHERE pad IS NOT NULL").Scan(&n)
			}
			k := rng.IntN(hotKeys + coldKeys)
			return c.QueryRow(ctx, "SELECT count(*) FROM soak_kv WHERE k IN ($1, $2, $3, $4, $5)", k, k+1, k+2, k+3, k+4).Scan(&n)
		},
		func() error {
			_, err := c.Exec(ctx, "INSERT INTO soak_kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v", rng.IntN(hotKeys), id)
			return err
		},
		func() error {
			k := hotKeys + rng.IntN(coldKeys)
			if rng.IntN(2) == 0 {
				_, err := c.Exec(ctx, "INSERT INTO soak_kv (k, v, pad) VALUES ($1, $2, repeat('p', 100)) ON CONFLICT DO NOTHING", k, id)
				return err
			}
			_, err := c.Exec(ctx, "DELETE FROM soak_kv WHERE k = $1", k)
			return err
		},
	}
	cut := len(stmts) + 1 // no disconnect
	if rng.IntN(20) == 0 {
		cut = 1 + rng.IntN(len(stmts)) // after BEGIN, before COMMIT
	}
	for i, stmt := range stmts {
		if i == cut {
			c.PgConn().Conn().Close() // no ROLLBACK, no Terminate: the client vanished
			return false, nil
		}
		if err := stmt(); err != nil {
			return false, err
		}
	}
	if cut == len(stmts) {
		c.PgConn().Conn().Close()
		return false, nil
	}
	tag, err := c.Exec(ctx, "COMMIT")
	if err == nil && tag.String() != "COMMIT" {
		err = fmt.Errorf("COMMIT answered %s", tag)
	}
	return err == nil, err
}

// sqlstate returns an error's SQLSTATE, or a short description.
func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "end of run"
	}
	return "connection error"
}
