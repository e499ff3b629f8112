package sqlexec

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// scramIterations is PostgreSQL's default scram_iterations.
const scramIterations = 4096

// encryptPassword is PostgreSQL's encrypt_password, run by CREATE and ALTER
// ROLE ... PASSWORD: a password given already as an MD5 hash or a SCRAM
// secret is stored as it is, any other is hashed as password_encryption
// says, so that pg_authid.rolpassword never holds a password in clear. An
// empty password, in any form, clears the password with a NOTICE.
func (s *Session) encryptPassword(role, password string, note notify) (any, error) {
	if passwordIsEmpty(role, password) {
		note("NOTICE", "empty string is not a valid password, clearing password")
		return nil, nil
	}
	if isMD5Secret(password) {
		return password, nil
	}
	if _, ok := parseSCRAMSecret(password); ok {
		return password, nil
	}
	if method, _ := s.setting("password_encryption"); strings.EqualFold(method, "md5") {
		return md5Secret(role, password), nil
	}
	return scramSecret(password)
}

// isMD5Secret is get_password_type's test for an MD5 hash: "md5" and 32
// lower-case hex digits.
func isMD5Secret(p string) bool {
	if len(p) != 35 || !strings.HasPrefix(p, "md5") {
		return false
	}
	for _, c := range p[3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func md5Secret(role, password string) string {
	sum := md5.Sum([]byte(password + role))
	return "md5" + hex.EncodeToString(sum[:])
}

// scramParts is a SCRAM-SHA-256 secret's fields.
type scramParts struct {
	iterations                 int
	salt, storedKey, serverKey []byte
}

// parseSCRAMSecret is parse_scram_secret: SCRAM-SHA-256$iterations:salt$
// StoredKey:ServerKey, in base64, both keys of SHA-256's length.
func parseSCRAMSecret(p string) (scramParts, bool) {
	var sp scramParts
	rest, ok := strings.CutPrefix(p, "SCRAM-SHA-256$")
	if !ok {
		return sp, false
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return sp, false
	}
	iter, salt, ok1 := strings.Cut(iterSalt, ":")
	stored, server, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return sp, false
	}
	n, err := strconv.Atoi(iter)
	if err != nil || n <= 0 {
		return sp, false
	}
	sp.iterations = n
	dec := base64.StdEncoding
	if sp.salt, err = dec.DecodeString(salt); err != nil {
		return sp, false
	}
	if sp.storedKey, err = dec.DecodeString(stored); err != nil || len(sp.storedKey) != sha256.Size {
		return sp, false
	}
	if sp.serverKey, err = dec.DecodeString(server); err != nil || len(sp.serverKey) != sha256.Size {
		return sp, false
	}
	return sp, true
}

// scramKeys returns StoredKey and ServerKey of password (RFC 5802 §3).
func scramKeys(password string, salt []byte, iterations int) (stored, server []byte, err error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, nil, err
	}
	mac := func(msg string) []byte {
		h := hmac.New(sha256.New, salted)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	sum := sha256.Sum256(mac("Client Key"))
	return sum[:], mac("Server Key"), nil
}

func scramSecret(password string) (any, error) {
	if !isASCII(password) {
		// PostgreSQL runs SASLprep over a non-ASCII password first.
		return nil, pgerror.Unsupported("a SCRAM-SHA-256 password with non-ASCII characters")
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	stored, server, err := scramKeys(password, salt, scramIterations)
	if err != nil {
		return nil, err
	}
	enc := base64.StdEncoding
	return "SCRAM-SHA-256$" + strconv.Itoa(scramIterations) + ":" + enc.EncodeToString(salt) + "$" +
		enc.EncodeToString(stored) + ":" + enc.EncodeToString(server), nil
}

// passwordIsEmpty reports whether password is the empty password, given in
// clear, as role's MD5 hash or as a SCRAM secret.
func passwordIsEmpty(role, password string) bool {
	switch {
	case password == "":
		return true
	case isMD5Secret(password):
		return password == md5Secret(role, "")
	}
	sp, ok := parseSCRAMSecret(password)
	if !ok {
		return false
	}
	stored, _, err := scramKeys("", sp.salt, sp.iterations)
	return err == nil && subtle.ConstantTimeCompare(stored, sp.storedKey) == 1
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
