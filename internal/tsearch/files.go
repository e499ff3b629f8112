package tsearch

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// DataDirEnv names the environment variable that tells fickle where the
// files of user dictionaries are (stop words, synonyms, unaccent rules):
// PostgreSQL's $SHAREDIR/tsearch_data. Without it fickle asks pg_config
// for PostgreSQL's share directory, and without pg_config it uses
// defaultDataDir, where PostgreSQL 15's packages install the files.
const DataDirEnv = "FICKLE_TSEARCH_DATA"

const defaultDataDir = "/usr/share/postgresql/15/tsearch_data"

var (
	dataDirMu  sync.Mutex
	dataDirSet string
	dataDirDef = sync.OnceValue(func() string {
		if d := os.Getenv(DataDirEnv); d != "" {
			return d
		}
		if out, err := exec.Command("pg_config", "--sharedir").Output(); err == nil {
			if share := strings.TrimSpace(string(out)); share != "" {
				return filepath.Join(share, "tsearch_data")
			}
		}
		return defaultDataDir
	})
)

// SetDataDir makes dir the directory dictionary files are read from
// (fickle serve --tsearch-data); "" goes back to the default.
func SetDataDir(dir string) {
	dataDirMu.Lock()
	dataDirSet = dir
	dataDirMu.Unlock()
}

// DataDir is the directory dictionary files are read from.
func DataDir() string {
	dataDirMu.Lock()
	dir := dataDirSet
	dataDirMu.Unlock()
	if dir != "" {
		return dir
	}
	return dataDirDef()
}

// configFileName is get_tsearch_config_filename: the file base.ext of the
// data directory; the base name may hold only a-z, 0-9 and underscores.
func configFileName(base, ext string) (string, error) {
	if strings.Trim(base, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid text search configuration file name \"%s\"", base)
	}
	return filepath.Join(DataDir(), base+"."+ext), nil
}

// readConfigFile reads the data directory's file base.ext as
// tsearch_readline does, line by line (each line keeps its newline);
// what names the file in the error PostgreSQL raises when it cannot open
// it ("stop-word" gives `could not open stop-word file "..."`).
func readConfigFile(base, ext, what string) ([]string, error) {
	name, err := configFileName(base, ext)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, pgerror.Newf(pgerror.ConfigFileError, "could not open %s file \"%s\": %s", what, name, errnoText(err))
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if !utf8.ValidString(l) || strings.IndexByte(l, 0) >= 0 {
			return nil, pgerror.Newf(pgerror.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\" in line %d of configuration file \"%s\"", i+1, name)
		}
	}
	return lines, nil
}

// errnoText is %m's text of an error opening a file: strerror's.
func errnoText(err error) string {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	case errors.As(err, &errno):
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

// isSpace is t_isspace in the C locale: ASCII white space only.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// readStopWords is readstoplist with lowerstr: the first word of each
// line of the data directory's file base.stop, lower-cased.
func readStopWords(base string) (map[string]bool, error) {
	lines, err := readConfigFile(base, "stop", "stop-word")
	if err != nil {
		return nil, err
	}
	words := map[string]bool{}
	for _, l := range lines {
		end := 0
		for end < len(l) && !isSpace(l[end]) {
			end++
		}
		if end > 0 {
			words[Lower(l[:end])] = true
		}
	}
	return words, nil
}
