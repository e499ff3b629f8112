package types

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds adds every textio.cases input of the given types as seeds.
func fuzzSeeds(f *testing.F, typeNames ...string) {
	for _, row := range goldenRows(f, "testdata/textio.golden", 4) {
		for _, n := range typeNames {
			if strings.HasPrefix(row[0], n) {
				f.Add(row[2])
			}
		}
	}
}

// roundTrip parses s as t; when that succeeds, the text output must parse
// back to an equal value with the same output.
func roundTrip(t *testing.T, typ Type, s string) {
	v, err := ParseText(typ, s)
	if err != nil {
		return
	}
	out := FormatText(typ, v, nil)
	v2, err := ParseText(typ, out)
	if err != nil {
		t.Fatalf("%s: %q printed as %q, which does not parse: %v", FormatType(typ), s, out, err)
	}
	if Compare(typ, v, v2) != 0 || FormatText(typ, v2, nil) != out {
		t.Fatalf("%s: %q printed as %q reads back as %q", FormatType(typ), s, out, FormatText(typ, v2, nil))
	}
	AppendKey(nil, typ, v)
}

func FuzzParseNumbers(f *testing.F) {
	fuzzSeeds(f, "smallint", "integer", "bigint", "real", "double", "numeric")
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []Type{Int2, Int4, Int8, Float4, Float8, NumericAny, Numeric(6, 2)} {
			roundTrip(t, typ, s)
		}
	})
}

func FuzzParseStrings(f *testing.F) {
	fuzzSeeds(f, "boolean", "text", "character", "bpchar", `"char"`, "name", "bytea", "uuid")
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []Type{Bool, Text, Varchar(5), Bpchar(5), Name, Char, Bytea, UUID} {
			roundTrip(t, typ, s)
		}
	})
}

func FuzzParseDateTime(f *testing.F) {
	fuzzSeeds(f, "date", "timestamp", "interval")
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []Type{Date, Time, Timestamp, Timestamptz, Interval} {
			roundTrip(t, typ, s)
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	fuzzSeeds(f, "json")
	f.Fuzz(func(t *testing.T, s string) {
		roundTrip(t, JSONB, s)
		if v, err := ParseText(JSON, s); err == nil && v != s {
			t.Fatalf("json %q stored as %q", s, v)
		}
	})
}

// FuzzOperators evaluates every binary operator over values parsed from the
// fuzzer's strings: evaluation may fail with an error, never panic, and a
// result must print as text that reads back to an equal value with the
// same key encoding.
func FuzzOperators(f *testing.F) {
	typs := []Type{Int2, Int4, Int8, Float4, Float8, NumericAny, Text, Date, Timestamp, Timestamptz, Interval, JSONB, Bytea}
	var ops []string
	for op := range binaryOperators {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	for _, row := range goldenRows(f, "testdata/operators_random.golden", 8) {
		f.Add(uint8(0), uint8(5), uint8(5), row[1], row[4])
	}
	f.Add(uint8(1), uint8(10), uint8(10), "178000000 years", "-178000000 years")
	f.Fuzz(func(t *testing.T, opIdx, li, ri uint8, a, b string) {
		op := ops[int(opIdx)%len(ops)]
		lt, rt := typs[int(li)%len(typs)], typs[int(ri)%len(typs)]
		l, err1 := ParseText(lt, a)
		r, err2 := ParseText(rt, b)
		if err1 != nil || err2 != nil {
			return
		}
		o, err := ResolveBinaryOp(op, lt, rt)
		if err != nil {
			return
		}
		v, err := o.Eval(l, r)
		if err != nil || v == nil {
			return
		}
		text := FormatText(o.Result, v, nil)
		back, err := ParseText(o.Result, text)
		if err != nil {
			t.Fatalf("%s %s %s = %q, which does not read back as %s: %v", a, op, b, text, o.Result, err)
		}
		if Compare(o.Result, back, v) != 0 {
			t.Fatalf("%s %s %s = %q reads back as %q", a, op, b, text, FormatText(o.Result, back, nil))
		}
		if string(AppendKey(nil, o.Result, back)) != string(AppendKey(nil, o.Result, v)) {
			t.Fatalf("%s %s %s = %q: equal values with different keys", a, op, b, text)
		}
	})
}

// FuzzParseArrays feeds arbitrary text to array_in over element types with
// quoting-sensitive output (text, varchar(n), numbers, bytea, jsonb, box
// with its ; delimiter): every accepted input must print as an array
// literal that reads back equal.
func FuzzParseArrays(f *testing.F) {
	for _, row := range goldenRows(f, "testdata/textio_arrays.golden", 4) {
		f.Add(row[2])
	}
	f.Add(`{(1,1),(0,0);"(3,3),(2,2)";NULL}`)
	f.Add(`{{(1,1),(0,0)};{(3,3),(2,2)}}`)
	arrays := []Type{}
	for _, elem := range []Type{Text, Varchar(2), Int4, Float8, NumericAny, Bool, Bytea, JSONB, Date, Bpchar(2), tBox} {
		arr, _ := ArrayOf(elem)
		arrays = append(arrays, arr)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range arrays {
			roundTrip(t, typ, s)
		}
	})
}

// FuzzParseNetwork reads inet and cidr text: any input is accepted or
// refused with an error; what is accepted prints back to itself and its key
// decodes to an equal value.
func FuzzParseNetwork(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "1.2.3.4/24", "10", "10.1/16", "0x0a", "224", "::", "::1", "1::", "::ffff:1.2.3.4",
		"::1.2.3.4", "2001:db8::1/64", "1:0:0:1:0:0:0:1", "ffff::/8", "1::2::3", "1.2.3.4/33", "::1%eth0", "1.2.3.4.5", ":1::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		roundTripWithKeys(t, s, InetType, CidrType)
	})
}

