package sqlexec

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"hash"
	"io"
	"strconv"
	"strings"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"
	"golang.org/x/crypto/ripemd160" // deprecated as weak, but OpenSSL's RIPEMD-160 is one of digest()'s

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pgcrypto 1.3, as PostgreSQL 15 built with OpenSSL 3 has it: digest and
// hmac with OpenSSL's digests, gen_random_bytes, gen_random_uuid,
// gen_salt and crypt (bcrypt, md5-crypt and DES;
// extension_pgcrypto_crypt.go and extension_pgcrypto_des.go), raw AES
// encryption, and ASCII armor (extension_pgcrypto_armor.go). The PGP
// functions, the ciphers OpenSSL 3 keeps in its legacy provider and the
// SM3 digest, which Go lacks, are in the catalog but refused when
// called; the legacy digests (MD4, Whirlpool) fail as in PostgreSQL.

func init() {
	in := func(ts ...types.Type) []funcParam {
		ps := make([]funcParam, len(ts))
		for i, t := range ts {
			ps[i] = funcParam{typ: t, mode: 'i', arg: true}
		}
		return ps
	}
	bytea, text, i4 := types.Bytea, types.Text, types.Int4
	textArray := arrayType(types.Text)
	refused := func(name string, volatility byte, result types.Type, symbol string, params ...types.Type) extensionFunc {
		return extensionFunc{name: name, params: in(params...), result: result, volatility: volatility, symbol: symbol,
			eval: func(*execCtx, []any) (any, error) { return nil, pgerror.Unsupported(name + "()") }}
	}
	registerExtension(&availableExtension{name: "pgcrypto", version: "1.3", library: "pgcrypto", relocatable: true,
		comment: "cryptographic functions",
		functions: []extensionFunc{
			{name: "digest", params: in(text, text), result: bytea, volatility: 'i', symbol: "pg_digest", eval: pgDigest},
			{name: "digest", params: in(bytea, text), result: bytea, volatility: 'i', symbol: "pg_digest", eval: pgDigest},
			{name: "hmac", params: in(text, text, text), result: bytea, volatility: 'i', symbol: "pg_hmac", eval: pgHmac},
			{name: "hmac", params: in(bytea, bytea, text), result: bytea, volatility: 'i', symbol: "pg_hmac", eval: pgHmac},
			{name: "crypt", params: in(text, text), result: text, volatility: 'i', symbol: "pg_crypt", eval: pgCrypt},
			{name: "gen_salt", params: in(text), result: text, volatility: 'v', symbol: "pg_gen_salt",
				eval: func(x *execCtx, a []any) (any, error) { return genSalt(x, a[0].(string), 0) }},
			{name: "gen_salt", params: in(text, i4), result: text, volatility: 'v', symbol: "pg_gen_salt_rounds",
				eval: func(x *execCtx, a []any) (any, error) { return genSalt(x, a[0].(string), a[1].(int64)) }},
			{name: "encrypt", params: in(bytea, bytea, text), result: bytea, volatility: 'i', symbol: "pg_encrypt",
				eval: func(_ *execCtx, a []any) (any, error) {
					return rawCipher(a[0].([]byte), a[1].([]byte), nil, a[2].(string), true)
				}},
			{name: "decrypt", params: in(bytea, bytea, text), result: bytea, volatility: 'i', symbol: "pg_decrypt",
				eval: func(_ *execCtx, a []any) (any, error) {
					return rawCipher(a[0].([]byte), a[1].([]byte), nil, a[2].(string), false)
				}},
			{name: "encrypt_iv", params: in(bytea, bytea, bytea, text), result: bytea, volatility: 'i', symbol: "pg_encrypt_iv",
				eval: func(_ *execCtx, a []any) (any, error) {
					return rawCipher(a[0].([]byte), a[1].([]byte), a[2].([]byte), a[3].(string), true)
				}},
			{name: "decrypt_iv", params: in(bytea, bytea, bytea, text), result: bytea, volatility: 'i', symbol: "pg_decrypt_iv",
				eval: func(_ *execCtx, a []any) (any, error) {
					return rawCipher(a[0].([]byte), a[1].([]byte), a[2].([]byte), a[3].(string), false)
				}},
			{name: "gen_random_bytes", params: in(i4), result: bytea, volatility: 'v', symbol: "pg_random_bytes",
				eval: func(x *execCtx, a []any) (any, error) {
					n := a[0].(int64)
					if n < 1 || n > 1024 {
						return nil, pgerror.New(pgerror.ExternalRoutineInvocationException, "Length not in range")
					}
					b := make([]byte, n)
					return b, pgcryptoRandom(x, b)
				}},
			{name: "gen_random_uuid", result: types.UUID, volatility: 'v', nonStrict: true, symbol: "pg_random_uuid",
				eval: func(x *execCtx, _ []any) (any, error) {
					var u [16]byte
					if err := pgcryptoRandom(x, u[:]); err != nil {
						return nil, err
					}
					return versioned(u, 4), nil
				}},
			refused("pgp_sym_encrypt", 'v', bytea, "pgp_sym_encrypt_text", text, text),
			refused("pgp_sym_encrypt_bytea", 'v', bytea, "pgp_sym_encrypt_bytea", bytea, text),
			refused("pgp_sym_encrypt", 'v', bytea, "pgp_sym_encrypt_text", text, text, text),
			refused("pgp_sym_encrypt_bytea", 'v', bytea, "pgp_sym_encrypt_bytea", bytea, text, text),
			refused("pgp_sym_decrypt", 'i', text, "pgp_sym_decrypt_text", bytea, text),
			refused("pgp_sym_decrypt_bytea", 'i', bytea, "pgp_sym_decrypt_bytea", bytea, text),
			refused("pgp_sym_decrypt", 'i', text, "pgp_sym_decrypt_text", bytea, text, text),
			refused("pgp_sym_decrypt_bytea", 'i', bytea, "pgp_sym_decrypt_bytea", bytea, text, text),
			refused("pgp_pub_encrypt", 'v', bytea, "pgp_pub_encrypt_text", text, bytea),
			refused("pgp_pub_encrypt_bytea", 'v', bytea, "pgp_pub_encrypt_bytea", bytea, bytea),
			refused("pgp_pub_encrypt", 'v', bytea, "pgp_pub_encrypt_text", text, bytea, text),
			refused("pgp_pub_encrypt_bytea", 'v', bytea, "pgp_pub_encrypt_bytea", bytea, bytea, text),
			refused("pgp_pub_decrypt", 'i', text, "pgp_pub_decrypt_text", bytea, bytea),
			refused("pgp_pub_decrypt_bytea", 'i', bytea, "pgp_pub_decrypt_bytea", bytea, bytea),
			refused("pgp_pub_decrypt", 'i', text, "pgp_pub_decrypt_text", bytea, bytea, text),
			refused("pgp_pub_decrypt_bytea", 'i', bytea, "pgp_pub_decrypt_bytea", bytea, bytea, text),
			refused("pgp_pub_decrypt", 'i', text, "pgp_pub_decrypt_text", bytea, bytea, text, text),
			refused("pgp_pub_decrypt_bytea", 'i', bytea, "pgp_pub_decrypt_bytea", bytea, bytea, text, text),
			refused("pgp_key_id", 'i', text, "pgp_key_id_w", bytea),
			{name: "armor", params: in(bytea), result: text, volatility: 'i', symbol: "pg_armor", eval: pgArmor},
			{name: "armor", params: in(bytea, textArray, textArray), result: text, volatility: 'i', symbol: "pg_armor", eval: pgArmor},
			{name: "dearmor", params: in(text), result: bytea, volatility: 'i', symbol: "pg_dearmor",
				eval: func(_ *execCtx, a []any) (any, error) { return dearmor(a[0].(string)) }},
			{name: "pgp_armor_headers", params: append(in(text),
				funcParam{name: "key", typ: text, mode: 'o'}, funcParam{name: "value", typ: text, mode: 'o'}),
				retSet: true, volatility: 'i', symbol: "pgp_armor_headers", evalRows: pgpArmorHeaders},
		}})
}

