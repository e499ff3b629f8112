package sqlexec

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalog names every schema, table, index, constraint and sequence.
//
// Descriptors (tableDesc, indexDesc, ...) are immutable once published: DDL
// builds new descriptors in a clone of the catalog, which stays private to
// its transaction until the transaction commits (catalog_txn.go). Plans
// hold descriptor pointers without locking and are re-made when the version
// they were made against is no longer the session's.

// firstUserOID is the first OID given to user objects, as in PostgreSQL.
const firstUserOID = 16384

// The OIDs of the built-in schemas, as in PostgreSQL.
const (
	oidPgCatalog   = 11
	oidPublic      = 2200
	oidInfoSchema  = 13207
	oidPgNamespace = 2615
	oidPgClass     = 1259
	oidPgType      = 1247
)

// catalogHolder holds a database's published catalog: the one every
// transaction without DDL of its own sees.
type catalogHolder struct {
	mu      sync.RWMutex
	cat     *catalog
	version uint64
	// naming is the catalog the history names keys and rows with: the
	// published one, or the one a committing transaction is about to
	// publish, since the store formats that transaction's writes while
	// its commit holds mu.
	naming atomic.Pointer[catalog]
}

func (h *catalogHolder) publish(c *catalog, version uint64) {
	h.mu.Lock()
	h.cat, h.version = c, version
	h.naming.Store(c)
	h.mu.Unlock()
}

// catalog is the set of named objects. A published catalog is never
// changed; descriptors reached from it are immutable.
type catalog struct {
	// oids is the cluster's OID counter, shared by every catalog.
	oids    *atomic.Uint32
	schemas map[string]*schemaDesc
	tables  map[uint32]*tableDesc
	// comments holds COMMENT ON's text by object, as pg_description
	// does; an object's comments go when it is dropped.
	comments map[commentKey]string
	// acls holds the access control lists GRANT and REVOKE gave objects;
	// the others have their kind's default.
	acls map[aclKey][]aclItem
	// defaultACLs holds what ALTER DEFAULT PRIVILEGES set
	// (default_privileges.go).
	defaultACLs map[defaultACLKey]defaultACLEntry
	// extensions holds the installed extensions by name, plpgsql aside
	// (extensions.go).
	extensions map[string]*extensionDesc
	// publications holds the publications by name (ddl_publication.go).
	publications map[string]*publicationDesc
	// fdws, servers and userMappings hold the foreign-data wrappers and
	// servers by name and the user mappings by OID (ddl_foreign.go).
	fdws         map[string]*fdwDesc
	servers      map[string]*foreignServerDesc
	userMappings map[uint32]*userMappingDesc
	// operators holds the operators CREATE OPERATOR made (and the shells
	// its COMMUTATOR and NEGATOR made) by OID (ddl_operator.go).
	operators map[uint32]*operatorDesc
	// eventTriggers holds the event triggers by name (event_trigger.go).
	eventTriggers map[string]*eventTrigDesc
	// opfamilies, opclasses and amMembers hold the users' operator
	// families and classes and the operators and functions they added to
	// families (pg_amop, pg_amproc) by OID (ddl_opclass.go).
	opfamilies map[uint32]*opfamilyDesc
	opclasses  map[uint32]*userOpclass
	amMembers  map[uint32]*amMember
	// tsConfigs and tsDicts hold the users' text search configurations
	// and dictionaries by OID (ddl_tsearch.go).
	tsConfigs map[uint32]*tsConfigDesc
	tsDicts   map[uint32]*tsUserDict
	// collations holds the users' collations by OID (ddl_collation.go).
	collations map[uint32]*collationDesc
	// conversions holds the users' conversions by OID (ddl_conversion.go).
	conversions map[uint32]*conversionDesc
}

type schemaDesc struct {
	name string
	oid  uint32
	// owner is the role owning the schema (pg_namespace.nspowner); 0 for
	// the schemas initdb makes (schemaOwner).
	owner   uint32
	tables  map[string]*tableDesc
	seqs    map[string]*sequence
	indexes map[string]*indexDesc
	views   map[string]*viewDesc
	// funcs holds the schema's functions and procedures by name, each
	// name's overloads in creation order (functions.go).
	funcs map[string][]*funcDesc
	// types holds the schema's user-defined types by name (ddl_types.go).
	types map[string]*typeDesc
}

