package pgencoding

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/testpg"
)

func TestLookupFollowsPostgresNames(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"utf-8", "UTF8"},
		{"Unicode", "UTF8"},
		{"sql_ascii", "SQL_ASCII"},
		{"ISO_8859_1", "LATIN1"},
		{"iso-8859-15", "LATIN9"},
		{"latin10", "LATIN10"},
		{"ISO-8859-5", "ISO_8859_5"},
		{"windows-1252", "WIN1252"},
		{"win", "WIN1251"},
		{"alt", "WIN866"},
		{"koi8", "KOI8R"},
		{"TCVN5712", "WIN1258"},
		{"Shift_JIS", "SJIS"},
		{"mule_internal", "MULE_INTERNAL"},
	} {
		e, ok := Lookup(tc.name)
		if !ok || e.Name != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", tc.name, e, ok, tc.want)
		}
	}
	for _, name := range []string{"cp866", "latin11", "", "utf16"} {
		if e, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) = %s; PostgreSQL knows no such encoding", name, e.Name)
		}
	}
}

func TestSupportedEncodings(t *testing.T) {
	for name, want := range map[string]bool{"UTF8": true, "SQL_ASCII": true, "LATIN1": true, "KOI8U": true, "EUC_JP": false, "MULE_INTERNAL": false} {
		e, _ := Lookup(name)
		if e.Supported() != want {
			t.Errorf("%s: Supported() = %v, want %v", name, e.Supported(), want)
		}
	}
}

func TestConversionRoundTripsEveryAssignedByte(t *testing.T) {
	for _, e := range byAlias {
		c := e.Converter
		if c == nil {
			continue
		}
		for b := 1; b < 256; b++ {
			in := []byte{'a', byte(b)}
			u, err := c.ToUTF8(in)
			if err != nil {
				if b < 0x80 || c.toUnicode[b-0x80] != 0 {
					t.Errorf("%s: byte 0x%02x: %v", e.Name, b, err)
				}
				continue
			}
			if !utf8.Valid(u) {
				t.Errorf("%s: byte 0x%02x gives invalid UTF-8 %q", e.Name, b, u)
			}
			back, err := c.FromUTF8(u)
			if err != nil || string(back) != string(in) {
				t.Errorf("%s: byte 0x%02x -> %q -> %q, %v", e.Name, b, u, back, err)
			}
		}
	}
}

