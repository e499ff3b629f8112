package sqlexec

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// BenchmarkTPCB runs pgbench's TPC-B-like transaction (three updates by
// primary key, a select by primary key and an insert) through prepared
// statements, in-process, on one session.
func BenchmarkTPCB(b *testing.B) {
	s, exec := benchSession(b)
	ctx := context.Background()
	exec(`create table pgbench_history(tid int,bid int,aid int,delta int,mtime timestamp,filler char(22));
create table pgbench_tellers(tid int primary key,bid int,tbalance int,filler char(84));
create table pgbench_accounts(aid int primary key,bid int,abalance int,filler char(84));
create table pgbench_branches(bid int primary key,bbalance int,filler char(88));
insert into pgbench_branches(bid,bbalance) values(1,0);
insert into pgbench_tellers(tid,bid,tbalance) select g, 1, 0 from generate_series(1, 10) g;
insert into pgbench_accounts(aid,bid,abalance,filler) select g, 1, 0, '' from generate_series(1, 10000) g`)
	prep := func(sql string) *Prepared {
		sts, err := s.Parse(sql)
		if err != nil {
			b.Fatal(err)
		}
		p, err := s.Prepare(sts[0], nil)
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	ps := []*Prepared{
		prep("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"),
		prep("SELECT abalance FROM pgbench_accounts WHERE aid = $1"),
		prep("UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2"),
		prep("UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2"),
		prep("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)"),
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		aid, tid, delta := int64(i%10000+1), int64(i%10+1), int64(i%11-5)
		if err := s.Begin(TxnOptions{}, true); err != nil {
			b.Fatal(err)
		}
		args := [][]any{{delta, aid}, {aid}, {delta, tid}, {delta, int64(1)}, {tid, int64(1), aid, delta}}
		for j, p := range ps {
			if _, err := s.Execute(ctx, p, args[j]); err != nil {
				b.Fatal(fmt.Errorf("%s: %w", p.Statement.SQL(), err))
			}
		}
		if err := s.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopyIn loads pgbench_accounts-shaped rows with COPY FROM STDIN
// (the bulk of pgbench -i).
func BenchmarkCopyIn(b *testing.B) {
	var data strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&data, "%d\t1\t0\t\n", i)
	}
	text := data.String()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
		eng, _ := NewEngine(Config{Store: store})
		runWithCopy(ctx, b, eng.NewSession(SessionInfo{User: "bench"}), text,
			"create table pgbench_accounts(aid int not null,bid int,abalance int,filler char(84))", "copy pgbench_accounts from stdin")
	}
}

// runWithCopy runs the statements in s, feeding text to the COPY FROM STDIN
// among them.
func runWithCopy(ctx context.Context, b *testing.B, s *Session, text string, stmts ...string) {
	for _, sql := range stmts {
		sts, _ := s.Parse(sql)
		p, err := s.Prepare(sts[0], nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Execute(ctx, p, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Copy != nil {
			if _, err := s.CopyIn(ctx, res.Copy, strings.NewReader(text)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCopyInIndexed copies 10,000 rows into a table with one unique
// index, plain, partial or on an expression: what evaluating a predicate or
// an expression per row (and per store lookup of the key) costs.
func BenchmarkCopyInIndexed(b *testing.B) {
	var data strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&data, "%d\tuser%d@example.com\t\\N\n", i, i)
	}
	text := data.String()
	ctx := context.Background()
	for _, bc := range []struct{ name, index string }{
		{"plain", "create unique index on users (email)"},
		{"partial", "create unique index on users (email) where deleted is null"},
		{"expression", "create unique index on users (lower(email))"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
				eng, _ := NewEngine(Config{Store: store})
				runWithCopy(ctx, b, eng.NewSession(SessionInfo{User: "bench"}), text,
					"create table users(id int primary key, email text, deleted timestamp)", bc.index, "copy users from stdin")
			}
		})
	}
}

// BenchmarkLongStatements runs statements whose cost PostgreSQL keeps
// linear in their size: a 10,000-item IN list over 20,000 rows (hashed)
// and 500 nested EXISTS (bound without copying the nesting at each level).
func BenchmarkLongStatements(b *testing.B) {
	items := make([]string, 10000)
	for i := range items {
		items[i] = strconv.Itoa(i * 2)
	}
	nested := "SELECT 1"
	for range 500 {
		nested = "SELECT EXISTS (" + nested + ")"
	}
	for name, sql := range map[string]string{
		"in-list":       "SELECT count(*) FROM generate_series(1, 20000) g WHERE g IN (" + strings.Join(items, ",") + ")",
		"nested-exists": nested,
	} {
		b.Run(name, func(b *testing.B) {
			store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
			eng, _ := NewEngine(Config{Store: store})
			ss := &scriptSession{s: eng.NewSession(SessionInfo{User: "bench"})}
			for range b.N {
				if out := runSQL(ss, sql, ""); strings.HasPrefix(out, "ERROR") {
					b.Fatal(out)
				}
			}
		})
	}
}

// BenchmarkTableScan reads a 10,000-row table whole, which returns its
// rows in heap order (heap_order.go): in key order already (a table only
// inserted into), after updates moved every tenth row, and with a LIMIT,
// which a whole-table scan no longer shortens.
func BenchmarkTableScan(b *testing.B) {
	_, run := benchSession(b)
	run(`create table inserted(k int primary key, v int);
insert into inserted select g, g % 7 from generate_series(1, 10000) g;
create table updated(k int primary key, v int);
insert into updated select g, g % 7 from generate_series(1, 10000) g;
update updated set v = v + 1 where k % 10 = 0`)
	for _, q := range []string{
		"SELECT count(*) FROM inserted WHERE v = 3",
		"SELECT count(*) FROM updated WHERE v = 3",
		"SELECT k FROM updated WHERE v = 3",
		"SELECT k FROM inserted LIMIT 1",
	} {
		b.Run(q, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				run(q)
			}
		})
	}
}

// benchSession returns a session of a fresh engine (strategy latest) and a
// function running each statement of a text on it, prepared, with params.
func benchSession(b *testing.B) (*Session, func(sql string, params ...any)) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "bench", Database: "bench"})
	return s, func(sql string, params ...any) {
		sts, err := s.Parse(sql)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range sts {
			p, err := s.Prepare(st, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Execute(context.Background(), p, params); err != nil {
				b.Fatal(err)
			}
		}
	}
}