// tableDesc describes a table. cols are in row order: the store's rows hold
// one datum per column, in this order.
type tableDesc struct {
	oid uint32
	// options and toastOptions are the storage parameters of the table and
	// of its TOAST table (WITH (...), ALTER TABLE ... SET), name=value as
	// pg_class.reloptions lists them.
	options, toastOptions []string
	// owner is the role that created the table (0: the bootstrap
	// superuser); it holds the privileges of the default ACL.
	owner  uint32
	schema string
	name   string
	id     isolation.TableID
	cols   []*columnDesc
	// pk lists the primary key's columns; nil for a table without one.
	pk     []int
	pkName string
	// pkOptions are the storage parameters of the primary key's index
	// when it has no indexDesc (pkIndex nil): PRIMARY KEY ... WITH (...).
	pkOptions []string
	// hidden says the store keys the table's rows by a hidden row id: the
	// table had no primary key when it was created. A primary key added
	// later (ALTER TABLE ADD PRIMARY KEY) is then enforced and looked up
	// through pkIndex, a unique index.
	hidden  bool
	pkIndex *indexDesc
	// storedKey are the types of the primary key that keyed the rows of
	// a table created with one until the key was dropped (ddl_drop_pkey.go):
	// the rows stored then keep those keys, which the history names by
	// these types. nil for a table keyed by hidden row ids from the start.
	storedKey []types.Type
	// pkParent is the OID of the partitioned parent's primary key index
	// that this partition's primary key belongs to, 0 for none.
	pkParent uint32
	// pkCloned says the primary key was made from the parent's (as
	// indexDesc.cloned).
	pkCloned bool
	indexes  []*indexDesc // secondary indexes, unique ones included
	checks   []*checkDesc
	fks      []*fkDesc // outgoing foreign keys
	// onCommit is a temporary table's ON COMMIT action.
	onCommit onCommit
	// triggers are the table's triggers in name order (triggers.go).
	triggers []*triggerDesc
	// rules are the table's rewrite rules in name order (rules.go).
	rules []*ruleDesc
	// parents are the OIDs of the tables it inherits from, in INHERITS
	// order (inherit.go).
	parents []uint32
	// part is a partitioned table's key, bound a partition's FOR VALUES
	// (partition.go).
	part  *partKey
	bound *partBound
	// unlogged says the table was created UNLOGGED (relpersistence u);
	// fickle keeps every table in memory alike.
	unlogged bool
	// clusteredOn is the OID of the index ALTER TABLE ... CLUSTER ON
	// marked (pg_index.indisclustered), 0 for none.
	clusteredOn uint32
	// replicaIdentity is ALTER TABLE ... REPLICA IDENTITY's choice
	// (pg_class.relreplident: 'n' nothing, 'f' full, 'i' an index, 0 the
	// default) and replicaIndex that index's OID (replica_identity.go).
	replicaIdentity byte
	replicaIndex    uint32
	// droppedAttnum is the highest attnum of a dropped column: as in
	// PostgreSQL, a column added later never reuses it.
	droppedAttnum int16
	// missing are the values ADD COLUMN gave the rows already stored, by
	// attnum (atthasmissing, attmissingval): a default PostgreSQL keeps in
	// the catalog instead of writing the table anew, until a rewrite
	// (fast_default.go).
	missing map[int16]any
	// droppedCols are the columns DROP COLUMN removed, as they were:
	// PostgreSQL keeps their pg_attribute rows, renamed and marked
	// attisdropped, and counts them in relnatts.
	droppedCols []*columnDesc
	// rowType and rowArray are the OIDs of the table's row type and of
	// the array type over it (rowtype.go).
	rowType, rowArray uint32
	// arrayName is the name of the array type of the table's row type
	// when it is not "_" + name (array_type_names.go).
	arrayName string
	// toastKept says the table keeps the TOAST table PostgreSQL gave it
	// though no column needs one now, until a rewrite (toast.go).
	toastKept bool
	// rowSecurity and forceRowSecurity are ENABLE and FORCE ROW LEVEL
	// SECURITY; policies are the table's policies in name order (rls.go).
	rowSecurity, forceRowSecurity bool
	policies                      []*policyDesc
	// matview makes the table a materialized view (relkind m, matview.go):
	// its rows are what its stored query returned at the last refresh.
	matview *matviewDef
	// foreign makes the table a foreign table (relkind f,
	// ddl_foreign_table.go): its rows are on a server fickle cannot reach.
	foreign *foreignTable
	// statsExts are the table's extended statistics objects in creation
	// order (ddl_statistics.go); a change replaces the slice.
	statsExts []*statsExtDesc
}

