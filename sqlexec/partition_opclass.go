package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// This file checks the operator class and collation a PARTITION BY column
// may name. fickle orders text bytewise (the C collation) and integers as
// integers, so it takes the classes and collations that order the key as
// it already does, oid_ops over an integer column (ordered as unsigned),
// and refuses the others with PostgreSQL's errors or 0A000.

// addOpclass checks the operator class and collation of the key column
// pe names, of type typ, and records how it orders.
func (k *partKey) addOpclass(pe *pg_query.PartitionElem, typ types.Type) error {
	asOid, err := keyOpclass(k.strategy, pe.Opclass, typ)
	if err != nil {
		return err
	}
	if err := keyCollation(pe.Collation, typ); err != nil {
		return err
	}
	if asOid && k.asOid == nil {
		k.asOid = make([]bool, len(k.cols), len(k.cols)+1)
	}
	if k.asOid != nil {
		k.asOid = append(k.asOid, asOid)
	}
	return nil
}

// keyOpclass resolves the operator class of a partition key column of type
// typ under the access method of strategy; asOid says the key orders as
// oid (oid_ops over integer).
func keyOpclass(strategy byte, names []*pg_query.Node, typ types.Type) (asOid bool, err error) {
	if typ.IsCitext() {
		// citext_ops and citext_hash are the extension's, which fickle's
		// routing and pruning do not know.
		return false, pgerror.Unsupported("a partition key of type citext")
	}
	if len(names) == 0 {
		if strategy != 'h' && types.OrderingOperatorError(typ) != nil {
			return false, pgerror.Newf(pgerror.UndefinedObject, "data type %s has no default operator class for access method \"btree\"", types.FormatTypeBe(typ)).
				WithHint("You must specify a btree operator class or define a default btree operator class for the data type.")
		}
		if strategy == 'h' && !types.HasHashClass(typ) {
			return false, pgerror.Newf(pgerror.UndefinedObject, "data type %s has no default operator class for access method \"hash\"", types.FormatTypeBe(typ)).
				WithHint("You must specify a hash operator class or define a default hash operator class for the data type.")
		}
		return false, nil
	}
	name := strs(names)[len(names)-1]
	method, methodName := "403", "btree"
	if strategy == 'h' {
		method, methodName = "405", "hash"
	}
	var intype uint32
	found := false
	eachRow(pgdata.Load(pgdata.PgOpclass), func(get func(string) string) {
		if !found && get("opcmethod") == method && get("opcname") == name {
			intype, found = atou(get("opcintype")), true
		}
	})
	switch {
	case !found:
		return false, pgerror.Newf(pgerror.UndefinedObject, "operator class \"%s\" does not exist for access method \"%s\"", name, methodName)
	case intype == uint32(typ.Oid), intype == uint32(types.OidText) && typ.Oid == types.OidVarchar:
		return false, nil
	case intype == uint32(types.OidOid) && typ.Oid == types.OidInt4:
		return true, nil
	}
	return false, pgerror.Newf(pgerror.DatatypeMismatch, "operator class \"%s\" does not accept data type %s", name, typ)
}

// keyCollation checks the COLLATE of a partition key column of type typ:
// the collations that order as fickle does (bytewise) are taken.
func keyCollation(names []*pg_query.Node, typ types.Type) error {
	if len(names) == 0 {
		return nil
	}
	if typeCollation(typ.Oid) == 0 {
		return pgerror.Newf(pgerror.DatatypeMismatch, "collations are not supported by type %s", typ)
	}
	name := strs(names)[len(names)-1]
	switch name {
	case "default", "C", "POSIX", "ucs_basic":
		return nil
	}
	return pgerror.Unsupported("collation " + name + " in PARTITION BY")
}

// compare orders two values of key column i as its operator class does.
func (k *partKey) compare(i int, a, b any) int {
	if k.asOid != nil && k.asOid[i] {
		return types.Compare(types.OidType, int64(uint32(a.(int64))), int64(uint32(b.(int64))))
	}
	return types.Compare(k.typs[i], a, b)
}