// roundTripWithKeys is roundTrip of s for each of typs, with the key of a
// value s parses as decoding to an equal value.
func roundTripWithKeys(t *testing.T, s string, typs ...Type) {
	for _, typ := range typs {
		roundTrip(t, typ, s)
		v, err := ParseText(typ, s)
		if err != nil {
			continue
		}
		back, _, err := DecodeKey(typ, AppendKey(nil, typ, v))
		if err != nil || Compare(typ, v, back) != 0 {
			t.Fatalf("%s %q: key decodes to %v, %v", FormatType(typ), s, back, err)
		}
	}
}

// FuzzParseMacaddrAndLSN feeds macaddr_in, macaddr8_in and pg_lsn_in:
// whatever they accept prints in a form that reads back to the same value,
// and keys decode to an equal value.
func FuzzParseMacaddrAndLSN(f *testing.F) {
	for _, s := range []string{"08:00:2b:01:02:03", "08-00-2b-01-02-03", "08002b:010203", "08002b-010203", "0800.2b01.0203",
		"0800-2b01-0203", "08002b010203", "08:00:2b:01:02:03:04:05", "08002b0102030405", "0800:2b01:0203:0405",
		"08:00:2b:01:02", "0/0", "16/B374D848", "FFFFFFFF/FFFFFFFF", "-1/0", "G/0", " 1/1 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		roundTripWithKeys(t, s, MacaddrType, Macaddr8Type, PGLSNType)
	})
}

// FuzzParseMultirange feeds multirange_in's parser: whatever it accepts
// prints in canonical form (sorted, merged, no empty range) that reads
// back to the same value, and keys decode to an equal value.
func FuzzParseMultirange(f *testing.F) {
	for _, s := range []string{"{}", "  { empty, empty }  ", "{[1,3), [5,7), [2,4)}", `{(" 1 ", "2\"")}`, "{[1,2),}",
		"{(,)}.", "{[a,b)}", `{["2024-01-01 10:00",)}`, `{[1.5,"2"]}`, "{(,3),[5,)}", "{[3,1]}", "{\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []Type{{OidInt4Multirange, -1}, {OidNumMultirange, -1}, {OidTsMultirange, -1}, {OidDateMultirange, -1}} {
			roundTrip(t, typ, s)
			v, err := ParseText(typ, s)
			if err != nil {
				continue
			}
			m := v.(Multirange)
			rt, _ := typ.MultirangeRange()
			sub, _ := rt.RangeSubtype()
			for i, r := range m.Ranges {
				if r.Empty {
					t.Fatalf("%q: empty range in %v", s, m)
				}
				if i > 0 && (!rangeBefore(sub, m.Ranges[i-1], r) || rangeAdjacent(rt, m.Ranges[i-1], r)) {
					t.Fatalf("%q: ranges %d and %d not apart", s, i-1, i)
				}
			}
			back, rest, err := DecodeKey(typ, AppendKey(nil, typ, v))
			if err != nil || len(rest) != 0 || Compare(typ, v, back) != 0 {
				t.Fatalf("%q: key reads back as %v (%v)", s, back, err)
			}
		}
	})
}

func FuzzParseBitStrings(f *testing.F) {
	fuzzSeeds(f, "bit", `"bit"`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []Type{BitAny, Bit(4), VarbitAny, Varbit(3)} {
			roundTrip(t, typ, s)
		}
	})
}

func FuzzParseMoney(f *testing.F) {
	fuzzSeeds(f, "money")
	for _, s := range []string{"$1,234.56", "-12.345", "(1.00)", "12.345-", " $ - 1", "1.2,3", "92233720368547758.07",
		"-92233720368547758.08", "+5", ".5", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		roundTrip(t, Money, s)
	})
}

func FuzzParseTimetz(f *testing.F) {
	fuzzSeeds(f, "time with time zone", "time(2) with time zone", "timetz")
	for _, s := range []string{"00:01 PDT", "11:59:59.99 PM PDT", "1:00+03", "12:00+05:30", "12:00 -05:30:15", "allballs",
		"2003-07-07 15:36:39 America/New_York", "15:36:39 MSK", "24:00:00 PDT", "23:59:59.9999999-07", "12:00+15:59"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []Type{Timetz, {Oid: OidTimetz, Typmod: 2}} {
			roundTrip(t, typ, s)
		}
	})
}

// FuzzParseTimeZone reads time zone names as the TimeZone setting and AT
// TIME ZONE do: a name that reads must read again to the same zone.
func FuzzParseTimeZone(f *testing.F) {
	for _, s := range []string{"UTC", "America/New_York", "EST5", "<+05:30>-05:30", "CST7CDT,M4.1.0,M10.5.0",
		"<+03>-3<+04>,J60/1,300/25:30", "pst", "-8", "AAA3BBB,M13.1.0,M10.5.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, abbrevs := range []bool{false, true} {
			loc, name, err := ParseTimeZone(s, abbrevs)
			if err != nil {
				continue
			}
			again, name2, err := ParseTimeZone(name, abbrevs)
			if err != nil {
				t.Fatalf("%q reads as %q, which does not read: %v", s, name, err)
			}
			for _, at := range []time.Time{time.Date(2005, 1, 15, 12, 0, 0, 0, time.UTC), time.Date(2005, 7, 15, 12, 0, 0, 0, time.UTC)} {
				a1, e1 := at.In(loc).Zone()
				a2, e2 := at.In(again).Zone()
				if a1 != a2 || e1 != e2 || name != name2 {
					t.Fatalf("%q reads as %q (%s %d), which reads as %q (%s %d)", s, name, a1, e1, name2, a2, e2)
				}
			}
		}
	})
}
