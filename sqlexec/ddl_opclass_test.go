package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

func TestAssignProcTypesChecksSignaturesAndFilesMembersAsOpclasscmds(t *testing.T) {
	int4, int8, boolT := uint32(types.OidInt4), uint32(types.OidInt8), uint32(types.OidBool)
	for _, c := range []struct {
		name         string
		method       string
		number       int
		input        uint32
		classArgs    [2]uint32
		args         []uint32
		result       uint32
		err          string
		wantL, wantR uint32
	}{
		{name: "btree comparison takes its argument types", method: "btree", number: 1, input: int4,
			args: []uint32{int4, int8}, result: int4, wantL: int4, wantR: int8},
		{name: "btree comparison needs two arguments", method: "btree", number: 1, input: int4,
			args: []uint32{int4}, result: int4, err: "btree comparison functions must have two arguments"},
		{name: "btree comparison returns integer", method: "btree", number: 1, input: int4,
			args: []uint32{int4, int4}, result: boolT, err: "btree comparison functions must return integer"},
		{name: "btree sort support takes internal", method: "btree", number: 2, input: int4,
			args: []uint32{int4}, result: oidVoidType, err: "btree sort support functions must accept type \"internal\""},
		{name: "btree sort support is filed under the class's type", method: "btree", number: 2, input: int4,
			args: []uint32{oidInternal}, result: oidVoidType, wantL: int4, wantR: int4},
		{name: "btree in_range files the value and offset types", method: "btree", number: 3, input: int4,
			args: []uint32{int4, int4, int8, boolT, boolT}, result: boolT, wantL: int4, wantR: int8},
		{name: "btree equal image is not cross-type", method: "btree", number: 4, classArgs: [2]uint32{int4, int8},
			args: []uint32{uint32(types.OidOid)}, result: boolT, err: "btree equal image functions must not be cross-type"},
		{name: "the options function comes first", method: "btree", number: 5, input: int4,
			args: []uint32{int4, int4}, result: int4, err: "invalid operator class options parsing function"},
		{name: "hash function 2 takes the value and seed", method: "hash", number: 2, input: int4,
			args: []uint32{int4, int8}, result: int8, wantL: int4, wantR: int4},
		{name: "hash function 2 returns bigint", method: "hash", number: 2, input: int4,
			args: []uint32{int4, int8}, result: int4, err: "hash function 2 must return bigint"},
		{name: "hash function 1 has one argument", method: "hash", number: 1, input: int4,
			args: []uint32{int4, int8}, result: int4, err: "hash function 1 must have one argument"},
		{name: "ALTER OPERATOR FAMILY needs the types of a gist function", method: "gist", number: 1,
			args: []uint32{oidInternal}, result: boolT, err: "associated data types must be specified for index support function"},
	} {
		m := &amMember{proc: true, number: c.number, left: c.classArgs[0], right: c.classArgs[1]}
		err := assignProcTypes(m, c.method, indexAMSpecs[c.method], c.input, &opclassFunc{args: c.args, result: c.result})
		switch {
		case c.err != "":
			if pe, ok := err.(*pgerror.Error); !ok || pe.Message != c.err || pe.Code != pgerror.InvalidObjectDefinition {
				t.Errorf("%s: error %v, want 42P17 %q", c.name, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case m.left != c.wantL || m.right != c.wantR:
			t.Errorf("%s: filed under (%d,%d), want (%d,%d)", c.name, m.left, m.right, c.wantL, c.wantR)
		}
	}
}

func TestAdjustMembersTiesRequiredSameTypeMembersToTheirClass(t *testing.T) {
	int4, int8 := uint32(types.OidInt4), uint32(types.OidInt8)
	for _, c := range []struct {
		name    string
		method  string
		member  amMember
		inClass bool // CREATE OPERATOR CLASS (else ALTER OPERATOR FAMILY ... ADD)
		hard    bool
		toClass bool
	}{
		{name: "btree operator of the class's type", method: "btree", member: amMember{number: 1, left: int4, right: int4}, inClass: true, hard: true, toClass: true},
		{name: "cross-type btree operator", method: "btree", member: amMember{number: 1, left: int4, right: int8}, inClass: true},
		{name: "optional btree function", method: "btree", member: amMember{proc: true, number: 2, left: int4, right: int4}, inClass: true},
		{name: "hash function 2 is optional", method: "hash", member: amMember{proc: true, number: 2, left: int4, right: int4}, inClass: true},
		{name: "hash function 1 is required", method: "hash", member: amMember{proc: true, number: 1, left: int4, right: int4}, inClass: true, hard: true, toClass: true},
		{name: "gist operators go with the family", method: "gist", member: amMember{number: 3, left: int4, right: int4}, inClass: true},
		{name: "gist consistent function", method: "gist", member: amMember{proc: true, number: 1, left: int4, right: int4}, inClass: true, hard: true, toClass: true},
		{name: "gist consistent function added to a family", method: "gist", member: amMember{proc: true, number: 1, left: int4, right: int4}, hard: true},
		{name: "btree operator added to a family without a class of its type", method: "btree", member: amMember{number: 1, left: int4, right: int4}},
	} {
		d := &ddl{cat: &catalog{}}
		m := c.member
		var oc *userOpclass
		if c.inClass {
			oc = &userOpclass{oid: 77, family: 70, method: c.method, input: int4}
			m.opclass, m.hard = oc.oid, true
		}
		ops, procs := []*amMember{&m}, []*amMember(nil)
		if m.proc {
			ops, procs = nil, ops
		}
		d.adjustMembers(c.method, 70, oc, ops, procs)
		if m.hard != c.hard || (m.opclass != 0) != c.toClass {
			t.Errorf("%s: hard %v, tied to class %v; want %v, %v", c.name, m.hard, m.opclass != 0, c.hard, c.toClass)
		}
	}
}
