package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxConfigBytes is the size cap of a configuration file (policy, hooks,
// MCP servers): far above any real one, far below what hurts.
const MaxConfigBytes = 1 << 20

// ReadConfigFile reads rel, a workspace-relative slash path, inside the
// directory dir, as untrusted configuration (T20): only a regular file
// that lies inside dir, symlinks included (an outside target, /dev/zero
// for one, is refused), never a FIFO, device or directory, opened without
// blocking, at most max bytes (max <= 0 means [MaxConfigBytes]). A missing
// file is an error for which errors.Is(err, fs.ErrNotExist) holds. The
// error names rel and why, never the file's content or where a symlink
// leads.
func ReadConfigFile(dir, rel string, max int64) ([]byte, error) {
	if max <= 0 {
		max = MaxConfigBytes
	}
	r, err := OpenRoot(dir)
	if err != nil {
		return nil, configErr(rel, err)
	}
	defer r.Close()
	b, err := r.ReadFile(rel, max)
	if err != nil {
		return nil, configErr(rel, err)
	}
	return b, nil
}

// ReadRegularFile reads the file name, following symlinks wherever they
// lead (the user's own files, such as a dotfiles checkout), but otherwise
// as [ReadConfigFile] does: a regular file only, opened without blocking,
// at most max bytes (max <= 0 means [MaxConfigBytes]).
func ReadRegularFile(name string, max int64) ([]byte, error) {
	if max <= 0 {
		max = MaxConfigBytes
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, configErr(name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, configErr(name, typeErr(fi.Mode()))
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, configErr(name, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, configErr(name, err)
	}
	if !fi.Mode().IsRegular() { // swapped after the first check
		return nil, configErr(name, typeErr(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, configErr(name, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, configErr(name, err)
	}
	if int64(len(b)) > max {
		return nil, configErr(name, ErrTooLarge)
	}
	return b, nil
}

// configErr says why name cannot be read in a few fixed words: the
// sentinels stay reachable with errors.Is, nothing else of err (an os.Root
// message naming a symlink's target, say) is shown.
func configErr(name string, err error) error {
	var why error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why = fs.ErrNotExist
	case errors.Is(err, ErrTooLarge):
		why = ErrTooLarge
	case errors.Is(err, ErrNotRegular):
		why = ErrNotRegular
	case errors.Is(err, fs.ErrPermission):
		why = fs.ErrPermission
	case errors.Is(err, syscall.ELOOP):
		why = errors.New("too many symbolic links")
	default:
		// os.Root reports a symlink out of the directory as "path escapes
		// from parent"; say what it means.
		why = errors.New("not a file inside the workspace")
	}
	return fmt.Errorf("%s: %w", name, why)
}
