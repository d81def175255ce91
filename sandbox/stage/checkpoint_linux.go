package stage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// befores reads the state of every regular file the changes touch:
// files added (none before), changed, deleted, and every file beneath a
// deleted directory; symlinks and directories are not kept.
func (m *merger) befores(changes []*Change) []Before {
	var out []Before
	total := 0
	read := func(dirfd int, name, rel string) {
		b := Before{Path: rel, Exists: true}
		old, err := readAt(dirfd, name)
		switch {
		case err != nil:
			return // not a regular file (any more): nothing to keep
		case len(old) > MaxKeep || total+len(old) > MaxKeepTotal:
			b.TooBig = true
		default:
			b.Old, total = old, total+len(old)
		}
		out = append(out, b)
	}
	for _, c := range changes {
		switch {
		case c.Type == 0 && c.Op == Add:
			out = append(out, Before{Path: c.Path})
		case c.Type == 0 && c.Op == Modify, c.Op == Delete && c.Type == 0:
			dir, name := path.Split(c.Path)
			if fd, err := openBeneath(m.root, strings.TrimSuffix(dir, "/")); err == nil {
				read(fd, name, c.Path)
				unix.Close(fd)
			}
		case c.Op == Delete && c.IsDir():
			if fd, err := openBeneath(m.root, c.Path); err == nil {
				walkFD(fd, c.Path, read)
				unix.Close(fd)
			}
		}
	}
	return out
}

// afters is every kept file's state after the merge: its new hash, gone,
// or (a change that did not land) what it was before.
func (m *merger) afters(befores []Before) []After {
	out := make([]After, 0, len(befores))
	for _, b := range befores {
		a := After{Path: b.Path}
		switch sum, ok := m.hashes[b.Path]; {
		case ok:
			a.Hash, a.Exists = sum, true
		case m.deleted(b.Path):
		case b.TooBig:
			continue // unknown: the revert asks the user to check
		case b.Exists:
			a.Hash, a.Exists = hashOf(b.Old), true // it did not land: unchanged
		}
		out = append(out, a)
	}
	return out
}

// deleted reports whether rel, or a directory above it, was deleted.
func (m *merger) deleted(rel string) bool {
	for p := rel; p != "." && p != ""; p = path.Dir(p) {
		if m.gone[p] {
			return true
		}
	}
	return false
}

// walkFD calls fn for each regular file beneath the directory fd (rel),
// never following a symlink.
func walkFD(fd int, rel string, fn func(dirfd int, name, rel string)) {
	names, err := readNames(fd)
	if err != nil {
		return
	}
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			fn(fd, n, rel+"/"+n)
		case unix.S_IFDIR:
			if sub, err := unix.Openat(fd, n, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
				walkFD(sub, rel+"/"+n, fn)
				unix.Close(sub)
			}
		}
	}
}

// hashMoved hashes the files that landed with the directory top (beneath
// pfd), opening each directory once, never through a symlink.
func (m *merger) hashMoved(pfd int, top string, below []*Change) {
	parent, _ := path.Split(top)
	fds := map[string]int{strings.TrimSuffix(parent, "/"): pfd}
	defer func() {
		for _, fd := range fds {
			if fd != pfd && fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	var open func(dir string) int
	open = func(dir string) int {
		if fd, ok := fds[dir]; ok {
			return fd
		}
		up, name := path.Split(dir)
		fd := -1
		if pf := open(strings.TrimSuffix(up, "/")); pf >= 0 {
			fd, _ = unix.Openat(pf, name, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		fds[dir] = fd
		return fd
	}
	for _, o := range below {
		if o.Type != 0 {
			continue
		}
		dir, name := path.Split(o.Path)
		if fd := open(strings.TrimSuffix(dir, "/")); fd >= 0 {
			if sum, err := hashAt(fd, name); err == nil {
				m.hashes[o.Path] = sum
			}
		}
	}
}

// openFileAt opens the regular file name beneath dirfd without following
// a symlink or blocking on a FIFO. The descriptor is read with plain
// system calls: an *os.File of a non-blocking descriptor would register
// each file with the runtime's poller (a thousand files a merge).
func openFileAt(dirfd int, name string) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, fmt.Errorf("%s is not a regular file", name)
	}
	return fd, nil
}

// fdReader reads a descriptor with read(2).
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(r), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// readAt reads the regular file name beneath dirfd, at most MaxKeep+1
// bytes.
func readAt(dirfd int, name string) ([]byte, error) {
	fd, err := openFileAt(dirfd, name)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return io.ReadAll(io.LimitReader(fdReader(fd), MaxKeep+1))
}

// hashAt returns the hex SHA-256 of the regular file name beneath dirfd.
func hashAt(dirfd int, name string) (string, error) {
	fd, err := openFileAt(dirfd, name)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	h := sha256.New()
	buf := hashBufs.Get().(*[32 << 10]byte)
	defer hashBufs.Put(buf)
	if _, err := io.CopyBuffer(h, fdReader(fd), buf[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashBufs are hashAt's read buffers.
var hashBufs = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
