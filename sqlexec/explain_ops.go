package sqlexec

import (
	"strings"
)

// The operators of a plan, each describing itself for EXPLAIN.

// scanOp reads one FROM item: a table by the access path chooseAccess
// picked, or a subquery, CTE, VALUES list, function or catalog relation.
type scanOp struct {
	it *fromItem
	// keyConds are the conditions the access path looks up (Index Cond),
	// filter those checked on each row read.
	keyConds, filter []*conj
	// source names what a non-table item reads (a function's name, a
	// CTE's name).
	source string
}

func (o *scanOp) describe(v explainView) opDesc {
	it := o.it
	d := opDesc{alias: it.name, relationKey: "Relation Name"}
	d.props = condProp("Filter", o.filter)
	switch {
	case it.table != nil:
		d.relation = it.table.name
		if v.verbose {
			d.schema = it.table.schema
		}
		if it.access.kind == accessScan {
			d.nodeType = "Seq Scan"
			return d
		}
		d.nodeType = "Index Scan"
		d.index = it.table.pkName
		if it.access.index != nil {
			d.index = it.access.index.name
		}
		d.props = append(condProp("Index Cond", o.keyConds), d.props...)
	case it.kind == itemCTE:
		d.nodeType, d.relation, d.relationKey = "CTE Scan", o.source, "CTE Name"
	case it.kind == itemFunction:
		d.nodeType, d.relation, d.relationKey = "Function Scan", o.source, "Function Name"
	case it.kind == itemCatalog || it.kind == itemSequence:
		d.nodeType, d.relation = "Seq Scan", o.source
	case o.source == "*VALUES*":
		d.nodeType, d.relation, d.relationKey = "Values Scan", "", ""
	default:
		d.nodeType, d.relation, d.relationKey = "Subquery Scan", "", ""
	}
	return d
}

// joinOp joins its two children: by a nested loop, or through a hash
// table over the inner side (an item read once per execution, planJoins).
type joinOp struct {
	hash bool
	left bool
	// hashCond is the equality answered by the hash table, joinFilter the
	// other conditions checked per pair, filter the WHERE conditions
	// checked after a LEFT JOIN's null extension.
	hashCond, joinFilter, filter []*conj
}

func (o *joinOp) describe(explainView) opDesc {
	d := opDesc{nodeType: "Nested Loop", joinType: "Inner"}
	if o.hash {
		d.nodeType = "Hash Join"
		d.props = condProp("Hash Cond", o.hashCond)
	}
	if o.left {
		d.joinType = "Left"
	}
	d.props = append(d.props, condProp("Join Filter", o.joinFilter)...)
	d.props = append(d.props, condProp("Filter", o.filter)...)
	return d
}

// hashOp builds the hash table of a hash join.
type hashOp struct{}

func (hashOp) describe(explainView) opDesc { return opDesc{nodeType: "Hash"} }

// resultOp computes a query level without FROM items, or checks the
// conditions that name no item once (One-Time Filter).
type resultOp struct {
	oneTime []*conj
}

func (o *resultOp) describe(explainView) opDesc {
	return opDesc{nodeType: "Result", props: condProp("One-Time Filter", o.oneTime)}
}

// aggOp groups rows: GROUP BY and aggregates (a hash table keyed by the
// group values), or DISTINCT over the output columns.
type aggOp struct {
	keys   []string
	having string
}

func (o *aggOp) describe(explainView) opDesc {
	d := opDesc{nodeType: "Aggregate", strategy: "Plain"}
	if len(o.keys) > 0 {
		d.nodeType, d.strategy = "HashAggregate", "Hashed"
		d.props = []planProp{{key: "Group Key", list: o.keys}}
	}
	if o.having != "" {
		d.props = append(d.props, planProp{key: "Filter", value: o.having})
	}
	return d
}

// sortOp sorts rows by ORDER BY or by DISTINCT ON.
type sortOp struct {
	keys []string
}

func (o *sortOp) describe(explainView) opDesc {
	return opDesc{nodeType: "Sort", props: []planProp{{key: "Sort Key", list: o.keys}}}
}

// uniqueOp keeps the first row of each DISTINCT ON group of sorted rows.
type uniqueOp struct{}

func (uniqueOp) describe(explainView) opDesc { return opDesc{nodeType: "Unique"} }

// limitOp applies LIMIT and OFFSET.
type limitOp struct{}

func (limitOp) describe(explainView) opDesc { return opDesc{nodeType: "Limit"} }

// lockRowsOp locks the rows of SELECT ... FOR UPDATE/SHARE.
type lockRowsOp struct{}

func (lockRowsOp) describe(explainView) opDesc { return opDesc{nodeType: "LockRows"} }

// windowOp computes window functions over the level's rows.
type windowOp struct{}

func (windowOp) describe(explainView) opDesc { return opDesc{nodeType: "WindowAgg"} }

// projectSetOp expands set-returning functions of a select list.
type projectSetOp struct{}

func (projectSetOp) describe(explainView) opDesc { return opDesc{nodeType: "ProjectSet"} }

// appendOp concatenates the rows of UNION's branches.
type appendOp struct{}

func (appendOp) describe(explainView) opDesc { return opDesc{nodeType: "Append"} }

// setOpOp computes INTERSECT or EXCEPT from a count of the right branch's
// rows.
type setOpOp struct {
	command string
	all     bool
}

func (o *setOpOp) describe(explainView) opDesc {
	cmd := o.command
	if o.all {
		cmd += " All"
	}
	return opDesc{nodeType: "HashSetOp", strategy: "Hashed", props: []planProp{{key: "Command", value: cmd}}}
}

// recursiveUnionOp runs a recursive WITH query: its base, then its step
// until no new rows come.
type recursiveUnionOp struct{}

func (recursiveUnionOp) describe(explainView) opDesc { return opDesc{nodeType: "Recursive Union"} }

// modifyOp writes the rows its child produces: INSERT, UPDATE or DELETE.
type modifyOp struct {
	command string
	t       *tableDesc
	alias   string
	// conflict is ON CONFLICT's action, "" without one.
	conflict string
}

func (o *modifyOp) describe(v explainView) opDesc {
	d := opDesc{nodeType: "ModifyTable", relation: o.t.name, alias: o.alias, relationKey: "Relation Name"}
	if v.verbose {
		d.schema = o.t.schema
	}
	d.strategy = o.command
	if o.conflict != "" {
		d.props = []planProp{{key: "Conflict Resolution", value: strings.ToUpper(o.conflict)}}
	}
	return d
}

// valuesOp produces the rows of a VALUES list.
type valuesOp struct{}

func (valuesOp) describe(explainView) opDesc {
	return opDesc{nodeType: "Values Scan", relation: `"*VALUES*"`, relationKey: "Alias"}
}

// worktableOp reads the rows a recursive WITH query's previous step made.
type worktableOp struct {
	name string
}

func (o *worktableOp) describe(explainView) opDesc {
	return opDesc{nodeType: "WorkTable Scan", relation: o.name, relationKey: "CTE Name"}
}