type columnDesc struct {
	name    string
	typ     types.Type
	notNull bool
	// def is the DEFAULT expression, nil for none (NULL).
	def *pg_query.Node
	// identity is 'a' (ALWAYS), 'd' (BY DEFAULT) or 0.
	identity byte
	// generated is the expression of a stored generated column (GENERATED
	// ALWAYS AS (expr) STORED, attgenerated 's'), nil for other columns;
	// writes compute it over the row (generated.go).
	generated *pg_query.Node
	// fdwOptions are a foreign table column's options (attfdwoptions),
	// name=value, nil for none.
	fdwOptions []string
	attnum     int16
	// domain is the OID of the domain the column was declared with (typ
	// is its base type), 0 for none.
	domain uint32
	// inhCount is the number of parents the column comes from and
	// notLocal says it has no definition of its own (attinhcount and
	// NOT attislocal).
	inhCount int16
	notLocal bool
	// storage is the column's SET STORAGE (attstorage p, e, m or x), 0
	// for its type's default (toast.go).
	storage byte
	// collation is the column's COLLATE, "" for its type's (collation.go).
	collation string
	// compression is the column's COMPRESSION method, "" for none
	// (compression.go).
	compression string
	// stats is the column's SET STATISTICS target (statistics.go).
	stats statsTarget
}

type indexDesc struct {
	name   string
	oid    uint32
	table  uint32 // table OID
	cols   []int
	unique bool
	// constraint marks an index that backs a UNIQUE constraint, or with
	// exclusion an EXCLUDE one (ddl_exclusion.go).
	constraint, exclusion bool
	// deferrable and initiallyDeferred are a UNIQUE constraint's
	// DEFERRABLE and INITIALLY DEFERRED (deferred_unique.go).
	deferrable, initiallyDeferred bool
	// excl are an EXCLUDE constraint's elements' operators, per key
	// position (ddl_exclusion.go).
	excl []exclusionElem
	// nullsNotDistinct is NULLS NOT DISTINCT: a unique index's rows with
	// NULLs in their key conflict like any others.
	nullsNotDistinct bool
	id               isolation.IndexID
	// parent is the OID of the partitioned table's index this index of a
	// partition belongs to, 0 for none (partition_keys.go).
	parent uint32
	// cloned marks the index of a partition's UNIQUE or EXCLUDE constraint
	// made from its parent's (not one of the partition's own that was
	// attached): pg_constraint.connoinherit is false for it alone.
	cloned bool
	// invalid marks a partitioned index made by CREATE INDEX ON ONLY that
	// does not yet have an index attached for every partition
	// (pg_index.indisvalid false; partition_index.go).
	invalid bool
	// method ("" for btree), keyOpts (nil for all defaults) and include
	// are CREATE INDEX's access method, key column options and INCLUDE
	// columns, kept for the catalogs (index_options.go).
	method  string
	keyOpts []indexKeyOpts
	include []int
	// options are the index's storage parameters (WITH (...)) as
	// pg_class.reloptions lists them, name=value.
	options []string
	// pred is a partial index's WHERE predicate and exprs, per key
	// position, an expression key's expression (nil for a column; cols
	// holds -1 there), both parsed trees over the table's column names
	// (index_predicate.go, index_exprs.go). rows is them compiled over the
	// table's row layout when the index was registered with the store.
	pred  *pg_query.Node
	exprs []*pg_query.Node
	rows  *indexRowEval
	// exprNames are, per key position, the name the index column of an
	// expression got when the index was made ("" for a column): as in
	// PostgreSQL, renaming a column the expression reads leaves it.
	exprNames []string
	// exprStats are, per key position, the SET STATISTICS targets of
	// expression keys (nil when none was set; statistics.go).
	exprStats []statsTarget
}

