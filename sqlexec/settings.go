package sqlexec

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgencoding"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// settingDef describes a session setting (a GUC): its default, whether the
// server reports it with ParameterStatus, when it may change, and how SET
// normalises its value.
type settingDef struct {
	name     string // canonical spelling, as SHOW ALL and ParameterStatus print it
	def      string
	reported bool
	context  settingContext
	// normalize checks and canonicalises a new value; nil accepts any text.
	normalize func(string) (string, error)
}

// settingContext is when a parameter may change, as pg_settings.context
// tells PostgreSQL's apart. A session may SET only ctxUser parameters;
// SET and RESET of the others fail with 55P02 and the message PostgreSQL
// gives for their context.
type settingContext int

const (
	ctxUser       settingContext = iota // user and superuser: SET changes it
	ctxInternal                         // fixed when PostgreSQL was built or the cluster initialised
	ctxPostmaster                       // set at server start
	ctxSighup                           // set in the configuration file, reread on SIGHUP
	ctxBackend                          // backend and superuser-backend: set at connection start
)

// readOnly reports whether a session cannot change the parameter.
func (d *settingDef) readOnly() bool { return d.context != ctxUser }

// cannotChange is PostgreSQL's error for SET or RESET of a parameter a
// session cannot change.
func (d *settingDef) cannotChange() error {
	why := map[settingContext]string{ctxInternal: "cannot be changed", ctxPostmaster: "cannot be changed without restarting the server",
		ctxSighup: "cannot be changed now", ctxBackend: "cannot be set after connection start"}[d.context]
	return pgerror.Newf(pgerror.CantChangeRuntimeParam, "parameter \"%s\" %s", d.name, why)
}

// fixedSetting is a parameter of context ctx that sessions cannot change,
// with the value SHOW gives on a server initdb made.
func fixedSetting(ctx settingContext, name, value string) *settingDef {
	return &settingDef{name: name, def: value, context: ctx}
}

