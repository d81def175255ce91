//go:build !linux

package sandbox

import "io/fs"

// writeUnnamed has no unnamed files to offer outside Linux: the caller
// uses a named temporary file.
func (r *Root) writeUnnamed(dir, tmp, name string, data []byte, perm fs.FileMode, keep bool) (bool, error) {
	return false, nil
}
