//go:build !unix

package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// Dir is an open workspace directory for walking a tree (see the unix
// version). Here it is an [os.Root] per directory: children are opened
// inside it, and a symlink is refused by an Lstat before the open (os.Root
// still keeps a swapped-in symlink inside the directory).
type Dir struct{ r *os.Root }

// OpenDir opens the directory rel under root.
func OpenDir(root, rel string) (*Dir, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	d := &Dir{r: r}
	for _, c := range strings.Split(osName(rel), string(os.PathSeparator)) {
		if c == "." || c == "" {
			continue
		}
		next, err := d.OpenDir(c)
		d.Close()
		if err != nil {
			return nil, err
		}
		d = next
	}
	return d, nil
}

// OpenDir opens the child directory name without following a symlink.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	if !validName(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if fi, err := d.r.Lstat(name); err != nil || !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("not a directory")}
	}
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &Dir{r: r}, nil
}

// Entries lists the directory, sorted by name.
func (d *Dir) Entries() ([]fs.DirEntry, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// ReadFile reads the regular file name into buf, refusing symlinks,
// non-regular files and files over max bytes.
func (d *Dir) ReadFile(name string, max int64, buf []byte) ([]byte, error) {
	if !validName(name) {
		return buf, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fi, err := d.r.Lstat(name)
	if err != nil {
		return buf, err
	}
	if !fi.Mode().IsRegular() {
		return buf, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	if fi.Size() > max {
		return buf, fmt.Errorf("%s: %w (%d bytes, limit %d)", name, ErrTooLarge, fi.Size(), max)
	}
	f, err := d.r.Open(name)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if int64(len(b)) > max {
		return buf, fmt.Errorf("%s: %w (over %d bytes)", name, ErrTooLarge, max)
	}
	return append(buf[:0], b...), err
}

// Close releases the handle.
func (d *Dir) Close() error { return d.r.Close() }

func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`)
}