// settingDefs lists the settings fickle knows, by lower-case name.
var settingDefs = func() map[string]*settingDef {
	defs := []*settingDef{
		{name: "server_version", def: "15.0", reported: true, context: ctxInternal},
		{name: "server_version_num", def: "150000", context: ctxInternal},
		{name: "server_encoding", def: "UTF8", reported: true, context: ctxInternal},
		{name: "client_encoding", def: "UTF8", reported: true, normalize: normEncoding},
		{name: "DateStyle", def: "ISO, MDY", reported: true, normalize: normDateStyle},
		{name: "IntervalStyle", def: "postgres", reported: true, normalize: normIntervalStyle},
		{name: "TimeZone", def: "UTC", reported: true, normalize: normTimeZone},
		{name: "integer_datetimes", def: "on", reported: true, context: ctxInternal},
		{name: "standard_conforming_strings", def: "on", reported: true, normalize: normBool},
		{name: "is_superuser", def: "on", reported: true, context: ctxInternal},
		{name: "session_authorization", def: "postgres", reported: true, context: ctxInternal},
		{name: "role", def: "none", context: ctxInternal},
		{name: "application_name", def: "", reported: true},
		{name: "default_transaction_read_only", def: "off", reported: true, normalize: normBool},
		{name: "in_hot_standby", def: "off", reported: true, context: ctxInternal},
		{name: "search_path", def: `"$user", public`},
		{name: "statement_timeout", def: "0", normalize: normDuration},
		{name: "lock_timeout", def: "0", normalize: normDuration},
		{name: "idle_in_transaction_session_timeout", def: "0", normalize: normDuration},
		{name: "idle_session_timeout", def: "0", normalize: normDuration},
		{name: "default_transaction_isolation", def: "read committed", normalize: normIsolation},
		{name: "default_transaction_deferrable", def: "off", normalize: normBool},
		{name: "extra_float_digits", def: "1", normalize: normIntRange(-15, 3)},
		{name: "client_min_messages", def: "notice", normalize: normOneOf("debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error")},
		{name: "bytea_output", def: "hex", normalize: normOneOf("hex", "escape")},
		{name: "max_identifier_length", def: "63", context: ctxInternal},
		enumSetting("synchronous_commit", "on", "local", "remote_write", "remote_apply", "on", "off"),
		boolSetting("row_security", "on"),
		{name: "lc_messages", def: "C"},
		{name: "lc_monetary", def: "C", normalize: normCLocale("lc_monetary")},
		{name: "lc_numeric", def: "C", normalize: normCLocale("lc_numeric")},
		{name: "lc_time", def: "C", normalize: normCLocale("lc_time")},
		{name: "datestyle_order", def: "MDY", context: ctxInternal},
		{name: "timezone_abbreviations", def: "Default"},
		{name: "fickle.isolation", def: "", normalize: normFickleLevel},
		{name: "fickle.strategy", def: "adversarial", normalize: normOneOf("adversarial", "latest", "random", "oldest")},
		{name: "fickle.session", def: ""},
		// default_with_oids is gone from PostgreSQL 12 on but still
		// accepts off, which old dumps set.
		{name: "default_with_oids", def: "off", normalize: normWithoutOids},

		// The rest of PostgreSQL 15's parameters a session may set: they
		// tune its planner, executor, storage, logging and protocol, none
		// of which fickle has, so they change nothing but what SHOW
		// answers. Their values are checked as PostgreSQL checks them.
		// Those whose other values would change the meaning of queries
		// accept only their default.
		boolSetting("allow_in_place_tablespaces", "off"),
		boolSetting("allow_system_table_mods", "off"),
		boolSetting("array_nulls", "on"),
		intSetting("backend_flush_after", "0", unitBlocks, 0, 256),
		enumSetting("backslash_quote", "safe_encoding", "safe_encoding", "on", "off"),
		textSetting("backtrace_functions", ""),
		boolSetting("check_function_bodies", "on"),
		intSetting("client_connection_check_interval", "0", unitMS, 0, 2147483647),
		intSetting("commit_delay", "0", unitNone, 0, 100000),
		intSetting("commit_siblings", "5", unitNone, 0, 1000),
		enumSetting("compute_query_id", "auto", "auto", "regress", "on", "off"),
		enumSetting("constraint_exclusion", "partition", "partition", "on", "off"),
		realSetting("cpu_index_tuple_cost", "0.005", unitNone, 0, 1.79769e+308),
		realSetting("cpu_operator_cost", "0.0025", unitNone, 0, 1.79769e+308),
		realSetting("cpu_tuple_cost", "0.01", unitNone, 0, 1.79769e+308),
		realSetting("cursor_tuple_fraction", "0.1", unitNone, 0, 1),
		intSetting("deadlock_timeout", "1s", unitMS, 1, 2147483647),
		intSetting("debug_discard_caches", "0", unitNone, 0, 0),
		boolSetting("debug_pretty_print", "on"),
		boolSetting("debug_print_parse", "off"),
		boolSetting("debug_print_plan", "off"),
		boolSetting("debug_print_rewritten", "off"),
		intSetting("default_statistics_target", "100", unitNone, 1, 10000),
		{name: "default_table_access_method", def: "heap", normalize: normNamedObject("default_table_access_method", "Table access method", "heap")},
		{name: "default_tablespace", def: "", normalize: normNamedObject("default_tablespace", "Tablespace", "", "pg_default", "pg_global")},
		{name: "default_text_search_config", def: "pg_catalog.english", normalize: normTextSearchConfig},
		enumSetting("default_toast_compression", "pglz", "pglz", "lz4"),
		textSetting("dynamic_library_path", "$libdir"),
		intSetting("effective_cache_size", "4GB", unitBlocks, 1, 2147483647),
		intSetting("effective_io_concurrency", "1", unitNone, 0, 1000),
		boolSetting("enable_async_append", "on"),
		boolSetting("enable_bitmapscan", "on"),
		boolSetting("enable_gathermerge", "on"),
		boolSetting("enable_hashagg", "on"),
		boolSetting("enable_hashjoin", "on"),
		boolSetting("enable_incremental_sort", "on"),
		boolSetting("enable_indexonlyscan", "on"),
		boolSetting("enable_indexscan", "on"),
		boolSetting("enable_material", "on"),
		boolSetting("enable_memoize", "on"),
		boolSetting("enable_mergejoin", "on"),
		boolSetting("enable_nestloop", "on"),
		boolSetting("enable_parallel_append", "on"),
		boolSetting("enable_parallel_hash", "on"),
		boolSetting("enable_partition_pruning", "on"),
		boolSetting("enable_partitionwise_aggregate", "off"),
		boolSetting("enable_partitionwise_join", "off"),
		boolSetting("enable_seqscan", "on"),
		boolSetting("enable_sort", "on"),
		boolSetting("enable_tidscan", "on"),
		boolSetting("escape_string_warning", "on"),
		{name: "exit_on_error", def: "off", normalize: normOnly("exit_on_error", "off")},
		textSetting("extension_destdir", ""),
		enumSetting("force_parallel_mode", "off", "off", "on", "regress"),
		intSetting("from_collapse_limit", "8", unitNone, 1, 2147483647),
		boolSetting("geqo", "on"),
		intSetting("geqo_effort", "5", unitNone, 1, 10),
		intSetting("geqo_generations", "0", unitNone, 0, 2147483647),
		intSetting("geqo_pool_size", "0", unitNone, 0, 2147483647),
		realSetting("geqo_seed", "0", unitNone, 0, 1),
		realSetting("geqo_selection_bias", "2", unitNone, 1.5, 2),
		intSetting("geqo_threshold", "12", unitNone, 2, 2147483647),
		intSetting("gin_fuzzy_search_limit", "0", unitNone, 0, 2147483647),
		intSetting("gin_pending_list_limit", "4MB", unitKB, 64, 2147483647),
		realSetting("hash_mem_multiplier", "2", unitNone, 1, 1000),
		boolSetting("ignore_checksum_failure", "off"),
		boolSetting("jit", "on"),
		realSetting("jit_above_cost", "100000", unitNone, -1, 1.79769e+308),
		boolSetting("jit_dump_bitcode", "off"),
		boolSetting("jit_expressions", "on"),
		realSetting("jit_inline_above_cost", "500000", unitNone, -1, 1.79769e+308),
		realSetting("jit_optimize_above_cost", "500000", unitNone, -1, 1.79769e+308),
		boolSetting("jit_tuple_deforming", "on"),
		intSetting("join_collapse_limit", "8", unitNone, 1, 2147483647),
		boolSetting("lo_compat_privileges", "off"),
		textSetting("local_preload_libraries", ""),
		boolSetting("log_duration", "off"),
		enumSetting("log_error_verbosity", "default", "terse", "default", "verbose"),
		boolSetting("log_executor_stats", "off"),
		boolSetting("log_lock_waits", "off"),
		intSetting("log_min_duration_sample", "-1", unitMS, -1, 2147483647),
		intSetting("log_min_duration_statement", "-1", unitMS, -1, 2147483647),
		enumSetting("log_min_error_statement", "error", "debug5", "debug4", "debug3", "debug2", "debug1", "info", "notice", "warning", "error", "log", "fatal", "panic"),
		enumSetting("log_min_messages", "warning", "debug5", "debug4", "debug3", "debug2", "debug1", "info", "notice", "warning", "error", "log", "fatal", "panic"),
		intSetting("log_parameter_max_length", "-1", unitBytes, -1, 1073741823),
		intSetting("log_parameter_max_length_on_error", "0", unitBytes, -1, 1073741823),
		boolSetting("log_parser_stats", "off"),
		boolSetting("log_planner_stats", "off"),
		boolSetting("log_replication_commands", "off"),
		enumSetting("log_statement", "none", "none", "ddl", "mod", "all"),
		realSetting("log_statement_sample_rate", "1", unitNone, 0, 1),
		boolSetting("log_statement_stats", "off"),
		intSetting("log_temp_files", "-1", unitKB, -1, 2147483647),
		realSetting("log_transaction_sample_rate", "0", unitNone, 0, 1),
		intSetting("logical_decoding_work_mem", "64MB", unitKB, 64, 2147483647),
		intSetting("maintenance_io_concurrency", "10", unitNone, 0, 1000),
		intSetting("maintenance_work_mem", "64MB", unitKB, 1024, 2147483647),
		intSetting("max_parallel_maintenance_workers", "2", unitNone, 0, 1024),
		intSetting("max_parallel_workers", "8", unitNone, 0, 1024),
		intSetting("max_parallel_workers_per_gather", "2", unitNone, 0, 1024),
		intSetting("max_stack_depth", "2MB", unitKB, 100, 2147483647),
		intSetting("min_parallel_index_scan_size", "512kB", unitBlocks, 0, 715827882),
		intSetting("min_parallel_table_scan_size", "8MB", unitBlocks, 0, 715827882),
		boolSetting("parallel_leader_participation", "on"),
		realSetting("parallel_setup_cost", "1000", unitNone, 0, 1.79769e+308),
		realSetting("parallel_tuple_cost", "0.1", unitNone, 0, 1.79769e+308),
		enumSetting("password_encryption", "scram-sha-256", "md5", "scram-sha-256"),
		enumSetting("plan_cache_mode", "auto", "auto", "force_generic_plan", "force_custom_plan"),
		// PL/pgSQL's own: fickle's PL/pgSQL always checks ASSERT and
		// reports a name that is both a variable and a column as
		// ambiguous, so only those values are taken; of the extra checks
		// it makes those of plpgsql_extra_checks.go.
		{name: "plpgsql.check_asserts", def: "on", normalize: normOnly("plpgsql.check_asserts", "on")},
		{name: "plpgsql.extra_errors", def: "none", normalize: normPlExtraChecks("plpgsql.extra_errors", true)},
		{name: "plpgsql.extra_warnings", def: "none", normalize: normPlExtraChecks("plpgsql.extra_warnings", false)},
		boolSetting("plpgsql.print_strict_params", "off"),
		{name: "plpgsql.variable_conflict", def: "error", normalize: normOnly("plpgsql.variable_conflict", "error")},
		boolSetting("quote_all_identifiers", "off"),
		realSetting("random_page_cost", "4", unitNone, 0, 1.79769e+308),
		realSetting("recursive_worktable_factor", "10", unitNone, 0.001, 1e+06),
		{name: "restrict_nonsystem_relation_kind", def: "", normalize: normRestrictRelationKind},
		realSetting("seq_page_cost", "1", unitNone, 0, 1.79769e+308),
		textSetting("session_preload_libraries", ""),
		enumSetting("session_replication_role", "origin", "origin", "replica", "local"),
		enumSetting("stats_fetch_consistency", "cache", "none", "cache", "snapshot"),
		boolSetting("synchronize_seqscans", "on"),
		intSetting("tcp_keepalives_count", "0", unitNone, 0, 2147483647),
		intSetting("tcp_keepalives_idle", "0", unitS, 0, 2147483647),
		intSetting("tcp_keepalives_interval", "0", unitS, 0, 2147483647),
		intSetting("tcp_user_timeout", "0", unitMS, 0, 2147483647),
		intSetting("temp_buffers", "8MB", unitBlocks, 100, 1073741823),
		intSetting("temp_file_limit", "-1", unitKB, -1, 2147483647),
		textSetting("temp_tablespaces", ""),
		boolSetting("trace_notify", "off"),
		boolSetting("trace_sort", "off"),
		boolSetting("track_activities", "on"),
		boolSetting("track_counts", "off"),
		enumSetting("track_functions", "none", "none", "pl", "all"),
		boolSetting("track_io_timing", "off"),
		boolSetting("track_wal_io_timing", "off"),
		{name: "transform_null_equals", def: "off", normalize: normOnly("transform_null_equals", "off")},
		boolSetting("update_process_title", "on"),
		realSetting("vacuum_cost_delay", "0", unitMS, 0, 100),
		intSetting("vacuum_cost_limit", "200", unitNone, 1, 10000),
		intSetting("vacuum_cost_page_dirty", "20", unitNone, 0, 10000),
		intSetting("vacuum_cost_page_hit", "1", unitNone, 0, 10000),
		intSetting("vacuum_cost_page_miss", "2", unitNone, 0, 10000),
		intSetting("vacuum_failsafe_age", "1600000000", unitNone, 0, 2100000000),
		intSetting("vacuum_freeze_min_age", "50000000", unitNone, 0, 1000000000),
		intSetting("vacuum_freeze_table_age", "150000000", unitNone, 0, 2000000000),
		intSetting("vacuum_multixact_failsafe_age", "1600000000", unitNone, 0, 2100000000),
		intSetting("vacuum_multixact_freeze_min_age", "5000000", unitNone, 0, 1000000000),
		intSetting("vacuum_multixact_freeze_table_age", "150000000", unitNone, 0, 2000000000),
		enumSetting("wal_compression", "off", "pglz", "lz4", "zstd", "on", "off"),
		textSetting("wal_consistency_checking", ""),
		boolSetting("wal_init_zero", "on"),
		boolSetting("wal_recycle", "on"),
		intSetting("wal_sender_timeout", "1min", unitMS, 0, 2147483647),
		intSetting("wal_skip_threshold", "2MB", unitKB, 0, 2147483647),
		intSetting("work_mem", "4MB", unitKB, 64, 2147483647),
		enumSetting("xmlbinary", "base64", "base64", "hex"),
		enumSetting("xmloption", "content", "content", "document"),
		boolSetting("zero_damaged_pages", "off"),

		// PostgreSQL 15's parameters a session can show but not set,
		// which tools and drivers ask for: fixed when the server was built
		// or initialised, set at its start, in its configuration file, or
		// at connection start. Their values are those of a server initdb
		// made; those that name files, ports or the machine are left out.
		fixedSetting(ctxInternal, "block_size", "8192"),
		fixedSetting(ctxInternal, "data_checksums", "off"),
		fixedSetting(ctxInternal, "data_directory_mode", "0700"),
		fixedSetting(ctxInternal, "debug_assertions", "off"),
		fixedSetting(ctxInternal, "lc_collate", "C"),
		fixedSetting(ctxInternal, "lc_ctype", "C"),
		fixedSetting(ctxInternal, "max_function_args", "100"),
		fixedSetting(ctxInternal, "max_index_keys", "32"),
		fixedSetting(ctxInternal, "segment_size", "1GB"),
		fixedSetting(ctxInternal, "wal_block_size", "8192"),
		fixedSetting(ctxInternal, "wal_segment_size", "16MB"),
		fixedSetting(ctxPostmaster, "archive_mode", "off"),
		fixedSetting(ctxPostmaster, "autovacuum_freeze_max_age", "200000000"),
		fixedSetting(ctxPostmaster, "autovacuum_max_workers", "3"),
		fixedSetting(ctxPostmaster, "autovacuum_multixact_freeze_max_age", "400000000"),
		fixedSetting(ctxPostmaster, "cluster_name", ""),
		fixedSetting(ctxPostmaster, "dynamic_shared_memory_type", "posix"),
		fixedSetting(ctxPostmaster, "hot_standby", "on"),
		fixedSetting(ctxPostmaster, "huge_pages", "try"),
		fixedSetting(ctxPostmaster, "logging_collector", "off"),
		fixedSetting(ctxPostmaster, "max_connections", "100"),
		fixedSetting(ctxPostmaster, "max_files_per_process", "1000"),
		fixedSetting(ctxPostmaster, "max_locks_per_transaction", "64"),
		fixedSetting(ctxPostmaster, "max_logical_replication_workers", "4"),
		fixedSetting(ctxPostmaster, "max_pred_locks_per_transaction", "64"),
		fixedSetting(ctxPostmaster, "max_prepared_transactions", "0"),
		fixedSetting(ctxPostmaster, "max_replication_slots", "10"),
		fixedSetting(ctxPostmaster, "max_wal_senders", "10"),
		fixedSetting(ctxPostmaster, "max_worker_processes", "8"),
		fixedSetting(ctxPostmaster, "old_snapshot_threshold", "-1"),
		fixedSetting(ctxPostmaster, "shared_buffers", "128MB"),
		fixedSetting(ctxPostmaster, "shared_memory_type", "mmap"),
		fixedSetting(ctxPostmaster, "shared_preload_libraries", ""),
		fixedSetting(ctxPostmaster, "superuser_reserved_connections", "3"),
		fixedSetting(ctxPostmaster, "track_activity_query_size", "1kB"),
		fixedSetting(ctxPostmaster, "track_commit_timestamp", "off"),
		fixedSetting(ctxPostmaster, "wal_buffers", "4MB"),
		fixedSetting(ctxPostmaster, "wal_level", "replica"),
		fixedSetting(ctxPostmaster, "wal_log_hints", "off"),
		fixedSetting(ctxSighup, "archive_command", "(disabled)"),
		fixedSetting(ctxSighup, "archive_timeout", "0"),
		fixedSetting(ctxSighup, "authentication_timeout", "1min"),
		fixedSetting(ctxSighup, "autovacuum", "on"),
		fixedSetting(ctxSighup, "autovacuum_analyze_scale_factor", "0.1"),
		fixedSetting(ctxSighup, "autovacuum_analyze_threshold", "50"),
		fixedSetting(ctxSighup, "autovacuum_naptime", "1min"),
		fixedSetting(ctxSighup, "autovacuum_vacuum_cost_delay", "2ms"),
		fixedSetting(ctxSighup, "autovacuum_vacuum_cost_limit", "-1"),
		fixedSetting(ctxSighup, "autovacuum_vacuum_scale_factor", "0.2"),
		fixedSetting(ctxSighup, "autovacuum_vacuum_threshold", "50"),
		fixedSetting(ctxSighup, "autovacuum_work_mem", "-1"),
		fixedSetting(ctxSighup, "bgwriter_delay", "200ms"),
		fixedSetting(ctxSighup, "checkpoint_completion_target", "0.9"),
		fixedSetting(ctxSighup, "checkpoint_timeout", "5min"),
		fixedSetting(ctxSighup, "checkpoint_warning", "30s"),
		fixedSetting(ctxSighup, "fsync", "on"),
		fixedSetting(ctxSighup, "full_page_writes", "on"),
		fixedSetting(ctxSighup, "hot_standby_feedback", "off"),
		fixedSetting(ctxSighup, "log_checkpoints", "on"),
		fixedSetting(ctxSighup, "log_destination", "stderr"),
		fixedSetting(ctxSighup, "log_line_prefix", "%m [%p] "),
		fixedSetting(ctxSighup, "max_wal_size", "1GB"),
		fixedSetting(ctxSighup, "min_wal_size", "80MB"),
		fixedSetting(ctxSighup, "primary_conninfo", ""),
		fixedSetting(ctxSighup, "restart_after_crash", "on"),
		fixedSetting(ctxSighup, "ssl", "off"),
		fixedSetting(ctxSighup, "synchronous_standby_names", ""),
		fixedSetting(ctxSighup, "wal_keep_size", "0"),
		fixedSetting(ctxSighup, "wal_sync_method", "fdatasync"),
		fixedSetting(ctxSighup, "wal_writer_delay", "200ms"),
		fixedSetting(ctxBackend, "ignore_system_indexes", "off"),
		fixedSetting(ctxBackend, "log_connections", "off"),
		fixedSetting(ctxBackend, "log_disconnections", "off"),
		fixedSetting(ctxBackend, "post_auth_delay", "0"),
		// The server-side parameters a client may read but fickle has no
		// use for (logging, recovery, SSL files, ...), at PostgreSQL 15's
		// defaults; fickle serves no Unix sockets. The server sets port,
		// listen_addresses, max_connections and ssl from its own
		// configuration (SessionInfo.ServerSettings).
		fixedSetting(ctxPostmaster, "bonjour", "off"),
		fixedSetting(ctxPostmaster, "bonjour_name", ""),
		fixedSetting(ctxPostmaster, "data_sync_retry", "off"),
		fixedSetting(ctxPostmaster, "event_source", "PostgreSQL"),
		fixedSetting(ctxPostmaster, "external_pid_file", ""),
		fixedSetting(ctxPostmaster, "huge_page_size", "0"),
		fixedSetting(ctxPostmaster, "ignore_invalid_pages", "off"),
		fixedSetting(ctxPostmaster, "jit_provider", "llvmjit"),
		fixedSetting(ctxPostmaster, "listen_addresses", "localhost"),
		fixedSetting(ctxPostmaster, "min_dynamic_shared_memory", "0"),
		fixedSetting(ctxPostmaster, "port", "5432"),
		fixedSetting(ctxPostmaster, "recovery_target", ""),
		fixedSetting(ctxPostmaster, "recovery_target_action", "pause"),
		fixedSetting(ctxPostmaster, "recovery_target_inclusive", "on"),
		fixedSetting(ctxPostmaster, "recovery_target_lsn", ""),
		fixedSetting(ctxPostmaster, "recovery_target_name", ""),
		fixedSetting(ctxPostmaster, "recovery_target_time", ""),
		fixedSetting(ctxPostmaster, "recovery_target_timeline", "latest"),
		fixedSetting(ctxPostmaster, "recovery_target_xid", ""),
		fixedSetting(ctxPostmaster, "unix_socket_directories", ""),
		fixedSetting(ctxPostmaster, "unix_socket_group", ""),
		fixedSetting(ctxPostmaster, "unix_socket_permissions", "0777"),
		fixedSetting(ctxPostmaster, "wal_decode_buffer_size", "512kB"),
		fixedSetting(ctxSighup, "archive_cleanup_command", ""),
		fixedSetting(ctxSighup, "archive_library", ""),
		fixedSetting(ctxSighup, "autovacuum_vacuum_insert_scale_factor", "0.2"),
		fixedSetting(ctxSighup, "autovacuum_vacuum_insert_threshold", "1000"),
		fixedSetting(ctxSighup, "bgwriter_flush_after", "512kB"),
		fixedSetting(ctxSighup, "bgwriter_lru_maxpages", "100"),
		fixedSetting(ctxSighup, "bgwriter_lru_multiplier", "2"),
		fixedSetting(ctxSighup, "checkpoint_flush_after", "256kB"),
		fixedSetting(ctxSighup, "db_user_namespace", "off"),
		fixedSetting(ctxSighup, "krb_caseins_users", "off"),
		fixedSetting(ctxSighup, "log_autovacuum_min_duration", "10min"),
		fixedSetting(ctxSighup, "log_directory", "log"),
		fixedSetting(ctxSighup, "log_file_mode", "0600"),
		fixedSetting(ctxSighup, "log_filename", "postgresql-%Y-%m-%d_%H%M%S.log"),
		fixedSetting(ctxSighup, "log_hostname", "off"),
		fixedSetting(ctxSighup, "log_recovery_conflict_waits", "off"),
		fixedSetting(ctxSighup, "log_rotation_age", "1d"),
		fixedSetting(ctxSighup, "log_rotation_size", "10MB"),
		fixedSetting(ctxSighup, "log_startup_progress_interval", "10s"),
		fixedSetting(ctxSighup, "log_timezone", "UTC"),
		fixedSetting(ctxSighup, "log_truncate_on_rotation", "off"),
		fixedSetting(ctxSighup, "max_pred_locks_per_page", "2"),
		fixedSetting(ctxSighup, "max_pred_locks_per_relation", "-2"),
		fixedSetting(ctxSighup, "max_slot_wal_keep_size", "-1"),
		fixedSetting(ctxSighup, "max_standby_archive_delay", "30s"),
		fixedSetting(ctxSighup, "max_standby_streaming_delay", "30s"),
		fixedSetting(ctxSighup, "max_sync_workers_per_subscription", "2"),
		fixedSetting(ctxSighup, "pre_auth_delay", "0"),
		fixedSetting(ctxSighup, "primary_slot_name", ""),
		fixedSetting(ctxSighup, "promote_trigger_file", ""),
		fixedSetting(ctxSighup, "recovery_end_command", ""),
		fixedSetting(ctxSighup, "recovery_init_sync_method", "fsync"),
		fixedSetting(ctxSighup, "recovery_min_apply_delay", "0"),
		fixedSetting(ctxSighup, "recovery_prefetch", "try"),
		fixedSetting(ctxSighup, "remove_temp_files_after_crash", "on"),
		fixedSetting(ctxSighup, "restore_command", ""),
		fixedSetting(ctxSighup, "ssl_ca_file", ""),
		fixedSetting(ctxSighup, "ssl_cert_file", "server.crt"),
		fixedSetting(ctxSighup, "ssl_ciphers", "HIGH:MEDIUM:+3DES:!aNULL"),
		fixedSetting(ctxSighup, "ssl_crl_dir", ""),
		fixedSetting(ctxSighup, "ssl_crl_file", ""),
		fixedSetting(ctxSighup, "ssl_dh_params_file", ""),
		fixedSetting(ctxSighup, "ssl_ecdh_curve", "prime256v1"),
		fixedSetting(ctxSighup, "ssl_key_file", "server.key"),
		fixedSetting(ctxSighup, "ssl_max_protocol_version", ""),
		fixedSetting(ctxSighup, "ssl_min_protocol_version", "TLSv1.2"),
		fixedSetting(ctxSighup, "ssl_passphrase_command", ""),
		fixedSetting(ctxSighup, "ssl_passphrase_command_supports_reload", "off"),
		fixedSetting(ctxSighup, "ssl_prefer_server_ciphers", "on"),
		fixedSetting(ctxSighup, "syslog_facility", "local0"),
		fixedSetting(ctxSighup, "syslog_ident", "postgres"),
		fixedSetting(ctxSighup, "syslog_sequence_numbers", "on"),
		fixedSetting(ctxSighup, "syslog_split_messages", "on"),
		fixedSetting(ctxSighup, "trace_recovery_messages", "log"),
		fixedSetting(ctxSighup, "vacuum_defer_cleanup_age", "0"),
		fixedSetting(ctxSighup, "wal_receiver_create_temp_slot", "off"),
		fixedSetting(ctxSighup, "wal_receiver_status_interval", "10s"),
		fixedSetting(ctxSighup, "wal_receiver_timeout", "1min"),
		fixedSetting(ctxSighup, "wal_retrieve_retry_interval", "5s"),
		fixedSetting(ctxSighup, "wal_writer_flush_after", "1MB"),
		fixedSetting(ctxBackend, "jit_debugging_support", "off"),
		fixedSetting(ctxBackend, "jit_profiling_support", "off"),
	}
	m := make(map[string]*settingDef, len(defs))
	for _, d := range defs {
		m[strings.ToLower(d.name)] = d
	}
	return m
}()

