package history

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Format names a history format.
type Format string

// The formats fickle reads; WriteFormats lists those it also writes.
const (
	FormatAuto         Format = ""
	FormatFickle       Format = "fickle"        // fickle JSONL (docs/history-format.md)
	FormatAWDIT        Format = "awdit"         // AWDIT's test format
	FormatPlume        Format = "plume"         // Plume/PolySI text, r(k,v,s,t)
	FormatDBCop        Format = "dbcop"         // dbcop JSON
	FormatDBCopHist    Format = "dbcop-hist"    // dbcop's .hist text
	FormatDBCopBincode Format = "dbcop-bincode" // dbcop's original history.bincode
	FormatElle         Format = "elle"          // Jepsen/Elle EDN
	FormatElleJSON     Format = "elle-json"     // Jepsen/Elle JSON
	FormatViper        Format = "viper"         // Viper JSON-lines logs, a directory or one file
	FormatCobra        Format = "cobra"         // Cobra binary logs, a directory or one file
)

// Formats lists every format's name, for usage messages.
var Formats = []Format{FormatFickle, FormatAWDIT, FormatPlume, FormatDBCop, FormatDBCopHist, FormatDBCopBincode,
	FormatElle, FormatElleJSON, FormatViper, FormatCobra}

// WriteFormats lists the formats Export writes.
var WriteFormats = []Format{FormatFickle, FormatAWDIT, FormatPlume, FormatDBCop, FormatDBCopHist, FormatElle}

// readCommittedBE names, per format, the checkers that read it and check
// read committed as Biswas and Enea define it, without the visibility of a
// session's earlier transactions that fickle's read committed has (DESIGN.md
// §3): a history those tools accept at read committed may fail fickle's.
var readCommittedBE = map[Format]string{
	FormatAWDIT:        "AWDIT",
	FormatPlume:        "Plume and AWDIT",
	FormatDBCop:        "dbcop",
	FormatDBCopHist:    "dbcop",
	FormatDBCopBincode: "dbcop and AWDIT",
	FormatCobra:        "AWDIT",
}

// ReadCommittedBETools names the checkers that read format f and check
// Biswas and Enea's read committed (a session's earlier transactions are
// not visible), or "" when none does: Elle checks Adya's, Viper snapshot
// isolation, and fickle's own format is fickle's.
func ReadCommittedBETools(f Format) string { return readCommittedBE[f] }

// ParseFormat accepts a format's name and a few aliases (jsonl, text,
// polysi, edn, bincode, hist).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "", "auto":
		return FormatAuto, nil
	case "jsonl":
		return FormatFickle, nil
	case "text", "polysi":
		return FormatPlume, nil
	case "edn":
		return FormatElle, nil
	case "bincode":
		return FormatDBCopBincode, nil
	case "hist":
		return FormatDBCopHist, nil
	case "dbcop-json":
		return FormatDBCop, nil
	default:
		for _, g := range Formats {
			if f == g {
				return f, nil
			}
		}
	}
	return "", fmt.Errorf("unknown history format %q (known: %s)", s, formatList(Formats))
}

func formatList(fs []Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// Import reads the history at path (a file, gzipped or not, or a directory
// of per-client logs) in format f, detecting it when f is FormatAuto.
// Errors name the file and line or byte offset.
func Import(path string, f Format) (*History, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if f == FormatAuto {
		if f, err = Detect(path); err != nil {
			return nil, err
		}
	}
	if st.IsDir() {
		return importDir(path, f)
	}
	switch f {
	case FormatViper, FormatCobra:
		return importLogs([]string{path}, f)
	}
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if f == FormatFickle {
		cfg := pipelineConfig{parsers: runtime.GOMAXPROCS(0)}
		if st, err := in.Stat(); err == nil && st.Mode().IsRegular() {
			cfg.file = newRowFile(path, st)
		}
		return readJSONLPipeline(in, path, st.Size(), cfg)
	}
	return Read(in, path, f)
}

// Read reads a history in format f (not FormatAuto) from r; name is used
// in errors. Viper and Cobra read r as a single client's log.
func Read(r io.Reader, name string, f Format) (*History, error) {
	switch f {
	case FormatFickle:
		return ReadJSONL(r, name)
	case FormatAWDIT:
		return ReadAWDIT(r, name)
	case FormatPlume:
		return ReadPlume(r, name)
	case FormatDBCop:
		return ReadDBCopJSON(r, name)
	case FormatDBCopHist:
		return ReadDBCopHist(r, name)
	case FormatDBCopBincode:
		return ReadDBCopBincode(r, name)
	case FormatElle:
		return ReadElleEDN(r, name)
	case FormatElleJSON:
		return ReadElleJSON(r, name)
	case FormatViper:
		return ReadViper([]LogFile{{Name: name, R: r}})
	case FormatCobra:
		return ReadCobra([]LogFile{{Name: name, R: r}})
	}
	return nil, fmt.Errorf("%s: cannot read format %q", name, f)
}

// ReadDetect is Read for a stream (such as standard input): when f is
// FormatAuto it detects the format from name's extension and the first
// bytes (decompressed), as Detect does for files.
func ReadDetect(r io.Reader, name string, f Format) (*History, error) {
	d, err := decompress(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	if f == FormatAuto {
		br := d.(*bufio.Reader)
		head, _ := br.Peek(4096)
		ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")))
		var ok bool
		if f, ok = DetectBytes(ext, head); !ok {
			return nil, fileErr(name, "cannot tell the history format; use --format (one of %s)", formatList(Formats))
		}
	}
	return Read(d, name, f)
}

func importDir(dir string, f Format) (*History, error) {
	switch f {
	case FormatDBCopBincode:
		return Import(filepath.Join(dir, "history.bincode"), f)
	case FormatViper, FormatCobra:
		logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
		if err != nil || len(logs) == 0 {
			return nil, fmt.Errorf("%s: no *.log files", dir)
		}
		sort.Strings(logs)
		return importLogs(logs, f)
	}
	return nil, fmt.Errorf("%s is a directory, and format %s is a single file", dir, f)
}

func importLogs(paths []string, f Format) (*History, error) {
	files := make([]LogFile, 0, len(paths))
	for _, p := range paths {
		in, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer in.Close()
		files = append(files, LogFile{Name: p, R: in})
	}
	if f == FormatViper {
		return ReadViper(files)
	}
	return ReadCobra(files)
}

// Detect guesses the format of the file or directory at path from its
// extension (a .gz suffix aside) and its first bytes.
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "history.bincode")); err == nil {
			return FormatDBCopBincode, nil
		}
		logs, _ := filepath.Glob(filepath.Join(path, "*.log"))
		sort.Strings(logs)
		for _, l := range logs {
			head, err := fileHead(l)
			if err != nil {
				return "", err
			}
			if len(bytes.TrimSpace(head)) > 0 {
				return detectLog(head), nil
			}
		}
		if len(logs) > 0 {
			return FormatViper, nil // empty logs: an empty history either way
		}
		return "", fmt.Errorf("%s: cannot tell the history format of this directory (want history.bincode or *.log files); use --format", path)
	}
	head, err := fileHead(path)
	if err != nil {
		return "", err
	}
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz")))
	if f, ok := DetectBytes(ext, head); ok {
		return f, nil
	}
	return "", fmt.Errorf("%s: cannot tell the history format; use --format (one of %s)", path, formatList(Formats))
}

