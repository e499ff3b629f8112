package wire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// scramIterations is PostgreSQL's default scram_iterations.
const scramIterations = 4096

// scramMechanism is the only SASL mechanism offered: without TLS there is no
// channel to bind, so SCRAM-SHA-256-PLUS is not advertised.
const scramMechanism = "SCRAM-SHA-256"

// scramVerifier is what PostgreSQL stores for a SCRAM password: the salt, the
// iteration count, StoredKey and ServerKey (RFC 5802 §3).
type scramVerifier struct {
	salt      []byte
	storedKey []byte
	serverKey []byte
}

func newSCRAMVerifier(password string) (*scramVerifier, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return nil, err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return &scramVerifier{salt: salt, storedKey: stored[:], serverKey: hmacSHA256(salted, "Server Key")}, nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// exchange runs the server side of SCRAM-SHA-256 (RFC 5802, RFC 7677). As in
// PostgreSQL the user name inside the SCRAM messages is ignored: the startup
// packet's user is authoritative.
func (v *scramVerifier) exchange(be *pgproto3.Backend, user string) error {
	be.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
	msg, err := receiveAuth(be, pgproto3.AuthTypeSASL)
	if err != nil {
		return err
	}
	initial, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok {
		return fatal(pgerror.ProtocolViolation, "expected SASL response, got %T", msg)
	}
	if initial.AuthMechanism != scramMechanism {
		return fatal(pgerror.ProtocolViolation, "client selected an invalid SASL authentication mechanism")
	}
	cf, err := parseClientFirst(string(initial.Data))
	if err != nil {
		return err
	}

	nonce := make([]byte, 18)
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	fullNonce := cf.nonce + base64.StdEncoding.EncodeToString(nonce)
	serverFirst := "r=" + fullNonce + ",s=" + base64.StdEncoding.EncodeToString(v.salt) + ",i=4096"
	be.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})

	msg, err = receiveAuth(be, pgproto3.AuthTypeSASLContinue)
	if err != nil {
		return err
	}
	resp, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return fatal(pgerror.ProtocolViolation, "expected SASL response, got %T", msg)
	}
	final, err := parseClientFinal(string(resp.Data))
	if err != nil {
		return err
	}
	if final.channelBinding != base64.StdEncoding.EncodeToString([]byte(cf.gs2Header)) {
		return fatal(pgerror.ProtocolViolation, "SCRAM channel binding check failed")
	}
	if final.nonce != fullNonce {
		return fatal(pgerror.ProtocolViolation, "SCRAM nonce mismatch")
	}

	authMessage := cf.bare + "," + serverFirst + "," + final.withoutProof
	clientSignature := hmacSHA256(v.storedKey, authMessage)
	if len(final.proof) != len(clientSignature) {
		return passwordFailed(user)
	}
	clientKey := make([]byte, len(clientSignature))
	for i := range clientKey {
		clientKey[i] = final.proof[i] ^ clientSignature[i]
	}
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], v.storedKey) != 1 {
		return passwordFailed(user)
	}
	serverSignature := hmacSHA256(v.serverKey, authMessage)
	be.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + base64.StdEncoding.EncodeToString(serverSignature))})
	return nil
}

// clientFirst is the parsed client-first-message.
type clientFirst struct {
	gs2Header string // "n,," or "y,,"
	bare      string // client-first-message-bare
	nonce     string
}

// parseClientFirst parses "gs2-header client-first-message-bare", where the
// header is "n,," or "y,," (a client that could bind a channel but thinks we
// cannot) and the bare part is "n=user,r=nonce" without extensions.
func parseClientFirst(s string) (*clientFirst, error) {
	var header string
	switch {
	case strings.HasPrefix(s, "n,,"), strings.HasPrefix(s, "y,,"):
		header = s[:3]
	case strings.HasPrefix(s, "p="):
		return nil, fatal(pgerror.ProtocolViolation, "SCRAM channel binding is not supported without SSL")
	default:
		return nil, malformedSCRAM("unexpected GS2 header")
	}
	bare := s[3:]
	attrs := strings.Split(bare, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") {
		return nil, malformedSCRAM("expected user name and nonce")
	}
	if len(attrs) > 2 {
		return nil, malformedSCRAM("unsupported SCRAM extension")
	}
	nonce := attrs[1][2:]
	if nonce == "" || !printableNonce(nonce) {
		return nil, malformedSCRAM("invalid nonce")
	}
	return &clientFirst{gs2Header: header, bare: bare, nonce: nonce}, nil
}

// clientFinal is the parsed client-final-message.
type clientFinal struct {
	channelBinding string
	nonce          string
	proof          []byte
	withoutProof   string
}

// parseClientFinal parses "c=binding,r=nonce,p=proof".
func parseClientFinal(s string) (*clientFinal, error) {
	i := strings.LastIndex(s, ",p=")
	if i < 0 {
		return nil, malformedSCRAM("missing proof")
	}
	attrs := strings.Split(s[:i], ",")
	if len(attrs) != 2 || !strings.HasPrefix(attrs[0], "c=") || !strings.HasPrefix(attrs[1], "r=") {
		return nil, malformedSCRAM("expected channel binding and nonce")
	}
	proof, err := base64.StdEncoding.DecodeString(s[i+3:])
	if err != nil {
		return nil, malformedSCRAM("invalid proof encoding")
	}
	return &clientFinal{channelBinding: attrs[0][2:], nonce: attrs[1][2:], proof: proof, withoutProof: s[:i]}, nil
}

// printableNonce reports whether a nonce holds only printable ASCII other
// than ',' (RFC 5802 §7).
func printableNonce(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e || s[i] == ',' {
			return false
		}
	}
	return true
}

func malformedSCRAM(detail string) *pgerror.Error {
	e := fatal(pgerror.ProtocolViolation, "malformed SCRAM message")
	e.Detail = detail
	return e
}