func TestConversionErrorsArePostgres(t *testing.T) {
	latin1, _ := Lookup("LATIN1")
	win1252, _ := Lookup("WIN1252")
	for _, tc := range []struct {
		name string
		run  func() error
		code pgerror.Code
		msg  string
	}{
		{"NUL byte", func() error { _, err := latin1.Converter.ToUTF8([]byte("a\x00")); return err },
			pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "LATIN1": 0x00`},
		{"unassigned byte", func() error { _, err := win1252.Converter.ToUTF8([]byte("\x81")); return err },
			pgerror.UntranslatableCharacter, `character with byte sequence 0x81 in encoding "WIN1252" has no equivalent in encoding "UTF8"`},
		{"character missing", func() error { _, err := latin1.Converter.FromUTF8([]byte("x€")); return err },
			pgerror.UntranslatableCharacter, `character with byte sequence 0xe2 0x82 0xac in encoding "UTF8" has no equivalent in encoding "LATIN1"`},
	} {
		var pe *pgerror.Error
		if err := tc.run(); !errors.As(err, &pe) || pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("%s: got %v, want %s %s", tc.name, err, tc.code, tc.msg)
		}
	}
}

func TestASCIIIsNotCopied(t *testing.T) {
	latin1, _ := Lookup("LATIN1")
	in := []byte("plain ascii")
	if out, _ := latin1.Converter.ToUTF8(in); &out[0] != &in[0] {
		t.Error("ToUTF8 copied ASCII text")
	}
	if out, _ := latin1.Converter.FromUTF8(in); &out[0] != &in[0] {
		t.Error("FromUTF8 copied ASCII text")
	}
}

// TestConvertersMatchPostgres compares every name and converter with
// PostgreSQL 15 (FICKLE_TEST_PG): the names through pg_char_to_encoding,
// each byte from 0x80 on through convert_from, and each character of the
// Basic Multilingual Plane through convert_to.
func TestConvertersMatchPostgres(t *testing.T) {
	ctx := context.Background()
	conn := testpg.Connect(t)
	// One query an encoding and direction: every conversion that succeeds.
	if _, err := conn.Exec(ctx, `
		CREATE OR REPLACE FUNCTION pg_temp.decodable(enc text) RETURNS TABLE (b int, c int) LANGUAGE plpgsql AS $$
		BEGIN
			FOR i IN 128..255 LOOP
				BEGIN
					b := i; c := ascii(convert_from(decode(to_hex(i), 'hex'), enc)); RETURN NEXT;
				EXCEPTION WHEN others THEN NULL;
				END;
			END LOOP;
		END $$;
		CREATE OR REPLACE FUNCTION pg_temp.encodable(enc text) RETURNS TABLE (c int, b int) LANGUAGE plpgsql AS $$
		BEGIN
			FOR i IN 128..65535 LOOP
				CONTINUE WHEN i BETWEEN 55296 AND 57343;
				BEGIN
					c := i; b := get_byte(convert_to(chr(i), enc), 0); RETURN NEXT;
				EXCEPTION WHEN others THEN NULL;
				END;
			END LOOP;
		END $$;`); err != nil {
		t.Fatal(err)
	}
	for alias, e := range byAlias {
		var number int
		if err := conn.QueryRow(ctx, `SELECT pg_char_to_encoding($1)`, alias).Scan(&number); err != nil {
			t.Fatal(err)
		}
		if number != e.Number() {
			t.Errorf("%q names encoding %d (%s), PostgreSQL's %d", alias, e.Number(), e.Name, number)
		}
		var name string
		if err := conn.QueryRow(ctx, `SELECT pg_encoding_to_char($1)`, e.Number()).Scan(&name); err != nil || name != e.Name {
			t.Errorf("encoding %d is %s, PostgreSQL's %q (%v)", e.Number(), e.Name, name, err)
		}
		c := e.Converter
		if c == nil || alias != clean(e.Name) {
			continue // not converted, or met under another name
		}
		want := map[int]rune{}
		rows, _ := conn.Query(ctx, `SELECT b, c FROM pg_temp.decodable($1)`, e.Name)
		var b, r int
		if _, err := pgx.ForEachRow(rows, []any{&b, &r}, func() error { want[b] = rune(r); return nil }); err != nil {
			t.Fatal(err)
		}
		for x := 0x80; x <= 0xff; x++ {
			if got := c.toUnicode[x-0x80]; got != want[x] {
				t.Errorf("%s: byte 0x%02x decodes to %U, PostgreSQL's to %U", e.Name, x, got, want[x])
			}
		}
		encodes := 0
		rows, _ = conn.Query(ctx, `SELECT c, b FROM pg_temp.encodable($1)`, e.Name)
		if _, err := pgx.ForEachRow(rows, []any{&r, &b}, func() error {
			encodes++
			if got, ok := c.fromUnicode[rune(r)]; !ok || int(got) != b {
				t.Errorf("%s: %U encodes to 0x%02x (%v), PostgreSQL's to 0x%02x", e.Name, r, got, ok, b)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if encodes != len(c.fromUnicode) {
			t.Errorf("%s: %d characters encode, PostgreSQL encodes %d", e.Name, len(c.fromUnicode), encodes)
		}
	}
}

// FuzzConversion feeds converters untrusted bytes both ways: what converts
// to UTF8 is valid UTF-8 and converts back to the same bytes, and what
// converts from UTF8 converts back to the same text (text holds no NUL,
// which no encoding takes in).
func FuzzConversion(f *testing.F) {
	f.Add(uint8(8), []byte("caf\xe9"))
	f.Add(uint8(24), []byte("\x80\x81"))
	f.Add(uint8(34), []byte("\xae\xbe\x00"))
	f.Add(uint8(8), []byte("caf\xc3\xa9 \xe2\x82\xac"))
	f.Fuzz(func(t *testing.T, n uint8, b []byte) {
		e, ok := ByNumber(int(n) % len(byNumber))
		if !ok || e.Converter == nil {
			return
		}
		if u, err := e.Converter.ToUTF8(b); err == nil {
			if !utf8.Valid(u) {
				t.Fatalf("%s: %q gives invalid UTF-8 %q", e.Name, b, u)
			}
			if back, err := e.Converter.FromUTF8(u); err != nil || string(back) != string(b) {
				t.Fatalf("%s: %q -> %q -> %q, %v", e.Name, b, u, back, err)
			}
		}
		if out, err := e.Converter.FromUTF8(b); err == nil && !bytes.Contains(b, []byte{0}) {
			if back, err := e.Converter.ToUTF8(out); err != nil || string(back) != string(b) {
				t.Fatalf("%s: UTF8 %q -> %q -> %q, %v", e.Name, b, out, back, err)
			}
		}
	})
}
