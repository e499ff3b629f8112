package types

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestTypeByNameResolvesParserNamesAndFormatsLikeFormatType(t *testing.T) {
	tests := []struct {
		names []string
		mods  []int32
		want  string
		oid   Oid
	}{
		{[]string{"pg_catalog", "int4"}, nil, "integer", OidInt4},
		{[]string{"pg_catalog", "int8"}, nil, "bigint", OidInt8},
		{[]string{"pg_catalog", "int2"}, nil, "smallint", OidInt2},
		{[]string{"pg_catalog", "bool"}, nil, "boolean", OidBool},
		{[]string{"pg_catalog", "float4"}, nil, "real", OidFloat4},
		{[]string{"pg_catalog", "float8"}, nil, "double precision", OidFloat8},
		{[]string{"pg_catalog", "numeric"}, []int32{10, 2}, "numeric(10,2)", OidNumeric},
		{[]string{"pg_catalog", "numeric"}, []int32{10}, "numeric(10,0)", OidNumeric},
		{[]string{"pg_catalog", "numeric"}, nil, "numeric", OidNumeric},
		{[]string{"pg_catalog", "varchar"}, []int32{20}, "character varying(20)", OidVarchar},
		{[]string{"varchar"}, nil, "character varying", OidVarchar},
		{[]string{"pg_catalog", "bpchar"}, []int32{1}, "character(1)", OidBpchar},
		{[]string{"bpchar"}, nil, "bpchar", OidBpchar},
		{[]string{"char"}, nil, `"char"`, OidChar},
		{[]string{"text"}, nil, "text", OidText},
		{[]string{"pg_catalog", "timestamp"}, nil, "timestamp without time zone", OidTimestamp},
		{[]string{"pg_catalog", "timestamp"}, []int32{3}, "timestamp(3) without time zone", OidTimestamp},
		{[]string{"timestamptz"}, nil, "timestamp with time zone", OidTimestamptz},
		{[]string{"pg_catalog", "timestamptz"}, []int32{0}, "timestamp(0) with time zone", OidTimestamptz},
		{[]string{"pg_catalog", "interval"}, nil, "interval", OidInterval},
		{[]string{"pg_catalog", "interval"}, []int32{32767, 2}, "interval(2)", OidInterval},
		{[]string{"pg_catalog", "interval"}, []int32{32767}, "interval", OidInterval},
		{[]string{"pg_catalog", "bpchar"}, []int32{1}, "character(1)", OidBpchar},
		{[]string{"date"}, nil, "date", OidDate},
		{[]string{"uuid"}, nil, "uuid", OidUUID},
		{[]string{"json"}, nil, "json", OidJSON},
		{[]string{"JSONB"}, nil, "jsonb", OidJSONB},
		{[]string{"bytea"}, nil, "bytea", OidBytea},
		{[]string{"name"}, nil, "name", OidName},
		{[]string{"oid"}, nil, "oid", OidOid},
		{[]string{"regclass"}, nil, "regclass", OidRegclass},
		{[]string{"decimal"}, []int32{5, 1}, "numeric(5,1)", OidNumeric},
	}
	for _, tt := range tests {
		got, err := TypeByName(tt.names, tt.mods)
		if err != nil {
			t.Errorf("TypeByName(%v, %v): %v", tt.names, tt.mods, err)
			continue
		}
		if got.Oid != tt.oid || FormatType(got) != tt.want {
			t.Errorf("TypeByName(%v, %v) = %d %q, want %d %q", tt.names, tt.mods, got.Oid, FormatType(got), tt.oid, tt.want)
		}
		byOid, ok := TypeByOid(tt.oid)
		if !ok || byOid.Oid != tt.oid || byOid.Typmod != -1 {
			t.Errorf("TypeByOid(%d) = %v, %v", tt.oid, byOid, ok)
		}
	}
}

func TestTypeByNameRejectsUnknownNamesAndBadModifiers(t *testing.T) {
	tests := []struct {
		names []string
		mods  []int32
		code  pgerror.Code
	}{
		{[]string{"nosuchtype"}, nil, pgerror.UndefinedObject},
		{[]string{"public", "int4"}, nil, pgerror.UndefinedObject},
		{[]string{"varchar"}, []int32{0}, pgerror.InvalidParameterValue},
		{[]string{"varchar"}, []int32{10485761}, pgerror.InvalidParameterValue},
		{[]string{"numeric"}, []int32{0}, pgerror.InvalidParameterValue},
		{[]string{"numeric"}, []int32{1001}, pgerror.InvalidParameterValue},
		{[]string{"int4"}, []int32{3}, pgerror.SyntaxError},
		{[]string{"pg_catalog", "txid_snapshot"}, nil, pgerror.FeatureNotSupported},
		{[]string{"pg_catalog", "interval"}, []int32{5}, pgerror.InvalidParameterValue},
		{[]string{"pg_catalog", "interval"}, []int32{4, -1}, pgerror.InvalidParameterValue},
	}
	for _, tt := range tests {
		_, err := TypeByName(tt.names, tt.mods)
		if got := pgerror.GetCode(err); got != tt.code {
			t.Errorf("TypeByName(%v, %v) code %s (%v), want %s", tt.names, tt.mods, got, err, tt.code)
		}
	}
}

func TestTypeModifiersRoundTrip(t *testing.T) {
	if n := Varchar(12).Length(); n != 12 {
		t.Errorf("Varchar(12).Length() = %d", n)
	}
	if n := Text.Length(); n != -1 {
		t.Errorf("Text.Length() = %d", n)
	}
	p, s, ok := Numeric(38, 9).PrecisionScale()
	if !ok || p != 38 || s != 9 {
		t.Errorf("Numeric(38,9).PrecisionScale() = %d %d %v", p, s, ok)
	}
	if _, _, ok := NumericAny.PrecisionScale(); ok {
		t.Error("NumericAny has a precision")
	}
}

func TestThreeValuedLogic(t *testing.T) {
	vals := []any{true, false, nil}
	// Rows: a; columns: b in the order of vals.
	and := [][]any{{true, false, nil}, {false, false, false}, {nil, false, nil}}
	or := [][]any{{true, true, true}, {true, false, nil}, {true, nil, nil}}
	for i, a := range vals {
		for j, b := range vals {
			if got := And(a, b); got != and[i][j] {
				t.Errorf("%v AND %v = %v, want %v", a, b, got, and[i][j])
			}
			if got := Or(a, b); got != or[i][j] {
				t.Errorf("%v OR %v = %v, want %v", a, b, got, or[i][j])
			}
		}
	}
	if Not(nil) != nil || Not(true) != false || Not(false) != true {
		t.Error("NOT is not three-valued")
	}
}
