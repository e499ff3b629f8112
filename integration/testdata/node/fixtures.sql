-- fixtures.sql is the schema and data the Sequelize and knex checks find
-- in place (loaded with psql on PostgreSQL, with --load or psql on fickle).
CREATE TABLE countries (code char(2) PRIMARY KEY, name varchar(60) NOT NULL UNIQUE, population bigint, joined date);
INSERT INTO countries VALUES ('de', 'Germany', 84000000, '1957-03-25'), ('fr', 'France', 68000000, '1957-03-25'), ('jp', 'Japan', 125000000, NULL);
