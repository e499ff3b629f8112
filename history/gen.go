package history

import (
	"math/rand/v2"
	"sort"
	"strconv"
)

// GenOptions describes a random history for Generate. Zero fields take the
// defaults given in their comments.
type GenOptions struct {
	Sessions  int     // number of sessions (8)
	Txns      int     // number of transactions besides Init (100)
	OpsPerTxn int     // operations per transaction (8)
	Keys      int     // number of keys (Txns/4, at least 4)
	ReadRatio float64 // share of reads among operations (0.5)
	// Level is every transaction's level (Serializable when unknown) and
	// says how the execution is simulated: serially for SI and SER, from a
	// stale prefix of the commit order for PC, CC and RA, and from a
	// stale, per read increasing prefix for RC.
	Level Level
	// Mixed gives each transaction a random level instead, simulated by
	// its own level's rule.
	Mixed bool
	// MaxLag bounds how many transactions behind the end a stale prefix
	// may be (Sessions*4).
	MaxLag int
	// AbortRate is the share of transactions the client rolls back.
	AbortRate float64
	// CommitOrder records the simulated commit order in the history.
	CommitOrder bool
	Seed        uint64
	_           struct{}
}

// Generate returns a random history that is consistent at every
// transaction's level, for benchmarks and property tests. It simulates an
// execution: transactions run one at a time in a random interleaving of
// sessions, each takes the next place in the commit order, and each read
// returns the latest write before a point of the order that the level
// allows (the end for SI and SER; a stale prefix covering the session's own
// past for the others). Every write writes a value unique to its key and
// every read carries the value it returned, so the history also exports to
// the value-based formats. A read of a key nobody wrote yet sees Init's
// tombstone. Keys are named k0, k1, ...
func Generate(o GenOptions) *History {
	o = o.withDefaults()
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	b := NewBuilder()
	keys := make([]KeyID, o.Keys)
	for i := range keys {
		keys[i] = b.Key("", "k"+strconv.Itoa(i))
	}
	sessions := make([]SessionID, o.Sessions)
	for i := range sessions {
		sessions[i] = b.Session("s" + strconv.Itoa(i))
	}
	b.h.Txns = append(make([]Txn, 0, o.Txns+1), b.h.Txns...)
	g := genState{
		versions: make([][]genVersion, o.Keys),
		next:     make([]int64, o.Keys),
		lastOwn:  make([]int, o.Sessions),
	}
	co := make([]TxnID, 1, o.Txns+1)
	own := make(map[KeyID]int64, o.OpsPerTxn) // this transaction's writes
	ops := make([]Op, 0, o.OpsPerTxn)
	for range o.Txns {
		s := rng.IntN(o.Sessions)
		level := o.Level
		if o.Mixed {
			level = Levels[rng.IntN(len(Levels))]
		}
		id := b.newTxn(sessions[s], level, Pending)
		pos := len(co) // this transaction's place in the commit order
		// low is the oldest prefix end the transaction may read from: its
		// session's last transaction.
		low := g.lastOwn[s]
		point := pos - 1
		if level < Snapshot {
			point = low + rng.IntN(max(1, min(o.MaxLag, pos-low)))
			point = max(low, min(point, pos-1))
		}
		clear(own)
		ops = ops[:0]
		for range o.OpsPerTxn {
			k := keys[rng.IntN(len(keys))]
			if rng.Float64() >= o.ReadRatio {
				g.next[k]++
				v := g.next[k]
				own[k] = v
				ops = append(ops, Op{Kind: OpWrite, Flags: FlagHasValue, Key: k, Value: v})
				continue
			}
			if v, ok := own[k]; ok {
				ops = append(ops, Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: k, Writer: id, Value: v})
				continue
			}
			if level == ReadCommitted && point < pos-1 {
				// A later read may see a later prefix (non-repeatable reads).
				point += rng.IntN(2)
			}
			ver := g.at(k, point)
			if ver.txn == Init {
				ops = append(ops, Op{Kind: OpRead, Flags: FlagTombstone, Key: k, Writer: Init})
				continue
			}
			ops = append(ops, Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: k, Writer: ver.txn, Value: ver.value})
		}
		b.setOps(id, ops)
		outcome := Committed
		if rng.Float64() < o.AbortRate {
			outcome = ClientAborted
		} else {
			for k, v := range own {
				g.versions[k] = append(g.versions[k], genVersion{pos: pos, txn: id, value: v})
			}
		}
		b.h.Txns[id].Outcome = outcome
		co = append(co, id)
		g.lastOwn[s] = pos
	}
	if o.CommitOrder {
		b.h.CommitOrder = co
	}
	return &b.h
}

func (o GenOptions) withDefaults() GenOptions {
	if o.Sessions <= 0 {
		o.Sessions = 8
	}
	if o.Txns < 0 {
		o.Txns = 0
	} else if o.Txns == 0 {
		o.Txns = 100
	}
	if o.OpsPerTxn <= 0 {
		o.OpsPerTxn = 8
	}
	if o.Keys <= 0 {
		o.Keys = max(4, o.Txns/4)
	}
	if o.ReadRatio == 0 {
		o.ReadRatio = 0.5
	}
	if o.Level == LevelUnknown || o.Level > Serializable {
		o.Level = Serializable
	}
	if o.MaxLag <= 0 {
		o.MaxLag = o.Sessions * 4
	}
	return o
}

type genVersion struct {
	pos   int
	txn   TxnID
	value int64
}

type genState struct {
	versions [][]genVersion // by key, in commit order
	next     []int64        // last value written, by key
	lastOwn  []int          // commit-order place of each session's last transaction
}

// at returns the latest version of k at or before commit-order place p.
func (g *genState) at(k KeyID, p int) genVersion {
	vs := g.versions[k]
	i := sort.Search(len(vs), func(i int) bool { return vs[i].pos > p })
	if i == 0 {
		return genVersion{txn: Init, value: -1}
	}
	return vs[i-1]
}
