package stage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Read returns the change set the stage's upper layer holds against the
// workspace root. started is when the command started: a path the
// workspace changed since (its ctime is later) is marked as a conflict
// ([Change.Why] "conflict: …", class Hold), never merged silently. A file
// copied up but left as it was (touched, opened for writing) is no
// change.
func Read(upper, root string, started time.Time) (*Set, error) {
	r := &reader{set: &Set{Root: root, Upper: upper}, started: started}
	if err := r.dir("", false); err != nil {
		return nil, fmt.Errorf("stage: reading the change set: %w", err)
	}
	for _, c := range r.set.Changes {
		c.Conflict = r.conflicts[c.Path]
	}
	return r.set, nil
}

type reader struct {
	set       *Set
	started   time.Time
	conflicts map[string]bool
}

func (r *reader) add(c *Change) { r.set.Changes = append(r.set.Changes, c) }

// dir reads the upper directory rel. hidden: the workspace's entries
// beneath rel are hidden from the command (an opaque directory or one
// beneath it), so those missing from the upper layer were deleted.
func (r *reader) dir(rel string, hidden bool) error {
	entries, err := os.ReadDir(filepath.Join(r.set.Upper, rel))
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
		if err := r.entry(path.Join(rel, e.Name()), hidden); err != nil {
			return err
		}
	}
	if !hidden {
		return nil
	}
	lower, _ := os.ReadDir(filepath.Join(r.set.Root, rel))
	for _, e := range lower {
		if !names[e.Name()] {
			r.deleted(path.Join(rel, e.Name()))
		}
	}
	return nil
}

// entry reads one entry of the upper layer.
func (r *reader) entry(rel string, hidden bool) error {
	up := filepath.Join(r.set.Upper, rel)
	ufi, err := os.Lstat(up)
	if err != nil {
		return err
	}
	lfi, lerr := os.Lstat(filepath.Join(r.set.Root, rel))
	exists := lerr == nil
	if exists && ctimeAfter(lfi, r.started) {
		r.conflict(rel)
	}
	m := ufi.Mode()
	switch {
	case isWhiteout(ufi):
		if exists {
			r.deleted(rel)
		}
		return nil
	case m.IsDir():
		return r.directory(rel, ufi, lfi, exists, hidden || opaque(up))
	case m.IsRegular(), m&fs.ModeSymlink != 0:
		return r.leaf(rel, ufi, lfi, exists)
	}
	// A FIFO, socket or device: never merged.
	r.add(&Change{Path: rel, Op: opFor(exists), Type: m.Type(), Class: Refuse, Why: "a special file (" + m.Type().String() + ") is never copied into the workspace"})
	return nil
}

func (r *reader) directory(rel string, ufi, lfi fs.FileInfo, exists, hidden bool) error {
	switch {
	case !exists:
		r.add(&Change{Path: rel, Op: Add, Type: fs.ModeDir, Perm: ufi.Mode().Perm()})
		hidden = false // nothing below to hide
	case !lfi.IsDir():
		r.deleted(rel)
		r.add(&Change{Path: rel, Op: Add, Type: fs.ModeDir, Perm: ufi.Mode().Perm()})
		hidden = false
	case lfi.Mode().Perm() != ufi.Mode().Perm():
		r.add(&Change{Path: rel, Op: Modify, Type: fs.ModeDir, Perm: ufi.Mode().Perm()})
	}
	return r.dir(rel, hidden)
}

func (r *reader) leaf(rel string, ufi, lfi fs.FileInfo, exists bool) error {
	c := &Change{Path: rel, Op: Add, Type: ufi.Mode().Type(), Perm: ufi.Mode().Perm(), Size: ufi.Size()}
	if c.Type == fs.ModeSymlink {
		t, err := os.Readlink(filepath.Join(r.set.Upper, rel))
		if err != nil {
			return err
		}
		c.Target, c.Perm, c.Size = t, 0, 0
	}
	if exists {
		same, err := r.same(rel, c, lfi)
		if err != nil || same {
			return err
		}
		if lfi.IsDir() {
			r.deleted(rel)
		} else {
			c.Op = Modify
		}
	}
	r.add(c)
	return nil
}

// same reports whether the workspace holds rel exactly as the upper
// layer does (a copy-up without a change).
func (r *reader) same(rel string, c *Change, lfi fs.FileInfo) (bool, error) {
	switch {
	case lfi.Mode().Type() != c.Type:
		return false, nil
	case c.Type == fs.ModeSymlink:
		t, err := os.Readlink(filepath.Join(r.set.Root, rel))
		return err == nil && t == c.Target, nil
	case lfi.Mode().Perm() != c.Perm || lfi.Size() != c.Size:
		return false, nil
	}
	return sameContent(filepath.Join(r.set.Upper, rel), filepath.Join(r.set.Root, rel))
}

// deleted records the deletion of the workspace path rel.
func (r *reader) deleted(rel string) {
	fi, err := os.Lstat(filepath.Join(r.set.Root, rel))
	if err != nil {
		return
	}
	c := &Change{Path: rel, Op: Delete, Type: fi.Mode().Type(), Files: 1}
	if fi.IsDir() {
		c.Files = countFiles(filepath.Join(r.set.Root, rel))
	}
	if ctimeAfter(fi, r.started) {
		r.conflict(rel)
	}
	r.add(c)
}

func (r *reader) conflict(rel string) {
	if r.conflicts == nil {
		r.conflicts = map[string]bool{}
	}
	r.conflicts[rel] = true
}

// countFiles counts the regular files beneath dir, symlinks not followed.
func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// isWhiteout reports overlayfs's mark of a deleted entry: a character
// device 0:0.
func isWhiteout(fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeCharDevice == 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Rdev == 0
}

// opaque reports overlayfs's mark of a directory that replaced the
// workspace's (everything beneath it was deleted first): the xattr
// overlay.opaque "y", as an unprivileged mount (userxattr) or root's
// writes it.
func opaque(p string) bool {
	buf := make([]byte, 4)
	for _, name := range []string{"user.overlay.opaque", "trusted.overlay.opaque"} {
		if n, err := unix.Lgetxattr(p, name, buf); err == nil && n >= 1 && (buf[0] == 'y' || buf[0] == 'x') {
			return true
		}
	}
	return false
}

// ctimeAfter reports whether fi's inode changed after t.
func ctimeAfter(fi fs.FileInfo, t time.Time) bool {
	if t.IsZero() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec).After(t)
}

// sameContent compares two regular files byte by byte, without following
// a symlink or blocking on a FIFO swapped in.
func sameContent(a, b string) (bool, error) {
	fa, err := openFileAt(unix.AT_FDCWD, a)
	if err != nil {
		return false, err
	}
	defer unix.Close(fa)
	fb, err := openFileAt(unix.AT_FDCWD, b)
	if err != nil {
		return false, nil // changed meanwhile: not the same
	}
	defer unix.Close(fb)
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fdReader(fa), ba)
		nb, eb := io.ReadFull(fdReader(fb), bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea != nil || eb != nil {
			return errors.Is(ea, io.ErrUnexpectedEOF) || ea == io.EOF, nil
		}
	}
}

// blocks returns the bytes p occupies on disk.
func blocks(p string) int64 {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return 0
	}
	return st.Blocks * 512
}

func opFor(exists bool) Op {
	if exists {
		return Modify
	}
	return Add
}

// ownedByMe reports whether this process's user owns fi's file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
