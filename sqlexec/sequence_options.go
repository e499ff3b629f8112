package sqlexec

import (
	"math"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// sequenceParams are a sequence's definition: its integer type and what
// CREATE and ALTER SEQUENCE's options set (pg_sequence's columns).
type sequenceParams struct {
	typ       types.Oid
	increment int64
	min, max  int64
	start     int64
	cycle     bool
	// cache is how many values a session's nextval fetches at a time.
	cache int64
}

// sequenceTypeResolver resolves the type an AS option names.
type sequenceTypeResolver func(*pg_query.TypeName) (types.Oid, error)

// sequenceTypeOf resolves AS's type by the session's search path: 42704 for
// a type that does not exist, 22023 for one that is not an integer type.
func (d *ddl) sequenceTypeOf(tn *pg_query.TypeName) (types.Oid, error) {
	oid, err := catalogNames{s: d.s, cat: d.cat}.typeByNames(strs(tn.Names))
	if err != nil {
		return 0, err
	}
	switch t := types.Oid(oid); {
	case len(tn.ArrayBounds) == 0 && (t == types.OidInt2 || t == types.OidInt4 || t == types.OidInt8):
		return t, nil
	}
	return 0, pgerror.New(pgerror.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
}

// sequenceTypeRange is the range of values of a sequence's type.
func sequenceTypeRange(t types.Oid) (lo, hi int64) {
	switch t {
	case types.OidInt2:
		return math.MinInt16, math.MaxInt16
	case types.OidInt4:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// applySequenceOptions is PostgreSQL's init_params: it applies the options
// of CREATE SEQUENCE (init) or ALTER SEQUENCE to p and to the counter (last,
// called), in PostgreSQL's order and with its checks and messages. An
// option not given keeps its value, or takes its default at init; changing
// the type moves a bound that was the old type's limit to the new type's.
// OWNED BY and SEQUENCE NAME are the callers'.
func applySequenceOptions(p sequenceParams, last int64, called bool, opts []*pg_query.Node, init bool, typeOf sequenceTypeResolver) (sequenceParams, int64, bool, error) {
	given := map[string]*pg_query.DefElem{}
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil || d.Defname == "owned_by" || d.Defname == "sequence_name" {
			continue
		}
		switch d.Defname {
		case "as", "increment", "cycle", "maxvalue", "minvalue", "start", "restart", "cache":
		default:
			return p, 0, false, pgerror.Newf(pgerror.SyntaxError, "option \"%s\" not recognized", d.Defname)
		}
		if given[d.Defname] != nil {
			return p, 0, false, pgerror.New(pgerror.SyntaxError, "conflicting or redundant options")
		}
		given[d.Defname] = d
	}
	integer := func(name string) (int64, error) { return defInt(given[name]) }
	if p.typ == 0 {
		p.typ = types.OidInt8
	}
	resetMax, resetMin := false, false
	if d := given["as"]; d != nil {
		t, err := typeOf(d.Arg.GetTypeName())
		if err != nil {
			return p, 0, false, err
		}
		if !init {
			lo, hi := sequenceTypeRange(p.typ)
			resetMax, resetMin = p.max == hi, p.min == lo
		}
		p.typ = t
	}
	if given["increment"] != nil {
		v, err := integer("increment")
		if err != nil {
			return p, 0, false, err
		}
		if v == 0 {
			return p, 0, false, pgerror.New(pgerror.InvalidParameterValue, "INCREMENT must not be zero")
		}
		p.increment = v
	} else if init {
		p.increment = 1
	}
	if d := given["cycle"]; d != nil {
		p.cycle = d.Arg == nil || constTrue(d.Arg)
	} else if init {
		p.cycle = false
	}
	lo, hi := sequenceTypeRange(p.typ)
	typeName := types.FormatType(types.Type{Oid: p.typ, Typmod: -1})
	if d := given["maxvalue"]; d != nil && d.Arg != nil {
		v, err := integer("maxvalue")
		if err != nil {
			return p, 0, false, err
		}
		p.max = v
	} else if init || d != nil || resetMax {
		if p.increment > 0 || resetMax {
			p.max = hi
		} else {
			p.max = -1
		}
	}
	if p.max < lo || p.max > hi {
		return p, 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", p.max, typeName)
	}
	if d := given["minvalue"]; d != nil && d.Arg != nil {
		v, err := integer("minvalue")
		if err != nil {
			return p, 0, false, err
		}
		p.min = v
	} else if init || d != nil || resetMin {
		if p.increment < 0 || resetMin {
			p.min = lo
		} else {
			p.min = 1
		}
	}
	if p.min < lo || p.min > hi {
		return p, 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", p.min, typeName)
	}
	if p.min >= p.max {
		return p, 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", p.min, p.max)
	}
	if given["start"] != nil {
		v, err := integer("start")
		if err != nil {
			return p, 0, false, err
		}
		p.start = v
	} else if init {
		p.start = p.min
		if p.increment < 0 {
			p.start = p.max
		}
	}
	if p.start < p.min {
		return p, 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", p.start, p.min)
	}
	if p.start > p.max {
		return p, 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", p.start, p.max)
	}
	if d := given["restart"]; d != nil {
		last, called = p.start, false
		if d.Arg != nil {
			v, err := integer("restart")
			if err != nil {
				return p, 0, false, err
			}
			last = v
		}
	} else if init {
		last, called = p.start, false
	}
	if last < p.min {
		return p, 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", last, p.min)
	}
	if last > p.max {
		return p, 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", last, p.max)
	}
	if given["cache"] != nil {
		v, err := integer("cache")
		if err != nil {
			return p, 0, false, err
		}
		if v <= 0 {
			return p, 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "CACHE (%d) must be greater than zero", v)
		}
		p.cache = v
	} else if init {
		p.cache = 1
	}
	return p, last, called, nil
}