// pgcryptoRandom fills b from the session's source of randomness, the one
// gen_random_uuid() uses (seeded in a reproducible run).
func pgcryptoRandom(x *execCtx, b []byte) error {
	if x.env == nil || x.env.Rand == nil {
		return pgerror.Unsupported("pgcrypto without a source of randomness")
	}
	_, err := io.ReadFull(x.env.Rand, b)
	return err
}

// byteArg is a text or bytea argument's bytes: the overloads of a
// pgcrypto function share one C function, which reads both alike.
func byteArg(v any) []byte {
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	return v.([]byte)
}

// providerName is an algorithm's name as pgcrypto's find_provider looks
// it up, and quotes it in its errors: downcased and cut as an identifier.
func providerName(v any) string {
	return truncateIdentifier(downcaseIdentifier(v.(string)))
}

// providerError is find_provider's error for an algorithm it cannot use.
func providerError(name, reason string) error {
	return pgerror.Newf(pgerror.InvalidParameterValue, "Cannot use \"%s\": %s", name, reason)
}

// digestAlgorithm is a digest OpenSSL 3's EVP_get_digestbyname finds:
// its implementation, or nil for one fickle does not have.
type digestAlgorithm struct {
	newHash func() hash.Hash
	// legacy is a digest of OpenSSL's legacy provider, which PostgreSQL
	// finds but cannot initialise: it fails as there.
	legacy bool
}

