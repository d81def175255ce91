//go:build unix

package shell

import "syscall"

// canSearch reports whether the user may search the directory name.
func canSearch(name string) bool { return syscall.Access(name, 1 /* X_OK */) == nil }
