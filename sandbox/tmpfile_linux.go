package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// writeUnnamed is the crash-proof first half of [Root.WriteFileAtomic] on
// Linux: the data goes into an unnamed file in dir (O_TMPFILE), synced,
// and only then gets the temporary name tmp, by linkat; the caller renames
// it over the target. A crash while writing leaves nothing in the user's
// tree; only the instant between the link and the rename leaves a named
// file. ok is false, with no error, when the file system or kernel has no
// O_TMPFILE (or /proc is missing): the caller falls back to a named
// temporary file.
func (r *Root) writeUnnamed(dir, tmp string, data []byte, perm fs.FileMode, keep bool) (ok bool, err error) {
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
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), int(d.Fd()), filepath.Base(tmp), unix.AT_SYMLINK_FOLLOW)
	if errors.Is(err, unix.ENOENT) { // no /proc: linking the fd itself needs privilege, try it
		err = unix.Linkat(int(f.Fd()), "", int(d.Fd()), filepath.Base(tmp), unix.AT_EMPTY_PATH)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EPERM) {
			return false, nil
		}
		return true, err
	}
	return true, nil
}
