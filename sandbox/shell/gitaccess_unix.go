//go:build unix

package shell

import "golang.org/x/sys/unix"

// canSearch reports whether the user may search the directory name.
func canSearch(name string) bool { return unix.Access(name, unix.X_OK) == nil }
