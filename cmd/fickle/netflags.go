package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net"
	"time"

	"github.com/fickle-db/fickle/server"
	"github.com/fickle-db/fickle/wire"
)

// netFlags are serve's flags about who may connect and how: the
// authentication method, TLS and the connection limit.
type netFlags struct {
	auth             string
	tlsMode          string
	tlsCert, tlsKey  string
	maxConnections   int
	authMethod       wire.AuthMethod
	tlsConfig        *tls.Config
	tlsCertGenerated bool
}

func (f *netFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.auth, "auth", "", "how clients prove they know --password: `METHOD` scram-sha-256 (scram, the default), md5 or password (cleartext); the server chooses, never the client")
	fs.StringVar(&f.tlsMode, "tls", "", "`MODE` auto: serve TLS with a throwaway self-signed certificate (for clients that say sslmode=require); with --tls-cert and --tls-key TLS is on without it")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve TLS with the certificate chain in `FILE` (PEM; needs --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the private key of --tls-cert in `FILE` (PEM)")
	fs.IntVar(&f.maxConnections, "max-connections", server.DefaultMaxConnections, "serve at most `N` sessions at once; clients beyond get 53300, as from PostgreSQL's max_connections")
}

// resolve checks the flags and loads or makes the TLS certificate.
func (f *netFlags) resolve(password string) error {
	m, err := wire.ParseAuthMethod(f.auth)
	if err != nil {
		return fmt.Errorf("--auth %q: want scram-sha-256, md5 or password", f.auth)
	}
	if f.auth != "" && password == "" {
		return errors.New("--auth needs --password")
	}
	f.authMethod = m
	if f.maxConnections < 1 {
		return fmt.Errorf("--max-connections %d: want at least 1", f.maxConnections)
	}
	switch {
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	case f.tlsCert != "" && f.tlsMode != "":
		return errors.New("--tls auto makes its own certificate: give it or --tls-cert and --tls-key, not both")
	case f.tlsCert != "":
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert: %v", err)
		}
		f.tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	case f.tlsMode == "auto":
		cert, err := selfSignedCertificate()
		if err != nil {
			return fmt.Errorf("--tls auto: %v", err)
		}
		f.tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		f.tlsCertGenerated = true
	case f.tlsMode != "":
		return fmt.Errorf("--tls %q: want auto", f.tlsMode)
	}
	return nil
}

// selfSignedCertificate makes a throwaway certificate for localhost, valid
// for a day: enough for clients that require encryption but verify no one.
func selfSignedCertificate() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "fickle (throwaway)"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