// digestNames maps every name and alias OpenSSL 3.0 gives a digest
// (`openssl list -digest-algorithms`, object identifiers included),
// downcased, to the digest.
var digestNames = func() map[string]digestAlgorithm {
	out := map[string]digestAlgorithm{}
	add := func(a digestAlgorithm, names ...string) {
		for _, n := range names {
			out[n] = a
		}
	}
	must := func(h hash.Hash, err error) hash.Hash {
		if err != nil {
			panic(err)
		}
		return h
	}
	add(digestAlgorithm{newHash: md5.New}, "md5", "ssl3-md5", "rsa-md5", "md5withrsaencryption", "1.2.840.113549.2.5")
	add(digestAlgorithm{newHash: sha1.New}, "sha1", "sha-1", "ssl3-sha1", "rsa-sha1", "rsa-sha1-2", "sha1withrsaencryption", "1.3.14.3.2.26")
	add(digestAlgorithm{newHash: sha256.New224}, "sha224", "sha-224", "sha2-224", "rsa-sha224", "sha224withrsaencryption", "2.16.840.1.101.3.4.2.4")
	add(digestAlgorithm{newHash: sha256.New}, "sha256", "sha-256", "sha2-256", "rsa-sha256", "sha256withrsaencryption", "2.16.840.1.101.3.4.2.1")
	add(digestAlgorithm{newHash: sha512.New384}, "sha384", "sha-384", "sha2-384", "rsa-sha384", "sha384withrsaencryption", "2.16.840.1.101.3.4.2.2")
	add(digestAlgorithm{newHash: sha512.New}, "sha512", "sha-512", "sha2-512", "rsa-sha512", "sha512withrsaencryption", "2.16.840.1.101.3.4.2.3")
	add(digestAlgorithm{newHash: sha512.New512_224}, "sha512-224", "sha-512/224", "sha2-512/224", "rsa-sha512/224", "sha512-224withrsaencryption", "2.16.840.1.101.3.4.2.5")
	add(digestAlgorithm{newHash: sha512.New512_256}, "sha512-256", "sha-512/256", "sha2-512/256", "rsa-sha512/256", "sha512-256withrsaencryption", "2.16.840.1.101.3.4.2.6")
	for _, v := range []struct {
		bits int
		oid  string
		new  func() *sha3.SHA3
	}{{224, "7", sha3.New224}, {256, "8", sha3.New256}, {384, "9", sha3.New384}, {512, "10", sha3.New512}} {
		n := "sha3-" + strconv.Itoa(v.bits)
		add(digestAlgorithm{newHash: func() hash.Hash { return v.new() }}, n, "rsa-"+n,
			"id-rsassa-pkcs1-v1_5-with-"+n, "2.16.840.1.101.3.4.2."+v.oid)
	}
	add(digestAlgorithm{newHash: func() hash.Hash { return &shakeHash{size: 16, blockSize: 168} }},
		"shake128", "shake-128", "2.16.840.1.101.3.4.2.11")
	add(digestAlgorithm{newHash: func() hash.Hash { return &shakeHash{size: 32, blockSize: 136} }},
		"shake256", "shake-256", "2.16.840.1.101.3.4.2.12")
	add(digestAlgorithm{newHash: func() hash.Hash { return &md5sha1{md5.New(), sha1.New()} }}, "md5-sha1")
	add(digestAlgorithm{newHash: ripemd160.New}, "ripemd160", "ripemd", "ripemd-160", "rmd160", "rsa-ripemd160",
		"ripemd160withrsa", "1.3.36.3.2.1")
	add(digestAlgorithm{newHash: func() hash.Hash { return must(blake2b.New512(nil)) }},
		"blake2b512", "blake2b-512", "1.3.6.1.4.1.1722.12.2.1.16")
	add(digestAlgorithm{newHash: func() hash.Hash { return must(blake2s.New256(nil)) }},
		"blake2s256", "blake2s-256", "1.3.6.1.4.1.1722.12.2.2.8")
	add(digestAlgorithm{}, "sm3", "rsa-sm3", "sm3withrsaencryption", "1.2.156.10197.1.401")
	add(digestAlgorithm{legacy: true}, "md4", "rsa-md4", "md4withrsaencryption", "1.2.840.113549.2.4",
		"whirlpool", "1.0.10118.3.0.55")
	return out
}()

