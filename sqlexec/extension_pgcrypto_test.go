package sqlexec

import (
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
