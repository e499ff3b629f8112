package wire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// clientAuth answers the server's authentication requests as a driver
// would, with the given password, and returns the final message it got
// (AuthenticationOk or ErrorResponse).
func clientAuth(t *testing.T, fe *pgproto3.Frontend, user, password string, tamper bool) pgproto3.BackendMessage {
	t.Helper()
	var clientFirstBare, serverFirst, wantServerFinal string
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("client receive: %v", err)
		}
		switch m := msg.(type) {
		case *pgproto3.AuthenticationOk, *pgproto3.ErrorResponse:
			return msg
		case *pgproto3.AuthenticationCleartextPassword:
			fe.Send(&pgproto3.PasswordMessage{Password: password})
		case *pgproto3.AuthenticationMD5Password:
			fe.Send(&pgproto3.PasswordMessage{Password: MD5Password(user, password, m.Salt)})
		case *pgproto3.AuthenticationSASL:
			if len(m.AuthMechanisms) != 1 || m.AuthMechanisms[0] != "SCRAM-SHA-256" {
				t.Fatalf("mechanisms %v", m.AuthMechanisms)
			}
			clientFirstBare = "n=,r=rOprNGfwEbeRWgbNEkqO"
			fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,," + clientFirstBare)})
		case *pgproto3.AuthenticationSASLContinue:
			serverFirst = string(m.Data)
			attrs := map[string]string{}
			for _, a := range strings.Split(serverFirst, ",") {
				attrs[a[:1]] = a[2:]
			}
			if !strings.HasPrefix(attrs["r"], "rOprNGfwEbeRWgbNEkqO") {
				t.Fatalf("server nonce %q does not extend the client's", attrs["r"])
			}
			salt, _ := base64.StdEncoding.DecodeString(attrs["s"])
			iter, _ := strconv.Atoi(attrs["i"])
			salted, _ := pbkdf2.Key(sha256.New, password, salt, iter, 32)
			withoutProof := "c=biws,r=" + attrs["r"]
			authMessage := clientFirstBare + "," + serverFirst + "," + withoutProof
			clientKey := hmacSHA256(salted, "Client Key")
			stored := sha256.Sum256(clientKey)
			sig := hmacSHA256(stored[:], authMessage)
			proof := make([]byte, 32)
			for i := range proof {
				proof[i] = clientKey[i] ^ sig[i]
			}
			if tamper {
				proof[0] ^= 1
			}
			fe.Send(&pgproto3.SASLResponse{Data: []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof))})
			// The server proves it knows the password too.
			want := hmac.New(sha256.New, hmacSHA256(salted, "Server Key"))
			want.Write([]byte(authMessage))
			wantServerFinal = "v=" + base64.StdEncoding.EncodeToString(want.Sum(nil))
		case *pgproto3.AuthenticationSASLFinal:
			if string(m.Data) != wantServerFinal {
				t.Fatalf("server signature %q, want %q", m.Data, wantServerFinal)
			}
		default:
			t.Fatalf("unexpected %T", msg)
		}
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	scram, err := NewAuthenticator("s3cret", "")
	if err != nil {
		t.Fatal(err)
	}
	md5Default, err := NewAuthenticator("s3cret", AuthMD5)
	if err != nil {
		t.Fatal(err)
	}
	cleartext, err := NewAuthenticator("s3cret", AuthPassword)
	if err != nil {
		t.Fatal(err)
	}
	trust, _ := NewAuthenticator("", AuthSCRAM)
	tests := []struct {
		name     string
		auth     *Authenticator
		params   map[string]string
		password string
		tamper   bool
		wantCode pgerror.Code
	}{
		{name: "trust without a password", auth: trust, password: "anything"},
		{name: "scram right password", auth: scram, password: "s3cret"},
		{name: "scram wrong password", auth: scram, password: "wrong", wantCode: pgerror.InvalidPassword},
		{name: "scram tampered proof", auth: scram, password: "s3cret", tamper: true, wantCode: pgerror.InvalidPassword},
		{name: "md5 as configured", auth: md5Default, password: "s3cret"},
		{name: "md5 wrong password", auth: md5Default, password: "x", wantCode: pgerror.InvalidPassword},
		{name: "cleartext as configured", auth: cleartext, password: "s3cret"},
		{name: "cleartext wrong password", auth: cleartext, password: "", wantCode: pgerror.InvalidPassword},
		{name: "a client cannot ask for a weaker method", auth: scram, params: map[string]string{"fickle.auth_method": "password"}, password: "s3cret"},
		{name: "a client asking for a weaker method gets none", auth: scram, params: map[string]string{"fickle.auth_method": "password"}, password: "wrong", wantCode: pgerror.InvalidPassword},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			client.SetDeadline(time.Now().Add(10 * time.Second))
			p := map[string]string{"user": "alice"}
			for k, v := range tt.params {
				p[k] = v
			}
			done := make(chan error, 1)
			go func() {
				defer server.Close()
				be := pgproto3.NewBackend(server, server)
				err := tt.auth.Authenticate(be, p)
				if err != nil {
					be.Send(ErrorResponse(err))
				}
				be.Flush()
				done <- err
			}()
			fe := pgproto3.NewFrontend(client, client)
			last := clientAuth(t, fe, "alice", tt.password, tt.tamper)
			err := <-done
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("Authenticate: %v", err)
				}
				if _, ok := last.(*pgproto3.AuthenticationOk); !ok {
					t.Fatalf("client got %T, want AuthenticationOk", last)
				}
				return
			}
			var pe *pgerror.Error
			if !errors.As(err, &pe) || pe.Code != tt.wantCode || pe.Severity != "FATAL" {
				t.Fatalf("err = %v, want FATAL %s", err, tt.wantCode)
			}
			er, ok := last.(*pgproto3.ErrorResponse)
			if !ok || er.Code != string(tt.wantCode) || er.Severity != "FATAL" {
				t.Fatalf("client got %#v, want FATAL %s", last, tt.wantCode)
			}
		})
	}
}

