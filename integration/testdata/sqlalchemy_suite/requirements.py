"""What PostgreSQL 15 supports, for SQLAlchemy's and Alembic's dialect suites.

Both suites ask a requirements class which features the database has. Their base classes close most of them; this
one opens those PostgreSQL 15 has with SQLAlchemy 1.4's postgresql dialect, so that the suites run the tests they
would run against PostgreSQL (they all pass there, with psycopg2 and asyncpg).
"""
from alembic.testing.requirements import SuiteRequirements as AlembicRequirements
from sqlalchemy.testing import exclusions
from sqlalchemy.testing.requirements import SuiteRequirements


def _open(*names):
    def decorate(cls):
        for name in names:
            setattr(cls, name, property(lambda self: exclusions.open()))
        return cls
    return decorate


@_open(
    # SQLAlchemy's suite
    "table_ddl_if_exists", "index_ddl_if_exists", "table_value_constructor", "deferrable_fks",
    "boolean_col_expressions", "nullsordering", "standalone_binds", "intersect", "except_", "window_functions",
    "ctes", "ctes_with_update_delete", "ctes_on_dml", "tuple_in", "views", "cross_schema_fk_reflection",
    "foreign_key_constraint_name_reflection", "implicit_default_schema", "default_schema_name_switch",
    "reflects_pk_names", "reflect_tables_no_columns", "comment_reflection",
    "foreign_key_constraint_option_reflection_ondelete", "fk_constraint_option_reflection_ondelete_restrict",
    "fk_constraint_option_reflection_ondelete_noaction", "foreign_key_constraint_option_reflection_onupdate",
    "fk_constraint_option_reflection_onupdate_restrict", "has_temp_table", "temporary_views",
    "index_reflects_included_columns", "indexes_with_expressions", "check_constraint_reflection", "unicode_ddl",
    "datetime_timezone", "time_timezone", "timestamp_microseconds", "datetime_historic", "date_historic",
    "autocommit", "isolation_level", "json_type", "precision_numerics_enotation_small",
    "precision_numerics_enotation_large", "precision_numerics_many_significant_digits",
    "precision_numerics_retains_significant_digits", "infinity_floats", "savepoints", "update_from",
    "delete_from", "order_by_label_with_expression", "computed_columns", "computed_columns_stored",
    "computed_columns_default_persisted", "computed_columns_reflect_persisted", "supports_distinct_on",
    "identity_columns", "identity_columns_standard", "regexp_match", "regexp_replace", "fetch_first",
    "fetch_ties", "fetch_no_order_by", "fetch_offset_with_options", "fetch_expression", "percent_schema_names",
    # Alembic's suite
    "autocommit_isolation", "reflects_fk_options", "fk_ondelete_is_reflected", "fk_onupdate_is_reflected",
    "fk_initially", "fk_deferrable", "fk_deferrable_is_reflected", "identity_columns_alter",
    "autoincrement_on_composite_pk",
)
class PostgresRequirements(AlembicRequirements, SuiteRequirements):
    # Left closed as PostgreSQL lacks them: temp_table_names (the 1.4 dialect does not list temporary tables),
    # datetime_literals (it renders no date literals), fetch_percent (FETCH ... PERCENT), identity ON NULL, and
    # computed_doesnt_reflect_as_server_default (Alembic warns when a model drops a generated column's
    # expression on PostgreSQL).

    @property
    def async_dialect(self):
        return exclusions.only_if(lambda config: config.db.dialect.is_async)

    def get_isolation_levels(self, config):
        supported = ["SERIALIZABLE", "READ COMMITTED", "REPEATABLE READ", "AUTOCOMMIT"]
        # SQLAlchemy's asyncpg dialect refuses READ UNCOMMITTED by name.
        if config.db.dialect.driver != "asyncpg":
            supported.append("READ UNCOMMITTED")
        return {"default": "READ COMMITTED", "supported": supported}

    def get_order_by_collation(self, config):
        return "POSIX"
