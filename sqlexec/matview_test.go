package sqlexec

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

func TestWithoutUnpopulatedChecks(t *testing.T) {
	perms := []permCheck{{oid: 1, privs: "r"}, {oid: 2, unpopulated: true}, {oid: 3, privs: "r"}, {oid: 4, unpopulated: true}}
	for _, tc := range []struct {
		mark int
		want []uint32
	}{
		{0, []uint32{1, 3}},
		{1, []uint32{1, 3}},
		{2, []uint32{1, 2, 3}},
		{4, []uint32{1, 2, 3, 4}},
	} {
		got := withoutUnpopulatedChecks(append([]permCheck(nil), perms...), tc.mark)
		var oids []uint32
		for _, p := range got {
			oids = append(oids, p.oid)
		}
		if len(oids) != len(tc.want) {
			t.Fatalf("mark %d: got %v, want %v", tc.mark, oids, tc.want)
		}
		for i := range oids {
			if oids[i] != tc.want[i] {
				t.Fatalf("mark %d: got %v, want %v", tc.mark, oids, tc.want)
			}
		}
	}
}

func TestConcurrentRefreshIndex(t *testing.T) {
	pred := &pg_query.Node{}
	for _, tc := range []struct {
		name string
		ix   *indexDesc
		want bool
	}{
		{"unique column", &indexDesc{unique: true, cols: []int{0}}, true},
		{"unique columns", &indexDesc{unique: true, cols: []int{0, 1}}, true},
		{"not unique", &indexDesc{cols: []int{0}}, false},
		{"partial", &indexDesc{unique: true, cols: []int{0}, pred: pred}, false},
		{"expression", &indexDesc{unique: true, cols: []int{-1}}, false},
	} {
		if got := concurrentRefreshIndex(tc.ix); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRefreshDuplicateChecks(t *testing.T) {
	mv := &tableDesc{name: "mv", cols: []*columnDesc{{name: "a", typ: types.Int4}, {name: "b", typ: types.Int4}},
		indexes: []*indexDesc{{name: "mv_a", unique: true, cols: []int{0}}}}
	for _, tc := range []struct {
		name       string
		rows       [][]any
		unique     pgerror.Code // uniqueIndexDuplicates' SQLSTATE, "" for none
		duplicates pgerror.Code // duplicateRows'
	}{
		{"distinct", [][]any{{int64(1), int64(1)}, {int64(2), int64(2)}}, "", ""},
		{"same key", [][]any{{int64(1), int64(1)}, {int64(1), int64(2)}}, pgerror.UniqueViolation, ""},
		{"same row", [][]any{{int64(1), int64(1)}, {int64(1), int64(1)}}, pgerror.UniqueViolation, pgerror.CardinalityViolation},
		{"same row with NULL", [][]any{{nil, int64(1)}, {nil, int64(1)}}, "", ""},
	} {
		if got := pgerror.GetCode(uniqueIndexDuplicates(mv, tc.rows)); got != tc.unique {
			t.Errorf("%s: uniqueIndexDuplicates gave %q, want %q", tc.name, got, tc.unique)
		}
		if got := pgerror.GetCode(duplicateRows(mv, tc.rows)); got != tc.duplicates {
			t.Errorf("%s: duplicateRows gave %q, want %q", tc.name, got, tc.duplicates)
		}
	}
}
