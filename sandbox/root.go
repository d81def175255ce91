package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// ErrNotRegular is returned by [Root.ReadFile] for a FIFO, device, socket
// or directory: reading those can block forever or never end.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned by [Root.ReadFile] for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// MaxFileBytes is the largest workspace file agentls loads: what the file
// tools read, edit and write, and what the server reads from disk or holds
// of an open buffer. One limit, so that a file one side accepts is never
// refused by the other.
const MaxFileBytes = 10 << 20

// Root does file I/O confined to a workspace directory. It wraps an
// [os.Root], so a symlink swapped in after [ResolvePath] still cannot lead
// outside: every operation re-checks containment at use time, against the
// directory handle opened by [OpenRoot].
//
// Names are workspace-relative slash paths as returned by [ResolvePath].
// os.Root refuses absolute symlinks even when they point inside, and does
// not stop /proc files, bind mounts or device nodes that are inside the
// directory; ReadFile refuses non-regular files for that reason.
// A Root is safe for concurrent use.
type Root struct {
	r *os.Root
}

// OpenRoot opens the workspace directory dir.
func OpenRoot(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{r: r}, nil
}

// Close releases the directory handle.
func (r *Root) Close() error { return r.r.Close() }

// Stat returns the file info of rel, following symlinks inside the root.
func (r *Root) Stat(rel string) (fs.FileInfo, error) { return r.r.Stat(osName(rel)) }

// Lstat returns the file info of rel without following a final symlink.
func (r *Root) Lstat(rel string) (fs.FileInfo, error) { return r.r.Lstat(osName(rel)) }

// ReadFile returns the content of the regular file rel. It never blocks on
// a FIFO or device: the type is checked before opening, the file is opened
// non-blocking, and the type is checked again on the open handle. A file
// over max bytes fails with [ErrTooLarge]; max <= 0 means no limit.
func (r *Root) ReadFile(rel string, max int64) ([]byte, error) {
	f, err := r.openNonBlock(rel, func(m fs.FileMode) bool { return m.IsRegular() })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if max > 0 && fi.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", rel, ErrTooLarge, fi.Size(), max)
	}
	var rd io.Reader = f
	if max > 0 {
		rd = io.LimitReader(f, max+1) // the file may grow while we read
	}
	b, err := readSized(rd, fi.Size())
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", rel, ErrTooLarge, max)
	}
	return b, nil
}

// readSized reads rd to its end into one buffer of the size the file
// had, plus one byte to see that it ended: a 10 MiB file costs 10 MiB,
// not the ~2× of io.ReadAll's doubling (issue 27 item 2). A file that grew
// meanwhile is read on with io.ReadAll's growth.
func readSized(rd io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			rest, err := io.ReadAll(rd)
			return append(b, rest...), err
		}
	}
}

// ReadDir returns the entries of directory rel, sorted by name.
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	f, err := r.openNonBlock(rel, fs.FileMode.IsDir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// openNonBlock opens rel for reading if its type passes ok, both before
// the open (a blocking open must not happen) and on the handle (the file
// may have been swapped in between).
func (r *Root) openNonBlock(rel string, ok func(fs.FileMode) bool) (*os.File, error) {
	name := osName(rel)
	fi, err := r.r.Stat(name)
	if err != nil {
		return nil, err
	}
	if !ok(fi.Mode()) {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: typeErr(fi.Mode())}
	}
	f, err := r.r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err = f.Stat()
	if err == nil && !ok(fi.Mode()) {
		err = &fs.PathError{Op: "open", Path: rel, Err: typeErr(fi.Mode())}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func typeErr(m fs.FileMode) error {
	if m.IsDir() {
		return fmt.Errorf("%w: is a directory", ErrNotRegular)
	}
	if m.IsRegular() {
		return errors.New("not a directory")
	}
	return ErrNotRegular
}

// WriteFileAtomic replaces (or creates) the file rel with data, so that
// readers see either the old or the new content, never a mix: it writes a
// temporary file in the same directory, syncs it, and renames it over rel.
// On Linux the data is written to an unnamed file (O_TMPFILE) that gets its
// temporary name only once complete, so a crash while writing leaves no
// file behind; elsewhere, or where the file system cannot, a named one
// (".NAME.agentls-XXXXXXXXXXXX", see [Root.RemoveStaleTemps]) is used.
// Missing parent directories are created inside the root. A new file gets
// perm; an existing one keeps its permission bits.
func (r *Root) WriteFileAtomic(rel string, data []byte, perm fs.FileMode) error {
	name := osName(rel)
	if name == "." {
		return &fs.PathError{Op: "write", Path: rel, Err: errors.New("is the workspace root")}
	}
	dir := filepath.Dir(name)
	if dir != "." {
		if err := r.r.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	keep := false
	if fi, err := r.r.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			return &fs.PathError{Op: "write", Path: rel, Err: typeErr(fi.Mode())}
		}
		perm, keep = fi.Mode().Perm(), true
	}
	tmp := filepath.Join(dir, tempName(filepath.Base(name)))
	handled, err := r.writeUnnamed(dir, tmp, name, data, perm, keep)
	if !handled {
		err = r.writeNamed(tmp, name, data, perm, keep)
	}
	if err != nil {
		return err
	}
	if d, err := r.r.Open(dir); err == nil { // make the rename durable; best effort
		d.Sync()
		d.Close()
	}
	return nil
}

// writeNamed writes data to the new named temporary file tmp and renames
// it over name; on any failure tmp is removed.
func (r *Root) writeNamed(tmp, name string, data []byte, perm fs.FileMode, keep bool) error {
	f, err := r.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.Perm())
	if err != nil {
		return err
	}
	err = writeSync(f, data, perm, keep)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.r.Rename(tmp, name)
	}
	if err != nil {
		r.r.Remove(tmp)
	}
	return err
}

func writeSync(f *os.File, data []byte, perm fs.FileMode, keep bool) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if keep {
		if err := f.Chmod(perm); err != nil { // the umask may have cut it
			return err
		}
	}
	return f.Sync()
}

// osName turns a workspace-relative slash path into an os.Root name.
func osName(rel string) string {
	if rel == "" {
		return "."
	}
	return filepath.FromSlash(path.Clean(rel))
}
