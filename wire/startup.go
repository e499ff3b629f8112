package wire

import (
	"io"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// maxNegotiations bounds the SSLRequest/GSSENCRequest packets one connection
// may send before its StartupMessage: a client tries each at most once.
const maxNegotiations = 2

// Startup is the outcome of the startup phase of one connection: either the
// parameters of a new session or a cancel request.
type Startup struct {
	// Params holds the startup parameters (user, database, application_name,
	// ...), with the "-c name=value" settings of the options parameter merged
	// in. user is always present; database defaults to user.
	Params map[string]string
	// Cancel is set when the connection carries only a CancelRequest; Params
	// is nil then and the connection must be closed after acting on it.
	Cancel *CancelKey
}

// CancelKey identifies the session a CancelRequest targets.
type CancelKey struct {
	ProcessID uint32
	SecretKey []byte
}

// Encrypt switches a connection to TLS after ReadStartup answered an
// SSLRequest with 'S': it runs the TLS handshake on the connection and
// returns the backend and the raw writer of the encrypted connection, from
// which the rest of the startup is read.
type Encrypt func() (*pgproto3.Backend, io.Writer, error)

// ReadStartup reads the startup packets of a new connection from be. It
// answers SSLRequest with 'S' and switches to TLS through encrypt when it
// is not nil, with 'N' otherwise, and GSSENCRequest with 'N', on raw (the
// connection the backend writes to); and it negotiates protocol 3.2 and
// "_pq_." options down to 3.0 with a NegotiateProtocolVersion message
// (buffered in be, flushed with the authentication request). The returned
// error is a FATAL *pgerror.Error the caller should send before closing,
// or an I/O error.
func ReadStartup(be *pgproto3.Backend, raw io.Writer, encrypt Encrypt) (*Startup, error) {
	encrypted := false
	for range maxNegotiations + 1 {
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return nil, startupError(err)
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if encrypted {
				return nil, fatal(pgerror.ProtocolViolation, "SSL negotiation on an encrypted connection")
			}
			if encrypt == nil {
				if _, err := raw.Write([]byte{'N'}); err != nil {
					return nil, err
				}
				continue
			}
			if _, err := raw.Write([]byte{'S'}); err != nil {
				return nil, err
			}
			if be, raw, err = encrypt(); err != nil {
				return nil, err
			}
			encrypted = true
		case *pgproto3.GSSEncRequest:
			if _, err := raw.Write([]byte{'N'}); err != nil {
				return nil, err
			}
		case *pgproto3.CancelRequest:
			key := &CancelKey{ProcessID: m.ProcessID, SecretKey: append([]byte(nil), m.SecretKey...)}
			return &Startup{Cancel: key}, nil
		case *pgproto3.StartupMessage:
			return startup(be, m)
		default:
			return nil, fatal(pgerror.ProtocolViolation, "unexpected startup packet %T", msg)
		}
	}
	return nil, fatal(pgerror.ProtocolViolation, "too many encryption negotiation packets")
}

// startup validates a StartupMessage and turns it into a Startup.
func startup(be *pgproto3.Backend, m *pgproto3.StartupMessage) (*Startup, error) {
	params := make(map[string]string, len(m.Parameters)+2)
	var unrecognized []string
	for k, v := range m.Parameters {
		if strings.HasPrefix(k, "_pq_.") {
			unrecognized = append(unrecognized, k)
			continue
		}
		params[k] = v
	}
	if m.ProtocolVersion != pgproto3.ProtocolVersion30 || len(unrecognized) > 0 {
		sort.Strings(unrecognized)
		be.Send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unrecognized})
	}
	if opts, ok := params["options"]; ok {
		settings, err := ParseOptions(opts)
		if err != nil {
			return nil, err
		}
		for k, v := range settings {
			if _, ok := params[k]; !ok { // PostgreSQL applies options first, then the parameters
				params[k] = v
			}
		}
		delete(params, "options")
	}
	if params["user"] == "" {
		return nil, fatal(pgerror.InvalidAuthorizationSpecification, "no PostgreSQL user name specified in startup packet")
	}
	if params["database"] == "" {
		params["database"] = params["user"]
	}
	return &Startup{Params: params}, nil
}

// ParseOptions parses the "options" startup parameter as PostgreSQL does:
// whitespace-separated command-line switches where a backslash escapes the
// next character, of which "-c name=value" and "--name=value" set a run-time
// parameter. Other switches are rejected with 08P01.
func ParseOptions(s string) (map[string]string, error) {
	words := splitOptions(s)
	out := make(map[string]string)
	for i := 0; i < len(words); i++ {
		w := words[i]
		var setting string
		switch {
		case w == "-c" && i+1 < len(words):
			i++
			setting = words[i]
		case strings.HasPrefix(w, "-c") && len(w) > 2:
			setting = w[2:]
		case strings.HasPrefix(w, "--") && len(w) > 2:
			setting = w[2:]
		default:
			return nil, fatal(pgerror.ProtocolViolation, "invalid command-line argument for server process: %s", w)
		}
		name, value, ok := strings.Cut(setting, "=")
		if !ok || name == "" {
			return nil, fatal(pgerror.SyntaxError, "-c %s requires a value", setting)
		}
		out[strings.ReplaceAll(name, "-", "_")] = value
	}
	return out, nil
}

// splitOptions splits the options string at unescaped whitespace.
func splitOptions(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// startupError classifies a failure to read a startup packet: I/O errors
// pass through, malformed packets become FATAL protocol errors.
func startupError(err error) error {
	if IsIOError(err) {
		return err
	}
	if strings.Contains(err.Error(), "unknown startup message code") ||
		strings.Contains(err.Error(), "Bad startup message version") {
		return fatal(pgerror.FeatureNotSupported, "unsupported frontend protocol: %v", err)
	}
	return fatal(pgerror.ProtocolViolation, "invalid startup packet: %v", err)
}

// fatal returns a FATAL error with the given code.
func fatal(code pgerror.Code, format string, args ...any) *pgerror.Error {
	e := pgerror.Newf(code, format, args...)
	e.Severity = "FATAL"
	return e
}

// Fatal returns err as an error of severity FATAL, which ends the session
// after the client receives it.
func Fatal(err error) *pgerror.Error {
	e := pgerror.Flatten(err)
	e.Severity = "FATAL"
	return e
}