func TestSCRAMRejectsMalformedMessages(t *testing.T) {
	tests := []struct {
		name  string
		first string
		final func(serverFirst string) string
	}{
		{name: "channel binding requested", first: "p=tls-server-end-point,,n=,r=abc"},
		{name: "bad gs2 header", first: "x,,n=,r=abc"},
		{name: "no nonce", first: "n,,n="},
		{name: "extension", first: "n,,n=,r=abc,m=ext"},
		{name: "nonce with comma-free garbage", first: "n,,n=,r=a\x01b"},
		{name: "final without proof", first: "n,,n=,r=abc", final: func(string) string { return "c=biws,r=abc" }},
		{name: "final with wrong nonce", first: "n,,n=,r=abc", final: func(string) string { return "c=biws,r=abcX,p=AAAA" }},
		{name: "final with wrong binding", first: "n,,n=,r=abc", final: func(sf string) string {
			return "c=eSws," + strings.Split(sf, ",")[0] + ",p=AAAA"
		}},
		{name: "final with bad base64", first: "n,,n=,r=abc", final: func(sf string) string {
			return "c=biws," + strings.Split(sf, ",")[0] + ",p=!!"
		}},
	}
	auth, err := NewAuthenticator("pw", AuthSCRAM)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			client.SetDeadline(time.Now().Add(10 * time.Second))
			done := make(chan error, 1)
			go func() {
				defer server.Close()
				done <- auth.Authenticate(pgproto3.NewBackend(server, server), map[string]string{"user": "u"})
			}()
			fe := pgproto3.NewFrontend(client, client)
			if _, err := fe.Receive(); err != nil {
				t.Fatal(err)
			}
			fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte(tt.first)})
			fe.Flush()
			if tt.final != nil {
				msg, err := fe.Receive()
				if err != nil {
					t.Fatal(err)
				}
				fe.Send(&pgproto3.SASLResponse{Data: []byte(tt.final(string(msg.(*pgproto3.AuthenticationSASLContinue).Data)))})
				fe.Flush()
			}
			err := <-done
			if pgerror.GetCode(err) != pgerror.ProtocolViolation {
				t.Fatalf("err = %v, want 08P01", err)
			}
		})
	}
}

func TestNewAuthenticatorRejectsUnknownMethod(t *testing.T) {
	if _, err := NewAuthenticator("pw", "kerberos"); err == nil {
		t.Fatal("NewAuthenticator accepted an unknown method")
	}
}
