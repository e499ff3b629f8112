package sqlexec

import (
	"crypto/des"
	"encoding/binary"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestBcryptCrypt checks crypt()'s bcrypt against PostgreSQL 15's
// pgcrypto on fixed salts, and that golang.org/x/crypto/bcrypt verifies
// what it makes.
func TestBcryptCrypt(t *testing.T) {
	for _, tc := range []struct{ password, setting, want string }{
		{"password", "$2a$06$4CJKrOVdvro2UF9RUBpZnu", "$2a$06$4CJKrOVdvro2UF9RUBpZnu4q9DRj0GzudNfp6PMRElnIOOZF4XkpW"},
		{"password", "$2a$06$4CJKrOVdvro2UF9RUBpZnx", "$2a$06$4CJKrOVdvro2UF9RUBpZnu4q9DRj0GzudNfp6PMRElnIOOZF4XkpW"},
		{"password", "$2a$06$4CJKrOVdvro2UF9RUBpZnu4q9DRj0GzudNfp6PMRElnIOOZF4XkpW", "$2a$06$4CJKrOVdvro2UF9RUBpZnu4q9DRj0GzudNfp6PMRElnIOOZF4XkpW"},
		{"password", "$2x$06$4CJKrOVdvro2UF9RUBpZnu", "$2x$06$4CJKrOVdvro2UF9RUBpZnu4q9DRj0GzudNfp6PMRElnIOOZF4XkpW"},
		{"", "$2a$04$abcdefghijklmnopqrstuu", "$2a$04$abcdefghijklmnopqrstuubyCG3zY1GIXMyxfivm.ClDiInHzxjiq"},
		{"pässwörd", "$2a$04$abcdefghijklmnopqrstuu", "$2a$04$abcdefghijklmnopqrstuuyx2n0Zzopyr9QuYTMCfOJJOj526QVoC"},
		{strings.Repeat("a", 80), "$2a$04$abcdefghijklmnopqrstuu", "$2a$04$abcdefghijklmnopqrstuuBzzIgyKkz7xMWYSzkIjUSnxEQFQ0WNe"},
	} {
		got, err := bcryptCrypt(tc.password, tc.setting)
		if err != nil || got != tc.want {
			t.Errorf("crypt(%q, %q) = %q, %v; want %q", tc.password, tc.setting, got, err, tc.want)
			continue
		}
		if tc.setting[2] == 'a' && len(tc.password) <= 72 {
			if err := bcrypt.CompareHashAndPassword([]byte(got), []byte(tc.password)); err != nil {
				t.Errorf("x/crypto/bcrypt does not verify %q for %q: %v", got, tc.password, err)
			}
		}
	}
	for _, setting := range []string{"$2a$06$4CJKrOVdvro2UF9RUBpZn", "$2a$06$4CJKrOVdvro2UF9RUBpZ$u", "$2a$03$4CJKrOVdvro2UF9RUBpZnu",
		"$2a$32$4CJKrOVdvro2UF9RUBpZnu", "$2a$06x4CJKrOVdvro2UF9RUBpZnu", "$2a$06$4CJKrOVdvro2UF9RUBpZn!"} {
		if _, err := bcryptCrypt("password", setting); pgerror.GetCode(err) != pgerror.InvalidParameterValue {
			t.Errorf("crypt with %q: %v, want invalid salt", setting, err)
		}
	}
}

// TestBcryptOfXCrypto checks that crypt() reproduces the hashes
// golang.org/x/crypto/bcrypt makes, salt and all.
func TestBcryptOfXCrypto(t *testing.T) {
	for _, password := range []string{"", "a", "correct horse battery staple", strings.Repeat("x", 72)} {
		h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		got, err := bcryptCrypt(password, string(h))
		if err != nil || got != string(h) {
			t.Errorf("crypt(%q, %q) = %q, %v", password, h, got, err)
		}
	}
}

// TestMd5Crypt checks md5-crypt against PostgreSQL 15's pgcrypto.
func TestMd5Crypt(t *testing.T) {
	for _, tc := range []struct{ password, setting, want string }{
		{"password", "$1$", "$1$$I2o9Z7NcvQAKp7wyCTlia0"},
		{"password", "$1$abc", "$1$abc$BXBqpb9BZcZhXLgbee.0s/"},
		{"password", "$1$abcdefghij", "$1$abcdefgh$G//4keteveJp0qb8z2DxG/"},
		{"password", "$1$ab$cd", "$1$ab$oKsM6dtDD2L1bKowOBX.7."},
		{"password", "$1$saltsalt$garbage", "$1$saltsalt$qjXMvbEw8oaL.CzflDtaK/"},
		{"pässwörd", "$1$abc", "$1$abc$va.mDh.xD0xaCpxxh9akd0"},
		{"", "$1$abc", "$1$abc$Or2rbeUYTvt12aiVzMuS/."},
		{strings.Repeat("xy", 40), "$1$abc", "$1$abc$1LIm5HdjlUkg5mN5jjDjP1"},
	} {
		if got := md5Crypt(tc.password, tc.setting); got != tc.want {
			t.Errorf("crypt(%q, %q) = %q, want %q", tc.password, tc.setting, got, tc.want)
		}
	}
}

// TestDESBlockIsDES checks the DES under crypt-des against crypto/des:
// without salt bits they must agree.
func TestDESBlockIsDES(t *testing.T) {
	for _, tc := range []struct{ key, block uint64 }{
		{0, 0}, {0x133457799bbcdff1, 0x0123456789abcdef}, {0xffffffffffffffff, 0x1122334455667788}, {0x0e329232ea6d0d73, 0x8787878787878787},
	} {
		var key, in, want [8]byte
		binary.BigEndian.PutUint64(key[:], tc.key)
		binary.BigEndian.PutUint64(in[:], tc.block)
		c, err := des.NewCipher(key[:])
		if err != nil {
			t.Fatal(err)
		}
		c.Encrypt(want[:], in[:])
		ks := desKeySchedule(tc.key)
		if got := desBlock(tc.block, &ks, 0); got != binary.BigEndian.Uint64(want[:]) {
			t.Errorf("DES(%016x, %016x) = %016x, want %x", tc.key, tc.block, got, want)
		}
	}
}

// TestDESCrypt checks traditional and extended DES crypt against
// PostgreSQL 15's pgcrypto.
func TestDESCrypt(t *testing.T) {
	for _, tc := range []struct{ password, setting, want string }{
		{"password", "ab", "abJnggxhB/yWI"},
		{"password", "xx", "xxj31ZMTZzkVA"},
		{"password", "ab$garbage", "abJnggxhB/yWI"},
		{"password", "!!", "!!UZoIyj/Hy/c"},
		{"password", "_J9..abcd", "_J9..abcdIPPmXD22F8s"},
		{"password", "_!9..abcd", "_!9..abcdhk5JGRVqYOQ"},
		{"password", "_J9..ab!d", "_J9..ab!dV8vQKD7kIA6"},
	} {
		if got, err := desCrypt(tc.password, tc.setting); err != nil || got != tc.want {
			t.Errorf("crypt(%q, %q) = %q, %v; want %q", tc.password, tc.setting, got, err, tc.want)
		}
	}
}

// FuzzPgcryptoDecoders feeds untrusted text to pgcrypto's parsers: crypt's
// settings (bcrypt, md5, DES; the costly bcrypt costs above 6 and extended
// DES settings, whose round counts come from the input, are skipped),
// dearmor's armored text and the cipher type names of encrypt/decrypt.
// None may panic, and what dearmor accepts armors back to itself.
func FuzzPgcryptoDecoders(f *testing.F) {
	for _, s := range []string{"$2a$04$abcdefghijklmnopqrstuu", "$1$saltsalt$", "ab", "$2x$05$", "$1$",
		"-----BEGIN PGP MESSAGE-----\n\nYWJj\n=Mp8b\n-----END PGP MESSAGE-----\n", "aes-cbc/pad:pkcs", "bf-ecb"} {
		f.Add("password", s)
	}
	f.Fuzz(func(t *testing.T, password, s string) {
		costly := strings.HasPrefix(s, "_") || len(s) >= 6 && strings.HasPrefix(s, "$2") && (s[4:6] > "06" || s[4] > '9')
		if !costly {
			_, _ = pgCrypt(nil, []any{password, s})
		}
		if data, err := dearmor(s); err == nil {
			text, err := pgArmor(nil, []any{data})
			if err != nil {
				t.Fatal(err)
			}
			again, err := dearmor(text.(string))
			if err != nil || string(again) != string(data) {
				t.Fatalf("dearmor(armor(%q)) = %q, %v", data, again, err)
			}
		}
		_, _, _ = parseCipherType(s)
	})
}
