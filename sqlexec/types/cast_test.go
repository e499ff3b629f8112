package types

import (
	"strconv"
	"testing"
	"time"
)

// TestTypeCatalogMatchesPgType checks names, sizes, categories and preferred
// flags against testdata/pg_type.golden, dumped from PostgreSQL 15's pg_type.
func TestTypeCatalogMatchesPgType(t *testing.T) {
	for _, row := range goldenRows(t, "testdata/pg_type.golden", 6) {
		oid, _ := strconv.Atoi(row[0])
		typ, ok := TypeByOid(Oid(oid))
		if !ok {
			t.Errorf("TypeByOid(%d) not found", oid)
			continue
		}
		size, _ := strconv.Atoi(row[3])
		if typ.Name() != row[1] || typ.Size() != size || string(typ.Category()) != row[4] || typ.Preferred() != (row[5] == "t") {
			t.Errorf("%d: got %s %d %c %v, want %v", oid, typ.Name(), typ.Size(), typ.Category(), typ.Preferred(), row)
		}
		if want := row[2]; typ.Oid != OidBpchar && FormatType(typ) != want {
			t.Errorf("FormatType(%d) = %q, want %q", oid, FormatType(typ), want)
		}
	}
}

// TestCastContextsMatchPgCast checks that every cast in
// testdata/pg_cast.golden (PostgreSQL 15's pg_cast among fickle's types) is
// allowed in exactly its context, and that pairs missing there follow the
// I/O conversion rules (to a string type in assignment, from one explicitly)
// or are refused.
func TestCastContextsMatchPgCast(t *testing.T) {
	byName := map[string]Oid{}
	for oid, ti := range typeInfos {
		byName[ti.sqlName] = oid
	}
	listed := map[castKey]CastContext{}
	for _, row := range goldenRows(t, "testdata/pg_cast.golden", 4) {
		from, to := byName[row[0]], byName[row[1]]
		if from == 0 || to == 0 {
			t.Fatalf("unknown type in %v", row)
		}
		listed[castKey{from, to}] = map[string]CastContext{"i": CastImplicit, "a": CastAssignment, "e": CastExplicit}[row[2]]
	}
	// wantContext is the weakest context of a cast: pg_cast's row, then
	// array coercion (the element cast's context), then I/O conversion.
	var wantContext func(from, to Oid) CastContext
	wantContext = func(from, to Oid) CastContext {
		want, inCatalog := listed[castKey{from, to}]
		fe, fromArray := arrayElems[from]
		if ve, isVector := vectorElems[from]; isVector {
			// PostgreSQL coerces int2vector and oidvector as int2[] and
			// oid[] (find_coercion_pathway), outside pg_cast.
			fe, fromArray = ve, true
		}
		te, toArray := arrayElems[to]
		switch {
		case inCatalog:
		case from == to:
			want = CastImplicit
		case fromArray && toArray && wantContext(fe, te) < 3:
			want = wantContext(fe, te)
		case typeInfoOf(to).category == CategoryString:
			want = CastAssignment
		case typeInfoOf(from).category == CategoryString:
			want = CastExplicit
		default:
			want = 3 // never
		}
		return want
	}
	contexts := []CastContext{CastImplicit, CastAssignment, CastExplicit}
	for from := range typeInfos {
		for to := range typeInfos {
			if from == OidUnknown || to == OidUnknown {
				continue
			}
			want := wantContext(from, to)
			for _, ctx := range contexts {
				if got := CanCoerce(Type{from, -1}, Type{to, -1}, ctx); got != (ctx >= want) {
					t.Errorf("CanCoerce(%s, %s, %d) = %v, want %v", formatType(Type{from, -1}), formatType(Type{to, -1}), ctx, got, !got)
				}
			}
		}
	}
}

// TestCastValuesMatchPostgres runs testdata/casts.golden: 'input'::from::to
// evaluated by PostgreSQL 15 in the given time zone.
// casts_random.golden holds seeded random casts made by
// testdata/gen_random_cases.py.
func TestCastValuesMatchPostgres(t *testing.T) {
	rows := goldenRows(t, "testdata/casts.golden", 5)
	rows = append(rows, goldenRows(t, "testdata/casts_random.golden", 5)...)
	rows = append(rows, goldenRows(t, "testdata/casts_arrays.golden", 5)...)
	for _, row := range rows {
		from, to := typeFromSQL(t, row[0]), typeFromSQL(t, row[1])
		loc, err := time.LoadLocation(row[2])
		if err != nil {
			t.Fatal(err)
		}
		env := &Env{Location: loc}
		v, err := CastEnv(env, row[3], Unknown, from)
		if err == nil {
			v, err = CastEnv(env, v, from, to)
		}
		if got := outcome(to, v, err, loc); got != row[4] {
			t.Errorf("'%s'::%s::%s in %s: got %q (%v), want %q", row[3], row[0], row[1], row[2], got, err, row[4])
		}
	}
}

// TestArrayTypesMatchPgType checks every array type against
// testdata/pg_type_arrays.golden (PostgreSQL 15's pg_type rows of the
// arrays over fickle's types): OID, name, format_type, size, category and
// element, and that no array type is missing from it or extra.
func TestArrayTypesMatchPgType(t *testing.T) {
	rows := goldenRows(t, "testdata/pg_type_arrays.golden", 7)
	seen := map[Oid]bool{}
	for _, row := range rows {
		oid, _ := strconv.Atoi(row[0])
		elemOid, _ := strconv.Atoi(row[6])
		elem, ok := TypeByOid(Oid(elemOid))
		if !ok {
			t.Errorf("element %d of %s unknown", elemOid, row[1])
			continue
		}
		arr, ok := ArrayOf(elem)
		if !ok || arr.Oid != Oid(oid) {
			t.Errorf("ArrayOf(%s) = %v, %v; want OID %d", elem, arr, ok, oid)
			continue
		}
		seen[arr.Oid] = true
		size, _ := strconv.Atoi(row[3])
		if arr.Name() != row[1] || arr.Size() != size || string(arr.Category()) != row[4] || arr.Preferred() != (row[5] == "t") {
			t.Errorf("%d: got %s %d %c %v, want %v", oid, arr.Name(), arr.Size(), arr.Category(), arr.Preferred(), row)
		}
		if got, _ := arr.Elem(); got != elem || ElemTypeOid(arr.Oid) != elem.Oid || ArrayTypeOid(elem.Oid) != arr.Oid {
			t.Errorf("%d: element %v, want %v", oid, got, elem)
		}
		if elem.Oid != OidBpchar && FormatType(arr) != row[2] {
			t.Errorf("FormatType(%d) = %q, want %q", oid, FormatType(arr), row[2])
		}
		byName, err := TypeByName([]string{row[1]}, nil)
		if err != nil || byName != arr {
			t.Errorf("TypeByName(%q) = %v, %v", row[1], byName, err)
		}
	}
	for _, oid := range ArrayTypeOids() {
		if !seen[oid] {
			t.Errorf("array type %d is not in PostgreSQL's pg_type", oid)
		}
	}
}
