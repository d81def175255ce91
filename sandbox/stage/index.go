package stage

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// maxIndexBytes bounds the git index read for the mass-deletion guard.
const maxIndexBytes = 64 << 20

// Tracked returns which workspace paths git tracks, read from the
// repository's index (.git/index, versions 2 to 4, SHA-1), or nil when
// there is no index it can read: then every existing file counts as
// tracked ([Rules.Tracked]), which can only ask more.
func Tracked(root string) func(rel string) bool {
	fi, err := os.Lstat(filepath.Join(root, ".git", "index"))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIndexBytes {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		return nil
	}
	names, ok := indexNames(b)
	if !ok {
		return nil
	}
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return func(rel string) bool { return set[rel] }
}

// TrackedLazy is [Tracked] read on first use: a change set without
// deletions never reads the index (which can be tens of MiB). Without a
// readable index every path counts as tracked.
func TrackedLazy(root string) func(rel string) bool {
	var once sync.Once
	var tracked func(string) bool
	return func(rel string) bool {
		once.Do(func() { tracked = Tracked(root) })
		return tracked == nil || tracked(rel)
	}
}

// indexNames parses the entries' path names of a git index file.
func indexNames(b []byte) ([]string, bool) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, false
	}
	ver, n := binary.BigEndian.Uint32(b[4:8]), binary.BigEndian.Uint32(b[8:12])
	if ver < 2 || ver > 4 || n > 1<<24 {
		return nil, false
	}
	const fixed = 62 // times, dev, ino, mode, ids, size, SHA-1, flags
	off, prev := 12, ""
	names := make([]string, 0, n)
	for range n {
		if off+fixed > len(b) {
			return nil, false
		}
		flags := binary.BigEndian.Uint16(b[off+60 : off+62])
		start := off + fixed
		if ver >= 3 && flags&0x4000 != 0 {
			start += 2
		}
		name, next, ok := indexName(b, off, start, ver, prev)
		if !ok {
			return nil, false
		}
		names = append(names, name)
		prev, off = name, next
	}
	return names, true
}

// indexName reads one entry's name at start (entry at off) and returns
// where the next entry begins.
func indexName(b []byte, off, start int, ver uint32, prev string) (string, int, bool) {
	if start > len(b) {
		return "", 0, false
	}
	if ver == 4 {
		strip, p, ok := varint(b, start)
		if !ok || strip > len(prev) {
			return "", 0, false
		}
		end := bytes.IndexByte(b[p:], 0)
		if end < 0 {
			return "", 0, false
		}
		return prev[:len(prev)-strip] + string(b[p:p+end]), p + end + 1, true
	}
	end := bytes.IndexByte(b[start:], 0)
	if end < 0 {
		return "", 0, false
	}
	name := string(b[start : start+end])
	size := start + end - off
	next := off + (size+8)&^7 // 1 to 8 NULs pad the entry to a multiple of 8
	return name, next, !strings.Contains(name, "\x00")
}

// varint reads git's offset varint.
func varint(b []byte, p int) (int, int, bool) {
	if p >= len(b) {
		return 0, 0, false
	}
	c := b[p]
	v := int(c & 127)
	for p++; c&128 != 0; p++ {
		if p >= len(b) || v > 1<<24 {
			return 0, 0, false
		}
		c = b[p]
		v = ((v + 1) << 7) | int(c&127)
	}
	return v, p, true
}

// walkFiles calls fn with each regular file beneath the workspace path
// rel (slash, relative to root), symlinks not followed.
func walkFiles(root, rel string, fn func(rel string)) {
	base := filepath.Join(root, filepath.FromSlash(rel))
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			r, _ := filepath.Rel(root, p)
			fn(filepath.ToSlash(r))
		}
		return nil
	})
}