type checkDesc struct {
	name string
	expr *pg_query.Node
	text string
	// noInherit marks a CHECK ... NO INHERIT; inhCount and notLocal are
	// as for columns (coninhcount, NOT conislocal).
	noInherit bool
	inhCount  int16
	notLocal  bool
	// notValid marks a constraint added NOT VALID and not validated since:
	// the rows it was added over were not checked (pg_constraint's
	// convalidated false).
	notValid bool
}

// FK actions, as pg_constraint.confdeltype spells them.
const (
	fkNoAction = 'a'
	fkRestrict = 'r'
	fkCascade  = 'c'
	fkSetNull  = 'n'
	fkDefault  = 'd'
)

type fkDesc struct {
	name     string
	cols     []int
	refTable uint32
	refCols  []int
	onDelete byte
	onUpdate byte
	// deferrable and initiallyDeferred are DEFERRABLE and INITIALLY
	// DEFERRED (deferred.go).
	deferrable, initiallyDeferred bool
	// notValid is as for checkDesc.
	notValid bool
	// matchFull is MATCH FULL: a row whose key columns are all NULL
	// references nothing, one with some NULL fails (else MATCH SIMPLE: any
	// NULL column and the row references nothing).
	matchFull bool
	// delSetCols are the columns ON DELETE SET NULL / SET DEFAULT (cols)
	// sets; nil for all the key's columns.
	delSetCols []int
	// parentName is, for a partition's clone of a foreign key of its
	// partitioned parent (fk_partition.go), the parent constraint's name;
	// empty for a key of the table's own.
	parentName string
	// refClone marks a clone on the referenced side (fk_referenced.go):
	// the key's parentName references a partitioned table, and this clone
	// one of its partitions. Rows are checked by the parent key; the clone
	// is what the partition's deletes and key changes enforce.
	refClone bool
	// riState is the tgenabled of the key's internal triggers
	// (ri_triggers.go), 0 for 'O'.
	riState [4]byte
}

func newCatalog(oids *atomic.Uint32) *catalog {
	c := &catalog{oids: oids, schemas: map[string]*schemaDesc{}, tables: map[uint32]*tableDesc{}, comments: map[commentKey]string{},
		acls: map[aclKey][]aclItem{}, defaultACLs: map[defaultACLKey]defaultACLEntry{}, extensions: map[string]*extensionDesc{}, publications: map[string]*publicationDesc{},
		fdws: map[string]*fdwDesc{}, servers: map[string]*foreignServerDesc{}, userMappings: map[uint32]*userMappingDesc{}}
	c.schemas["public"] = newSchema("public", oidPublic)
	for k, v := range builtinDescriptions().schemas {
		c.comments[k] = v
	}
	return c
}

// newSchema returns an empty schema.
func newSchema(name string, oid uint32) *schemaDesc {
	return &schemaDesc{name: name, oid: oid, tables: map[string]*tableDesc{}, seqs: map[string]*sequence{},
		indexes: map[string]*indexDesc{}, views: map[string]*viewDesc{}, funcs: map[string][]*funcDesc{},
		types: map[string]*typeDesc{}}
}

