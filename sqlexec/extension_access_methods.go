package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Index access methods that extensions create (bloom's). CREATE EXTENSION
// gives such a method a pg_am row of its own OID, whose handler is the
// extension's function, and CREATE INDEX ... USING takes it while the
// extension is installed. Its capabilities and storage parameters are
// declared beside the built-in methods' (indexAmCapabilities,
// indexRelOpts); the store keeps its indexes as it keeps every index.

// extensionAccessMethod is an index access method an extension's script
// creates, with the name of its handler function (one of the
// extension's functions) and the comment the script gives it.
type extensionAccessMethod struct {
	name, handler, comment string
}

// accessMethodDesc is an installed extension's access method (pg_am's
// row): its OID and its handler's.
type accessMethodDesc struct {
	oid, handler uint32
	name         string
}

// oidPgAmClass is pg_am's OID, the class of access methods in pg_depend.
const oidPgAmClass = 2601

// createExtensionAccessMethods creates avail's access methods that its
// script creates after function fn, in ext.
func (d *ddl) createExtensionAccessMethods(avail *availableExtension, ext *extensionDesc, fn *funcDesc) {
	for _, am := range avail.accessMethods {
		if am.handler == fn.name {
			desc := &accessMethodDesc{oid: d.cat.newOID(), handler: fn.oid, name: am.name}
			ext.accessMethods = append(ext.accessMethods, desc)
			d.cat.setComment(commentKey{classOID: oidPgAmClass, objOID: desc.oid}, am.comment)
		}
	}
}

// accessMethodOID is the pg_am OID of index access method name: a
// built-in one or an installed extension's; 0 for none.
func (c *catalog) accessMethodOID(name string) uint32 {
	if oid, ok := indexAccessMethods[name]; ok {
		return oid
	}
	if am := c.extensionAccessMethod(name); am != nil {
		return am.oid
	}
	return 0
}

// extensionAccessMethod is the installed extensions' access method of the
// name, nil for none.
func (c *catalog) extensionAccessMethod(name string) *accessMethodDesc {
	for _, e := range c.extensions {
		for _, am := range e.accessMethods {
			if am.name == name {
				return am
			}
		}
	}
	return nil
}

// accessMethodName is the name of the index access method of pg_am OID
// oid, built-in or an installed extension's; "" for none.
func (c *catalog) accessMethodName(oid uint32) string {
	if name := accessMethodByOID(oid); name != "" {
		return name
	}
	for _, e := range c.extensions {
		for _, am := range e.accessMethods {
			if am.oid == oid {
				return am.name
			}
		}
	}
	return ""
}

// checkIndexAccessMethod refuses an index access method that is neither
// built in nor an installed extension's, as PostgreSQL (42704).
func (c *catalog) checkIndexAccessMethod(method string) error {
	if c.accessMethodOID(method) == 0 {
		return pgerror.Newf(pgerror.UndefinedObject, "access method \"%s\" does not exist", method)
	}
	return nil
}

// extensionAccessMethodRows are pg_am's rows of the installed extensions'
// access methods (amtype 'i', index).
func extensionAccessMethodRows(c *catalog) [][]any {
	var out [][]any
	for _, e := range sortedExtensions(c) {
		for _, am := range e.accessMethods {
			out = append(out, []any{int64(am.oid), am.name, int64(am.handler), "i"})
		}
	}
	return out
}
