package sqlexec

import (
	"context"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// plLoopFunction is the PL/pgSQL loop of docs/benchmarks.md: 10^5
// iterations of an assignment and an IF.
const plLoopFunction = `CREATE FUNCTION loop_bench(n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE s bigint := 0;
BEGIN
  FOR i IN 1..n LOOP
    s := s + i;
    IF s % 7 = 0 THEN
      s := s + 1;
    END IF;
  END LOOP;
  RETURN s;
END $$`

// BenchmarkPlpgsqlLoop runs SELECT loop_bench(100000) in-process.
func BenchmarkPlpgsqlLoop(b *testing.B) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "bench", Database: "bench"})
	ctx := context.Background()
	run := func(sql string) *Result {
		sts, err := s.Parse(sql)
		if err != nil {
			b.Fatal(err)
		}
		p, err := s.Prepare(sts[0], nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Execute(ctx, p, nil)
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	run(plLoopFunction)
	b.ResetTimer()
	for range b.N {
		res := run("SELECT loop_bench(100000)")
		if got := res.Rows[0][0]; got != int64(5000050002) {
			b.Fatalf("loop_bench(100000) = %v", got)
		}
	}
}