// clone returns a copy of the catalog's maps; descriptors are shared.
func (c *catalog) clone() *catalog {
	n := &catalog{oids: c.oids, schemas: make(map[string]*schemaDesc, len(c.schemas)), tables: make(map[uint32]*tableDesc, len(c.tables))}
	for k, s := range c.schemas {
		ns := newSchema(s.name, s.oid)
		ns.owner = s.owner
		for tk, t := range s.tables {
			ns.tables[tk] = t
		}
		for sk, q := range s.seqs {
			ns.seqs[sk] = q
		}
		for ik, i := range s.indexes {
			ns.indexes[ik] = i
		}
		for vk, v := range s.views {
			ns.views[vk] = v
		}
		for fk, f := range s.funcs {
			ns.funcs[fk] = f
		}
		for tk, t := range s.types {
			ns.types[tk] = t
		}
		n.schemas[k] = ns
	}
	for k, t := range c.tables {
		n.tables[k] = t
	}
	n.comments = make(map[commentKey]string, len(c.comments))
	for k, v := range c.comments {
		n.comments[k] = v
	}
	n.acls = maps.Clone(c.acls)
	n.defaultACLs = maps.Clone(c.defaultACLs)
	n.extensions = maps.Clone(c.extensions)
	n.publications = maps.Clone(c.publications)
	n.fdws = maps.Clone(c.fdws)
	n.servers = maps.Clone(c.servers)
	n.userMappings = maps.Clone(c.userMappings)
	n.operators = maps.Clone(c.operators)
	n.eventTriggers = maps.Clone(c.eventTriggers)
	n.opfamilies = maps.Clone(c.opfamilies)
	n.opclasses = maps.Clone(c.opclasses)
	n.amMembers = maps.Clone(c.amMembers)
	n.tsConfigs = maps.Clone(c.tsConfigs)
	n.tsDicts = maps.Clone(c.tsDicts)
	n.collations = maps.Clone(c.collations)
	n.conversions = maps.Clone(c.conversions)
	return n
}

func (c *catalog) newOID() uint32 { return c.oids.Add(1) - 1 }

// putTable stores t (new or replacing the descriptor with the same OID).
func (c *catalog) putTable(t *tableDesc) {
	if old := c.tables[t.oid]; old == nil || old.name != t.name || old.schema != t.schema {
		c.placeArrayType(t)
	}
	c.schemas[t.schema].tables[t.name] = t
	c.tables[t.oid] = t
}

// published returns the database's published catalog and its version.
func (e *Engine) published() (*catalog, uint64) {
	e.cat.mu.RLock()
	defer e.cat.mu.RUnlock()
	return e.cat.cat, e.cat.version
}

// searchPath returns the session's schemas to search, in order, with
// pg_catalog first unless the path names it elsewhere.
func (s *Session) searchPath() []string {
	path, _ := s.searchPathImplicit()
	return path
}

// searchPathImplicit is searchPath and how many of its first schemas are
// searched without the path naming them (the temporary schema,
// pg_catalog).
func (s *Session) searchPathImplicit() ([]string, int) {
	v, _ := s.settings.get("search_path")
	var out []string
	hasCatalog, hasTemp := false, false
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) && len(p) >= 2 {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = truncateIdentifier(downcaseIdentifier(p))
		}
		if p == "$user" {
			p = s.searchPathUser()
		}
		if p == "pg_catalog" {
			hasCatalog = true
		}
		if p == "pg_temp" {
			// The session's temporary schema, searched here rather than
			// first.
			hasTemp = true
			if s.tempID == 0 {
				continue
			}
			p = s.tempSchema()
		}
		out = append(out, p)
	}
	if s.schemaBeingCreated != "" {
		out = append([]string{s.schemaBeingCreated}, out...)
	}
	implicit := 0
	if !hasCatalog {
		out = append([]string{"pg_catalog"}, out...)
		implicit++
	}
	if !hasTemp && s.tempID != 0 {
		out = append([]string{s.tempSchema()}, out...)
		implicit++
	}
	return out, implicit
}

// searchPathUser is the role "$user" in search_path stands for: as in
// PostgreSQL, current_user once SET SESSION AUTHORIZATION, SET ROLE or a
// SECURITY DEFINER routine chose one, else the user the session connected
// as.
func (s *Session) searchPathUser() string {
	if a, _ := s.settings.get("session_authorization"); a != "" || s.definer != "" {
		return s.user()
	}
	if r, _ := s.settings.get("role"); r != "none" && r != "" {
		return s.user()
	}
	return s.info.User
}