// superuserSettings are the parameters of PostgreSQL 15's superuser
// context that fickle has: only a superuser may SET them.
var superuserSettings = map[string]bool{
	"allow_in_place_tablespaces": true, "allow_system_table_mods": true, "backtrace_functions": true, "commit_delay": true,
	"compute_query_id": true, "deadlock_timeout": true, "debug_discard_caches": true, "dynamic_library_path": true,
	"extension_destdir": true, "ignore_checksum_failure": true, "jit_dump_bitcode": true, "lc_messages": true,
	"lo_compat_privileges": true, "log_duration": true, "log_error_verbosity": true, "log_executor_stats": true,
	"log_lock_waits": true, "log_min_duration_sample": true, "log_min_duration_statement": true,
	"log_min_error_statement": true, "log_min_messages": true, "log_parameter_max_length": true, "log_parser_stats": true,
	"log_planner_stats": true, "log_replication_commands": true, "log_statement": true, "log_statement_sample_rate": true,
	"log_statement_stats": true, "log_temp_files": true, "log_transaction_sample_rate": true, "max_stack_depth": true,
	"session_preload_libraries": true, "session_replication_role": true, "temp_file_limit": true,
	"track_activities": true, "track_counts": true, "track_functions": true, "track_io_timing": true,
	"track_wal_io_timing": true, "update_process_title": true, "wal_compression": true, "wal_consistency_checking": true,
	"wal_init_zero": true, "wal_recycle": true, "zero_damaged_pages": true,
}

