package main

import (
	"strings"
	"testing"
)

func TestCompareCountsDifferentPlansOfExplainWithoutTimingsAsPlanDiffers(t *testing.T) {
	plan := func(lines ...string) outcome {
		return outcome{results: []result{{tag: "EXPLAIN", cols: []string{"QUERY PLAN"}, rows: lines}}}
	}
	pg := plan("Bitmap Heap Scan on t", "  Recheck Cond: (a = 1)")
	fk := plan("Index Scan using t_pkey on t", "  Index Cond: (a = 1)")
	cases := []struct {
		sql    string
		pg, fk outcome
		want   verdict
	}{
		{"explain (costs off) select * from t where a = 1", pg, fk, planDiffers},
		{"EXPLAIN select * from t where a = 1", pg, fk, planDiffers},
		{"explain (analyze, costs off, timing off, summary off) select 1", pg, fk, planDiffers},
		{"explain (analyze on, timing off) select 1", pg, fk, planDiffers},
		{"explain (analyze false) select 1", pg, fk, planDiffers},
		{"explain (verbose) select 1", pg, fk, planDiffers},
		{"/* commuted */ explain (costs off) select 1", pg, fk, planDiffers},
		{"-- a comment\n/* another */ EXPLAIN select 1", pg, fk, planDiffers},
		{"/* x */ explain analyze select 1", pg, fk, wrongAnswer},
		{"explain analyze select 1", pg, fk, wrongAnswer},
		{"explain (analyze) select 1", pg, fk, wrongAnswer},
		{"explain (analyze, costs on) select 1", pg, fk, wrongAnswer},
		{"/* no rows */ explain (costs off) select 1", pg, fk, planDiffers},
		{"-- a note\nEXPLAIN select 1", pg, fk, planDiffers},
		{"/* a */ explain analyze select 1", pg, fk, wrongAnswer},
		{"select 'explain (costs off)'", pg, fk, wrongAnswer},
		{"explain (costs off) select 1", pg, outcome{results: []result{{tag: "SELECT 1", cols: []string{"?column?"}, rows: []string{"1"}}}}, wrongAnswer},
		{"explain (costs off) select 1", pg, pg, same},
		{"explain (costs off) select 1", pg, outcome{code: "0A000"}, fickleError},
	}
	for _, c := range cases {
		if got := compare(c.sql, c.pg, c.fk); got != c.want {
			t.Errorf("compare(%q) = %s, want %s", c.sql, verdictName[got], verdictName[c.want])
		}
	}
}

func TestCompareCountsCommitOfATransactionOnlyFickleAbortedAsFickleError(t *testing.T) {
	tag := func(tag string, failed bool) outcome {
		return outcome{results: []result{{tag: tag}}, inFailedTxn: failed}
	}
	cases := []struct {
		name   string
		pg, fk outcome
		want   verdict
	}{
		{"fickle aborted, PostgreSQL not", tag("COMMIT", false), tag("ROLLBACK", true), fickleError},
		{"both aborted", tag("ROLLBACK", true), tag("ROLLBACK", true), same},
		{"ROLLBACK after a fickle-only error", tag("ROLLBACK", false), tag("ROLLBACK", true), same},
		{"neither aborted", tag("COMMIT", false), tag("ROLLBACK", false), wrongAnswer},
	}
	for _, c := range cases {
		if got := compare("COMMIT", c.pg, c.fk); got != c.want {
			t.Errorf("%s: compare = %s, want %s", c.name, verdictName[got], verdictName[c.want])
		}
	}
}

func TestOrdersRowsOnlyForAnOrderByOfASelect(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"SELECT a FROM t ORDER BY a", true},
		{"SELECT * FROM (SELECT a FROM t ORDER BY a) s", true},
		{"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", true},
		{"SELECT rank() OVER (ORDER BY a) FROM t", false},
		{"SELECT rank() OVER w FROM t WINDOW w AS (PARTITION BY b ORDER BY a)", false},
		{"SELECT string_agg(a, ',' ORDER BY a) FROM t", false},
		{"SELECT a FROM t", false},
		{"SELECT a FROM t ORDER BY", true}, // does not parse: any ORDER BY counts
	} {
		if got := ordersRows(c.sql); got != c.want {
			t.Errorf("ordersRows(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

func TestCompareTellsTiesOrderedDifferentlyFromWrongOrder(t *testing.T) {
	rows := func(vals ...[]string) outcome {
		r := result{tag: "SELECT", cols: []string{"dep", "empno", "salary"}}
		for _, v := range vals {
			r.vals = append(r.vals, v)
			r.rows = append(r.rows, strings.Join(v, " | "))
		}
		return outcome{results: []result{r}}
	}
	pg := rows([]string{"dev", "11", "5200"}, []string{"dev", "10", "5200"}, []string{"sales", "3", "4800"})
	tiesSwapped := rows([]string{"dev", "10", "5200"}, []string{"dev", "11", "5200"}, []string{"sales", "3", "4800"})
	keysOutOfOrder := rows([]string{"sales", "3", "4800"}, []string{"dev", "11", "5200"}, []string{"dev", "10", "5200"})
	cases := []struct {
		sql  string
		fk   outcome
		want verdict
	}{
		{"select dep, empno, salary from emp order by dep, salary", tiesSwapped, tiesDiffer},
		{"select dep, empno, salary from emp order by 1, 3", tiesSwapped, tiesDiffer},
		{"select dep, empno, salary from emp e order by e.dep", tiesSwapped, tiesDiffer},
		{"select dep, empno, salary from emp order by dep, empno desc", tiesSwapped, wrongAnswer}, // empno breaks the tie
		{"select dep, empno, salary from emp order by dep", keysOutOfOrder, wrongAnswer},
		{"select dep, empno, salary from emp order by lower(dep)", tiesSwapped, wrongAnswer}, // a key that is no output column
		{"select dep, empno, salary from emp order by dep", pg, same},
	}
	for _, c := range cases {
		if got := compare(c.sql, pg, c.fk); got != c.want {
			t.Errorf("compare(%q) = %s, want %s", c.sql, verdictName[got], verdictName[c.want])
		}
	}
}
