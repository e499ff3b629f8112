package jsonpath

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// binaryArith applies an arithmetic operator to two singleton numerics.
func (e *exec) binaryArith(it *Item, v *Value, found *[]*Value) (status, error) {
	var lseq, rseq []*Value
	if st, err := e.itemsUnwrapped(it.Left, v, true, &lseq); err != nil || st == failed {
		return failed, err
	}
	if st, err := e.itemsUnwrapped(it.Right, v, true, &rseq); err != nil || st == failed {
		return failed, err
	}
	name := opNames[it.Kind]
	if len(lseq) != 1 || lseq[0].Kind != Numeric {
		return e.fail(pgerror.Newf(pgerror.SingletonSqlJsonItemRequired, "left operand of jsonpath operator %s is not a single numeric value", name))
	}
	if len(rseq) != 1 || rseq[0].Kind != Numeric {
		return e.fail(pgerror.Newf(pgerror.SingletonSqlJsonItemRequired, "right operand of jsonpath operator %s is not a single numeric value", name))
	}
	r, err := e.host.Arith(it.Kind, lseq[0].Num, rseq[0].Num)
	if err != nil {
		return e.fail(err)
	}
	if it.Next == nil && found == nil {
		return ok, nil
	}
	return e.next(it, &Value{Kind: Numeric, Num: r}, found)
}

// unaryArith applies unary + or - to every numeric item of its operand.
func (e *exec) unaryArith(it *Item, v *Value, found *[]*Value) (status, error) {
	var seq []*Value
	if st, err := e.itemsUnwrapped(it.Left, v, true, &seq); err != nil || st == failed {
		return failed, err
	}
	res := notFound
	for _, s := range seq {
		if s.Kind != Numeric {
			if found == nil && it.Next == nil {
				continue
			}
			return e.fail(pgerror.Newf(pgerror.SqlJsonNumberNotFound, "operand of unary jsonpath operator %s is not a numeric value", opNames[it.Kind]))
		}
		if found == nil && it.Next == nil {
			return ok, nil
		}
		n := s
		if it.Kind == KindMinus {
			n = &Value{Kind: Numeric, Num: e.host.Unary(KindMinus, s.Num)}
		}
		st, err := e.next(it, n, found)
		if err != nil || st == failed {
			return failed, err
		}
		if st == ok {
			if found == nil {
				return ok, nil
			}
			res = ok
		}
	}
	return res, nil
}

// method evaluates the item methods.
func (e *exec) method(it *Item, v *Value, found *[]*Value, unwrap bool) (status, error) {
	name := opNames[it.Kind]
	if it.Kind != KindType && it.Kind != KindSize && unwrap && v.Kind == Array {
		return e.unwrapArray(it, v, found, false)
	}
	switch it.Kind {
	case KindType:
		return e.next(it, &Value{Kind: String, Str: v.typeName()}, found)
	case KindSize:
		size := len(v.Elems)
		if v.Kind != Array {
			if !e.lax {
				if !e.ignoreStructuralErrors {
					return e.fail(pgerror.Newf(pgerror.SqlJsonArrayNotFound, "jsonpath item method .%s() can only be applied to an array", name))
				}
				return notFound, nil
			}
			size = 1
		}
		return e.next(it, &Value{Kind: Numeric, Num: apd.New(int64(size), 0)}, found)
	case KindAbs, KindFloor, KindCeiling:
		if v.Kind != Numeric {
			return e.fail(pgerror.Newf(pgerror.NonNumericSqlJsonItem, "jsonpath item method .%s() can only be applied to a numeric value", name))
		}
		r := e.host.Unary(it.Kind, v.Num)
		if it.Next == nil && found == nil {
			return ok, nil
		}
		return e.next(it, &Value{Kind: Numeric, Num: r}, found)
	case KindDouble:
		switch v.Kind {
		case Numeric:
			if _, valid := e.host.Double(v.Num.Text('f')); !valid {
				return e.fail(pgerror.Newf(pgerror.NonNumericSqlJsonItem, "numeric argument of jsonpath item method .%s() is out of range for type double precision", name))
			}
			return e.next(it, v, found)
		case String:
			d, valid := e.host.Double(v.Str)
			if !valid {
				return e.fail(pgerror.Newf(pgerror.NonNumericSqlJsonItem, "string argument of jsonpath item method .%s() is not a valid representation of a double precision number", name))
			}
			return e.next(it, &Value{Kind: Numeric, Num: d}, found)
		}
		return e.fail(pgerror.Newf(pgerror.NonNumericSqlJsonItem, "jsonpath item method .%s() can only be applied to a string or numeric value", name))
	case KindDatetime:
		if v.Kind != String {
			return e.fail(pgerror.Newf(pgerror.InvalidArgumentForSqlJsonDatetimeFunction, "jsonpath item method .%s() can only be applied to a string", name))
		}
		return e.datetime(it, v, found)
	case KindKeyValue:
		return e.keyValue(it, v, found)
	}
	return failed, pgerror.Newf(pgerror.InternalError, "unrecognized jsonpath item type: %d", it.Kind)
}

// keyValue is .keyvalue(): an object {"key", "value", "id"} per member,
// where id is 10^10 times the id of the object the member's object comes
// from ($ is 0, the variables 1, generated objects 2 and up) plus the
// member's object's offset in that object's binary jsonb.
func (e *exec) keyValue(it *Item, v *Value, found *[]*Value) (status, error) {
	if v.Kind != Object {
		return e.fail(pgerror.Newf(pgerror.SqlJsonObjectNotFound, "jsonpath item method .%s() can only be applied to an object", opNames[it.Kind]))
	}
	if len(v.Keys) == 0 {
		return notFound, nil
	}
	id := e.base.id*10000000000 + e.offsetInBase(v)
	res := notFound
	for i, k := range v.Keys {
		res = ok
		if it.Next == nil && found == nil {
			break
		}
		obj := &Value{Kind: Object, Keys: []string{"id", "key", "value"}, Vals: []*Value{
			{Kind: Numeric, Num: apd.New(id, 0)}, {Kind: String, Str: k}, v.Vals[i]}}
		saved := e.base
		e.base = baseObject{obj, e.lastGeneratedID}
		e.lastGeneratedID++
		st, err := e.next(it, obj, found)
		e.base = saved
		if err != nil || st == failed {
			return failed, err
		}
		res = st
		if st == ok && found == nil {
			break
		}
	}
	return res, nil
}

// offsetInBase is the binary offset of container v in the current base
// object, 0 when v is not inside it.
func (e *exec) offsetInBase(v *Value) int64 {
	if e.base.root == nil {
		return 0
	}
	if e.offsets == nil {
		e.offsets = map[*Value]map[*Value]int64{}
	}
	offs, cached := e.offsets[e.base.root]
	if !cached {
		offs = containerOffsets(e.base.root)
		e.offsets[e.base.root] = offs
	}
	return offs[v]
}

// datetime is .datetime() and .datetime(template): the string read as a
// date, time, timetz, timestamp or timestamptz.
func (e *exec) datetime(it *Item, v *Value, found *[]*Value) (status, error) {
	var template *string
	if it.Left != nil {
		template = &it.Left.Str
	}
	dt, hard, err := e.host.Datetime(v.Str, template)
	if err != nil {
		if hard {
			return failed, err
		}
		return e.fail(err)
	}
	if it.Next == nil && found == nil {
		return ok, nil
	}
	return e.next(it, dt, found)
}
