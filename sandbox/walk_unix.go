//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Dir is an open workspace directory for walking a tree with one handle
// per directory: its children are opened relative to it (openat), never by
// a path from the root, and never through a symlink (O_NOFOLLOW), so a
// directory swapped for a symlink during a walk is refused, not followed.
// A Dir is safe for concurrent use until Close.
type Dir struct {
	f  *os.File // owns fd; kept so the descriptor lives until Close
	fd int
}

// OpenDir opens the directory rel (workspace-relative, as returned by
// [ResolvePath]: no symlinks on the way) under root, the absolute
// workspace root, one component at a time with O_NOFOLLOW|O_DIRECTORY: a
// symlink anywhere below root fails with ELOOP or ENOTDIR.
func OpenDir(root, rel string) (*Dir, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: ".", Err: err}
	}
	d := newDir(fd, ".")
	for _, c := range strings.Split(osName(rel), string(os.PathSeparator)) {
		if c == "." || c == "" {
			continue
		}
		next, err := d.OpenDir(c)
		d.Close()
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: rel, Err: errors.Unwrap(err)}
		}
		d = next
	}
	return d, nil
}

func newDir(fd int, name string) *Dir { return &Dir{f: os.NewFile(uintptr(fd), name), fd: fd} }

// OpenDir opens the child directory name (one component) without following
// a symlink.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	if !validName(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return newDir(fd, name), nil
}

// Entries lists the directory, sorted by name. The types come from the
// directory listing itself (d_type), so listing costs no stat per entry.
func (d *Dir) Entries() ([]fs.DirEntry, error) {
	// ReadDir reads from the shared offset: a Dir is listed once, by the
	// goroutine that opened it, before its children are handed out.
	ents, err := d.f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// ReadFile reads the regular file name (one component) into buf (grown as
// needed; pass buf[:0] to reuse it). It never follows a symlink and never
// blocks on a FIFO or device: the file is opened with O_NOFOLLOW|
// O_NONBLOCK and its type is checked on the handle ([ErrNotRegular]). A
// file over max bytes fails with [ErrTooLarge] before it is read.
func (d *Dir) ReadFile(name string, max int64, buf []byte) ([]byte, error) {
	if !validName(name) {
		return buf, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return buf, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return buf, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return buf, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	if st.Size > max {
		return buf, fmt.Errorf("%s: %w (%d bytes, limit %d)", name, ErrTooLarge, st.Size, max)
	}
	return readAll(fd, name, int(st.Size), max, buf)
}

// readAll reads fd until EOF, or until size bytes when the file did not
// grow (one read for most files), refusing more than max bytes.
func readAll(fd int, name string, size int, max int64, buf []byte) ([]byte, error) {
	buf = slices.Grow(buf[:0], size+1)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf[:0], &fs.PathError{Op: "read", Path: name, Err: err}
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return buf[:0], fmt.Errorf("%s: %w (over %d bytes)", name, ErrTooLarge, max)
		}
		if n == 0 || len(buf) == size {
			return buf, nil
		}
	}
}

// Close releases the handle.
func (d *Dir) Close() error { return d.f.Close() }

// validName reports whether name is one path component.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsRune(name, '/')
}
