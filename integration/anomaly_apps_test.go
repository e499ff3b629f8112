package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fickle-db/fickle/isolation"
	"github.com/jackc/pgx/v5"
)

// appSeeds is how many adversarial seeds each application scenario tries:
// the wrong way must go wrong for one of them, the right way for none.
const appSeeds = 50

// maxRetries bounds an application's retry loop on 40001.
const maxRetries = 20

// appCase is an application doing something two ways: wrong (it relies on
// more isolation than it asked for) and right.
type appCase struct {
	name  string
	setup []string
	// rightRealTime runs the right way with Config.RealTime.
	rightRealTime bool
	// run plays the application on two connections and returns a
	// description of what went wrong, "" if nothing did. latest runs a
	// query returning one integer on a third connection that reads the
	// latest committed state (fickle.strategy latest), to judge the end
	// state without the adversary's help.
	run func(ctx context.Context, t *testing.T, c1, c2 *pgx.Conn, latest func(q string) int, right bool) string
}

// TestApplicationAnomaliesHappenAndRightPracticeAvoidsThem plays the
// anomalies applications meet, through pgx on two connections against
// in-process servers with the adversarial strategy: each one must happen
// for some seed of appSeeds when the application does it the wrong way,
// and for none when it does it right (SELECT ... FOR UPDATE, SERIALIZABLE
// with a retry loop on 40001, REPEATABLE READ, real time).
func TestApplicationAnomaliesHappenAndRightPracticeAvoidsThem(t *testing.T) {
	for _, ac := range appCases() {
		t.Run(ac.name, func(t *testing.T) {
			first := -1
			for seed := range appSeeds {
				if what := playApp(t, ac, seed, false); what != "" {
					first = seed
					t.Logf("wrong way, seed %d: %s", seed, what)
					break
				}
			}
			if first < 0 {
				t.Errorf("the wrong way never went wrong in %d seeds", appSeeds)
			}
			for seed := range appSeeds {
				if what := playApp(t, ac, seed, true); what != "" {
					t.Fatalf("the right way went wrong with seed %d: %s", seed, what)
				}
			}
		})
	}
}

// playApp runs one application case against a fresh server.
func playApp(t *testing.T, ac appCase, seed int, right bool) string {
	t.Helper()
	cfg := isolation.Config{Seed: uint64(seed), Strategy: isolation.StrategyAdversarial, RealTime: right && ac.rightRealTime}
	f := startInProcess(t, cfg)
	defer f.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, f.dsn)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	c1, c2 := conn(), conn()
	for _, q := range ac.setup {
		if _, err := c1.Exec(ctx, q); err != nil {
			t.Fatalf("setup %q: %v", q, err)
		}
	}
	f.checkpoint(t)
	judge := conn()
	if _, err := judge.Exec(ctx, "SET fickle.strategy = 'latest'"); err != nil {
		t.Fatal(err)
	}
	latest := func(q string) int {
		var n int
		inTxn(ctx, t, judge, pgx.ReadCommitted, false, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, q).Scan(&n)
		})
		return n
	}
	what := ac.run(ctx, t, c1, c2, latest, right)
	for _, c := range []*pgx.Conn{c1, c2, judge} {
		c.Close(ctx)
	}
	f.checkHistory(t, cfg.RealTime, fmt.Sprintf("%s seed %d right=%v", ac.name, seed, right))
	return what
}

// inTxn runs fn in a transaction at level; with retry it starts over on
// 40001 (serialization failure), as an application should at SERIALIZABLE.
func inTxn(ctx context.Context, t *testing.T, c *pgx.Conn, level pgx.TxIsoLevel, retry bool, fn func(tx pgx.Tx) error) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		err := pgx.BeginTxFunc(ctx, c, pgx.TxOptions{IsoLevel: level}, fn)
		if err == nil {
			return
		}
		if retry && sqlState(err) == "40001" && attempt < maxRetries {
			continue
		}
		t.Fatalf("transaction at %s (attempt %d): %v", level, attempt+1, err)
	}
}