// mayChangeSetting fails with PostgreSQL's 42501 when the role running
// the statement is not a superuser and the parameter is one only a
// superuser may SET.
func (s *Session) mayChangeSetting(name string) error {
	if lk := strings.ToLower(name); superuserSettings[lk] && settingDefs[lk] != nil && !settingDefs[lk].readOnly() && !s.isSuperuser(s.currentRole()) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to set parameter \"%s\"", lk)
	}
	return nil
}

// settings holds a session's current values by lower-case name, and what
// the open transaction's end restores (settings_txn.go).
type settings struct {
	vals map[string]string
	// session holds, for each setting SET LOCAL changed in the open
	// transaction, the value its commit leaves: the last plain SET's, or
	// the value before the transaction.
	session map[string]string
	// levels holds, for the open transaction and then each of its
	// savepoints, the settings' values before that level first changed
	// them; nil outside a transaction.
	levels  []map[string]savedSetting
	changed map[string]bool // reported settings changed since TakeChangedParameters
	// startup holds the values the startup message gave, which RESET
	// returns to, as PostgreSQL's reset value is the session's start value.
	startup map[string]string
	// version counts the changes, for the caches derived from the values.
	version uint64
	// plainSets counts each setting's plain (not LOCAL) SETs, so that a
	// routine's SET option knows whether its body overrode it.
	plainSets map[string]int
	// library holds the settings of the libraries loaded in the session,
	// reserved their prefixes (settings_library.go).
	library  map[string]librarySettingDef
	reserved []string
}

