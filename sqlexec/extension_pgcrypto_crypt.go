package sqlexec

import (
	"crypto/md5"
	"encoding/base64"
	"strings"

	"golang.org/x/crypto/blowfish"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// pgcrypto's crypt() and gen_salt(): bcrypt ("$2a$", and "$2x$" for
// passwords in ASCII, where its sign-extension bug changes nothing),
// md5-crypt ("$1$"), and for any other setting DES crypt, traditional
// and extended (extension_pgcrypto_des.go).

// cryptAlphabet is crypt(3)'s base-64 alphabet (md5-crypt, DES salts).
const cryptAlphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// bcryptEncoding is bcrypt's base 64: the usual bit order, its own
// alphabet, no padding; decoding ignores a last character's spare bits.
var bcryptEncoding = base64.NewEncoding("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789").WithPadding(base64.NoPadding)

// pgCrypt is crypt(password, salt): the salt's prefix picks the
// algorithm, as pgcrypto's px_crypt does.
func pgCrypt(_ *execCtx, a []any) (any, error) {
	password, salt := a[0].(string), a[1].(string)
	switch {
	case strings.HasPrefix(salt, "$2a$"), strings.HasPrefix(salt, "$2x$"):
		return bcryptCrypt(password, salt)
	case strings.HasPrefix(salt, "$2$"):
		return nil, pgerror.New(pgerror.ExternalRoutineInvocationException, "crypt(3) returned NULL")
	case strings.HasPrefix(salt, "$1$"):
		return md5Crypt(password, salt), nil
	}
	return desCrypt(password, salt)
}

// bcryptCrypt is bcrypt of the password with setting "$2a$NN$" and 22
// characters of salt: the salt comes back re-encoded, then the hash.
func bcryptCrypt(password, setting string) (string, error) {
	invalid := pgerror.New(pgerror.InvalidParameterValue, "invalid salt")
	if len(setting) < 29 || setting[6] != '$' || !isDigit(setting[4]) || !isDigit(setting[5]) {
		return "", invalid
	}
	cost := int(setting[4]-'0')*10 + int(setting[5]-'0')
	if cost < 4 || cost > 31 {
		return "", invalid
	}
	if strings.ContainsAny(setting[7:29], "=\r\n") {
		return "", invalid
	}
	salt, err := bcryptEncoding.DecodeString(setting[7:29])
	if err != nil {
		return "", invalid
	}
	if setting[2] == 'x' && strings.ContainsFunc(password, func(r rune) bool { return r >= 0x80 }) {
		return "", pgerror.Unsupported("crypt() with a \"$2x$\" salt of a password with non-ASCII characters")
	}
	key := append([]byte(password), 0)
	c, err := blowfish.NewSaltedCipher(key, salt)
	if err != nil {
		return "", err
	}
	for range 1 << cost {
		blowfish.ExpandKey(key, c)
		blowfish.ExpandKey(salt, c)
	}
	text := []byte("OrpheanBeholderScryDoubt")
	for range 64 {
		for i := 0; i < len(text); i += 8 {
			c.Encrypt(text[i:i+8], text[i:i+8])
		}
	}
	return setting[:7] + bcryptEncoding.EncodeToString(salt) + bcryptEncoding.EncodeToString(text[:23]), nil
}

// md5Crypt is Poul-Henning Kamp's md5-crypt of the password, with the
// salt's first 8 characters after "$1$" up to a '$'.
func md5Crypt(password, setting string) string {
	const magic = "$1$"
	salt := strings.TrimPrefix(setting, magic)
	if i := strings.IndexByte(salt, '$'); i >= 0 {
		salt = salt[:i]
	}
	if len(salt) > 8 {
		salt = salt[:8]
	}
	pw := []byte(password)
	alt := md5.Sum([]byte(password + salt + password))
	h := md5.New()
	h.Write([]byte(password + magic + salt))
	for n := len(pw); n > 0; n -= 16 {
		h.Write(alt[:min(n, 16)])
	}
	for n := len(pw); n > 0; n >>= 1 {
		if n&1 != 0 {
			h.Write([]byte{0})
		} else {
			h.Write(pw[:1])
		}
	}
	final := h.Sum(nil)
	for i := range 1000 {
		r := md5.New()
		if i&1 != 0 {
			r.Write(pw)
		} else {
			r.Write(final)
		}
		if i%3 != 0 {
			r.Write([]byte(salt))
		}
		if i%7 != 0 {
			r.Write(pw)
		}
		if i&1 != 0 {
			r.Write(final)
		} else {
			r.Write(pw)
		}
		final = r.Sum(nil)
	}
	var b strings.Builder
	b.WriteString(magic + salt + "$")
	for _, g := range [][3]int{{0, 6, 12}, {1, 7, 13}, {2, 8, 14}, {3, 9, 15}, {4, 10, 5}} {
		writeCrypt64(&b, uint32(final[g[0]])<<16|uint32(final[g[1]])<<8|uint32(final[g[2]]), 4)
	}
	writeCrypt64(&b, uint32(final[11]), 2)
	return b.String()
}

// writeCrypt64 writes n characters of crypt(3)'s base 64 of v, its low
// six bits first.
func writeCrypt64(b *strings.Builder, v uint32, n int) {
	for range n {
		b.WriteByte(cryptAlphabet[v&0x3f])
		v >>= 6
	}
}

// saltGenerator is one of gen_salt's salt types: the random bytes it
// takes, its default and its range of rounds (none for a fixed count,
// where only 0 and fixed are accepted), and its salt's making.
type saltGenerator struct {
	randomBytes                   int
	defaultRounds, minRounds, max int64
	fixed                         int64
	make                          func(rounds int64, random []byte) (string, bool)
}

// saltGenerators are gen_salt's types, by name.
var saltGenerators = map[string]saltGenerator{
	"des": {randomBytes: 2, fixed: 25, make: func(_ int64, r []byte) (string, bool) {
		return string([]byte{cryptAlphabet[r[0]&0x3f], cryptAlphabet[r[1]&0x3f]}), true
	}},
	"md5": {randomBytes: 6, fixed: 1000, make: func(_ int64, r []byte) (string, bool) {
		var b strings.Builder
		b.WriteString("$1$")
		writeCrypt64(&b, uint32(r[0])|uint32(r[1])<<8|uint32(r[2])<<16, 4)
		writeCrypt64(&b, uint32(r[3])|uint32(r[4])<<8|uint32(r[5])<<16, 4)
		return b.String(), true
	}},
	"xdes": {randomBytes: 3, defaultRounds: 29 * 25, minRounds: 1, max: 0xffffff, make: func(rounds int64, r []byte) (string, bool) {
		if rounds&1 == 0 {
			return "", false
		}
		var b strings.Builder
		b.WriteByte('_')
		writeCrypt64(&b, uint32(rounds), 4)
		writeCrypt64(&b, uint32(r[0])|uint32(r[1])<<8|uint32(r[2])<<16, 4)
		return b.String(), true
	}},
	"bf": {randomBytes: 16, defaultRounds: 6, minRounds: 4, max: 31, make: func(rounds int64, r []byte) (string, bool) {
		return "$2a$" + string([]byte{byte('0' + rounds/10), byte('0' + rounds%10)}) + "$" + bcryptEncoding.EncodeToString(r), true
	}},
}

// genSalt is gen_salt(type[, rounds]); rounds 0 is the type's default.
func genSalt(x *execCtx, typ string, rounds int64) (any, error) {
	g, ok := saltGenerators[downcaseIdentifier(typ)]
	if !ok {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "gen_salt: Unknown salt algorithm")
	}
	badRounds := pgerror.New(pgerror.InvalidParameterValue, "gen_salt: Incorrect number of rounds")
	if g.defaultRounds != 0 {
		if rounds == 0 {
			rounds = g.defaultRounds
		}
		if rounds < g.minRounds || rounds > g.max {
			return nil, badRounds
		}
	} else if rounds != 0 && rounds != g.fixed {
		return nil, badRounds
	}
	random := make([]byte, g.randomBytes)
	if err := pgcryptoRandom(x, random); err != nil {
		return nil, err
	}
	salt, ok := g.make(rounds, random)
	if !ok {
		return nil, badRounds
	}
	return salt, nil
}
