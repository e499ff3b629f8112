package sqlexec

import (
	"context"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// copyDatabase fills the new database e with a copy of template's objects
// and rows, as CREATE DATABASE ... TEMPLATE copies the template's files
// (Django's parallel test runner clones its test database so). Objects
// keep their OIDs, as in PostgreSQL; each table gets its own rows in the
// store, written by one transaction that reads the template's latest rows
// (no one else is connected to the template: createDatabase checked), so
// the history shows where they came from. Sequences continue from the
// template's values. The caller holds the cluster's lock.
func copyDatabase(e, template *Engine) error {
	src, _ := template.published()
	dst := src.clone()
	for _, sc := range dst.schemas {
		for name, q := range sc.seqs {
			sc.seqs[name] = q.copy()
		}
	}
	store := e.store
	sess := store.NewSession()
	defer sess.Close()
	txn, err := sess.Begin(isolation.TxnOptions{Level: history.ReadCommitted, Strategy: isolation.StrategyLatest})
	if err != nil {
		return err
	}
	txn.Statement(history.Statement{SQL: "CREATE DATABASE " + e.Name() + " TEMPLATE " + template.Name()})
	ctx := context.Background()
	for _, t := range sortedTables(src) {
		nt := t.clone()
		nt.storedKey = nil // the copy's rows get new hidden row ids
		id, err := e.createStoreTable(nt, e.cluster.storeNameLocked(storeBase(e, t.schema, t.name)))
		if err != nil {
			_ = txn.Rollback()
			return err
		}
		nt.id = id
		sc := dst.schemas[t.schema]
		for i, ix := range t.indexes {
			nix := *ix
			if nix.id, err = store.CreateIndex(id, indexSpec(nt, &nix)); err != nil {
				_ = txn.Rollback()
				return err
			}
			nt.indexes[i] = &nix
			sc.indexes[nix.name] = &nix
			if t.pkIndex == ix {
				nt.pkIndex = &nix
			}
		}
		dst.putTable(nt)
		type keyed struct {
			key []byte
			row []any
		}
		var rows []keyed
		err = txn.Scan(ctx, t.id, isolation.Span{}, isolation.ReadOptions{Latest: true}, func(key []byte, row []any) (bool, error) {
			rows = append(rows, keyed{append([]byte(nil), key...), append([]any(nil), row...)})
			return true, nil
		})
		for _, r := range rows {
			if err != nil {
				break
			}
			key := r.key
			if nt.hidden {
				key = nil // a new hidden row id
			}
			_, err = txn.Insert(ctx, id, key, r.row)
		}
		if err != nil {
			_ = txn.Rollback()
			return err
		}
	}
	if err := txn.Commit(ctx); err != nil {
		return err
	}
	e.cat.publish(dst, e.cluster.versions.Add(1))
	return nil
}
