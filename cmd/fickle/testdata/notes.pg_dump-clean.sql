--
-- PostgreSQL database dump
--

\restrict jcwfLXlahzxEBjhFlw9CyRCZyOqxsU2wBqmDILj5E7uv5VOsg2YEO44IzKfaOGZ

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

DROP INDEX IF EXISTS public.notes_title_idx;
ALTER TABLE IF EXISTS ONLY public.notes DROP CONSTRAINT IF EXISTS notes_pkey;
ALTER TABLE IF EXISTS ONLY archive.old_notes DROP CONSTRAINT IF EXISTS old_notes_pkey;
ALTER TABLE IF EXISTS public.notes ALTER COLUMN id DROP DEFAULT;
DROP SEQUENCE IF EXISTS public.ticket_numbers;
DROP SEQUENCE IF EXISTS public.notes_id_seq;
DROP TABLE IF EXISTS public.notes;
DROP SEQUENCE IF EXISTS archive.old_ids;
DROP TABLE IF EXISTS archive.old_notes;
DROP SCHEMA IF EXISTS archive;
--
-- Name: archive; Type: SCHEMA; Schema: -; Owner: postgres
--

CREATE SCHEMA archive;


ALTER SCHEMA archive OWNER TO postgres;

--
-- Name: SCHEMA archive; Type: COMMENT; Schema: -; Owner: postgres
--

COMMENT ON SCHEMA archive IS 'old notes, kept for reference';


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: old_notes; Type: TABLE; Schema: archive; Owner: postgres
--

CREATE TABLE archive.old_notes (
    id integer NOT NULL,
    title text
);


ALTER TABLE archive.old_notes OWNER TO postgres;

--
-- Name: TABLE old_notes; Type: COMMENT; Schema: archive; Owner: postgres
--

COMMENT ON TABLE archive.old_notes IS 'notes before 2020';


--
-- Name: old_ids; Type: SEQUENCE; Schema: archive; Owner: postgres
--

CREATE SEQUENCE archive.old_ids
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE archive.old_ids OWNER TO postgres;

--
-- Name: old_ids; Type: SEQUENCE OWNED BY; Schema: archive; Owner: postgres
--

ALTER SEQUENCE archive.old_ids OWNED BY archive.old_notes.id;


--
-- Name: notes; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.notes (
    id integer NOT NULL,
    title text NOT NULL,
    body text
);


ALTER TABLE public.notes OWNER TO postgres;

--
-- Name: TABLE notes; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.notes IS 'one row per note';


--
-- Name: COLUMN notes.title; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.notes.title IS 'what the note is about';


--
-- Name: COLUMN notes.body; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.notes.body IS 'the text; NULL for a title-only note';


--
-- Name: notes_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.notes_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE public.notes_id_seq OWNER TO postgres;

--
-- Name: notes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: postgres
--

ALTER SEQUENCE public.notes_id_seq OWNED BY public.notes.id;


--
-- Name: ticket_numbers; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.ticket_numbers
    START WITH 500
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE public.ticket_numbers OWNER TO postgres;

--
-- Name: SEQUENCE ticket_numbers; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON SEQUENCE public.ticket_numbers IS 'numbers handed out on paper tickets';


--
-- Name: notes id; Type: DEFAULT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.notes ALTER COLUMN id SET DEFAULT nextval('public.notes_id_seq'::regclass);


--
-- Data for Name: old_notes; Type: TABLE DATA; Schema: archive; Owner: postgres
--

COPY archive.old_notes (id, title) FROM stdin;
1	first
\.


--
-- Data for Name: notes; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.notes (id, title, body) FROM stdin;
1	groceries	milk, eggs
2	it's a quote	\N
\.


--
-- Name: old_ids; Type: SEQUENCE SET; Schema: archive; Owner: postgres
--

SELECT pg_catalog.setval('archive.old_ids', 7, true);


--
-- Name: notes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.notes_id_seq', 2, true);


--
-- Name: ticket_numbers; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.ticket_numbers', 500, true);


--
-- Name: old_notes old_notes_pkey; Type: CONSTRAINT; Schema: archive; Owner: postgres
--

ALTER TABLE ONLY archive.old_notes
    ADD CONSTRAINT old_notes_pkey PRIMARY KEY (id);


--
-- Name: notes notes_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.notes
    ADD CONSTRAINT notes_pkey PRIMARY KEY (id);


--
-- Name: notes_title_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX notes_title_idx ON public.notes USING btree (title);


--
-- Name: INDEX notes_title_idx; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON INDEX public.notes_title_idx IS 'finds notes by title';


--
-- PostgreSQL database dump complete
--

\unrestrict jcwfLXlahzxEBjhFlw9CyRCZyOqxsU2wBqmDILj5E7uv5VOsg2YEO44IzKfaOGZ

