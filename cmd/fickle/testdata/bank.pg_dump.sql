--
-- PostgreSQL database dump
--

\restrict AzpCyLw5uWGOFvy8eBFh5rYWUuQvq1t8rksAHAiAd9Aaf7sjcPPrH6xmRgocq3c

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

--
-- Name: add(integer, integer); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.add(a integer, b integer DEFAULT 1) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT
    AS $$SELECT a + b$$;


ALTER FUNCTION public.add(a integer, b integer) OWNER TO postgres;

--
-- Name: FUNCTION add(a integer, b integer); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.add(a integer, b integer) IS 'adds';


--
-- Name: audit_it(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.audit_it() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN INSERT INTO audit (account, seen) VALUES (NEW.id, NEW.balance); RETURN NULL; END $$;


ALTER FUNCTION public.audit_it() OWNER TO postgres;

--
-- Name: deposit(integer, integer); Type: PROCEDURE; Schema: public; Owner: postgres
--

CREATE PROCEDURE public.deposit(IN who integer, IN amt integer)
    LANGUAGE plpgsql
    AS $$ BEGIN UPDATE accounts SET balance = balance + amt WHERE id = who; END $$;


ALTER PROCEDURE public.deposit(IN who integer, IN amt integer) OWNER TO postgres;

--
-- Name: rich(integer); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.rich(min integer) RETURNS TABLE(id integer, balance integer)
    LANGUAGE sql
    AS $$SELECT id, balance FROM accounts WHERE balance >= min$$;


ALTER FUNCTION public.rich(min integer) OWNER TO postgres;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: accounts; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.accounts (
    id integer NOT NULL,
    balance integer NOT NULL,
    updated_at timestamp with time zone
);


ALTER TABLE public.accounts OWNER TO postgres;

--
-- Name: total(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.total() RETURNS bigint
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 SELECT sum(accounts.balance) AS sum
    FROM public.accounts;
END;


ALTER FUNCTION public.total() OWNER TO postgres;

--
-- Name: touch(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.touch() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN NEW.updated_at := now(); RETURN NEW; END $$;


ALTER FUNCTION public.touch() OWNER TO postgres;

--
-- Name: audit; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.audit (
    n integer NOT NULL,
    account integer,
    seen integer
);


ALTER TABLE public.audit OWNER TO postgres;

--
-- Name: audit_n_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.audit_n_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE public.audit_n_seq OWNER TO postgres;

--
-- Name: audit_n_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: postgres
--

ALTER SEQUENCE public.audit_n_seq OWNED BY public.audit.n;


--
-- Name: audit n; Type: DEFAULT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.audit ALTER COLUMN n SET DEFAULT nextval('public.audit_n_seq'::regclass);


--
-- Data for Name: accounts; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.accounts (id, balance, updated_at) FROM stdin;
1	100	\N
2	50	\N
\.


--
-- Data for Name: audit; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.audit (n, account, seen) FROM stdin;
\.


--
-- Name: audit_n_seq; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.audit_n_seq', 1, false);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: audit audit_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.audit
    ADD CONSTRAINT audit_pkey PRIMARY KEY (n);


--
-- Name: accounts accounts_audit; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER accounts_audit AFTER INSERT OR UPDATE ON public.accounts FOR EACH ROW WHEN ((new.balance > 0)) EXECUTE FUNCTION public.audit_it();


--
-- Name: accounts accounts_touch; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER accounts_touch BEFORE UPDATE ON public.accounts FOR EACH ROW EXECUTE FUNCTION public.touch();


--
-- PostgreSQL database dump complete
--

\unrestrict AzpCyLw5uWGOFvy8eBFh5rYWUuQvq1t8rksAHAiAd9Aaf7sjcPPrH6xmRgocq3c