// queryInt runs a query returning one integer.
func queryInt(ctx context.Context, tx pgx.Tx, q string, args ...any) (int, error) {
	var n int
	err := tx.QueryRow(ctx, q, args...).Scan(&n)
	return n, err
}

func appCases() []appCase {
	return []appCase{
		{
			// Two workers increment a counter by reading it and writing
			// back n+1 at READ COMMITTED: one increment is lost when the
			// second reads a value the first already replaced. FOR UPDATE
			// reads the latest version and holds it.
			name:  "lost-update-on-a-counter",
			setup: []string{"CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)", "INSERT INTO counters VALUES (1, 0)"},
			run: func(ctx context.Context, t *testing.T, c1, c2 *pgx.Conn, latest func(string) int, right bool) string {
				read := "SELECT n FROM counters WHERE id = 1"
				if right {
					read += " FOR UPDATE"
				}
				for _, c := range []*pgx.Conn{c1, c2} {
					inTxn(ctx, t, c, pgx.ReadCommitted, false, func(tx pgx.Tx) error {
						n, err := queryInt(ctx, tx, read)
						if err != nil {
							return err
						}
						_, err = tx.Exec(ctx, "UPDATE counters SET n = $1 WHERE id = 1", n+1)
						return err
					})
				}
				if n := latest("SELECT n FROM counters WHERE id = 1"); n != 2 {
					return fmt.Sprintf("the counter is %d after two increments", n)
				}
				return ""
			},
		},
		{
			// Two on-call doctors each go off call if the other is still
			// on call, at REPEATABLE READ: both check, both leave, nobody
			// is on call. SERIALIZABLE with a retry loop keeps one.
			name:  "write-skew-on-call-doctors",
			setup: []string{"CREATE TABLE doctors (name text PRIMARY KEY, on_call bool NOT NULL)", "INSERT INTO doctors VALUES ('alice', true), ('bob', true)"},
			run: func(ctx context.Context, t *testing.T, c1, c2 *pgx.Conn, latest func(string) int, right bool) string {
				level := pgx.RepeatableRead
				if right {
					level = pgx.Serializable
				}
				for i, c := range []*pgx.Conn{c1, c2} {
					me := []string{"alice", "bob"}[i]
					inTxn(ctx, t, c, level, right, func(tx pgx.Tx) error {
						n, err := queryInt(ctx, tx, "SELECT count(*) FROM doctors WHERE on_call")
						if err != nil || n < 2 {
							return err
						}
						_, err = tx.Exec(ctx, "UPDATE doctors SET on_call = false WHERE name = $1", me)
						return err
					})
				}
				n := latest("SELECT count(*) FROM doctors WHERE on_call")
				if n < 1 {
					return fmt.Sprintf("%d doctors on call", n)
				}
				return ""
			},
		},
		{
			// Two clerks book room 1 for the same day after checking with
			// a range read that it is free, at REPEATABLE READ: the second
			// check misses the first booking (a phantom) and the room is
			// booked twice. SERIALIZABLE with a retry loop books it once.
			name:  "phantom-double-booking",
			setup: []string{"CREATE TABLE bookings (id int PRIMARY KEY, room int NOT NULL, day int NOT NULL, who text NOT NULL)", "INSERT INTO bookings VALUES (1, 2, 7, 'carol')"},
			run: func(ctx context.Context, t *testing.T, c1, c2 *pgx.Conn, latest func(string) int, right bool) string {
				level := pgx.RepeatableRead
				if right {
					level = pgx.Serializable
				}
				for i, c := range []*pgx.Conn{c1, c2} {
					inTxn(ctx, t, c, level, right, func(tx pgx.Tx) error {
						n, err := queryInt(ctx, tx, "SELECT count(*) FROM bookings WHERE room = 1 AND day BETWEEN 5 AND 9")
						if err != nil || n > 0 {
							return err
						}
						_, err = tx.Exec(ctx, "INSERT INTO bookings VALUES ($1, 1, 7, $2)", 10+i, fmt.Sprint("clerk", i))
						return err
					})
				}
				if n := latest("SELECT count(*) FROM bookings WHERE room = 1 AND day = 7"); n != 1 {
					return fmt.Sprintf("room 1 booked %d times on day 7", n)
				}
				return ""
			},
		},
		{
			// A transfer moves 10 between two accounts while a report sums
			// them with two reads at READ COMMITTED: the total is off (read
			// skew). At REPEATABLE READ the report sees one snapshot.
			name:  "read-skew-between-two-accounts",
			setup: []string{"CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)", "INSERT INTO accounts VALUES (1, 50), (2, 50)"},
			run: func(ctx context.Context, t *testing.T, c1, c2 *pgx.Conn, latest func(string) int, right bool) string {
				level := pgx.ReadCommitted
				if right {
					level = pgx.RepeatableRead
				}
				var a, b int
				inTxn(ctx, t, c2, level, false, func(tx pgx.Tx) error {
					var err error
					if a, err = queryInt(ctx, tx, "SELECT balance FROM accounts WHERE id = 1"); err != nil {
						return err
					}
					inTxn(ctx, t, c1, pgx.Serializable, false, func(tx pgx.Tx) error {
						if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 10 WHERE id = 1"); err != nil {
							return err
						}
						_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 10 WHERE id = 2")
						return err
					})
					b, err = queryInt(ctx, tx, "SELECT balance FROM accounts WHERE id = 2")
					return err
				})
				if a+b != 100 {
					return fmt.Sprintf("the report's total is %d+%d=%d, not 100", a, b, a+b)
				}
				return ""
			},
		},
		{
			// A report reads a price twice in one transaction at READ
			// COMMITTED while another connection changes it: the two
			// reads differ. At REPEATABLE READ they agree.
			name:  "non-repeatable-read",
			setup: []string{"CREATE TABLE prices (item text PRIMARY KEY, cents int NOT NULL)", "INSERT INTO prices VALUES ('tea', 300)"},
			run: func(ctx context.Context, t *testing.T, c1, c2 *pgx.Conn, latest func(string) int, right bool) string {
				level := pgx.ReadCommitted
				if right {
					level = pgx.RepeatableRead
				}
				var first, second int
				inTxn(ctx, t, c2, level, false, func(tx pgx.Tx) error {
					var err error
					if first, err = queryInt(ctx, tx, "SELECT cents FROM prices WHERE item = 'tea'"); err != nil {
						return err
					}
					inTxn(ctx, t, c1, pgx.ReadCommitted, false, func(tx pgx.Tx) error {
						_, err := tx.Exec(ctx, "UPDATE prices SET cents = 350 WHERE item = 'tea'")
						return err
					})
					second, err = queryInt(ctx, tx, "SELECT cents FROM prices WHERE item = 'tea'")
					return err
				})
				if first != second {
					return fmt.Sprintf("the price read %d then %d in one transaction", first, second)
				}
				return ""
			},
		},
		{
			// Connection A saves a profile and commits; connection B then
			// loads it, even at SERIALIZABLE, and may see the old one:
			// without real time a serializable order may put B first.
			// With real time (--realtime) B sees every earlier commit.
			name:          "stale-read-across-connections",
			setup:         []string{"CREATE TABLE profiles (id int PRIMARY KEY, email text NOT NULL)", "INSERT INTO profiles VALUES (1, 'old@example.com')"},
			rightRealTime: true,
			run: func(ctx context.Context, t *testing.T, c1, c2 *pgx.Conn, latest func(string) int, right bool) string {
				inTxn(ctx, t, c1, pgx.Serializable, false, func(tx pgx.Tx) error {
					_, err := tx.Exec(ctx, "UPDATE profiles SET email = 'new@example.com' WHERE id = 1")
					return err
				})
				var email string
				inTxn(ctx, t, c2, pgx.Serializable, false, func(tx pgx.Tx) error {
					return tx.QueryRow(ctx, "SELECT email FROM profiles WHERE id = 1").Scan(&email)
				})
				if email != "new@example.com" {
					return fmt.Sprintf("B read %q after A committed new@example.com", email)
				}
				return ""
			},
		},
	}
}