// findDigest looks up the digest digest() and hmac() name.
func findDigest(v any) (func() hash.Hash, error) {
	name := providerName(v)
	a, ok := digestNames[name]
	switch {
	case !ok:
		return nil, providerError(name, "No such hash algorithm")
	case a.legacy:
		return nil, providerError(name, "Cipher cannot be initialized")
	case a.newHash == nil:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "digest algorithm \"%s\" is not supported by fickle", name)
	}
	return a.newHash, nil
}

// pgDigest is digest(data, type).
func pgDigest(_ *execCtx, a []any) (any, error) {
	newHash, err := findDigest(a[1])
	if err != nil {
		return nil, err
	}
	h := newHash()
	h.Write(byteArg(a[0]))
	return h.Sum(nil), nil
}

// pgHmac is hmac(data, key, type).
func pgHmac(_ *execCtx, a []any) (any, error) {
	newHash, err := findDigest(a[2])
	if err != nil {
		return nil, err
	}
	h := hmac.New(newHash, byteArg(a[1]))
	h.Write(byteArg(a[0]))
	return h.Sum(nil), nil
}

// shakeHash is a SHAKE function with OpenSSL's default output length, as
// a hash: it keeps what is written and squeezes on Sum.
type shakeHash struct {
	data            []byte
	size, blockSize int
}

func (h *shakeHash) Write(p []byte) (int, error) { h.data = append(h.data, p...); return len(p), nil }
func (h *shakeHash) Reset()                      { h.data = h.data[:0] }
func (h *shakeHash) Size() int                   { return h.size }
func (h *shakeHash) BlockSize() int              { return h.blockSize }

func (h *shakeHash) Sum(b []byte) []byte {
	if h.size == 16 {
		return append(b, sha3.SumSHAKE128(h.data, h.size)...)
	}
	return append(b, sha3.SumSHAKE256(h.data, h.size)...)
}

// md5sha1 is OpenSSL's MD5-SHA1: the MD5 and the SHA-1 of the data, one
// after the other (TLS 1.0's handshake hash).
type md5sha1 struct{ md5, sha1 hash.Hash }

func (h *md5sha1) Write(p []byte) (int, error) { h.md5.Write(p); return h.sha1.Write(p) }
func (h *md5sha1) Reset()                      { h.md5.Reset(); h.sha1.Reset() }
func (h *md5sha1) Size() int                   { return md5.Size + sha1.Size }
func (h *md5sha1) BlockSize() int              { return md5.BlockSize }
func (h *md5sha1) Sum(b []byte) []byte         { return h.sha1.Sum(h.md5.Sum(b)) }

// cipherAliases are the cipher names pgcrypto maps to OpenSSL's.
var cipherAliases = map[string]string{
	"bf": "bf-cbc", "blowfish": "bf-cbc", "blowfish-cbc": "bf-cbc", "blowfish-ecb": "bf-ecb", "blowfish-cfb": "bf-cfb",
	"des": "des-cbc", "3des": "des3-cbc", "3des-ecb": "des3-ecb", "3des-cbc": "des3-cbc", "cast5": "cast5-cbc",
	"aes": "aes-cbc", "rijndael": "aes-cbc", "rijndael-cbc": "aes-cbc", "rijndael-ecb": "aes-ecb",
}

// legacyCiphers are the ciphers pgcrypto knows that OpenSSL 3 keeps in its
// legacy provider; fickle does not have them.
var legacyCiphers = map[string]bool{
	"bf-cbc": true, "bf-ecb": true, "bf-cfb": true, "des-ecb": true, "des-cbc": true, "des3-ecb": true,
	"des3-cbc": true, "cast5-ecb": true, "cast5-cbc": true,
}

