package stress

import (
	"fmt"
	"math/rand/v2"
)

// opKind is what one statement of a transaction does.
type opKind uint8

const (
	opRead   opKind = iota // read a key's value (its list, for append)
	opWrite                // set a key's value to the transaction's id
	opAppend               // append the transaction's id to a key's list
	opInsert               // insert a key with the transaction's id unless it exists
	opCAS                  // set a key's value to the transaction's id if it is expect
)

// op is one statement of a transaction's program.
type op struct {
	kind   opKind
	key    int
	expect int64 // opCAS
}

// Values a cas session may know of a key besides its value.
const (
	unknownValue int64 = -1
	absentValue  int64 = -2
)

// generator writes one session's transactions. Every value written is the
// writing transaction's id, unique per key since a transaction writes a
// key at most once: a read names its writer by the value it returns.
type generator struct {
	workload string
	keys     *keyPicker
	rng      *rand.Rand
	// known is, for cas, the value this session last saw of each key
	// (unknownValue, absentValue, or a writer's id).
	known []int64
}

func newGenerator(workload, dist string, objects int, rng *rand.Rand) *generator {
	g := &generator{workload: workload, keys: newKeyPicker(dist, objects, rng), rng: rng}
	if workload == "cas" {
		g.known = make([]int64, objects)
		for i := range g.known {
			g.known[i] = unknownValue
		}
	}
	return g
}

// next returns the program of the session's next transaction.
func (g *generator) next() []op {
	switch g.workload {
	case "rw":
		return g.readWrite(opWrite, 6)
	case "append":
		return g.readWrite(opAppend, 4)
	case "cas":
		return g.compareAndSet()
	}
	return g.mini()
}

// mini returns a mini-transaction (paper 001, Def. 8): one or two reads,
// at most two writes, each write after a read of its key. The shapes are
// those of the paper's anomalies: R(x); R(x) R(y), with y = x now and then
// (a repeated read); R(x) W(x) (half a lost update); R(x) R(y) W(x) (half a
// write skew); R(x) R(y) W(x) W(y).
func (g *generator) mini() []op {
	x := g.keys.next()
	r := func(k int) op { return op{kind: opRead, key: k} }
	w := func(k int) op { return op{kind: opWrite, key: k} }
	switch g.rng.IntN(5) {
	case 0:
		return []op{r(x)}
	case 1:
		return []op{r(x), r(g.keys.next())}
	case 2:
		return []op{r(x), w(x)}
	case 3:
		y := g.keys.other(x)
		return []op{r(x), r(y), w(x)}
	}
	y := g.keys.other(x)
	return []op{r(x), r(y), w(x), w(y)}
}

// readWrite returns one to max statements, each a read or a write (of
// kind) of a key the transaction has not written yet, even odds: some
// transactions read only, some write blindly, some read and modify (the
// general workloads of dbcop, Cobra and Elle).
func (g *generator) readWrite(write opKind, max int) []op {
	n := 1 + g.rng.IntN(max)
	ops := make([]op, 0, n)
	written := map[int]bool{}
	for i := 0; i < n; i++ {
		k := g.keys.next()
		if g.rng.IntN(2) == 0 && !written[k] {
			written[k] = true
			ops = append(ops, op{kind: write, key: k})
			continue
		}
		ops = append(ops, op{kind: opRead, key: k})
	}
	return ops
}

// compareAndSet returns one lightweight transaction: a compare-and-set of
// a key from the value the session last saw, an insert of a key it does
// not know to exist, or a read.
func (g *generator) compareAndSet() []op {
	k := g.keys.next()
	switch v := g.known[k]; {
	case v == absentValue:
		return []op{{kind: opInsert, key: k}}
	case v == unknownValue:
		if g.rng.IntN(2) == 0 {
			return []op{{kind: opInsert, key: k}}
		}
	case g.rng.IntN(10) < 7:
		return []op{{kind: opCAS, key: k, expect: v}}
	}
	return []op{{kind: opRead, key: k}}
}

// learn updates what a cas session knows of a key after an operation of
// its transaction txn committed: what a read returned, that a write
// applied (the key now holds txn), or, when it did not apply, nothing.
func (g *generator) learn(o op, res opResult, txn int64) {
	if g.known == nil {
		return
	}
	switch {
	case o.kind == opRead && res.absent:
		g.known[o.key] = absentValue
	case o.kind == opRead:
		g.known[o.key] = res.value
	case res.applied:
		g.known[o.key] = txn
	default:
		g.known[o.key] = unknownValue
	}
}

// forget drops what a cas session knows of the keys of a transaction that
// did not commit.
func (g *generator) forget(ops []op) {
	for _, o := range ops {
		if g.known != nil {
			g.known[o.key] = unknownValue
		}
	}
}

// opResult is what a statement returned.
type opResult struct {
	value   int64   // opRead: the value read (the list's last element)
	list    []int64 // opRead, append: the list read
	absent  bool    // opRead: no row, or an empty list
	applied bool    // opWrite, opAppend, opInsert, opCAS: it changed a row
}

// schema returns the statements that create the run's table and its rows:
// one row per key with value 0 (mt, rw), or an empty list (append); cas
// inserts its rows itself.
func schema(workload, table string, objects int) []string {
	typ, initial := "BIGINT NOT NULL", "0"
	switch workload {
	case "append":
		typ, initial = "BIGINT[] NOT NULL", "'{}'::bigint[]"
	case "cas":
		typ, initial = "BIGINT NOT NULL", ""
	}
	stmts := []string{
		"DROP TABLE IF EXISTS " + table,
		fmt.Sprintf("CREATE TABLE %s (k INTEGER PRIMARY KEY, v %s)", table, typ),
	}
	if initial != "" {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %s (k, v) SELECT k, %s FROM generate_series(0, %d) AS k", table, initial, objects-1))
	}
	return stmts
}

// statement returns o's SQL with parameters ($1 the key, $2 the value
// written or expected, $3 the value written by a compare-and-set), and its
// text with the values in place, for the history.
func statement(table string, o op, txn int64) (sql string, args []any, text string) {
	k := int64(o.key)
	switch o.kind {
	case opWrite:
		return "UPDATE " + table + " SET v = $2 WHERE k = $1", []any{k, txn},
			fmt.Sprintf("UPDATE %s SET v = %d WHERE k = %d", table, txn, k)
	case opAppend:
		return "UPDATE " + table + " SET v = array_append(v, $2::bigint) WHERE k = $1", []any{k, txn},
			fmt.Sprintf("UPDATE %s SET v = array_append(v, %d) WHERE k = %d", table, txn, k)
	case opInsert:
		return "INSERT INTO " + table + " (k, v) VALUES ($1, $2) ON CONFLICT (k) DO NOTHING", []any{k, txn},
			fmt.Sprintf("INSERT INTO %s (k, v) VALUES (%d, %d) ON CONFLICT (k) DO NOTHING", table, k, txn)
	case opCAS:
		return "UPDATE " + table + " SET v = $3 WHERE k = $1 AND v = $2", []any{k, o.expect, txn},
			fmt.Sprintf("UPDATE %s SET v = %d WHERE k = %d AND v = %d", table, txn, k, o.expect)
	}
	return "SELECT v FROM " + table + " WHERE k = $1", []any{k},
		fmt.Sprintf("SELECT v FROM %s WHERE k = %d", table, k)
}