// creationSchema returns the schema a new object goes to
// (defaultCreationSchema), which the current role needs CREATE on, as
// PostgreSQL checks before anything else about the new object (whether it
// exists already included); its temporary schema needs TEMPORARY on the
// database, which tempCreationSchema checked.
func (d *ddl) creationSchema(explicit string) (string, error) {
	schema, err := d.defaultCreationSchema(explicit)
	if err != nil {
		return "", err
	}
	if !isTempSchema(schema) {
		if err := d.requireSchemaCreate(schema); err != nil {
			return "", err
		}
	}
	return schema, nil
}

// defaultCreationSchema returns the schema a new object goes to: the one
// named (pg_temp, the session's temporary schema, made when missing), else
// the first existing schema of the search path but the temporary one.
func (d *ddl) defaultCreationSchema(explicit string) (string, error) {
	if explicit = d.s.schemaAlias(explicit); isTempSchema(explicit) && explicit == d.s.tempSchema() {
		return d.tempCreationSchema(explicit)
	}
	if explicit != "" {
		if _, ok := d.cat.schemas[explicit]; !ok {
			return "", pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", explicit)
		}
		return explicit, nil
	}
	for _, p := range d.s.searchPath() {
		if _, ok := d.cat.schemas[p]; ok && !isTempSchema(p) {
			return p, nil // only CREATE TEMP (or pg_temp.name) creates in the temporary schema
		}
	}
	return "", pgerror.New(pgerror.InvalidSchemaName, "no schema has been selected to create in")
}

// lookupTable finds a table by optional schema and name along the search
// path; nil when there is none.
func (s *Session) lookupTable(c *catalog, schema, name string) *tableDesc {
	if schema = s.schemaAlias(schema); isTempSchema(schema) && schema != s.tempSchemaIfAny() {
		return nil // another session's temporary tables are out of reach
	}
	if schema != "" {
		if sc := c.schemas[schema]; sc != nil {
			return sc.tables[name]
		}
		return nil
	}
	for _, p := range s.searchPath() {
		if sc := c.schemas[p]; sc != nil {
			if t := sc.tables[name]; t != nil {
				return t
			}
		}
	}
	return nil
}

// lookupSequence finds a sequence like lookupTable.
func (s *Session) lookupSequence(c *catalog, schema, name string) *sequence {
	if schema = s.schemaAlias(schema); isTempSchema(schema) && schema != s.tempSchemaIfAny() {
		return nil
	}
	if schema != "" {
		if sc := c.schemas[schema]; sc != nil {
			return sc.seqs[name]
		}
		return nil
	}
	for _, p := range s.searchPath() {
		if sc := c.schemas[p]; sc != nil {
			if q := sc.seqs[name]; q != nil {
				return q
			}
		}
	}
	return nil
}

// lookupIndex finds an index like lookupTable, with its schema.
func (s *Session) lookupIndex(c *catalog, schema, name string) (*indexDesc, *schemaDesc) {
	schema = s.schemaAlias(schema)
	for _, p := range s.searchPath() {
		if schema != "" && p != schema {
			continue
		}
		if sc := c.schemas[p]; sc != nil {
			if ix := sc.indexes[name]; ix != nil {
				return ix, sc
			}
		}
	}
	if schema != "" {
		if sc := c.schemas[schema]; sc != nil {
			if ix := sc.indexes[name]; ix != nil {
				return ix, sc
			}
		}
	}
	return nil, nil
}

func (t *tableDesc) colIndex(name string) int {
	for i, c := range t.cols {
		if c.name == name {
			return i
		}
	}
	return -1
}

// qualifiedName is the name the store and error messages use.
func (t *tableDesc) qualifiedName() string {
	if t.schema == "public" {
		return t.name
	}
	return t.schema + "." + t.name
}