// rawCipher is encrypt, decrypt, encrypt_iv and decrypt_iv: the type is
// "cipher[-mode][/pad:pkcs|none]"; AES takes a key of up to 32 bytes,
// zero-padded to 16, 24 or 32, and an IV zero-padded or cut to 16.
func rawCipher(data, key, iv []byte, typ string, encrypt bool) (any, error) {
	name := providerName(typ)
	cipherName, pad, err := parseCipherType(name)
	if err != nil {
		return nil, err
	}
	if a, ok := cipherAliases[cipherName]; ok {
		cipherName = a
	}
	known := legacyCiphers[cipherName] || cipherName == "aes-cbc" || cipherName == "aes-ecb"
	if !known || pad != "pkcs" && pad != "none" {
		return nil, providerError(name, "No such cipher algorithm")
	}
	if legacyCiphers[cipherName] {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cipher \"%s\" is not supported by fickle", cipherName)
	}
	k := make([]byte, 16)
	switch {
	case len(key) > 24:
		k = make([]byte, 32)
	case len(key) > 16:
		k = make([]byte, 24)
	}
	copy(k, key)
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	ivBlock := make([]byte, aes.BlockSize)
	copy(ivBlock, iv)
	var mode cipher.BlockMode
	switch {
	case cipherName == "aes-ecb":
		mode = ecbMode{block, encrypt}
	case encrypt:
		mode = cipher.NewCBCEncrypter(block, ivBlock)
	default:
		mode = cipher.NewCBCDecrypter(block, ivBlock)
	}
	if encrypt {
		return encryptBlocks(mode, data, pad == "pkcs")
	}
	return decryptBlocks(mode, data, pad == "pkcs")
}

// encryptBlocks encrypts data, padded as PKCS#7 says with pkcs, else
// refused unless it fills whole blocks, as OpenSSL does.
func encryptBlocks(mode cipher.BlockMode, data []byte, pkcs bool) ([]byte, error) {
	bs := mode.BlockSize()
	if pkcs {
		n := bs - len(data)%bs
		data = append(append([]byte(nil), data...), bytes.Repeat([]byte{byte(n)}, n)...)
	} else if len(data)%bs != 0 {
		return nil, pgerror.New(pgerror.ExternalRoutineInvocationException, "encrypt error: Encryption failed")
	}
	out := make([]byte, len(data))
	mode.CryptBlocks(out, data)
	return out, nil
}

// decryptBlocks decrypts data and with pkcs takes the PKCS#7 padding
// off, failing as OpenSSL does on data that is not whole blocks or on a
// padding that is not one.
func decryptBlocks(mode cipher.BlockMode, data []byte, pkcs bool) ([]byte, error) {
	failed := pgerror.New(pgerror.ExternalRoutineInvocationException, "decrypt error: Decryption failed")
	bs := mode.BlockSize()
	if len(data)%bs != 0 || pkcs && len(data) == 0 {
		return nil, failed
	}
	out := make([]byte, len(data))
	mode.CryptBlocks(out, data)
	if !pkcs {
		return out, nil
	}
	n := int(out[len(out)-1])
	if n == 0 || n > bs || !bytes.Equal(out[len(out)-n:], bytes.Repeat([]byte{byte(n)}, n)) {
		return nil, failed
	}
	return out[:len(out)-n], nil
}

// parseCipherType splits pgcrypto's cipher type into the cipher and its
// padding, "pkcs" unless a pad option names another, with the errors of
// a malformed type.
func parseCipherType(name string) (string, string, error) {
	cipherName, opts, _ := strings.Cut(name, "/")
	pad := "pkcs"
	for _, o := range strings.Split(opts, "/") {
		if o == "" {
			continue
		}
		k, v, ok := strings.Cut(o, ":")
		switch {
		case !ok:
			return "", "", providerError(name, "Badly formatted type")
		case k != "pad":
			return "", "", providerError(name, "Unknown option")
		}
		pad = v
	}
	return cipherName, pad, nil
}

// ecbMode encrypts or decrypts each block by itself.
type ecbMode struct {
	block   cipher.Block
	encrypt bool
}

func (m ecbMode) BlockSize() int { return m.block.BlockSize() }

func (m ecbMode) CryptBlocks(dst, src []byte) {
	for n := m.block.BlockSize(); len(src) > 0; dst, src = dst[n:], src[n:] {
		if m.encrypt {
			m.block.Encrypt(dst, src)
		} else {
			m.block.Decrypt(dst, src)
		}
	}
}