// newSettings returns a session's initial settings: the defaults, then the
// engine's overrides (by lower-case name), then the startup parameters.
func newSettings(info SessionInfo, overrides map[string]string) settings {
	s := settings{vals: make(map[string]string), changed: make(map[string]bool)}
	for k, d := range settingDefs {
		s.vals[k] = d.def
	}
	for k, v := range overrides {
		s.vals[k] = v
	}
	if info.User != "" {
		s.vals["session_authorization"] = info.User
	}
	s.vals["application_name"] = info.ApplicationName
	// Connect has checked the startup settings: a session made without it
	// (NewSession, DISCARD ALL) keeps what it can of them. RESET returns to
	// them.
	opts, _ := startupSettings(info.StartupParams)
	for _, o := range opts {
		s.vals[o.name] = o.value
		if s.startup == nil {
			s.startup = make(map[string]string)
		}
		s.startup[o.name] = o.value
		if o.name == "default_transaction_isolation" {
			// The client's choice of PostgreSQL's default beats the
			// server's fickle.isolation (a fickle.isolation startup
			// parameter, sorted after it, still beats both).
			s.vals["fickle.isolation"] = ""
		}
	}
	s.changed = make(map[string]bool)
	return s
}

// set assigns a setting. local marks SET LOCAL: the old value comes back
// when the transaction ends; a plain SET in a transaction lasts only if
// the transaction commits.
func (s *settings) set(name, value string, local bool) error {
	lk := strings.ToLower(name)
	d := s.def(lk)
	if d == nil {
		if err := s.reservedPrefix(lk, name); err != nil {
			return err
		}
		if !strings.Contains(lk, ".") {
			return pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter %q", name)
		}
		if !validCustomSettingName(lk) {
			return pgerror.Newf(pgerror.InvalidName, "invalid configuration parameter name \"%s\"", name).
				WithDetail("Custom parameter names must be two or more simple identifiers separated by dots.")
		}
	} else {
		if d.readOnly() {
			return d.cannotChange()
		}
		if lk == "datestyle" {
			nv, err := mergeDateStyle(s.vals[lk], value)
			if err != nil {
				return err
			}
			value = nv
		} else if d.normalize != nil {
			nv, err := d.normalize(value)
			if err != nil {
				return err
			}
			value = nv
		}
	}
	s.put(lk, value, local)
	return nil
}

// validCustomSettingName reports whether name can name a custom setting
// (a placeholder), as PostgreSQL's valid_custom_variable_name: two or more
// simple identifiers (letters, digits, _ and $, not starting with a digit
// or $) separated by dots.
func validCustomSettingName(name string) bool {
	sawDot, start := false, true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '.':
			if start {
				return false
			}
			sawDot, start = true, true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			start = false
		case !start && (c >= '0' && c <= '9' || c == '$'):
		default:
			return false
		}
	}
	return !start && sawDot
}

