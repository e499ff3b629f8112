package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/isolation"
)

// alterTableLockLevel is the table lock ALTER TABLE takes for its
// subcommands, the strongest any of them needs, as PostgreSQL's
// AlterTableGetLockLevel decides: settings that change how the table is
// kept, not what reads and writes see, take SHARE UPDATE EXCLUSIVE (which
// lets reads and writes go on), trigger switches and a new foreign key
// SHARE ROW EXCLUSIVE (which holds off writes), and every other
// subcommand ACCESS EXCLUSIVE. Where PostgreSQL takes a weaker lock for a
// subcommand not listed here (ATTACH PARTITION, ALTER CONSTRAINT), fickle
// takes ACCESS EXCLUSIVE.
func alterTableLockLevel(cmds []*pg_query.Node) isolation.TableLock {
	level := isolation.TableLockAccessShare
	for _, n := range cmds {
		level = max(level, alterCmdLockLevel(n.GetAlterTableCmd()))
	}
	return level
}

func alterCmdLockLevel(cmd *pg_query.AlterTableCmd) isolation.TableLock {
	switch cmd.GetSubtype() {
	case pg_query.AlterTableType_AT_SetStatistics, pg_query.AlterTableType_AT_ClusterOn, pg_query.AlterTableType_AT_DropCluster,
		pg_query.AlterTableType_AT_SetOptions, pg_query.AlterTableType_AT_ResetOptions, pg_query.AlterTableType_AT_ValidateConstraint:
		return isolation.TableLockShareUpdateExclusive
	case pg_query.AlterTableType_AT_SetRelOptions, pg_query.AlterTableType_AT_ResetRelOptions:
		for _, o := range cmd.GetDef().GetList().GetItems() {
			switch o.GetDefElem().GetDefname() {
			case "security_barrier", "security_invoker", "check_option", "user_catalog_table":
				return isolation.TableLockAccessExclusive
			}
		}
		return isolation.TableLockShareUpdateExclusive
	case pg_query.AlterTableType_AT_EnableTrig, pg_query.AlterTableType_AT_EnableAlwaysTrig, pg_query.AlterTableType_AT_EnableReplicaTrig,
		pg_query.AlterTableType_AT_EnableTrigAll, pg_query.AlterTableType_AT_EnableTrigUser, pg_query.AlterTableType_AT_DisableTrig,
		pg_query.AlterTableType_AT_DisableTrigAll, pg_query.AlterTableType_AT_DisableTrigUser:
		return isolation.TableLockShareRowExclusive
	case pg_query.AlterTableType_AT_AddConstraint:
		if c := cmd.GetDef().GetConstraint(); c != nil && c.Contype == pg_query.ConstrType_CONSTR_FOREIGN {
			return isolation.TableLockShareRowExclusive
		}
	}
	return isolation.TableLockAccessExclusive
}
