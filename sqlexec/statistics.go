package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// ALTER TABLE ... ALTER COLUMN ... SET STATISTICS and ALTER INDEX ... ALTER
// COLUMN n SET STATISTICS set the target ANALYZE would sample a column by.
// fickle keeps no statistics, so the target changes no answer; it is kept
// for pg_attribute.attstattarget and psql's \d+ "Stats target", with
// PostgreSQL's checks (ATExecSetStatistics).

// statsTarget is a column's statistics target: unset reads as
// attstattarget -1, the default.
type statsTarget struct {
	n   int16
	set bool
}

// attstattarget is the target as pg_attribute shows it.
func (s statsTarget) attstattarget() int64 {
	if !s.set {
		return -1
	}
	return int64(s.n)
}

// maxStatsTarget is PostgreSQL's upper bound; larger targets are lowered to
// it with a warning.
const maxStatsTarget = 10000

// newStatsTarget checks SET STATISTICS's value as PostgreSQL does: below -1
// fails, above 10000 is lowered with a warning; -1 is the default.
func (d *ddl) newStatsTarget(cmd *pg_query.AlterTableCmd) (statsTarget, error) {
	n := cmd.Def.GetInteger().GetIval()
	switch {
	case n < -1:
		return statsTarget{}, pgerror.Newf(pgerror.InvalidParameterValue, "statistics target %d is too low", n)
	case n > maxStatsTarget:
		n = maxStatsTarget
		d.warning(pgerror.InvalidParameterValue, "lowering statistics target to %d", n)
	}
	if n == -1 {
		return statsTarget{}, nil
	}
	return statsTarget{n: int16(n), set: true}, nil
}

// setStatistics runs ALTER TABLE ... ALTER COLUMN ... SET STATISTICS on t.
func (d *ddl) setStatistics(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	if cmd.Name == "" {
		return pgerror.New(pgerror.FeatureNotSupported, "cannot refer to non-index column by number")
	}
	target, err := d.newStatsTarget(cmd)
	if err != nil {
		return err
	}
	if slices.Contains(systemColumnNames, cmd.Name) {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter system column \"%s\"", cmd.Name)
	}
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	nc := *t.cols[i]
	nc.stats = target
	t.cols[i] = &nc
	return nil
}

// setIndexStatistics runs ALTER INDEX ... ALTER COLUMN n SET STATISTICS on
// index ix of t (nil for a primary key without an indexDesc, whose columns
// are all plain): only an expression key takes a target.
func (d *ddl) setIndexStatistics(t *tableDesc, ix *indexDesc, name string, cmd *pg_query.AlterTableCmd) (*indexDesc, error) {
	target, err := d.newStatsTarget(cmd)
	if err != nil {
		return nil, err
	}
	keys, include := t.pk, []int(nil)
	if ix != nil {
		keys, include = ix.cols, ix.include
	}
	var names []string
	if ix != nil && ix.exprs != nil {
		names = indexColumnNames(append(ix.keyColumnNames(t), colNameList(t, include)...))
	} else {
		names = indexColumnNames(colNameList(t, append(slices.Clip(keys), include...)))
	}
	at := int(cmd.Num) - 1
	if cmd.Name != "" {
		at = slices.Index(names, cmd.Name)
		if at < 0 {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, name)
		}
	}
	switch {
	case at < 0 || at >= len(names):
		return nil, pgerror.Newf(pgerror.UndefinedColumn, "column number %d of relation \"%s\" does not exist", cmd.Num, name)
	case at >= len(keys):
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter statistics on included column \"%s\" of index \"%s\"", names[at], name)
	case ix == nil || !ix.isExprKey(at):
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter statistics on non-expression column \"%s\" of index \"%s\"", names[at], name).
			WithHint("Alter statistics on table column instead.")
	}
	nix := *ix
	nix.exprStats = make([]statsTarget, len(ix.cols))
	copy(nix.exprStats, ix.exprStats)
	nix.exprStats[at] = target
	return &nix, nil
}

// exprStatsAt is the statistics target of ix's key at position i.
func (ix *indexDesc) exprStatsAt(i int) statsTarget {
	if i < len(ix.exprStats) {
		return ix.exprStats[i]
	}
	return statsTarget{}
}
