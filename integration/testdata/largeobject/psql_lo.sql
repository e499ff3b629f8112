-- psql's large-object commands: \lo_import, \lo_export and \lo_unlink
-- call lo_creat, lo_open, lowrite, loread, lo_close and lo_unlink through
-- libpq's fastpath; \lo_list reads pg_largeobject_metadata. The test sets
-- :src and :dst and masks the OIDs.
\lo_import :src 'this script'
\set imported :LASTOID
SELECT count(*) AS objects, bool_and(lomowner = 10) AS owned FROM pg_largeobject_metadata;
SELECT obj_description(:imported, 'pg_largeobject') AS comment, length(lo_get(:imported)) > 0 AS has_data;
\lo_export :imported :dst
\lo_list
\lo_list+
\lo_unlink :imported
\lo_list
