package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// BenchmarkTPCB runs pgbench's TPC-B-like transaction through pgx against
// an in-process server over the real engine, four clients at a time, in
// the given exec mode. One op is one transaction. pgx's simple protocol
// sends every value quoted ('42'); pgbench_simple sends them as pgbench -M
// simple and psycopg2 do, numbers as numbers. pgbench_prepared is
// cache_statement on the tables as pgbench -i makes them: created without
// keys, which ALTER TABLE ... ADD PRIMARY KEY adds afterwards as unique
// indexes beside the hidden row ids.
func BenchmarkTPCB(b *testing.B) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		b.Run(mode.String(), func(b *testing.B) { benchTPCB(b, mode, tpcbTxn, false) })
	}
	b.Run("pgbench_simple", func(b *testing.B) { benchTPCB(b, pgx.QueryExecModeSimpleProtocol, tpcbLiteralTxn, false) })
	b.Run("pgbench_prepared", func(b *testing.B) { benchTPCB(b, pgx.QueryExecModeCacheStatement, tpcbTxn, true) })
}

type tpcbFunc func(ctx context.Context, c *pgx.Conn, aid, tid, delta int) error

// benchTPCB runs txn in mode against the TPC-B tables; with addedKeys the
// tables get their primary keys from ALTER TABLE after they are filled, as
// pgbench -i adds them.
func benchTPCB(b *testing.B, mode pgx.QueryExecMode, txn tpcbFunc, addedKeys bool) {
	srv := startSQLServer(b, Config{})
	ctx := context.Background()
	setup, err := pgx.Connect(ctx, srv.DSN("bench", "fickle"))
	if err != nil {
		b.Fatal(err)
	}
	const accounts = 10000
	key := " PRIMARY KEY"
	if addedKeys {
		key = ""
	}
	for _, q := range []string{
		"CREATE TABLE pgbench_branches (bid int" + key + ", bbalance int, filler char(88))",
		"CREATE TABLE pgbench_tellers (tid int" + key + ", bid int, tbalance int, filler char(84))",
		"CREATE TABLE pgbench_accounts (aid int" + key + ", bid int, abalance int, filler char(84))",
		"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))",
		"INSERT INTO pgbench_branches VALUES (1, 0, '')",
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	for t := 1; t <= 10; t++ {
		setup.Exec(ctx, "INSERT INTO pgbench_tellers VALUES ($1, 1, 0, '')", t)
	}
	batch := &pgx.Batch{}
	for a := 1; a <= accounts; a++ {
		batch.Queue("INSERT INTO pgbench_accounts VALUES ($1, 1, 0, '')", a)
	}
	if err := setup.SendBatch(ctx, batch).Close(); err != nil {
		b.Fatal(err)
	}
	if addedKeys {
		for _, q := range []string{
			"ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)",
			"ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)",
			"ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)",
		} {
			if _, err := setup.Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	}
	setup.Close(ctx)

	const clients = 4
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		cfg, _ := pgx.ParseConfig(srv.DSN("bench", "fickle"))
		cfg.DefaultQueryExecMode = mode
		if conns[i], err = pgx.ConnectConfig(ctx, cfg); err != nil {
			b.Fatal(err)
		}
		defer conns[i].Close(ctx)
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	per := b.N/clients + 1
	errs := make(chan error, clients)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for range per {
				aid, tid, delta := r.IntN(accounts)+1, r.IntN(10)+1, r.IntN(10001)-5000
				if err := txn(ctx, c, aid, tid, delta); err != nil {
					errs <- fmt.Errorf("client %d: %w", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

func tpcbTxn(ctx context.Context, c *pgx.Conn, aid, tid, delta int) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", delta, aid); err != nil {
		return err
	}
	var bal int
	if err := tx.QueryRow(ctx, "SELECT abalance FROM pgbench_accounts WHERE aid = $1", aid).Scan(&bal); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2", delta, tid); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2", delta, 1); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", tid, 1, aid, delta); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// tpcbLiteralTxn is tpcbTxn with the values written into the statements'
// text, as pgbench -M simple sends them.
func tpcbLiteralTxn(ctx context.Context, c *pgx.Conn, aid, tid, delta int) error {
	for _, q := range []string{
		"BEGIN",
		fmt.Sprintf("UPDATE pgbench_accounts SET abalance = abalance + %d WHERE aid = %d", delta, aid),
		fmt.Sprintf("SELECT abalance FROM pgbench_accounts WHERE aid = %d", aid),
		fmt.Sprintf("UPDATE pgbench_tellers SET tbalance = tbalance + %d WHERE tid = %d", delta, tid),
		fmt.Sprintf("UPDATE pgbench_branches SET bbalance = bbalance + %d WHERE bid = %d", delta, 1),
		fmt.Sprintf("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (%d, %d, %d, %d, CURRENT_TIMESTAMP)", tid, 1, aid, delta),
		"END",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkExtendedRoundTrip measures the server's per-statement overhead
// without an engine: Bind, Execute, Sync of a prepared statement returning
// one row, over loopback TCP, against the fake engine. Allocations include
// the client's.
func BenchmarkExtendedRoundTrip(b *testing.B) {
	srv := startTestServer(b, Config{})
	c := dialRaw(b, srv, nil)
	c.send(&pgproto3.Parse{Name: "s", Query: "ROWS 1"}, &pgproto3.Sync{})
	c.untilReady()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.fe.Send(&pgproto3.Bind{PreparedStatement: "s"})
		c.fe.Send(&pgproto3.Execute{})
		c.fe.Send(&pgproto3.Sync{})
		if err := c.fe.Flush(); err != nil {
			b.Fatal(err)
		}
		for {
			msg, err := c.fe.Receive()
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
				break
			}
		}
	}
}
