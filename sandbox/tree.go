package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveTree removes dir and everything in it, also directories a
// sandboxed command left without write or search permission (and
// overlayfs's work directory, whose entries the kernel makes without
// any): it retries after making every directory in it 0700.
func RemoveTree(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
