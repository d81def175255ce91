package tools

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// spillLarge implements A15. When s has at most limit characters (runes;
// limit <= 0 means [MaxResultChars]) it returns s unchanged and no path.
// Otherwise it stores s in a new file in dir (created 0700 if needed;
// written to a temporary file, synced and renamed, mode 0600) and returns a
// summary — the first and last part of s around a note with the path, the
// size and the line count — and the file's path.
//
// dir should be the workspace's state directory for results (for
// example <workspace>/.agentls/results), so that the model can page
// through the file with read_file; the caller turns the path into a
// workspace-relative one for the model and cleans old files up. If the
// file cannot be written the summary says so and err is non-nil.
func spillLarge(dir, s string, limit int) (summary, path string, err error) {
	if limit <= 0 {
		limit = MaxResultChars
	}
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s, "", nil
	}
	headN, tailN := min(6000, limit*3/5), min(2000, limit/5)
	head, tail := firstRunes(s, headN), lastRunes(s, tailN)
	path, err = writeResult(dir, s)
	lines := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		lines++
	}
	var note string
	if err != nil {
		note = fmt.Sprintf("[… %d of %d characters not shown; the full output could not be saved …]",
			n-headN-tailN, n)
	} else {
		note = fmt.Sprintf("[… %d of %d characters not shown. The full output (%d bytes, %d lines) "+
			"is saved in %s: read it in pages with read_file (offset, limit) …]",
			n-headN-tailN, n, len(s), lines, path)
	}
	return head + "\n" + note + "\n" + tail, path, err
}

// writeResult stores s in a new file in dir and returns its path: written
// to a temporary file, synced, and renamed, so that a reader never sees
// part of it.
func writeResult(dir, s string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".result-*.tmp")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_, err = f.WriteString(s)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600)
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	path := filepath.Join(dir, "result-"+time.Now().UTC().Format("20060102-150405")+"-"+
		hex.EncodeToString(rnd[:])+".txt")
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return path, nil
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRunes(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}