// fileHead returns up to 4 KiB of the (decompressed) start of a file.
func fileHead(path string) ([]byte, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	r, err := decompress(bufio.NewReader(in))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(r, head)
	return head[:n], nil
}

func detectLog(head []byte) Format {
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return FormatViper
	}
	return FormatCobra
}

// DetectBytes guesses a format from a file extension (with its dot, or
// empty) and the file's first bytes.
func DetectBytes(ext string, head []byte) (Format, bool) {
	switch ext {
	case ".jsonl":
		if hasJSONLHeader(head) {
			return FormatFickle, true
		}
		return FormatElleJSON, true
	case ".edn":
		return FormatElle, true
	case ".hist":
		return FormatDBCopHist, true
	case ".bincode":
		return FormatDBCopBincode, true
	case ".log":
		return detectLog(head), true
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 {
		return "", false
	}
	switch {
	case hasJSONLHeader(t):
		return FormatFickle, true
	case t[0] == '{' && bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t\r\n"), []byte(`"value"`)):
		return FormatViper, true
	case t[0] == '{' && (bytes.Contains(t, []byte(`"params"`)) || bytes.Contains(t, []byte(`"data"`))):
		return FormatDBCop, true
	case t[0] == '{' && bytes.Contains(t, []byte(`"type"`)):
		return FormatElleJSON, true
	case t[0] == '{' && bytes.Contains(t, []byte(":type")):
		return FormatElle, true
	case t[0] == '[' && bytes.Contains(t, []byte(`"events"`)):
		return FormatDBCop, true
	case t[0] == '[' && bytes.Contains(t, []byte(`"type"`)):
		return FormatElleJSON, true
	case t[0] == '[' && bytes.Contains(t, []byte(":type")):
		return FormatElle, true
	case t[0] == '[' || bytes.HasPrefix(t, []byte("//")):
		return FormatDBCopHist, true
	case bytes.HasPrefix(t, []byte("r(")) || bytes.HasPrefix(t, []byte("w(")):
		return FormatPlume, true
	case len(t) > 1 && (t[0] == 'r' || t[0] == 'w' || t[0] == '=' || t[0] == '-') && (t[1] == ' ' || t[1] == '\t' || t[1] == t[0]):
		return FormatAWDIT, true
	}
	if len(head) >= 40 && head[0] == 0 && bytes.Count(head[:40], []byte{0}) > 20 {
		return FormatDBCopBincode, true
	}
	return "", false
}

// Export writes h to w in format f (one of WriteFormats).
func Export(w io.Writer, h *History, f Format) error {
	switch f {
	case FormatFickle:
		return WriteJSONL(w, h, Header{})
	case FormatAWDIT:
		return WriteAWDIT(w, h)
	case FormatPlume:
		return WritePlume(w, h)
	case FormatDBCop:
		return WriteDBCopJSON(w, h)
	case FormatDBCopHist:
		return WriteDBCopHist(w, h)
	case FormatElle:
		return WriteElleEDN(w, h)
	}
	return fmt.Errorf("cannot write format %q (writable: %s)", f, formatList(WriteFormats))
}
