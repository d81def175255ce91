package builtin

import (
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

// Bounds of [WorkspaceHasSQLite]: it runs before every execute run's first
// model request, so it must stay cheap on any workspace.
const (
	sqliteProbeEntries = 2000                  // directory entries looked at, at most
	sqliteProbeTime    = 50 * time.Millisecond // time spent, at most
)

// sqliteExts are the file name extensions SQLite databases go by; only such
// files are opened, to read their header.
var sqliteExts = map[string]bool{".db": true, ".sqlite": true, ".sqlite3": true, ".db3": true, ".s3db": true, ".sl3": true}

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// WorkspaceHasSQLite reports whether sql_query can be of use in the
// workspace at root (issue 16: a tool that cannot be used is not offered).
// It walks the workspace breadth first through an [os.Root] (no symlink is
// followed, .git and node_modules are skipped) and looks for a regular
// file with a SQLite extension (sqliteExts) that starts with the SQLite
// header. The walk is bounded (sqliteProbeEntries entries,
// sqliteProbeTime): when it stops early, or the root cannot be read, the
// answer is true, so a large or slow workspace keeps the tool. Leaving it
// out is an economy of request bytes, never a guarantee.
func WorkspaceHasSQLite(root string) bool {
	r, err := os.OpenRoot(root)
	if err != nil {
		return true
	}
	defer r.Close()
	fsys := r.FS()
	deadline := time.Now().Add(sqliteProbeTime)
	seen := 0
	for queue := []string{"."}; len(queue) > 0; queue = queue[1:] {
		if time.Now().After(deadline) {
			return true
		}
		entries, err := fs.ReadDir(fsys, queue[0])
		if err != nil {
			if queue[0] == "." {
				return true
			}
			continue // an unreadable subdirectory holds nothing sql_query could open either
		}
		for _, e := range entries {
			if seen++; seen > sqliteProbeEntries {
				return true
			}
			rel := path.Join(queue[0], e.Name())
			switch {
			case e.IsDir() && !searchSkipDirs[e.Name()]:
				queue = append(queue, rel)
			case e.Type().IsRegular() && sqliteExts[strings.ToLower(path.Ext(e.Name()))] && isSQLiteFile(r, rel):
				return true
			}
		}
	}
	return false
}

// isSQLiteFile reports whether the file rel in r starts with the SQLite
// header. It opens without blocking, in case the file was swapped for a
// FIFO since the directory was read.
func isSQLiteFile(r *os.Root, rel string) bool {
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	var hdr [len(sqliteMagic)]byte
	_, err = io.ReadFull(f, hdr[:])
	return err == nil && string(hdr[:]) == sqliteMagic
}