// put stores a checked value under its lower-case name, remembering what
// the transaction's end restores.
func (s *settings) put(lk, value string, local bool) {
	s.save(lk)
	if local {
		if s.session == nil {
			s.session = make(map[string]string)
		}
		if _, ok := s.session[lk]; !ok {
			s.session[lk] = s.vals[lk]
		}
	} else {
		delete(s.session, lk)
		if s.plainSets == nil {
			s.plainSets = make(map[string]int)
		}
		s.plainSets[lk]++
	}
	s.assign(lk, value)
}

// assign gives a setting its value, noting a change of a reported one.
func (s *settings) assign(lk, value string) {
	if s.vals[lk] != value && settingDefs[lk] != nil && settingDefs[lk].reported {
		s.changed[lk] = true
	}
	s.vals[lk] = value
	s.version++
}

func (s *settings) get(name string) (string, bool) {
	v, ok := s.vals[strings.ToLower(name)]
	return v, ok
}

func (s *Session) reportedParameters() map[string]string {
	out := make(map[string]string)
	for k, d := range settingDefs {
		if d.reported {
			out[d.name] = s.settings.vals[k]
		}
	}
	return out
}

func (s *Session) takeChangedParameters() map[string]string {
	if len(s.settings.changed) == 0 {
		return nil
	}
	out := make(map[string]string, len(s.settings.changed))
	for k := range s.settings.changed {
		out[settingDefs[k].name] = s.settings.vals[k]
	}
	s.settings.changed = make(map[string]bool)
	return out
}

func (s *Session) setting(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "transaction_isolation":
		return s.transactionIsolation(), true
	case "transaction_read_only":
		if s.txn != nil {
			return map[bool]string{true: "on", false: "off"}[s.txn.readOnly], true
		}
		v, _ := s.settings.get("default_transaction_read_only")
		return v, true
	case "transaction_deferrable":
		if s.txn != nil {
			return map[bool]string{true: "on", false: "off"}[s.txn.deferrable], true
		}
		v, _ := s.settings.get("default_transaction_deferrable")
		return v, true
	}
	v, ok := s.settings.get(name)
	if d, lib := s.settings.library[strings.ToLower(name)]; lib && d.show != nil && ok {
		v = d.show(v)
	}
	return v, ok
}

// StatementTimeout returns the session's statement_timeout, 0 for none.
func (s *Session) StatementTimeout() time.Duration { return s.durationSetting("statement_timeout") }

// LockTimeout returns the session's lock_timeout, 0 for none.
func (s *Session) LockTimeout() time.Duration { return s.durationSetting("lock_timeout") }

// lockTimeoutContext makes each lock wait of a statement end after d with
// PostgreSQL's 55P03 (isolation.WithLockWait).
func lockTimeoutContext(d time.Duration) isolation.LockWaitContext {
	return func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithTimeoutCause(ctx, d, pgerror.New(pgerror.LockNotAvailable, "canceling statement due to lock timeout"))
	}
}

func (s *Session) durationSetting(name string) time.Duration {
	v, _ := s.settings.get(name)
	ms, err := parseDurationMS(v)
	if err != nil {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// transactionIsolation answers SHOW transaction_isolation in PostgreSQL's
// terms.
func (s *Session) transactionIsolation() string {
	lvl, uncommitted := s.defaultLevel(), s.defaultUncommitted()
	if s.txn != nil {
		lvl, uncommitted = s.txn.level, s.txn.uncommitted
	}
	if uncommitted {
		return "read uncommitted"
	}
	return pgLevelName(lvl)
}

// pgLevelName names a level the way PostgreSQL's SHOW does; fickle's own
// levels between read committed and repeatable read report the nearest
// weaker PostgreSQL level.
func pgLevelName(l history.Level) string {
	switch l {
	case history.Serializable:
		return "serializable"
	case history.Snapshot:
		return "repeatable read"
	default:
		return "read committed"
	}
}

// setValue turns the arguments of SET into the setting's text.
func setValue(name string, args []*pg_query.Node) (string, error) {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		n := a
		if tc := n.GetTypeCast(); tc != nil {
			if strings.EqualFold(name, "timezone") && strs(tc.TypeName.Names)[len(tc.TypeName.Names)-1] == "interval" {
				return intervalTimeZone(tc)
			}
			n = tc.Arg
		}
		c := n.GetAConst()
		if c == nil {
			return "", pgerror.Newf(pgerror.SyntaxError, "invalid value for parameter %q", name)
		}
		switch v := c.Val.(type) {
		case *pg_query.A_Const_Sval:
			parts = append(parts, v.Sval.Sval)
		case *pg_query.A_Const_Ival:
			parts = append(parts, strconv.FormatInt(int64(v.Ival.Ival), 10))
		case *pg_query.A_Const_Fval:
			parts = append(parts, v.Fval.Fval)
		case *pg_query.A_Const_Boolval:
			if v.Boolval.Boolval {
				parts = append(parts, "on")
			} else {
				parts = append(parts, "off")
			}
		default:
			return "", pgerror.Newf(pgerror.SyntaxError, "invalid value for parameter %q", name)
		}
	}
	if strings.EqualFold(name, "search_path") {
		for i, p := range parts {
			if p != strings.ToLower(p) || strings.ContainsAny(p, " ,\"$") {
				parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
			}
		}
	}
	return strings.Join(parts, ", "), nil
}

// intervalTimeZone reads SET TIME ZONE INTERVAL '...' [HOUR TO MINUTE]:
// the offset east of UTC, recorded as PostgreSQL records it.
func intervalTimeZone(tc *pg_query.TypeCast) (string, error) {
	text := tc.Arg.GetAConst().GetSval().GetSval()
	v, err := types.ParseText(types.Interval, text)
	if err != nil {
		return "", err
	}
	return types.IntervalZoneName(v.(pgtype.Interval), text)
}

func invalidValue(name, v string) *pgerror.Error {
	return pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter %q: %q", name, v)
}

func normBool(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1", "t", "y":
		return "on", nil
	case "off", "false", "no", "0", "f", "n":
		return "off", nil
	}
	return "", invalidValue("boolean", v)
}

// normCLocale checks a value of the locale setting name (lc_time,
// lc_numeric, lc_monetary): fickle formats numbers, money and dates only
// as the C locale does, so other locales are refused rather than ignored.
func normCLocale(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		switch v {
		case "", "C", "POSIX", "C.UTF-8", "C.utf8":
			return v, nil
		}
		return "", pgerror.Unsupported(fmt.Sprintf("%s %q (fickle formats only as the C locale does)", name, v))
	}
}

func normOneOf(allowed ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		lv := strings.ToLower(strings.TrimSpace(v))
		for _, a := range allowed {
			if lv == a {
				return a, nil
			}
		}
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid value %q (allowed: %s)", v, strings.Join(allowed, ", "))
	}
}

