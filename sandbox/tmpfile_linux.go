package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// writeUnnamed is [Root.WriteFileAtomic] on Linux: the data goes into an
// unnamed file in dir (O_TMPFILE), synced, and only then gets the
// temporary name tmp, by linkat, and at once the name name, by renameat on
// the same directory descriptor. A crash while writing leaves nothing in
// the user's tree; only the instant between the two system calls leaves a
// complete, named temporary file (removed at the next start, see
// [Root.RemoveStaleTemps]). handled is false, with no error, when the file
// system or kernel has no O_TMPFILE (or /proc is missing): the caller
// falls back to a named temporary file.
func (r *Root) writeUnnamed(dir, tmp, name string, data []byte, perm fs.FileMode, keep bool) (handled bool, err error) {
	f, err := r.r.OpenFile(dir, os.O_WRONLY|unix.O_TMPFILE, perm.Perm())
	if err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
			return false, nil
		}
		return false, err
	}
	defer f.Close()
	if err := writeSync(f, data, perm, keep); err != nil {
		return true, err
	}
	d, err := r.r.Open(dir)
	if err != nil {
		return true, err
	}
	defer d.Close()
	dfd, tmpBase := int(d.Fd()), filepath.Base(tmp)
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), dfd, tmpBase, unix.AT_SYMLINK_FOLLOW)
	if errors.Is(err, unix.ENOENT) { // no /proc: linking the fd itself needs privilege, try it
		err = unix.Linkat(int(f.Fd()), "", dfd, tmpBase, unix.AT_EMPTY_PATH)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EPERM) {
			return false, nil
		}
		return true, err
	}
	if err := unix.Renameat(dfd, tmpBase, dfd, filepath.Base(name)); err != nil {
		unix.Unlinkat(dfd, tmpBase, 0)
		return true, &os.LinkError{Op: "rename", Old: tmp, New: name, Err: err}
	}
	return true, nil
}