// clone returns a shallow copy of t whose slices may be replaced.
func (t *tableDesc) clone() *tableDesc {
	n := *t
	n.cols = append([]*columnDesc(nil), t.cols...)
	n.pk = append([]int(nil), t.pk...)
	if t.pk == nil {
		n.pk = nil
	}
	n.indexes = append([]*indexDesc(nil), t.indexes...)
	n.checks = append([]*checkDesc(nil), t.checks...)
	n.fks = append([]*fkDesc(nil), t.fks...)
	n.triggers = append([]*triggerDesc(nil), t.triggers...)
	n.parents = append([]uint32(nil), t.parents...)
	n.policies = append([]*policyDesc(nil), t.policies...)
	n.droppedCols = slices.Clip(t.droppedCols)
	n.missing = maps.Clone(t.missing)
	return &n
}

// encodeKey encodes the values of cols of row, in order, as an
// order-preserving key; hasNull reports a NULL among them.
func encodeKey(buf []byte, t *tableDesc, cols []int, row []any) (key []byte, hasNull bool) {
	for _, c := range cols {
		v := row[c]
		if v == nil {
			hasNull = true
		}
		buf = types.AppendKey(buf, t.cols[c].typ, v)
	}
	return buf, hasNull
}

// pkKey returns the store key of row: the primary-key encoding, nil for a
// hidden-row-id table.
func (t *tableDesc) pkKey(row []any) []byte {
	if t.hidden {
		return nil
	}
	k, _ := encodeKey(make([]byte, 0, 16), t, t.pk, row)
	return k
}

// keyColumns are the columns PostgreSQL counts as a row's key for row locks:
// those of the primary key and of the unique indexes on columns only (not
// partial, no expressions), as RelationGetIndexAttrBitmap counts them. An UPDATE that sets
// one locks the row FOR UPDATE, others FOR NO KEY UPDATE; only a change to
// one conflicts with a foreign key check's FOR KEY SHARE.
func (t *tableDesc) keyColumns() []int {
	cols := slices.Clone(t.pk)
	indexes := t.indexes
	if t.pkIndex != nil {
		indexes = append([]*indexDesc{t.pkIndex}, indexes...)
	}
	for _, ix := range indexes {
		if ix.unique && ix.onColumnsOnly() {
			for _, c := range ix.cols {
				if !slices.Contains(cols, c) {
					cols = append(cols, c)
				}
			}
		}
	}
	return cols
}

// indexSpec returns the store's description of ix over t.
func indexSpec(t *tableDesc, ix *indexDesc) isolation.IndexSpec {
	if ix.excl != nil {
		return exclusionSpec(t, ix)
	}
	if ix.rows != nil {
		return isolation.IndexSpec{Name: ix.name, Unique: ix.unique, Deferred: ix.deferrable, Key: ix.rows.storeKey}
	}
	cols, nullsNotDistinct := append([]int(nil), ix.cols...), ix.nullsNotDistinct
	typs := make([]types.Type, len(cols))
	for i, c := range cols {
		typs[i] = t.cols[c].typ
	}
	return isolation.IndexSpec{
		Name:     ix.name,
		Unique:   ix.unique,
		Deferred: ix.deferrable,
		Key: func(buf []byte, row []any) ([]byte, bool) {
			hasNull := false
			for i, c := range cols {
				if row[c] == nil {
					hasNull = true
				}
				buf = types.AppendKey(buf, typs[i], row[c])
			}
			return buf, hasNull && !nullsNotDistinct
		},
	}
}

// referencing returns every foreign key that references table oid, with
// the table that holds it.
func (c *catalog) referencing(oid uint32) []fkRef {
	var out []fkRef
	for _, t := range c.tables {
		for _, fk := range t.fks {
			if fk.refTable == oid {
				out = append(out, fkRef{child: t, fk: fk})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].child.oid < out[j].child.oid })
	return out
}

type fkRef struct {
	child *tableDesc
	fk    *fkDesc
}

// relationKind is the kind of a relation, as pg_class.relkind tells them
// apart.
type relationKind int

const (
	relTable relationKind = iota + 1
	relIndex
	relSequence
	// relView is the kind of views.
	relView
)

// relationIn looks name up in the schemas of path, in order.
func relationIn(c *catalog, path []string, name string) (int64, bool) {
	oid, _, ok := relationLookup(c, path, name)
	return oid, ok
}

// relationKindIn is relationIn answering the relation's kind.
func relationKindIn(c *catalog, path []string, name string) (relationKind, bool) {
	_, kind, ok := relationLookup(c, path, name)
	return kind, ok
}

