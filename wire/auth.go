package wire

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// AuthMethod is how a client proves it knows the server's password.
type AuthMethod string

// The authentication methods, named as in pg_hba.conf.
const (
	AuthTrust    AuthMethod = "trust"         // no password asked
	AuthSCRAM    AuthMethod = "scram-sha-256" // SCRAM-SHA-256 (RFC 7677), the default with a password
	AuthMD5      AuthMethod = "md5"           // md5(md5(password || user) || salt)
	AuthPassword AuthMethod = "password"      // cleartext
)

// Authenticator checks the password of connecting clients. It is safe for
// concurrent use: the SCRAM verifier is derived once, as PostgreSQL stores it
// in pg_authid, so a connection costs no key derivation.
type Authenticator struct {
	password string
	method   AuthMethod
	scram    *scramVerifier
}

// NewAuthenticator returns an Authenticator. With an empty password every
// client is trusted. Otherwise every client authenticates with method
// (AuthSCRAM when empty): the server chooses, as pg_hba.conf does, never
// the client.
func NewAuthenticator(password string, method AuthMethod) (*Authenticator, error) {
	a := &Authenticator{password: password, method: AuthTrust}
	if password == "" {
		return a, nil
	}
	if method == "" {
		method = AuthSCRAM
	}
	if !validMethod(method) || method == AuthTrust {
		return nil, fmt.Errorf("unknown authentication method %q", method)
	}
	a.method = method
	v, err := newSCRAMVerifier(password)
	if err != nil {
		return nil, err
	}
	a.scram = v
	return a, nil
}

// ParseAuthMethod reads a method as fickle serve --auth names it: as
// pg_hba.conf does, and scram for scram-sha-256; "" is scram-sha-256.
func ParseAuthMethod(s string) (AuthMethod, error) {
	switch m := AuthMethod(s); m {
	case "", "scram":
		return AuthSCRAM, nil
	case AuthSCRAM, AuthMD5, AuthPassword:
		return m, nil
	}
	return "", fmt.Errorf("unknown authentication method %q", s)
}

func validMethod(m AuthMethod) bool {
	switch m {
	case AuthTrust, AuthSCRAM, AuthMD5, AuthPassword:
		return true
	}
	return false
}

// Method returns the method clients authenticate with.
func (a *Authenticator) Method() AuthMethod { return a.method }

// Authenticate runs the authentication exchange with the client on be and,
// on success, queues AuthenticationOk (unflushed). A wrong password is a
// FATAL 28P01 error, a malformed exchange FATAL 08P01; the caller sends the
// error and closes the connection.
func (a *Authenticator) Authenticate(be *pgproto3.Backend, params map[string]string) error {
	user := params["user"]
	var err error
	switch a.method {
	case AuthTrust:
	case AuthPassword:
		err = a.cleartext(be, user)
	case AuthMD5:
		err = a.md5(be, user)
	case AuthSCRAM:
		err = a.scram.exchange(be, user)
	}
	if err != nil {
		return err
	}
	be.Send(&pgproto3.AuthenticationOk{})
	return nil
}

func (a *Authenticator) cleartext(be *pgproto3.Backend, user string) error {
	be.Send(&pgproto3.AuthenticationCleartextPassword{})
	pw, err := receivePassword(be, pgproto3.AuthTypeCleartextPassword)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(pw), []byte(a.password)) != 1 {
		return passwordFailed(user)
	}
	return nil
}

func (a *Authenticator) md5(be *pgproto3.Backend, user string) error {
	var salt [4]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return err
	}
	be.Send(&pgproto3.AuthenticationMD5Password{Salt: salt})
	got, err := receivePassword(be, pgproto3.AuthTypeMD5Password)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(MD5Password(user, a.password, salt))) != 1 {
		return passwordFailed(user)
	}
	return nil
}

// MD5Password returns the md5 response a client sends for user and
// password: "md5" || hex(md5(hex(md5(password || user)) || salt)).
func MD5Password(user, password string, salt [4]byte) string {
	inner := md5.Sum([]byte(password + user))
	outer := md5.Sum(append([]byte(hex.EncodeToString(inner[:])), salt[:]...))
	return "md5" + hex.EncodeToString(outer[:])
}

// receivePassword flushes the pending request and reads the PasswordMessage
// that answers it.
func receivePassword(be *pgproto3.Backend, authType uint32) (string, error) {
	msg, err := receiveAuth(be, authType)
	if err != nil {
		return "", err
	}
	pm, ok := msg.(*pgproto3.PasswordMessage)
	if !ok {
		return "", fatal(pgerror.ProtocolViolation, "expected password response, got %T", msg)
	}
	return pm.Password, nil
}

// receiveAuth flushes be and receives the client's answer to an
// authentication request of the given type.
func receiveAuth(be *pgproto3.Backend, authType uint32) (pgproto3.FrontendMessage, error) {
	if err := be.SetAuthType(authType); err != nil {
		return nil, err
	}
	if err := be.Flush(); err != nil {
		return nil, err
	}
	msg, err := be.Receive()
	if err != nil {
		return nil, receiveError(err)
	}
	return msg, nil
}

func passwordFailed(user string) *pgerror.Error {
	return fatal(pgerror.InvalidPassword, "password authentication failed for user %q", user)
}