func normIntRange(lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid value %q: an integer is required", v)
		}
		if n < lo || n > hi {
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "%d is outside the valid range (%d .. %d)", n, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

// clientEncoding is the encoding client_encoding names.
func (s *Session) clientEncoding() *pgencoding.Encoding {
	name, _ := s.setting("client_encoding")
	e, _ := pgencoding.Lookup(name)
	return e
}

// normEncoding reads client_encoding by any of PostgreSQL's names for an
// encoding and gives its name (keeping UNICODE as written, as PostgreSQL
// does for old JDBC drivers); an encoding fickle does not convert is
// refused with 0A000, names that are no client encoding with 22023.
func normEncoding(v string) (string, error) {
	e, ok := pgencoding.Lookup(v)
	switch {
	case !ok:
		return "", invalidValue("client_encoding", v)
	case !e.Client:
		// PostgreSQL's check hook reports this one as 0A000.
		err := invalidValue("client_encoding", v).WithDetail("Conversion between %s and UTF8 is not supported.", e.Name)
		err.Code = pgerror.FeatureNotSupported
		return "", err
	case !e.Supported():
		return "", pgerror.Newf(pgerror.FeatureNotSupported, "client encoding %q is not supported by fickle (UTF8, SQL_ASCII and the single-byte encodings are)", v)
	case v == "UNICODE":
		return v, nil
	}
	return e.Name, nil
}

// normIntervalStyle accepts PostgreSQL's four IntervalStyle values.
func normIntervalStyle(v string) (string, error) {
	switch s := strings.ToLower(strings.TrimSpace(v)); s {
	case "postgres", "iso_8601", "sql_standard", "postgres_verbose":
		return s, nil
	}
	return "", invalidValue("IntervalStyle", v)
}

// normDateStyle reads DateStyle: an output style (ISO, SQL, Postgres,
// German) and an order (MDY, DMY, YMD and their aliases), either part
// optional; German alone orders DMY, as in PostgreSQL.
func normDateStyle(v string) (string, error) {
	return mergeDateStyle("ISO, MDY", v)
}

// mergeDateStyle is DateStyle set to v when it was current: a part v does
// not name keeps its current value (SET datestyle TO ymd keeps the output
// style), except that German without an order orders DMY, and DEFAULT
// stands for ISO, MDY.
func mergeDateStyle(current, v string) (string, error) {
	style, order := "", ""
	for _, p := range strings.Split(v, ",") {
		w := strings.ToUpper(strings.TrimSpace(p))
		newStyle, newOrder := "", ""
		switch w {
		case "ISO", "SQL", "GERMAN":
			newStyle = map[string]string{"ISO": "ISO", "SQL": "SQL", "GERMAN": "German"}[w]
		case "POSTGRES":
			newStyle = "Postgres"
		case "MDY", "US", "NONEURO", "NONEUROPEAN":
			newOrder = "MDY"
		case "DMY", "EURO", "EUROPEAN":
			newOrder = "DMY"
		case "YMD":
			newOrder = "YMD"
		case "DEFAULT":
			if style == "" {
				style = "ISO"
			}
			if order == "" {
				order = "MDY"
			}
		case "":
		default:
			return "", invalidValue("DateStyle", v)
		}
		if newStyle != "" && style != "" && newStyle != style || newOrder != "" && order != "" && newOrder != order {
			return "", invalidValue("DateStyle", v).WithDetail("Conflicting \"datestyle\" specifications.")
		}
		if newStyle != "" {
			style = newStyle
		}
		if newOrder != "" {
			order = newOrder
		}
	}
	curStyle, curOrder, _ := strings.Cut(current, ", ")
	if order == "" {
		order = curOrder
		if style == "German" {
			order = "DMY"
		}
	}
	if style == "" {
		style = curStyle
	}
	return style + ", " + order, nil
}

// normTimeZone reads TimeZone: a zone name, a POSIX offset, or hours east
// of UTC, recorded as PostgreSQL records each.
func normTimeZone(v string) (string, error) {
	loc, name, err := types.ParseTimeZone(v, false)
	if err != nil {
		if pgerror.GetCode(err) == pgerror.FeatureNotSupported {
			return "", err
		}
		return "", invalidValue("TimeZone", v)
	}
	if err := types.LeapSecondsZone(loc, v); err != nil {
		return "", err
	}
	return name, nil
}

func normIsolation(v string) (string, error) {
	l, err := history.ParseLevel(v)
	if err != nil {
		return "", invalidValue("default_transaction_isolation", v)
	}
	lv := strings.ToLower(strings.TrimSpace(v))
	if lv == "read uncommitted" {
		return lv, nil
	}
	switch l {
	case history.Serializable:
		return "serializable", nil
	case history.Snapshot:
		return "repeatable read", nil
	case history.ReadCommitted:
		return "read committed", nil
	}
	return "", invalidValue("default_transaction_isolation", v)
}

func normFickleLevel(v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", nil
	}
	l, err := history.ParseLevel(v)
	if err != nil {
		return "", invalidValue("fickle.isolation", v)
	}
	return l.String(), nil
}

func normDuration(v string) (string, error) {
	ms, err := parseDurationMS(v)
	if err != nil {
		return "", err
	}
	return formatDurationMS(ms), nil
}

// parseDurationMS reads a time setting: a bare number is milliseconds,
// otherwise a number with one of PostgreSQL's units.
func parseDurationMS(v string) (int64, error) {
	t := strings.TrimSpace(v)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == '-') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for a time setting: %q", v)
	}
	mult := map[string]float64{"": 1, "us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}
	m, ok := mult[unit]
	if !ok {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for a time setting: %q", v).
			WithHint(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
	}
	ms := f * m
	if ms < 0 || ms > 2147483647 {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "%s is outside the valid range (0 .. 2147483647)", v)
	}
	return int64(ms + 0.5), nil
}

// formatDurationMS prints milliseconds the way SHOW does: the largest unit
// that divides the value exactly.
func formatDurationMS(ms int64) string {
	if ms == 0 {
		return "0"
	}
	units := []struct {
		n    int64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}}
	for _, u := range units {
		if ms%u.n == 0 {
			return fmt.Sprintf("%d%s", ms/u.n, u.name)
		}
	}
	return fmt.Sprintf("%dms", ms)
}

// settingUnit is the unit of a numeric parameter's value: a bare number
// means that many of it.
type settingUnit int

const (
	unitNone settingUnit = iota
	unitBytes
	unitKB
	unitBlocks // 8kB pages
	unitMB
	unitMS
	unitS
	unitMin
)

// unitName is the unit as PostgreSQL's messages print it.
var unitName = map[settingUnit]string{unitBytes: "B", unitKB: "kB", unitBlocks: "8kB", unitMB: "MB", unitMS: "ms", unitS: "s", unitMin: "min"}

// A scaled unit: how many bytes or microseconds one of it is.
type scaledUnit struct {
	name string
	size float64
}

var (
	memoryUnits = []scaledUnit{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}
	timeUnits   = []scaledUnit{{"d", 86400e6}, {"h", 3600e6}, {"min", 60e6}, {"s", 1e6}, {"ms", 1e3}, {"us", 1}}
)

// scale returns the units a value of unit u may be written in, and the
// size of u in them.
func (u settingUnit) scale() ([]scaledUnit, float64) {
	switch u {
	case unitBytes:
		return memoryUnits, 1
	case unitKB:
		return memoryUnits, 1 << 10
	case unitBlocks:
		return memoryUnits, 8 << 10
	case unitMB:
		return memoryUnits, 1 << 20
	case unitMS:
		return timeUnits, 1e3
	case unitS:
		return timeUnits, 1e6
	case unitMin:
		return timeUnits, 60e6
	}
	return nil, 1
}