func relationLookup(c *catalog, path []string, name string) (int64, relationKind, bool) {
	for _, p := range path {
		if r, ok := systemRelationNamed(p, name); ok {
			return int64(r.oid), r.kind, true
		}
		sc := c.schemas[p]
		if sc == nil {
			continue
		}
		if t := sc.tables[name]; t != nil {
			return int64(t.oid), relTable, true
		}
		if ix := sc.indexes[name]; ix != nil {
			return int64(ix.oid), relIndex, true
		}
		if q := sc.seqs[name]; q != nil {
			return int64(q.oid), relSequence, true
		}
		if v := sc.views[name]; v != nil {
			return int64(v.oid), relView, true
		}
		for _, t := range sc.tables {
			if t.pk != nil && t.pkIndex == nil && t.pkName == name {
				return int64(primaryKeyIndexOID(t)), relIndex, true
			}
		}
	}
	return 0, 0, false
}

// relationByOid finds the schema and name of the relation with the OID.
func relationByOid(c *catalog, oid int64) (schema, name string, ok bool) {
	if r := systemRelations().byOID[uint32(oid)]; r != nil {
		return r.schema, r.name, true
	}
	if t := c.tables[uint32(oid)]; t != nil && int64(t.oid) == oid {
		return t.schema, t.name, true
	}
	for _, sc := range c.schemas {
		for _, ix := range sc.indexes {
			if int64(ix.oid) == oid {
				return sc.name, ix.name, true
			}
		}
		for _, q := range sc.seqs {
			if int64(q.oid) == oid {
				return sc.name, q.name, true
			}
		}
		for _, v := range sc.views {
			if int64(v.oid) == oid {
				return sc.name, v.name, true
			}
		}
		for _, t := range sc.tables {
			if t.pk != nil && t.pkIndex == nil && int64(primaryKeyIndexOID(t)) == oid {
				return sc.name, t.pkName, true
			}
		}
	}
	return "", "", false
}

// parseQualifiedName splits a name written as in SQL (a.b, "A"."b", with
// blanks around the parts) into its identifiers, lower-casing unquoted
// ones, as PostgreSQL's stringToQualifiedNameList does; a malformed name
// fails with 42602.
func parseQualifiedName(text string) ([]string, error) {
	bad := pgerror.New(pgerror.InvalidName, "invalid name syntax")
	var parts []string
	i := 0
	skipBlanks := func() {
		for i < len(text) && strings.IndexByte(" \t\n\r\f\v", text[i]) >= 0 {
			i++
		}
	}
	for {
		skipBlanks()
		var part strings.Builder
		if i < len(text) && text[i] == '"' {
			i++
			for {
				j := strings.IndexByte(text[i:], '"')
				if j < 0 {
					return nil, bad
				}
				part.WriteString(text[i : i+j])
				i += j + 1
				if i < len(text) && text[i] == '"' {
					part.WriteByte('"')
					i++
					continue
				}
				break
			}
			if part.Len() == 0 {
				return nil, bad
			}
		} else {
			start := i
			for i < len(text) && text[i] != '.' && text[i] != '"' && strings.IndexByte(" \t\n\r\f\v", text[i]) < 0 {
				i++
			}
			if i == start {
				return nil, bad
			}
			part.WriteString(downcaseIdentifier(text[start:i]))
		}
		parts = append(parts, truncateIdentifier(part.String()))
		skipBlanks()
		if i == len(text) {
			return parts, nil
		}
		if text[i] != '.' {
			return nil, bad
		}
		i++
	}
}

// downcaseIdentifier folds an unquoted identifier's ASCII letters to lower
// case and leaves every other byte alone, as PostgreSQL does in UTF-8.
func downcaseIdentifier(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// truncateIdentifier cuts a name to NAMEDATALEN-1 bytes, as PostgreSQL
// does, without splitting a UTF-8 character.
func truncateIdentifier(s string) string {
	const maxLen = 63
	if len(s) <= maxLen {
		return s
	}
	n := maxLen
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
