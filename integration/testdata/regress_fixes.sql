-- Statements of PostgreSQL's regression suite (src/test/regress/sql) that
-- fickle once answered differently from PostgreSQL 15 without an error,
-- and their kin. Run by TestRegressFixesAgainstPostgres in a session that
-- starts with TimeZone PST8PDT and DateStyle "Postgres, MDY".

-- A zone named without a slash (timestamptz.sql): the startup TimeZone
-- and SET TIME ZONE read it from the zone database.
SHOW TimeZone;
SELECT '205000-07-10 17:32:01 Europe/Helsinki'::timestamptz;
SET TimeZone = 'EST5EDT';
SELECT '2001-07-11 10:51:14'::timestamptz;
SET TimeZone = 'Japan';
SHOW TimeZone;
SET TimeZone = 'NoSuchZone';
RESET TimeZone;
SHOW TimeZone;

-- SET datestyle TO ymd keeps the output style; RESET returns to the
-- session's start value (timestamptz.sql, date.sql).
SET datestyle TO ymd;
SHOW DateStyle;
SELECT '97/02/10 17:32:01 UTC'::timestamptz, date '70-01-02';
SET datestyle TO german;
SHOW DateStyle;
SET datestyle TO 'postgres, dmy';
SELECT date '02/01/2001';
RESET datestyle;
SHOW DateStyle;
SELECT date '02/01/2001';
RESET ALL;
SHOW DateStyle;