// unitHint is PostgreSQL's hint for a value with a unit the parameter
// does not take.
func (u settingUnit) hint() string {
	units, _ := u.scale()
	if len(units) == 0 || units[0].name == "TB" {
		return `Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`
	}
	return `Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`
}

// parseWithUnit reads a numeric parameter value as PostgreSQL's parse_int
// and parse_real do: a number (integers also in hex or octal) then,
// after optional blanks, one of the unit's scaled units, case-sensitive;
// the result is in unit u.
func parseWithUnit(name, v string, u settingUnit) (float64, error) {
	bad := pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
	t := strings.TrimSpace(v)
	end := 0
	for end < len(t) && strings.IndexByte("0123456789+-.eExXabcdefABCDEF", t[end]) >= 0 {
		end++
	}
	// The number ends where its longest valid prefix does: "1e" is 1
	// then the unit "e", and hex digits belong to a 0x number only.
	var num float64
	for ; end > 0; end-- {
		if n, err := strconv.ParseInt(t[:end], 0, 64); err == nil {
			num = float64(n)
			break
		}
		if f, err := strconv.ParseFloat(t[:end], 64); err == nil && !strings.ContainsAny(t[:end], "xX") && !math.IsNaN(f) {
			num = f
			break
		}
	}
	if end == 0 {
		return 0, bad
	}
	unit := strings.TrimSpace(t[end:])
	if unit == "" {
		return num, nil
	}
	units, size := u.scale()
	for _, su := range units {
		if su.name == unit {
			return num * su.size / size, nil
		}
	}
	if len(units) > 0 {
		return 0, bad.WithHint("%s", u.hint())
	}
	return 0, bad
}

// formatWithUnit prints a value of unit u as SHOW does: in the largest
// unit that holds it exactly, a bare number when it is not positive.
func formatWithUnit(n float64, u settingUnit) string {
	units, size := u.scale()
	if len(units) == 0 || n <= 0 {
		return strconv.FormatFloat(n, 'g', 6, 64)
	}
	base := n * size
	for _, su := range units {
		if su.size < 1 || base < su.size {
			continue
		}
		if q := base / su.size; q == math.Trunc(q) {
			return strconv.FormatFloat(q, 'f', -1, 64) + su.name
		}
	}
	return strconv.FormatFloat(n, 'g', 6, 64) + unitName[u]
}

// boolSetting is a boolean parameter.
func boolSetting(name, def string) *settingDef {
	return &settingDef{name: name, def: def, normalize: func(v string) (string, error) {
		if b, ok := parsePGBool(v); ok {
			return b, nil
		}
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", name)
	}}
}

// parsePGBool reads a boolean as PostgreSQL's parse_bool does: on, off
// and any unambiguous prefix of true, false, yes, no, and 1 or 0.
func parsePGBool(v string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(v))
	if t == "" {
		return "", false
	}
	switch {
	case t == "on" || t == "1" || strings.HasPrefix("true", t) || strings.HasPrefix("yes", t):
		return "on", true
	case len(t) >= 2 && strings.HasPrefix("off", t), t == "0", strings.HasPrefix("false", t), strings.HasPrefix("no", t):
		return "off", true
	}
	return "", false
}

// enumSetting is a parameter with one of values, case-insensitive; one
// that has both on and off also takes the other spellings of a boolean.
func enumSetting(name, def string, values ...string) *settingDef {
	onOff := 0
	for _, a := range values {
		if a == "on" || a == "off" {
			onOff++
		}
	}
	return &settingDef{name: name, def: def, normalize: func(v string) (string, error) {
		lv := strings.ToLower(strings.TrimSpace(v))
		for _, a := range values {
			if lv == a {
				return a, nil
			}
		}
		if b, ok := parsePGBool(v); ok && onOff == 2 {
			return b, nil
		}
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
			WithHint("Available values: %s.", strings.Join(values, ", "))
	}}
}

// intSetting is an integer parameter of unit u in [lo, hi].
func intSetting(name, def string, u settingUnit, lo, hi int64) *settingDef {
	return &settingDef{name: name, def: def, normalize: func(v string) (string, error) {
		f, err := parseWithUnit(name, v, u)
		if err != nil {
			return "", err
		}
		f = math.RoundToEven(f)
		if f < float64(lo) || f > float64(hi) {
			unit := ""
			if u != unitNone {
				unit = " " + unitName[u]
			}
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "%s%s is outside the valid range for parameter \"%s\" (%d .. %d)",
				strconv.FormatFloat(f, 'f', -1, 64), unit, name, lo, hi)
		}
		if u == unitNone || f <= 0 {
			return strconv.FormatFloat(f, 'f', -1, 64), nil
		}
		return formatWithUnit(f, u), nil
	}}
}

// realSetting is a floating-point parameter of unit u in [lo, hi].
func realSetting(name, def string, u settingUnit, lo, hi float64) *settingDef {
	return &settingDef{name: name, def: def, normalize: func(v string) (string, error) {
		f, err := parseWithUnit(name, v, u)
		if err != nil {
			return "", err
		}
		if f < lo || f > hi {
			g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "%s is outside the valid range for parameter \"%s\" (%s .. %s)", g(f), name, g(lo), g(hi))
		}
		return formatWithUnit(f, u), nil
	}}
}

// textSetting is a parameter whose value is any text.
func textSetting(name, def string) *settingDef { return &settingDef{name: name, def: def} }

// normOnly accepts only the value fickle implements, for a parameter whose
// other values would change what queries mean.
func normOnly(name, only string) func(string) (string, error) {
	return func(v string) (string, error) {
		if b, ok := parsePGBool(v); ok && b == only || strings.EqualFold(strings.TrimSpace(v), only) {
			return only, nil
		}
		return "", pgerror.Newf(pgerror.FeatureNotSupported, "%s = %s is not supported by fickle", name, v)
	}
}

// normNamedObject accepts the names of the objects of a kind fickle has
// (a table access method, a tablespace), failing as PostgreSQL does for
// any other.
func normNamedObject(name, kind string, known ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for _, k := range known {
			if v == k {
				return v, nil
			}
		}
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
			WithDetail("%s \"%s\" does not exist.", kind, v)
	}
}

// normTextSearchConfig checks a default_text_search_config value names one
// of PostgreSQL 15's built-in text search configurations (fickle has no
// others), and writes it with its schema, as PostgreSQL shows it.
func normTextSearchConfig(v string) (string, error) {
	name := strings.ToLower(strings.TrimSpace(v))
	if schema, rest, ok := strings.Cut(name, "."); ok && schema == "pg_catalog" {
		name = rest
	}
	known := false
	eachRow(pgdata.Load(pgdata.PgTsConfig), func(get func(string) string) {
		known = known || get("cfgname") == name
	})
	if !known {
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"default_text_search_config\": \"%s\"", v)
	}
	return "pg_catalog." + name, nil
}

// normWithoutOids accepts default_with_oids = off only, as PostgreSQL 12
// and later do.
func normWithoutOids(v string) (string, error) {
	if b, ok := parsePGBool(v); ok && b == "off" {
		return b, nil
	}
	if _, ok := parsePGBool(v); ok {
		return "", pgerror.New(pgerror.FeatureNotSupported, "tables declared WITH OIDS are not supported")
	}
	return "", pgerror.New(pgerror.InvalidParameterValue, "parameter \"default_with_oids\" requires a Boolean value")
}
